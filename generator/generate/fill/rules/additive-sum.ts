/** additive-sum, as the filler proposes it: SUM of additive measures and counts. */
import type { AttributeRole } from '../../../er-model/er-model.ts';

export function summable(role: AttributeRole | undefined): boolean {
  return role !== undefined && (role.kind === 'count' || (role.kind === 'measure' && role.additive));
}
