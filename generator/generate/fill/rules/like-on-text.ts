/** like-on-text, as the filler proposes it: LIKE searches names and free text. */
import type { AttributeRole } from '../../../er-model/er-model.ts';

export function searchable(role: AttributeRole | undefined): boolean {
  return role?.kind === 'name' || role?.kind === 'description';
}
