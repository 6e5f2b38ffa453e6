/**
 * exact-match, as the filler proposes it: `=`, `<>` and IN on what takes few or identifying
 * values (categories, flags, names, identifiers, contacts, days, scores), and on a measure or
 * count of a small whole-number range (an age of 30, 3 items; its value must also be typed,
 * see typed-value.ts). Never on free text, an instant, or a price or a stock level asked to
 * the unit.
 */
import type { Attribute, AttributeRole } from '../../../er-model/er-model.ts';

const MATCHED = ['category', 'flag', 'name', 'identifier', 'contact', 'date', 'score'];

/** The largest whole number of a small range: above it, a value is asked for as a range. */
export const SMALL_RANGE = 150;

export function matchable(role: AttributeRole | undefined, attribute?: Attribute): boolean {
  if (role?.kind === 'measure' || role?.kind === 'count') {
    const whole = attribute?.type.kind === 'integer' || attribute?.type.kind === 'bigint';
    const max = attribute?.hints?.max;
    return whole && typeof max === 'number' && max <= SMALL_RANGE;
  }
  return role !== undefined && MATCHED.includes(role.kind);
}
