import type { ErIndex } from '../../er-model/er-index.ts';
import type { Query } from '../../query/conceptual-query.ts';
import { createContext, type RequiredMention } from './context.ts';
import { selectFrame } from './select-frame.ts';
import { setFrame } from './set-frame.ts';

export type { RequiredMention } from './context.ts';
export { listing, literalText } from './english.ts';

/**
 * The meaning of a conceptual query in English parts (a "frame"), built compositionally from
 * the E/R lexicon by visitors keyed by node kind. The template writer arranges the parts into
 * sentences of each style; the parts themselves already state every answer-deciding choice
 * (subtype scope, LEFT-join zero counts, NULL handling, distinctness, output columns, order
 * with its tie-break, limit), so no style can drop one by accident.
 */
export interface QueryFrame {
  /** The output columns, in order ("the id of the creator and the number of channels …"). */
  readonly outputs: string;
  /** What the rows range over ("every creator, streamers included, …"). */
  readonly rows: string;
  /** ", for each …" of a grouped query, or empty. */
  readonly group: string;
  /** ", where …" or empty. */
  readonly filter: string;
  /** The bare WHERE condition (the implicit style defines a term with it), or empty. */
  readonly condition: string;
  /** ", keeping only groups where …" or empty. */
  readonly having: string;
  /** ", sorted by …, ties broken by …" or empty. */
  readonly order: string;
  /** ", only the first N rows" or empty. */
  readonly limit: string;
  /** Whole sentences on NULLs, zero counts and duplicates (and, with conventions as evidence, subtype scope and unmatched rows). */
  readonly notes: readonly string[];
  /** The plural noun of the base entity, for scenarios ("creators"). */
  readonly topic: string;
  /** The constructs realized, for the record's check (`template-coverage`). */
  readonly covered: readonly string[];
}

/**
 * Builds the frame of a query. Throws on a node kind or name the model does not have.
 *
 * The describers are split by construct family, each handed the one context of the query:
 * `aliases.ts` (what each alias is), `nouns.ts` (nouns, subtype scope, relationship
 * phrases), `joins.ts`, `expressions.ts`, `aggregates.ts`, `predicates.ts`,
 * `subqueries.ts`, `order.ts`, `window.ts`, `analytic.ts`, and the two frames
 * (`select-frame.ts`, `set-frame.ts`).
 */
export function describeQuery(
  index: ErIndex,
  query: Query,
  conventions: 'inline' | 'evidence' = 'inline',
): { frame: QueryFrame; mentions: readonly RequiredMention[] } {
  const d = createContext(index, query, conventions);
  const frame = query.kind === 'set' ? setFrame(d, query) : selectFrame(d, query);
  return { frame, mentions: d.mentions };
}
