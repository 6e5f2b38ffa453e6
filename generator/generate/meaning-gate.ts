/**
 * The meaning check as a step of generation: a filled candidate that breaks a rule of meaning
 * is rejected before it costs the database anything, with the rule as its reason. Groups
 * from a user's suite are theirs and are not judged.
 */
import type { ErIndex } from '../er-model/er-index.ts';
import type { Query } from '../query/conceptual-query.ts';
import { checkMeaning } from '../meaning/check-meaning.ts';
import { reject } from '../records/group-record.ts';

/** Throws `not-meaningful:<rule>` for the first violation of the rules of meaning. */
export function rejectMeaningless(index: ErIndex, query: Query): void {
  const [first, ...rest] = checkMeaning(index, query);
  if (first)
    reject(`not-meaningful:${first.rule}`, `${first.detail}${rest.length > 0 ? ` (and ${rest.length} more)` : ''}`);
}
