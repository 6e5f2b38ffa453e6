/**
 * The filler's analytic constructs: where a skeleton slot is a plain column, a comparison
 * with a date, an aggregate or a category to group by, the filler now and then fills it
 * with a date part, a truncated date, a text function, a CASE bucket, a date window before
 * the latest date in the data, conditional aggregation or a percentage. Values and date
 * ranges come from the data, so the answers are not empty.
 */
import type { Rng } from '../../common/rng.ts';
import type { Scalar } from '../../instance/conceptual-instance.ts';
import type { Expr, Predicate } from '../../query/conceptual-query.ts';
import type { AttributeSlot, SlotKind } from '../schema-graph.ts';
import { roundThreshold } from './rules/typed-value.ts';
import { FILL_RATES } from './fill-rates.ts';

/** A value expression with what the filler knows of it (as the content filler types it). */
export interface FilledValue {
  readonly expr: Expr;
  readonly kind: SlotKind | 'id';
  readonly label: string;
  readonly slot?: AttributeSlot;
}

const lit = (value: string | number): Expr => ({ kind: 'literal', value });

/** The day of a date or time value ("2023-04-05 10:00:00+00" → "2023-04-05"). */
function dayOf(v: Scalar): string | undefined {
  return typeof v === 'string' && /^\d{4}-\d{2}-\d{2}/u.test(v) ? v.slice(0, 10) : undefined;
}

function sortedNumbers(values: readonly Scalar[]): number[] {
  return values
    .map(Number)
    .filter((n) => Number.isFinite(n))
    .sort((a, b) => a - b);
}

/**
 * A plain column turned into an analytic value of the kind the slot wants, as far as its role
 * allows (text-function, constant-output): a year, month or first day of month of a date, an
 * age in whole years up to the latest date in the data; a name's case or first letters, a
 * text's length; a category as yes/no for one of its values, a missing category or count
 * shown as a stated default; a quantity banded by a CASE at its (rounded) median, a price
 * cast to whole units. Undefined when the column offers nothing fitting.
 */
export function analyticColumn(
  t: FilledValue,
  values: readonly Scalar[],
  wanted: 'numeric' | 'text' | 'any',
  plainText: boolean,
  optional: boolean,
  rng: Rng,
): FilledValue | undefined {
  const options: FilledValue[] = [];
  const distinct = [...new Set(values)];
  const role = t.slot?.role.kind;
  // A missing value shown as a stated default.
  if (optional && wanted !== 'numeric' && t.kind === 'text' && (role === 'category' || role === 'name'))
    options.push({
      expr: { kind: 'coalesce', args: [t.expr, lit('none')] },
      kind: 'text',
      label: `${t.label}_or_none`,
    });
  if (optional && wanted !== 'text' && t.kind === 'numeric' && role === 'count')
    options.push({ expr: { kind: 'coalesce', args: [t.expr, lit(0)] }, kind: 'numeric', label: `${t.label}_or_zero` });
  // A category named by a simple CASE: one value of the data against the rest.
  if (
    t.kind === 'text' &&
    role === 'category' &&
    wanted !== 'numeric' &&
    distinct.length >= 2 &&
    distinct.length <= 12
  ) {
    const value = rng.pick(distinct);
    options.push({
      expr: { kind: 'simpleCase', operand: t.expr, whens: [{ value, then: lit('yes') }], else: lit('no') },
      kind: 'text',
      label: `is_${t.label}`,
    });
  }
  if (t.kind === 'temporal') {
    const days = values
      .map(dayOf)
      .filter((d): d is string => d !== undefined)
      .sort();
    const latest = days[days.length - 1];
    if (wanted !== 'text') {
      options.push({
        expr: { kind: 'extract', field: rng.pick(['year', 'month', 'quarter'] as const), arg: t.expr },
        kind: 'numeric',
        label: `${t.label}_part`,
      });
      if (latest)
        options.push({
          expr: { kind: 'ageYears', from: t.expr, to: lit(latest) },
          kind: 'numeric',
          label: `years_since_${t.label}`,
        });
    }
    if (wanted === 'any')
      options.push({
        expr: { kind: 'dateTrunc', unit: rng.pick(['month', 'year'] as const), arg: t.expr },
        kind: 'temporal',
        label: `${t.label}_period`,
      });
  } else if (t.kind === 'text' && plainText) {
    if (wanted !== 'numeric' && role === 'name')
      options.push({
        expr: { kind: 'textFunction', fn: rng.pick(['lower', 'upper'] as const), arg: t.expr },
        kind: 'text',
        label: `${t.label}_case`,
      });
    if (wanted !== 'numeric' && role === 'name')
      options.push({
        expr: { kind: 'substring', arg: t.expr, start: 1, length: rng.int(1, 3) },
        kind: 'text',
        label: `${t.label}_start`,
      });
    if (wanted !== 'text' && role === 'description')
      options.push({
        expr: { kind: 'textFunction', fn: 'length', arg: t.expr },
        kind: 'numeric',
        label: `${t.label}_length`,
      });
  } else if (t.kind === 'numeric' && t.label !== 'id' && (role === 'measure' || role === 'count' || role === 'score')) {
    const numbers = sortedNumbers(values);
    const median = numbers[Math.floor(numbers.length / 2)];
    if (median !== undefined && wanted !== 'numeric') {
      options.push({
        expr: {
          kind: 'case',
          whens: [
            {
              when: { kind: 'compare', op: '>=', left: t.expr, right: lit(roundThreshold(median)) },
              then: lit('high'),
            },
          ],
          else: lit('low'),
        },
        kind: 'text',
        label: `${t.label}_band`,
      });
    }
    const type = t.slot?.attribute.type;
    if (wanted !== 'text' && type?.kind === 'numeric' && type.scale > 0)
      options.push({ expr: { kind: 'cast', arg: t.expr, to: 'integer' }, kind: 'numeric', label: `${t.label}_whole` });
  }
  return options.length > 0 ? rng.pick(options) : undefined;
}

/**
 * A date window's edge for `column op value` on a date: the latest date in the data moved
 * back by the months (or days) between it and `value`, so "within the N months before
 * <latest date>" selects about the rows the plain threshold would.
 */
export function dateWindow(values: readonly Scalar[], threshold: Scalar): Expr | undefined {
  const days = values
    .map(dayOf)
    .filter((d): d is string => d !== undefined)
    .sort();
  const latest = days[days.length - 1];
  const edge = dayOf(threshold);
  if (!latest || !edge || edge >= latest) return undefined;
  const [ly, lm] = latest.split('-').map(Number) as [number, number];
  const [ey, em] = edge.split('-').map(Number) as [number, number];
  const months = (ly - ey) * 12 + (lm - em);
  // The lengths people ask about ("the last 6 months", "the 2 years before …"), not the
  // threshold's own 59 months: the nearest of them.
  if (months >= 24) return { kind: 'dateShift', arg: lit(latest), amount: -Math.round(months / 12), unit: 'year' };
  if (months >= 2)
    return { kind: 'dateShift', arg: lit(latest), amount: -nearest(WINDOW_MONTHS, months), unit: 'month' };
  const dayCount = Math.round((Date.parse(`${latest}T00:00:00Z`) - Date.parse(`${edge}T00:00:00Z`)) / 86_400_000);
  if (dayCount >= 7)
    return { kind: 'dateShift', arg: lit(latest), amount: -nearest(WINDOW_DAYS, dayCount), unit: 'day' };
  return dayCount >= 1 ? { kind: 'dateShift', arg: lit(latest), amount: -dayCount, unit: 'day' } : undefined;
}

/** Date windows as people give them: months below two years, days of a week and more. */
const WINDOW_MONTHS = [2, 3, 6, 9, 12, 18] as const;
const WINDOW_DAYS = [7, 10, 14, 21, 30, 45, 60] as const;

/** The one of `choices` closest to `n` (the smaller on a tie). */
function nearest(choices: readonly number[], n: number): number {
  return choices.reduce((best, x) => (Math.abs(x - n) < Math.abs(best - n) ? x : best));
}

/**
 * Conditional aggregation over a category with a value from the data: how many rows have
 * it (`count(*) FILTER`, or `SUM(CASE … THEN 1 ELSE 0 END)`), or what percentage of the
 * rows do. `counted` is what COUNT(*) becomes (a partner's id under a LEFT join).
 */
export function conditionalAggregate(
  category: FilledValue,
  values: readonly Scalar[],
  counted: Expr | undefined,
  rng: Rng,
): FilledValue | undefined {
  const distinct = [...new Set(values)];
  if (distinct.length < 2) return undefined;
  const value = rng.pick(distinct);
  const when: Predicate = { kind: 'compare', op: '=', left: category.expr, right: { kind: 'literal', value } };
  const count: Expr = { kind: 'aggregate', fn: 'count', ...(counted ? { arg: counted } : {}) };
  const matching: Expr = rng.chance(FILL_RATES.filterClause)
    ? ({ ...count, filter: when } as Expr)
    : { kind: 'aggregate', fn: 'sum', arg: { kind: 'case', whens: [{ when, then: lit(1) }], else: lit(0) } };
  if (rng.chance(FILL_RATES.conditionalCount))
    return { expr: matching, kind: 'numeric', label: `count_by_${category.label}` };
  return {
    expr: { kind: 'ratio', numerator: matching, denominator: count, percent: true, digits: rng.int(1, 2) },
    kind: 'numeric',
    label: `percent_by_${category.label}`,
  };
}

/** How many distinct values a name or category takes: the number of different platforms. */
export function distinctAggregate(t: FilledValue): FilledValue {
  return {
    expr: { kind: 'aggregate', fn: 'count', arg: t.expr, distinct: true },
    kind: 'numeric',
    label: `distinct_${t.label}s`.replace(/ss$/u, 's'),
  };
}

/** A date's year as a category to group by, when the data spans 2 to 12 years. */
export function yearCategory(t: FilledValue, values: readonly Scalar[]): FilledValue | undefined {
  const years = new Set(
    values
      .map(dayOf)
      .filter((d) => d !== undefined)
      .map((d) => (d as string).slice(0, 4)),
  );
  if (years.size < 2 || years.size > 12) return undefined;
  return { expr: { kind: 'extract', field: 'year', arg: t.expr }, kind: 'numeric', label: `${t.label}_year` };
}
