/**
 * What the filler may do with an attribute of each role: the slot kinds a role fills. Each
 * function is one rule of meaning (named beside it) in the filler's own form: it decides
 * which attributes are proposed for a slot, so that meaningful fillings come first and the
 * meaning check (generator/meaning/) rarely finds anything to reject.
 */
import type { AttributeRole, AttributeRoleKind, AttributeType } from '../../../er-model/er-model.ts';

const has = (kinds: readonly AttributeRoleKind[]) => (role: AttributeRole | undefined): boolean => role !== undefined && kinds.includes(role.kind);

/**
 * exact-match: `=`, `<>` and IN on what takes few or identifying values, and on a measure
 * in whole units (an age of 30; its value must also be typed, see typed-values.ts).
 */
export function matchable(role: AttributeRole | undefined, type?: AttributeType): boolean {
  if (role?.kind === 'measure') return type?.kind === 'integer' || type?.kind === 'bigint';
  return has(['category', 'flag', 'name', 'identifier', 'contact', 'date', 'count', 'score'])(role);
}

/** range-on-quantity: <, >, BETWEEN on what is ordered. */
export const rangeable = has(['measure', 'count', 'score', 'date', 'time']);

/** like-on-text: LIKE on names and free text. */
export const searchable = has(['name', 'description']);

/** group-key: few-valued attributes to group by (an entity is grouped by its id). */
export const groupable = has(['category', 'flag']);

/** shown-by-name: what says which object a row is about. */
export const naming = has(['name', 'identifier', 'contact']);

/** aggregate-argument: AVG, MIN, MAX of quantities (MIN and MAX of dates too, elsewhere). */
export const averageable = has(['measure', 'count', 'score']);

/** aggregate-argument: COUNT(DISTINCT …) of what names or sorts objects. */
export const distinctCountable = has(['identifier', 'name', 'category', 'contact']);

/** additive-sum: SUM of additive measures and counts. */
export function summable(role: AttributeRole | undefined): boolean {
  return role !== undefined && (role.kind === 'count' || (role.kind === 'measure' && role.additive));
}
