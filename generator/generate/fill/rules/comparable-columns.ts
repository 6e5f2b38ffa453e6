/**
 * comparable-columns, as the filler proposes it: two columns compared hold the same kind of
 * thing (one unit, two dates or times, one attribute of text on two objects).
 */
import type { AttributeSlot } from '../../schema-graph.ts';
import { unitOfRole } from './unit-arithmetic.ts';

export function comparable(a: AttributeSlot | undefined, b: AttributeSlot | undefined): boolean {
  if (!a || !b) return false;
  const temporal = (s: AttributeSlot): boolean => s.role.kind === 'date' || s.role.kind === 'time';
  if (temporal(a) && temporal(b)) return true;
  const ua = unitOfRole(a.name, a.role);
  const ub = unitOfRole(b.name, b.role);
  if (ua !== undefined || ub !== undefined) return ua === ub;
  return a.role.kind === b.role.kind && (a.name === b.name || a.role.kind === 'name' || a.role.kind === 'identifier');
}
