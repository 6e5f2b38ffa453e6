/** shown-by-name, as the filler proposes it: what says which object a row is about. */
import type { AttributeRole } from '../../../er-model/er-model.ts';

export function naming(role: AttributeRole | undefined): boolean {
  return role?.kind === 'name' || role?.kind === 'identifier' || role?.kind === 'contact';
}
