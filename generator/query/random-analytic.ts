import type { Attribute } from '../er-model/er-model.ts';
import type { Rng } from '../common/rng.ts';
import type { DateField, DateUnit, Expr, Predicate, ScalarLiteral } from './conceptual-query.ts';
import { kindOfType } from './analytic-expr.ts';

/** What the random query drawer lends the analytic draws. */
export interface AnalyticDrawer {
  readonly rng: Rng;
  /** Single-valued attributes of an entity. */
  attributes(entity: string): Attribute[];
  /** A value the instance has for an attribute, if any. */
  sample(entity: string, attribute: Attribute): ScalarLiteral | undefined;
  /** A predicate over one entity alias's own attributes. */
  predicate(alias: { alias: string; entity: string }): Predicate | undefined;
}

interface Alias {
  readonly alias: string;
  readonly entity: string;
}

const attr = (a: Alias, name: string): Expr => ({ kind: 'attribute', alias: a.alias, attribute: name });
const lit = (value: ScalarLiteral | null): Expr => ({ kind: 'literal', value });

/** The date part of a sampled date or time value ("2023-04-05 10:00:00+00" → "2023-04-05"). */
function dayOf(value: ScalarLiteral | undefined): string | undefined {
  return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}/u.test(value) ? value.slice(0, 10) : undefined;
}

function byKind(d: AnalyticDrawer, a: Alias) {
  const all = d.attributes(a.entity);
  return {
    text: all.filter((x) => x.type.kind === 'text'),
    labels: all.filter((x) => x.type.kind === 'enum' || x.type.kind === 'text'),
    // Small numbers only: a cast to integer must not overflow.
    number: all.filter(
      (x) => x.type.kind === 'integer' || (x.type.kind === 'numeric' && x.type.precision - x.type.scale <= 9),
    ),
    temporal: all.filter((x) => x.type.kind === 'date' || x.type.kind === 'timestamptz' || x.type.kind === 'timestamp'),
    optional: all.filter((x) => x.optional === true && x.type.kind !== 'boolean'),
  };
}

/**
 * A row-level analytic value over an alias's attributes: CASE (searched and simple), CAST,
 * NULLIF, COALESCE, a date part, a truncated date, an age, a text function or a
 * concatenation; undefined when the alias's attributes offer none of them.
 */
export function drawAnalyticValue(d: AnalyticDrawer, a: Alias): Expr | undefined {
  const r = d.rng;
  const k = byKind(d, a);
  const options: (() => Expr | undefined)[] = [
    () => {
      const p = d.predicate(a);
      return p ? { kind: 'case', whens: [{ when: p, then: lit('yes') }], else: lit('no') } : undefined;
    },
    () => {
      if (k.labels.length === 0) return undefined;
      const x = r.pick(k.labels);
      const values = [
        ...new Set([d.sample(a.entity, x), d.sample(a.entity, x)].filter((v): v is ScalarLiteral => v !== undefined)),
      ];
      if (values.length === 0) return undefined;
      return {
        kind: 'simpleCase',
        operand: attr(a, x.name),
        whens: values.map((v, i) => ({ value: v, then: lit(i + 1) })),
        ...(r.chance(0.6) ? { else: lit(0) } : {}),
      };
    },
    () => {
      if (k.number.length === 0) return undefined;
      const x = r.pick(k.number);
      return { kind: 'cast', arg: attr(a, x.name), to: r.pick(['numeric', 'real', 'integer', 'text'] as const) };
    },
    () => (k.temporal.length > 0 ? { kind: 'cast', arg: attr(a, r.pick(k.temporal).name), to: 'date' } : undefined),
    () => {
      if (k.number.length === 0) return undefined;
      const x = r.pick(k.number);
      const v = d.sample(a.entity, x);
      return v === undefined ? undefined : { kind: 'nullif', arg: attr(a, x.name), value: lit(v) };
    },
    () => {
      if (k.optional.length === 0) return undefined;
      const x = r.pick(k.optional);
      const kind = kindOfType(x.type);
      const fallback: Expr =
        kind === 'number'
          ? lit(0)
          : kind === 'text'
            ? lit('none')
            : { kind: 'cast', arg: lit('2000-01-01'), to: 'date' };
      const arg: Expr = kind === 'time' ? { kind: 'cast', arg: attr(a, x.name), to: 'date' } : attr(a, x.name);
      return { kind: 'coalesce', args: [arg, fallback] };
    },
    () => {
      if (k.temporal.length === 0) return undefined;
      const field = r.pick(['year', 'quarter', 'month', 'day', 'dow', 'hour'] as const);
      const x = r.pick(k.temporal);
      // The hour only of a moment: a date has none, so its draw of the hour reads the day.
      return {
        kind: 'extract',
        field: field === 'hour' && x.type.kind === 'date' ? 'day' : field,
        arg: attr(a, x.name),
      };
    },
    () =>
      k.temporal.length > 0
        ? {
            kind: 'dateTrunc',
            unit: r.pick(['year', 'quarter', 'month', 'week', 'day'] as const),
            arg: attr(a, r.pick(k.temporal).name),
          }
        : undefined,
    () => {
      if (k.temporal.length === 0) return undefined;
      const x = r.pick(k.temporal);
      const ref = dayOf(d.sample(a.entity, x));
      return ref ? { kind: 'ageYears', from: attr(a, x.name), to: lit(ref) } : undefined;
    },
    () =>
      k.text.length > 0
        ? { kind: 'textFunction', fn: r.pick(['lower', 'upper', 'length'] as const), arg: attr(a, r.pick(k.text).name) }
        : undefined,
    () =>
      k.text.length > 0
        ? {
            kind: 'substring',
            arg: attr(a, r.pick(k.text).name),
            start: r.int(1, 3),
            ...(r.chance(0.7) ? { length: r.int(1, 4) } : {}),
          }
        : undefined,
    () => {
      if (k.text.length === 0) return undefined;
      const x = r.pick(k.text);
      const v = d.sample(a.entity, x);
      const search = typeof v === 'string' && v.length > 0 ? [...v][r.int(0, [...v].length - 1)] : 'a';
      return { kind: 'position', search: search as string, arg: attr(a, x.name) };
    },
    () => {
      if (k.labels.length === 0) return undefined;
      const [x, y] = [r.pick(k.labels), r.pick(k.labels)];
      return {
        kind: 'arithmetic',
        op: '||',
        left: { kind: 'arithmetic', op: '||', left: attr(a, x.name), right: lit(' ') },
        right: attr(a, y.name),
      };
    },
  ];
  return firstDrawn(r, options, [1, 1, 3, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
}

/**
 * An analytic aggregate over an alias: conditional aggregation (FILTER, SUM of a CASE), a
 * ratio or percentage with a defined scale, an aggregate of distinct values, or a total
 * that reads 0 rather than NULL.
 */
export function drawAnalyticAggregate(d: AnalyticDrawer, a: Alias): Expr | undefined {
  const r = d.rng;
  const k = byKind(d, a);
  const id = attr(a, 'id');
  const options: (() => Expr | undefined)[] = [
    () => {
      const p = d.predicate(a);
      return p ? { kind: 'aggregate', fn: 'count', ...(r.chance(0.5) ? {} : { arg: id }), filter: p } : undefined;
    },
    () => {
      const p = d.predicate(a);
      return p
        ? { kind: 'aggregate', fn: 'sum', arg: { kind: 'case', whens: [{ when: p, then: lit(1) }], else: lit(0) } }
        : undefined;
    },
    () => {
      const p = d.predicate(a);
      if (!p) return undefined;
      const part: Expr = r.chance(0.5)
        ? { kind: 'aggregate', fn: 'count', filter: p }
        : { kind: 'aggregate', fn: 'sum', arg: { kind: 'case', whens: [{ when: p, then: lit(1) }], else: lit(0) } };
      return {
        kind: 'ratio',
        numerator: part,
        denominator: { kind: 'aggregate', fn: 'count' },
        percent: r.chance(0.7),
        digits: r.int(0, 2),
      };
    },
    () => {
      if (k.number.length === 0) return undefined;
      const x = attr(a, r.pick(k.number).name);
      return {
        kind: 'ratio',
        numerator: { kind: 'aggregate', fn: 'sum', arg: x },
        denominator: { kind: 'aggregate', fn: 'count', arg: id },
        percent: false,
        digits: r.int(1, 3),
      };
    },
    () => {
      if (k.number.length === 0) return undefined;
      // count(DISTINCT …) the plain draws make already.
      const fn = r.pick(['sum', 'avg', 'min', 'max'] as const);
      const agg: Expr = { kind: 'aggregate', fn, arg: attr(a, r.pick(k.number).name), distinct: true };
      return fn === 'avg' ? { kind: 'round', arg: agg, digits: r.int(0, 2) } : agg;
    },
    () =>
      k.number.length > 0
        ? { kind: 'coalesce', args: [{ kind: 'aggregate', fn: 'sum', arg: attr(a, r.pick(k.number).name) }, lit(0)] }
        : undefined,
    () =>
      k.temporal.length > 0
        ? {
            kind: 'aggregate',
            fn: r.pick(['min', 'max'] as const),
            arg: { kind: 'extract', field: 'year', arg: attr(a, r.pick(k.temporal).name) },
          }
        : undefined,
  ];
  return firstDrawn(r, options, [1, 1, 1, 1, 4, 1, 1]);
}

const SHIFT_UNITS: readonly DateUnit[] = ['day', 'week', 'month', 'quarter', 'year'];
const FIELDS: readonly DateField[] = ['year', 'month', 'quarter'];

/**
 * A condition through an analytic value: a date within an interval of a fixed date, a date
 * part, an age, a text function, a COALESCE; undefined when the alias offers none.
 */
export function drawAnalyticPredicate(d: AnalyticDrawer, a: Alias): Predicate | undefined {
  const r = d.rng;
  const k = byKind(d, a);
  const options: (() => Predicate | undefined)[] = [
    () => {
      if (k.temporal.length === 0) return undefined;
      const x = r.pick(k.temporal);
      const ref = dayOf(d.sample(a.entity, x));
      if (!ref) return undefined;
      const shift: Expr = {
        kind: 'dateShift',
        arg: lit(ref),
        amount: (r.chance(0.5) ? -1 : 1) * r.int(1, 12),
        unit: r.pick(SHIFT_UNITS),
      };
      return { kind: 'compare', op: r.pick(['<', '<=', '>', '>='] as const), left: attr(a, x.name), right: shift };
    },
    () => {
      if (k.temporal.length === 0) return undefined;
      const x = r.pick(k.temporal);
      const ref = dayOf(d.sample(a.entity, x));
      if (!ref) return undefined;
      const field = r.pick(FIELDS);
      const value =
        field === 'year'
          ? Number(ref.slice(0, 4))
          : field === 'month'
            ? Number(ref.slice(5, 7))
            : Math.floor((Number(ref.slice(5, 7)) - 1) / 3) + 1;
      return {
        kind: 'compare',
        op: r.pick(['=', '>=', '<'] as const),
        left: { kind: 'extract', field, arg: attr(a, x.name) },
        right: lit(value),
      };
    },
    () => {
      if (k.temporal.length === 0) return undefined;
      const x = r.pick(k.temporal);
      const ref = dayOf(d.sample(a.entity, x));
      return ref
        ? {
            kind: 'compare',
            op: r.pick(['>=', '<'] as const),
            left: { kind: 'ageYears', from: attr(a, x.name), to: lit('2026-01-01') },
            right: lit(r.int(1, 6)),
          }
        : undefined;
    },
    () => {
      if (k.text.length === 0) return undefined;
      const x = r.pick(k.text);
      const v = d.sample(a.entity, x);
      return typeof v === 'string'
        ? {
            kind: 'compare',
            op: '=',
            left: { kind: 'textFunction', fn: 'lower', arg: attr(a, x.name) },
            right: lit(v.toLowerCase()),
          }
        : undefined;
    },
    () =>
      k.text.length > 0
        ? {
            kind: 'compare',
            op: r.pick(['>', '<='] as const),
            left: { kind: 'textFunction', fn: 'length', arg: attr(a, r.pick(k.text).name) },
            right: lit(r.int(3, 12)),
          }
        : undefined,
    () => {
      if (k.number.length === 0) return undefined;
      const x = r.pick(k.number);
      const v = d.sample(a.entity, x);
      return v === undefined
        ? undefined
        : {
            kind: 'compare',
            op: r.pick(['>', '<='] as const),
            left: { kind: 'coalesce', args: [attr(a, x.name), lit(0)] },
            right: lit(v),
          };
    },
  ];
  return firstDrawn(
    r,
    options,
    options.map(() => 1),
  );
}

/**
 * Tries the options in a random order drawn by weight (without replacement) and returns
 * the first that gives something: an alias without dates still gets a text function.
 */
function firstDrawn<T>(r: Rng, options: readonly (() => T | undefined)[], weights: readonly number[]): T | undefined {
  const left = options.map((_, i) => i);
  while (left.length > 0) {
    const k = r.weighted(left.map((i) => weights[i] ?? 1));
    const [i] = left.splice(k, 1) as [number];
    const value = (options[i] as () => T | undefined)();
    if (value !== undefined) return value;
  }
  return undefined;
}
