/** range-on-quantity, as the filler proposes it: <, >, BETWEEN on measures, counts, scores, dates and times. */
import type { AttributeRole } from '../../../er-model/er-model.ts';

export function rangeable(role: AttributeRole | undefined): boolean {
  return role !== undefined && ['measure', 'count', 'score', 'date', 'time'].includes(role.kind);
}
