/**
 * repeated-rows, as the filler decides it: whether a list's rows repeat once per object of
 * the FROM entity, through a join that reaches many partners from it or a partner that many
 * of them share.
 */
import type { ErIndex } from '../../../er-model/er-index.ts';
import type { Join } from '../../../query/conceptual-query.ts';

export function repeatsBase(index: ErIndex, base: string, joins: readonly Join[]): boolean {
  return joins.some((j) => {
    if (j.kind === 'elements') return j.of === base;
    const c = index.relationship(j.relationship).cardinality;
    const toOne = c === 'one-to-one' || (c === 'many-to-one' && j.direction === 'forward');
    const shared = c === 'many-to-many' || (c === 'many-to-one' && j.direction === 'forward');
    return (j.from === base && !toOne) || shared;
  });
}
