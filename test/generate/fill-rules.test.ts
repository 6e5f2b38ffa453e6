/**
 * The filler's rules of meaning, each a pure function of roles (generate/fill/rules/): what
 * each lets the filler propose, on the roles of the built-in domains.
 */
import { dateWindow } from '../../generator/generate/fill/analytic.ts';
import { describe, expect, it } from 'vitest';
import { BUILT_IN_DOMAINS } from '../../generator/domains/index.ts';
import { indexDomain } from '../../generator/er-model/er-index.ts';
import { buildSchemaGraph, type AttributeSlot } from '../../generator/generate/schema-graph.ts';
import { summable } from '../../generator/generate/fill/rules/additive-sum.ts';
import { averageable, distinctCountable } from '../../generator/generate/fill/rules/aggregate-argument.ts';
import { comparable } from '../../generator/generate/fill/rules/comparable-columns.ts';
import { matchable } from '../../generator/generate/fill/rules/exact-match.ts';
import { groupable } from '../../generator/generate/fill/rules/group-key.ts';
import { searchable } from '../../generator/generate/fill/rules/like-on-text.ts';
import { rangeable } from '../../generator/generate/fill/rules/range-on-quantity.ts';
import { naming } from '../../generator/generate/fill/rules/shown-by-name.ts';
import { groupsAggregate } from '../../generator/generate/fill/rules/single-object-groups.ts';
import { isTyped, monthStart, roundThreshold, ROUND_LIMITS } from '../../generator/generate/fill/rules/typed-value.ts';
import { additiveResult, combinable, conversionFactors } from '../../generator/generate/fill/rules/unit-arithmetic.ts';
import { inner } from '../../generator/query/query-builder.ts';
import { isTypedBound } from '../../generator/meaning/rules/typed-value.ts';

const retail = indexDomain(BUILT_IN_DOMAINS['retail']!);
const social = indexDomain(BUILT_IN_DOMAINS['social_media']!);
const graphs = { retail: buildSchemaGraph(retail), social: buildSchemaGraph(social) };
const slot = (graph: keyof typeof graphs, entity: string, name: string): AttributeSlot => {
  const s =
    graphs[graph].attribute(entity, name) ?? graphs[graph].entities.get(entity)?.sets.find((x) => x.name === name);
  if (!s) throw new Error(`${entity}.${name}`);
  return s;
};
const role = (graph: keyof typeof graphs, entity: string, name: string) => slot(graph, entity, name).role;
const named = (graph: keyof typeof graphs, entity: string, name: string) => ({ name, role: role(graph, entity, name) });

describe('the filler rules of meaning', () => {
  it('unit-arithmetic: within a unit, a declared product, a total per a count, conversions by a factor', () => {
    expect(combinable('-', named('social', 'Clip', 'end_offset'), named('social', 'Clip', 'start_offset'))).toBe(true);
    expect(combinable('-', named('retail', 'Product', 'price'), named('retail', 'Product', 'quantity'))).toBe(false);
    expect(combinable('*', named('retail', 'Product', 'price'), named('retail', 'Product', 'quantity'))).toBe(true);
    expect(combinable('*', named('social', 'Clip', 'end_offset'), named('social', 'Clip', 'start_offset'))).toBe(false);
    expect(combinable('/', named('retail', 'Product', 'price'), named('retail', 'Product', 'quantity'))).toBe(true);
    expect(additiveResult('*', named('retail', 'Product', 'price'), named('retail', 'Product', 'quantity'))).toBe(true);
    expect(additiveResult('-', named('social', 'Clip', 'end_offset'), named('social', 'Clip', 'start_offset'))).toBe(
      false,
    );
    expect(conversionFactors('second')).toEqual([60, 3600]);
    expect(conversionFactors('MB')).toEqual([1024]);
  });

  it('comparable-columns: one unit, two times, one text attribute', () => {
    expect(comparable(slot('retail', 'Product', 'price'), slot('retail', 'Product', 'price'))).toBe(true);
    expect(comparable(slot('retail', 'Product', 'price'), slot('retail', 'Product', 'quantity'))).toBe(false);
    expect(comparable(slot('retail', 'CustOrder', 'placed_at'), slot('retail', 'Employee', 'hire_date'))).toBe(true);
    expect(comparable(slot('retail', 'Employee', 'department'), slot('retail', 'Employee', 'role'))).toBe(false);
  });

  it('additive-sum: prices, durations and counts add up; ages, ratings and averages do not', () => {
    expect(summable(role('retail', 'Product', 'price'))).toBe(true);
    expect(summable(role('retail', 'Product', 'quantity'))).toBe(true);
    expect(summable(role('social', 'ConsumerAccount', 'age'))).toBe(false);
    expect(summable(role('retail', 'Review', 'rating'))).toBe(false);
    expect(summable(role('social', 'Streamer', 'avg_viewers'))).toBe(false);
  });

  it('aggregate-argument: averages of quantities; distinct counts of names and kinds', () => {
    expect(averageable(role('retail', 'Review', 'rating'))).toBe(true);
    expect(averageable(role('retail', 'Electronics', 'model_no'))).toBe(false);
    expect(distinctCountable(role('retail', 'Employee', 'department'))).toBe(true);
    expect(distinctCountable(role('retail', 'Product', 'price'))).toBe(false);
  });

  it('group-key, exact-match, range-on-quantity, like-on-text and shown-by-name by role', () => {
    expect(groupable(role('social', 'Streamer', 'platform'))).toBe(true);
    expect(groupable(role('social', 'Content', 'duration'))).toBe(false);
    const age = slot('social', 'ConsumerAccount', 'age');
    const price = slot('retail', 'Product', 'price');
    const quantity = slot('retail', 'Product', 'quantity');
    expect(matchable(age.role, age.attribute)).toBe(true);
    expect(matchable(price.role, price.attribute)).toBe(false);
    expect(matchable(quantity.role, quantity.attribute)).toBe(false);
    expect(matchable(role('retail', 'Review', 'rating'))).toBe(true);
    expect(matchable(role('retail', 'DigitalProduct', 'description'))).toBe(false);
    expect(matchable(role('social', 'Account', 'created_at'))).toBe(false);
    expect(matchable(role('retail', 'Product', 'tags'))).toBe(true);
    expect(rangeable(role('social', 'Account', 'created_at'))).toBe(true);
    expect(rangeable(role('retail', 'User', 'last_name'))).toBe(false);
    expect(searchable(role('retail', 'Review', 'body'))).toBe(true);
    expect(searchable(role('retail', 'User', 'email'))).toBe(false);
    expect(naming(role('retail', 'User', 'email'))).toBe(true);
    expect(naming(role('retail', 'Product', 'price'))).toBe(false);
  });

  it('single-object-groups: a group aggregates only when a join reaches many partners', () => {
    expect(groupsAggregate(retail, 'r', 'r', [inner('about', 'r', 'forward', 'p', 'Product')])).toBe(false);
    expect(groupsAggregate(retail, 'p', 'r', [inner('about', 'r', 'forward', 'p', 'Product')])).toBe(true);
    expect(groupsAggregate(retail, 'p', 'p', [inner('about', 'p', 'reverse', 'r', 'Review')])).toBe(true);
    expect(groupsAggregate(retail, 'p', 'p', [])).toBe(false);
  });

  it('typed-value and round-limit: thresholds as typed, dates on the first of a month, short LIMITs', () => {
    // A bound: one significant digit when within a tenth, else a multiple of five in the second.
    expect([8479, 795.36, 9512.32, 37, 4.2, 0.537, 970, 4300, 1300, 23, 17].map(roundThreshold)).toEqual([
      8000, 800, 10000, 40, 4.2, 0.54, 1000, 4000, 1500, 25, 17,
    ]);
    for (const n of [8479, 795.36, 9512.32, 37, 970, 4300, 1300, 23, 117, 26_400])
      expect(isTypedBound(roundThreshold(n)), String(n)).toBe(true);
    // A value matched with = is the data's, typed as it is.
    expect([8500, 800, 37, 53, 4.5].every(isTyped)).toBe(true);
    expect(isTyped(8479)).toBe(false);
    expect(monthStart('2023-04-17 10:02:11+00')).toBe('2023-04-01');
    expect(ROUND_LIMITS).toEqual([1, 3, 5, 10, 20, 50, 100]);
  });
});

describe('date windows', () => {
  // The dates of a column, the latest December 28, 2025.
  const days = ['2019-03-02', '2021-01-15', '2024-03-01', '2025-07-10', '2025-12-05', '2025-12-25', '2025-12-28'];
  const windowOf = (threshold: string) => {
    const e = dateWindow(days, threshold);
    return e?.kind === 'dateShift' ? `${-e.amount} ${e.unit}` : e;
  };

  it('give a window as people do, the nearest of the lengths they use, before the latest date', () => {
    expect(windowOf('2021-01-15')).toBe('5 year'); // 59 months
    expect(windowOf('2019-03-02')).toBe('7 year'); // 81 months
    expect(windowOf('2024-03-01')).toBe('18 month'); // 21 months
    expect(windowOf('2025-07-10')).toBe('6 month'); // 5 months
    expect(windowOf('2025-12-05')).toBe('21 day'); // 23 days
    expect(windowOf('2025-12-25')).toBe('3 day');
    expect(windowOf('2025-12-28')).toBeUndefined();
    const e = dateWindow(days, '2025-07-10');
    expect(e?.kind === 'dateShift' && e.arg).toEqual({ kind: 'literal', value: '2025-12-28' });
  });
});
