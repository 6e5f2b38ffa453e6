/**
 * Aggregates for select items and HAVING: COUNT(*) (a partner's id under a LEFT join),
 * COUNT(DISTINCT …), a free aggregate of a number or a date, an aggregate of row
 * arithmetic, arithmetic on aggregates, and now and then conditional aggregation, a
 * percentage or an aggregate of distinct values.
 */
import { snakeCase } from '../../er-model/er-index.ts';
import type { Expr } from '../../query/conceptual-query.ts';
import { reject } from '../../records/group-record.ts';
import type { AggregateArithmeticSlot, AggregateSlot } from '../skeleton-shape.ts';
import { conditionalAggregate, distinctAggregate } from './analytic.ts';
import { candidates } from './column-slots.ts';
import type { CountTarget, ElementAlias, EntityAlias, Fill, Typed } from './fill-context.ts';
import { FILL_RATES } from './fill-rates.ts';
import { valuesOf } from './instance-values.ts';
import { summable } from './rules/additive-sum.ts';
import { averageable, distinctCountable } from './rules/aggregate-argument.ts';
import { groupable } from './rules/group-key.ts';
import { additiveResult, combinable, conversionFactors, unitOfRole } from './rules/unit-arithmetic.ts';
import { canonicalKey } from '../../query/walk.ts';

const aliasOf = (c: Typed): string => (c.expr as { alias: string }).alias;

/** The free aggregates a quantity allows: SUM only of what adds up (additive-sum). */
function functionsFor(t: Typed): readonly ('sum' | 'avg' | 'max' | 'min')[] {
  return summable(t.slot?.role) ? ['sum', 'avg', 'max', 'min'] : ['avg', 'max', 'min'];
}

/** The aggregate of a select item or HAVING slot; `fixed`: expressions WHERE pins to one value, or a HAVING's group keys. */
export function aggregate(
  f: Fill,
  slot: AggregateSlot,
  entities: readonly EntityAlias[],
  elements: readonly ElementAlias[],
  countTarget?: CountTarget,
  fixed: readonly Expr[] = [],
  inHaving = false,
): Typed {
  // A HAVING threshold compares numbers.
  const plain = plainAggregate(f, slot, entities, elements, countTarget, fixed, inHaving);
  // Now and then a column aggregate becomes conditional aggregation, a percentage or an
  // aggregate of distinct values (drawn after the plain one, so other draws stay as they were).
  // Not in HAVING: "each apparel category whose number of clothing items in
  // the package size "30x20x10 cm" is 6" nests one condition in another.
  if (
    inHaving ||
    slot.mode === 'star' ||
    slot.mode === 'distinct' ||
    slot.argOp ||
    !f.analyticRng.chance(FILL_RATES.analyticAggregate)
  )
    return plain;
  const pinned = new Set(fixed.map(canonicalKey));
  return analyticAggregate(f, entities, elements, pinned, countTarget) ?? plain;
}

function plainAggregate(
  f: Fill,
  slot: AggregateSlot,
  entities: readonly EntityAlias[],
  elements: readonly ElementAlias[],
  countTarget?: CountTarget,
  fixed: readonly Expr[] = [],
  numbersOnly = false,
): Typed {
  const r = f.rng;
  if (slot.mode === 'star') {
    if (countTarget)
      return {
        expr: { kind: 'aggregate', fn: 'count', arg: countTarget.expr },
        kind: 'numeric',
        label: countTarget.label,
      };
    return { expr: { kind: 'aggregate', fn: 'count' }, kind: 'numeric', label: 'count' };
  }
  // An aggregate of a column the WHERE clause pins to one value, or of the group's own key
  // (the number of different preference notes of each preference note), says nothing new.
  const pinned = new Set(fixed.map(canonicalKey));
  if (slot.mode === 'distinct') {
    const ids: Typed[] = entities.slice(1).map((a) => ({
      expr: { kind: 'attribute', alias: a.alias, attribute: 'id' },
      kind: 'id',
      label: snakeCase(a.entity),
    }));
    const options = [
      ...ids,
      ...candidates(f, entities, elements, 'text').filter((c) => distinctCountable(c.slot?.role, c.slot?.attribute)),
    ].filter((c) => !pinned.has(canonicalKey(c.expr)));
    if (options.length === 0) reject('no-fitting-slot', 'nothing to count distinct values of');
    const t = r.pick(options);
    return {
      expr: { kind: 'aggregate', fn: 'count', arg: t.expr, distinct: true },
      kind: 'numeric',
      label: `distinct_${t.label}s`.replace(/ss$/u, 's'),
    };
  }
  const numbers = candidates(f, entities, elements, 'numeric').filter(
    (c) => (c.expr.kind !== 'attribute' || c.label !== 'id') && !pinned.has(canonicalKey(c.expr)),
  );
  // Only quantities are averaged or summed (aggregate-argument).
  const numeric = numbers.filter((c) => averageable(c.slot?.role));
  // A threshold on an aggregate (HAVING) is a number: no earliest or latest date there.
  const temporal = numbersOnly ? [] : candidates(f, entities, elements, 'any').filter((c) => c.kind === 'temporal');
  if (slot.argOp) return aggregateOfArithmetic(f, slot.argOp, numeric);
  if (numeric.length === 0 && numbers.length > 0 && temporal.length === 0)
    reject('no-meaningful-slot:aggregate-argument', 'no quantity to aggregate');
  if (numeric.length > 0 && (temporal.length === 0 || r.chance(FILL_RATES.numericOverTemporal))) {
    const t = r.pick(numeric);
    const fn = r.pick(functionsFor(t));
    const agg: Expr = { kind: 'aggregate', fn, arg: t.expr };
    // AVG prints many digits; rounding keeps answers readable and identical everywhere.
    return {
      expr: fn === 'avg' ? { kind: 'round', arg: agg, digits: 2 } : agg,
      kind: 'numeric',
      label: `${fn === 'sum' ? 'total' : fn}_${t.label}`,
      ...(t.slot ? { slot: t.slot } : {}),
    };
  }
  if (temporal.length > 0) {
    const t = r.pick(temporal);
    const fn = r.pick(['max', 'min'] as const);
    return {
      expr: { kind: 'aggregate', fn, arg: t.expr },
      kind: 'temporal',
      label: `${fn === 'max' ? 'latest' : 'earliest'}_${t.label}`,
    };
  }
  return reject('no-fitting-slot', 'no numeric or date column to aggregate');
}

/**
 * An aggregate of arithmetic computed on each row: `SUM(a * b)`, `SUM(a - b)` over two
 * numbers of one object, or `AVG(x * 2)` with a number. A quotient is refused: on integers PostgreSQL
 * divides to an integer, which "divided by" does not say.
 */
function aggregateOfArithmetic(f: Fill, op: '+' | '-' | '*' | '/', numeric: readonly Typed[]): Typed {
  const r = f.rng;
  if (op === '/') reject('no-fitting-slot', 'an aggregate of a quotient');
  const attrs = numeric.filter((c) => c.expr.kind === 'attribute');
  if (attrs.length === 0) reject('no-fitting-slot', 'no numeric attribute for an aggregate of arithmetic');
  const named = (c: Typed) => ({ name: c.label, role: c.slot?.role });
  const partners = (c: Typed): Typed[] =>
    attrs.filter((d) => d !== c && aliasOf(d) === aliasOf(c) && combinable(op, named(c), named(d)));
  // A sum or difference needs a second number in the same unit (unit-arithmetic): no constant shift.
  const lefts = op === '*' ? attrs : attrs.filter((c) => partners(c).length > 0);
  if (lefts.length === 0)
    reject('no-meaningful-slot:unit-arithmetic', `no two numbers of one unit to ${op === '+' ? 'add' : 'subtract'}`);
  const left = r.pick(lefts);
  const same = partners(left);
  const word = { '+': 'plus', '-': 'minus', '*': 'times' }[op];
  let arg: Expr;
  let label: string;
  let additive: boolean;
  // Two numbers of one object (SUM(price * quantity) is a stock value), or one converted by a factor.
  if (same.length > 0 && (op !== '*' || r.chance(FILL_RATES.twoColumnArithmetic))) {
    const right = r.pick(same);
    arg = { kind: 'arithmetic', op, left: left.expr, right: right.expr };
    additive = additiveResult(op, named(left), named(right));
    label = `${left.label}_${word}_${right.label}`;
  } else {
    const k = r.pick(conversionFactors(unitOfRole(left.label, left.slot?.role)));
    arg = { kind: 'arithmetic', op, left: left.expr, right: { kind: 'literal', value: k } };
    additive = summable(left.slot?.role);
    label = `${left.label}_${word}_${k}`;
  }
  const fn = r.pick(additive ? (['sum', 'avg', 'max', 'min'] as const) : (['avg', 'max', 'min'] as const));
  const agg: Expr = { kind: 'aggregate', fn, arg };
  return {
    expr: fn === 'avg' ? { kind: 'round', arg: agg, digits: 2 } : agg,
    kind: 'numeric',
    label: `${fn === 'sum' ? 'total' : fn}_${label}`,
  };
}

/** Conditional aggregation over a category of the data, or an aggregate of distinct numbers. */
function analyticAggregate(
  f: Fill,
  entities: readonly EntityAlias[],
  elements: readonly ElementAlias[],
  pinned: ReadonlySet<string>,
  countTarget?: CountTarget,
): Typed | undefined {
  const r = f.analyticRng;
  const categories = candidates(f, entities, elements, 'any').filter(
    (c) => groupable(c.slot?.role) && !pinned.has(canonicalKey(c.expr)),
  );
  const small = categories.filter((c) => {
    const n = new Set(valuesOf(f, c, entities, elements)).size;
    return n >= 2 && n <= 12;
  });
  if (small.length > 0 && r.chance(FILL_RATES.conditionalOverDistinct)) {
    const c = r.pick(small);
    return conditionalAggregate(c, valuesOf(f, c, entities, elements), countTarget?.expr, r);
  }
  const kinds = candidates(f, entities, elements, 'text').filter(
    (c) => distinctCountable(c.slot?.role, c.slot?.attribute) && !pinned.has(canonicalKey(c.expr)),
  );
  return kinds.length > 0 ? distinctAggregate(r.pick(kinds)) : undefined;
}

/**
 * Arithmetic on aggregates, read as what people compute so: with two aggregates, the range
 * of a number (MAX − MIN), the sum or difference of two totals, or one total per another
 * (a ratio, NULL where the second is 0); with a number, an aggregate shifted or scaled by it
 * (divided as a rounded ratio, so an integer total is not cut to an integer).
 */
export function aggregateArithmetic(
  f: Fill,
  slot: AggregateArithmeticSlot,
  entities: readonly EntityAlias[],
  elements: readonly ElementAlias[],
  countTarget?: CountTarget,
  fixed: readonly Expr[] = [],
): Typed {
  const r = f.rng;
  const key = (e: Expr): string => canonicalKey(e);
  const pinned = new Set(fixed.map(key));
  if (slot.left.kind !== 'number' && slot.right.kind !== 'number') {
    if (slot.op === '*') reject('meaningless-skeleton', 'a product of two aggregates');
    const numbers = candidates(f, entities, elements, 'numeric').filter(
      (c) => (c.expr.kind !== 'attribute' || c.label !== 'id') && !pinned.has(key(c.expr)),
    );
    const numeric = numbers.filter((c) => averageable(c.slot?.role));
    if (numeric.length === 0 && numbers.length > 0)
      reject('no-meaningful-slot:aggregate-argument', 'no quantity for arithmetic on aggregates');
    if (numeric.length === 0) reject('no-fitting-slot', 'no numeric column for arithmetic on aggregates');
    const t = r.pick(numeric);
    const named = (c: Typed) => ({ name: c.label, role: c.slot?.role });
    // Totals combine when both add up and the units agree (or one is a count, for a ratio).
    const others = numeric.filter(
      (c) =>
        c !== t &&
        aliasOf(c) === aliasOf(t) &&
        summable(c.slot?.role) &&
        summable(t.slot?.role) &&
        combinable(slot.op === '/' ? '/' : '+', named(t), named(c)),
    );
    const agg = (fn: 'sum' | 'max' | 'min', c: Typed): Expr => ({ kind: 'aggregate', fn, arg: c.expr });
    if (slot.op === '-' && (others.length === 0 || r.chance(FILL_RATES.maxMinusMin))) {
      return {
        expr: { kind: 'arithmetic', op: '-', left: agg('max', t), right: agg('min', t) },
        kind: 'numeric',
        label: `${t.label}_range`,
      };
    }
    if (others.length === 0)
      reject(
        'no-meaningful-slot:unit-arithmetic',
        `no second total in the unit of ${t.label} for ${slot.op} of two aggregates`,
      );
    const u = r.pick(others);
    if (slot.op === '/')
      return {
        expr: { kind: 'ratio', numerator: agg('sum', t), denominator: agg('sum', u), percent: false, digits: 2 },
        kind: 'numeric',
        label: `${t.label}_per_${u.label}`,
      };
    const word = slot.op === '+' ? 'plus' : 'minus';
    return {
      expr: { kind: 'arithmetic', op: slot.op, left: agg('sum', t), right: agg('sum', u) },
      kind: 'numeric',
      label: `total_${t.label}_${word}_total_${u.label}`,
    };
  }
  const side = (slot.left.kind === 'number' ? slot.right : slot.left) as AggregateSlot | { kind: 'number' };
  if (side.kind === 'number') return reject('meaningless-skeleton', 'arithmetic of two numbers');
  // A constant only converts a unit (unit-arithmetic): no shift by one.
  if (slot.op === '+' || slot.op === '-')
    reject('no-meaningful-slot:unit-arithmetic', `an aggregate ${slot.op === '+' ? 'plus' : 'minus'} a constant`);
  const a = plainAggregate(f, side, entities, elements, countTarget, fixed);
  if (a.kind !== 'numeric') reject('no-fitting-slot', 'arithmetic on a date aggregate');
  const k = r.pick(conversionFactors(a.slot ? unitOfRole(a.slot.name, a.slot.role) : 'count'));
  // The ratio rounds: an average goes in unrounded, so it is rounded once.
  const numerator = a.expr.kind === 'round' ? a.expr.arg : a.expr;
  if (slot.op === '/')
    return {
      expr: { kind: 'ratio', numerator, denominator: { kind: 'literal', value: k }, percent: false, digits: 2 },
      kind: 'numeric',
      label: `${a.label}_per_${k}`,
    };
  const word = { '+': 'plus', '-': 'minus', '*': 'times' }[slot.op];
  return {
    expr: { kind: 'arithmetic', op: slot.op, left: a.expr, right: { kind: 'literal', value: k } },
    kind: 'numeric',
    label: `${a.label}_${word}_${k}`,
  };
}
