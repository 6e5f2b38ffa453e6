/**
 * unit-arithmetic, as the filler proposes it: two attributes combine when a person would
 * compute with them (seconds minus seconds, a price times the declared quantity, a total per
 * a count), and a number scales a unit only by a factor that converts it.
 */
import type { AttributeRole } from '../../../er-model/er-model.ts';

/** The unit an attribute counts in, or undefined when it is not a quantity. */
export function unitOfRole(name: string, role: AttributeRole | undefined): string | undefined {
  if (role?.kind === 'measure') return role.unit;
  if (role?.kind === 'count') return `count of ${name}`;
  if (role?.kind === 'score') return `score ${name}`;
  return undefined;
}

export interface NamedRole {
  readonly name: string;
  readonly role: AttributeRole | undefined;
}

/** Whether `a op b` on two attributes of one object means something. */
export function combinable(op: '+' | '-' | '*' | '/', a: NamedRole, b: NamedRole): boolean {
  const ua = unitOfRole(a.name, a.role);
  const ub = unitOfRole(b.name, b.role);
  if (ua === undefined || ub === undefined) return false;
  if (op === '+' || op === '-') return ua === ub;
  if (op === '/') return ua === ub || b.role?.kind === 'count';
  const declared = (x: NamedRole, y: NamedRole): boolean =>
    x.role?.kind === 'measure' && y.role?.kind === 'count' && (x.role.multipliedBy ?? []).includes(y.name);
  return declared(a, b) || declared(b, a);
}

/** Whether the result of `a op b` adds up across rows (a stock value does; a clip's length does not). */
export function additiveResult(op: '+' | '-' | '*' | '/', a: NamedRole, b: NamedRole): boolean {
  const additive = (x: NamedRole): boolean =>
    x.role?.kind === 'count' || (x.role?.kind === 'measure' && x.role.additive);
  return op !== '/' && additive(a) && additive(b);
}

/** Factors that turn a unit into one people also use: seconds into minutes and hours, MB into GB. */
export function conversionFactors(unit: string | undefined): readonly number[] {
  if (unit === 'second') return [60, 3600];
  if (unit === 'MB') return [1024];
  if (unit === 'USD') return [100];
  return [100, 1000];
}
