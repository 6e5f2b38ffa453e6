import type { SelectQuery } from '../query/conceptual-query.ts';
import type { MeaningRule } from './meaning-rules.ts';
import type { QueryMeaning } from './query-meaning.ts';

/**
 * One rule of the meaning check: a pure function from a query (each SELECT of it, or the
 * query as a whole) to what it finds wrong, one line each.
 */
export interface MeaningCheck {
  readonly rule: MeaningRule;
  /** Run on every SELECT of the query, subqueries and set arms included. */
  readonly select?: (m: QueryMeaning, q: SelectQuery) => readonly string[];
  /** Run once on the whole query. */
  readonly query?: (m: QueryMeaning) => readonly string[];
}
