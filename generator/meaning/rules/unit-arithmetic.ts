/**
 * Arithmetic within one unit: `end_offset - start_offset` (seconds minus seconds), a total
 * per a count, a measure times a count the model declares meaningful (price × quantity), or
 * a conversion by a factor (seconds / 60). Not `price - quantity`, not `duration + 10`.
 */
import type { Expr } from '../../query/conceptual-query.ts';
import type { MeaningCheck } from '../meaning-check.ts';
import { ownNodes, type QueryMeaning, unitOf, type Unit } from '../query-meaning.ts';

/** Factors that convert a unit into another people use: minutes, hours, thousands, KiB, cents and percent. */
export const CONVERSION_FACTORS: readonly number[] = [60, 100, 1000, 1024, 3600];

const show = (u: Unit): string => (u.kind === 'unit' ? u.unit : u.kind === 'scalar' ? String(u.value) : u.why);

/** What is wrong with `left op right`, or undefined when a person would compute it. */
export function arithmeticFault(
  m: QueryMeaning,
  op: '+' | '-' | '*' | '/',
  left: Expr,
  right: Expr,
): string | undefined {
  const l = unitOf(m, left);
  const r = unitOf(m, right);
  if (l.kind === 'none' || r.kind === 'none')
    return `${op} on ${l.kind === 'none' ? l.why : (r as { why: string }).why}`;
  if (op === '+' || op === '-') {
    if (l.kind === 'scalar' || r.kind === 'scalar') return `${show(l)} ${op} ${show(r)} shifts a value by a constant`;
    return l.unit === r.unit ? undefined : `${show(l)} ${op} ${show(r)}: different units`;
  }
  if (r.kind === 'scalar')
    return CONVERSION_FACTORS.includes(Math.abs(r.value)) ? undefined : `${show(l)} ${op} ${r.value}: not a conversion`;
  if (l.kind === 'scalar')
    return op === '*' && CONVERSION_FACTORS.includes(Math.abs(l.value))
      ? undefined
      : `${l.value} ${op} ${show(r)}: not a conversion`;
  if (op === '/')
    return l.unit === r.unit || r.unit === 'count' || r.unit.startsWith('count of ')
      ? undefined
      : `${show(l)} / ${show(r)}: different units`;
  const declared = (a: Unit, b: Unit): boolean =>
    a.kind === 'unit' &&
    b.kind === 'unit' &&
    a.ref?.role.kind === 'measure' &&
    b.ref?.role.kind === 'count' &&
    a.ref.alias === b.ref.alias &&
    (a.ref.role.multipliedBy ?? []).includes(b.ref.name);
  return declared(l, r) || declared(r, l) ? undefined : `${show(l)} * ${show(r)}: a product the model does not declare`;
}

export const unitArithmetic: MeaningCheck = {
  rule: 'unit-arithmetic',
  select: (m, q) => {
    const out: string[] = [];
    ownNodes(q, (n) => {
      const e = n as unknown as Expr;
      if (e.kind === 'arithmetic' && e.op !== '||') {
        const fault = arithmeticFault(m, e.op, e.left, e.right);
        if (fault) out.push(fault);
      } else if (e.kind === 'ratio') {
        const fault = arithmeticFault(m, '/', e.numerator, e.denominator);
        if (fault) out.push(`ratio: ${fault}`);
      }
    });
    return out;
  },
};
