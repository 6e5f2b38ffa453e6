/**
 * Values a person types: after `=` or in IN, a number with one or two significant digits
 * (250, 9,500, 0.5) or a whole number below 100 (a rating of 4, 37 items); as a bound (`<`,
 * `>`, BETWEEN), below 20 the same, from 20 on a multiple of five in the second significant
 * digit (30, 150, 1,000, 4,500, not 37, 4,300 or 970); dates on a calendar day ('2024-03-01',
 * not '2024-03-01 17:42:09+00'). Not `duration < 8479`, `price = 795.36`,
 * `HAVING sum(price) > 9512.32`.
 */
import type { Expr, Predicate, ScalarLiteral } from '../../query/conceptual-query.ts';
import type { MeaningCheck } from '../meaning-check.ts';
import { ownNodes, refOf, type QueryMeaning } from '../query-meaning.ts';

/** Significant digits of a number as it is printed (trailing zeros of an integer do not count). */
export function significantDigits(n: number): number {
  const digits = Math.abs(n).toString().replace('.', '').replace(/^0+/u, '').replace(/0+$/u, '');
  return Math.max(1, digits.length);
}

/** Whether a person would type this number as a threshold. */
export function isTypedNumber(n: number): boolean {
  return (Number.isInteger(n) && Math.abs(n) < 100) || significantDigits(n) <= 2;
}

/** Whether a person would type this number as a bound: below 20 as after `=`, from 20 on a multiple of five in its second digit. */
export function isTypedBound(n: number): boolean {
  const a = Math.abs(n);
  if (a < 20) return isTypedNumber(n);
  const steps = n / (10 ** Math.floor(Math.log10(a)) / 2);
  return Math.abs(steps - Math.round(steps)) < 1e-9;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/u;

function isTemporal(m: QueryMeaning, e: Expr): boolean {
  const ref = refOf(m, e);
  return ref !== undefined && (ref.role.kind === 'date' || ref.role.kind === 'time');
}

function valueFault(m: QueryMeaning, against: Expr, v: ScalarLiteral | null, bound = false): string | undefined {
  // Seconds are typed as whole minutes too: 4,200 seconds is "70 minutes".
  const ref = refOf(m, against);
  const minutes =
    typeof v === 'number' && ref?.role.kind === 'measure' && ref.role.unit === 'second' && v % 60 === 0
      ? v / 60
      : undefined;
  const typed = (x: number): boolean => (bound ? isTypedBound(x) : isTypedNumber(x));
  if (typeof v === 'number' && !typed(v) && !(minutes !== undefined && typed(minutes)))
    return `${v} is not a ${bound ? 'bound' : 'number'} a person types`;
  if (typeof v === 'string' && isTemporal(m, against) && !DAY.test(v)) return `'${v}' is not a calendar day`;
  return undefined;
}

function literalOf(e: Expr): ScalarLiteral | null | undefined {
  if (e.kind === 'literal') return e.value;
  if (e.kind === 'dateShift' && e.arg.kind === 'literal') return e.arg.value;
  return undefined;
}

export const typedValue: MeaningCheck = {
  rule: 'typed-value',
  select: (m, q) => {
    const out: string[] = [];
    const push = (x: string | undefined): void => {
      if (x) out.push(x);
    };
    ownNodes(q, (n) => {
      const p = n as unknown as Predicate;
      if (p.kind === 'compare') {
        const r = literalOf(p.right);
        if (r !== undefined) push(valueFault(m, p.left, r, p.op !== '=' && p.op !== '<>'));
      } else if (p.kind === 'between') {
        for (const b of [p.low, p.high]) {
          const v = literalOf(b);
          if (v !== undefined) push(valueFault(m, p.expr, v, true));
        }
      } else if (p.kind === 'in') {
        for (const v of p.values) if (typeof v === 'number') push(valueFault(m, p.expr, v));
      }
    });
    return out;
  },
};
