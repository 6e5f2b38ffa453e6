/**
 * group-key, as the filler proposes it: attributes to group by are categories and flags
 * (an entity is grouped by its id and shown by its name; a date by its year).
 */
import type { AttributeRole } from '../../../er-model/er-model.ts';

export function groupable(role: AttributeRole | undefined): boolean {
  return role?.kind === 'category' || role?.kind === 'flag';
}
