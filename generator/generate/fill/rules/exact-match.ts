/**
 * exact-match, as the filler proposes it: `=`, `<>` and IN on what takes few or identifying
 * values (categories, flags, names, identifiers, contacts, days, counts, scores), and on a
 * measure in whole units (an age of 30; its value must also be typed, see typed-value.ts).
 * Never on free text, a measure in fractions or an instant.
 */
import type { AttributeRole, AttributeType } from '../../../er-model/er-model.ts';

const MATCHED = ['category', 'flag', 'name', 'identifier', 'contact', 'date', 'count', 'score'];

export function matchable(role: AttributeRole | undefined, type?: AttributeType): boolean {
  if (role?.kind === 'measure') return type?.kind === 'integer' || type?.kind === 'bigint';
  return role !== undefined && MATCHED.includes(role.kind);
}
