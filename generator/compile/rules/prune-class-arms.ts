import type { ErIndex } from '../../er-model/er-index.ts';
import type { Query } from '../../query/conceptual-query.ts';
import { mapParts } from '../../query/walk.ts';

/**
 * Naming an object's class, the first listed class it belongs to wins; a class listed after
 * one of its ancestors can never be the answer (every one of its objects already took the
 * ancestor's name). Its arm goes before lowering, and so does the join that would test it.
 *
 * @example
 * // { kind: 'classOf', alias: 'a', among: ['CreatorAccount', 'Streamer', 'ConsumerAccount'] }
 * // → among: ['CreatorAccount', 'ConsumerAccount']  (a streamer is a creator account)
 */
export function pruneClassArms(query: Query, index: ErIndex): Query {
  return mapParts(query, (n) => {
    if (n.kind !== 'classOf') return n;
    const among = n.among.filter((c, i) => !n.among.slice(0, i).some((earlier) => index.isAncestorOrSelf(earlier, c)));
    return among.length === n.among.length ? n : { ...n, among };
  });
}
