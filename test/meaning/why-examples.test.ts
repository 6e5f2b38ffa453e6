/**
 * The queries a blind review judged meaningless, each rebuilt as the conceptual query of its
 * shape: generation refuses every one with the rule it breaks as the reason.
 */
import { describe, expect, it } from 'vitest';
import { BUILT_IN_DOMAINS } from '../../generator/domains/index.ts';
import { indexDomain } from '../../generator/er-model/er-index.ts';
import { rejectMeaningless } from '../../generator/generate/meaning-gate.ts';
import { CandidateRejected } from '../../generator/records/group-record.ts';
import type { Query } from '../../generator/query/conceptual-query.ts';
import {
  agg,
  and,
  arith,
  asc,
  attr,
  classOf,
  cmp,
  count,
  entity,
  id,
  inner,
  lit,
  out,
  round,
  select,
} from '../../generator/query/query-builder.ts';

const retail = indexDomain(BUILT_IN_DOMAINS['retail']!);
const social = indexDomain(BUILT_IN_DOMAINS['social_media']!);

/** The reason generation gives for a query, or 'accepted'. */
function verdict(q: Query, index = retail): string {
  try {
    rejectMeaningless(index, q);
    return 'accepted';
  } catch (error) {
    if (!(error instanceof CandidateRejected)) throw error;
    return error.reason;
  }
}

const products = (extra: Parameters<typeof select>[0]['select'], rest: Partial<Parameters<typeof select>[0]> = {}) =>
  select({ from: entity('Product', 'p'), select: [out('name', attr('p', 'name')), ...extra], ...rest });

describe('the examples of meaningless queries are refused', () => {
  it("arithmetic across units: price - quantity, quantity + price, an email's first letter beside a duration", () => {
    expect(
      verdict(products([out('price_minus_quantity', arith('-', attr('p', 'price'), attr('p', 'quantity')))])),
    ).toBe('not-meaningful:unit-arithmetic');
    expect(verdict(products([out('quantity_plus_price', arith('+', attr('p', 'quantity'), attr('p', 'price')))]))).toBe(
      'not-meaningful:unit-arithmetic',
    );
    const letter = select({
      from: entity('Account', 'a'),
      joins: [inner('shared', 'a', 'forward', 'c', 'Clip')],
      select: [
        out('email_start', { kind: 'substring', arg: attr('a', 'email'), start: 1, length: 1 }),
        out('duration', attr('c', 'duration')),
      ],
    });
    expect(verdict(letter, social)).toBe('not-meaningful:text-function');
  });

  it('sums of what does not add up, an average of an id', () => {
    expect(
      verdict(
        select({ from: entity('ConsumerAccount', 'c'), select: [out('total_age', agg('sum', attr('c', 'age')))] }),
        social,
      ),
    ).toBe('not-meaningful:additive-sum');
    expect(
      verdict(select({ from: entity('Review', 'r'), select: [out('avg_id', round(agg('avg', id('r')), 2))] })),
    ).toBe('not-meaningful:aggregate-argument');
  });

  it('length() of tags, model numbers and titles as an output', () => {
    const length = (arg: ReturnType<typeof attr>) => ({ kind: 'textFunction' as const, fn: 'length' as const, arg });
    expect(
      verdict(
        select({
          from: entity('Product', 'p'),
          joins: [{ kind: 'elements', type: 'inner', of: 'p', attribute: 'tags', alias: 't' }],
          select: [out('name', attr('p', 'name')), out('tag_length', length({ kind: 'element', alias: 't' } as never))],
        }),
      ),
    ).toBe('not-meaningful:text-function');
    expect(
      verdict(
        select({
          from: entity('Electronics', 'e'),
          select: [out('name', attr('e', 'name')), out('model_no_length', length(attr('e', 'model_no')))],
        }),
      ),
    ).toBe('not-meaningful:text-function');
    expect(
      verdict(
        select({ from: entity('Content', 'c'), select: [out('title_length', length(attr('c', 'title')))] }),
        social,
      ),
    ).toBe('not-meaningful:text-function');
  });

  it('one relationship joined to itself three times and counted', () => {
    const q = select({
      from: entity('Subscriber', 's'),
      joins: [
        inner('viewed', 's', 'forward', 'c', 'Content'),
        inner('viewed', 's', 'forward', 'c2', 'Content'),
        inner('viewed', 's', 'forward', 'c3', 'Content'),
      ],
      select: [out('count', count())],
    });
    expect(verdict(q, social)).toBe('not-meaningful:self-pairing');
  });

  it('exact matches on free text: a product description, a lorem-ipsum bio', () => {
    const description = select({
      from: entity('DigitalProduct', 'd'),
      select: [out('count', count())],
      where: cmp(attr('d', 'description'), '=', lit('Ergonomic Cheese made with Silk for all-day unaware support')),
    });
    expect(verdict(description)).toBe('not-meaningful:exact-match');
    const bio = select({
      from: entity('CreatorAccount', 'c'),
      select: [out('username', attr('c', 'username'))],
      where: cmp(attr('c', 'bio'), '=', lit('Voluptas praesentium aut quia.')),
    });
    expect(verdict(bio, social)).toBe('not-meaningful:exact-match');
  });

  it('grouping by a key that makes every group one row: group by review, count reviews', () => {
    const q = select({
      from: entity('Review', 'r'),
      select: [out('review_id', id('r')), out('count', count())],
      groupBy: [id('r')],
    });
    expect(verdict(q)).toBe('not-meaningful:single-object-groups');
  });

  it('outputs with no identifying column: a bare list of rounded integers, of tags, of prices', () => {
    expect(
      verdict(
        select({
          from: entity('Product', 'p'),
          select: [out('price_whole', { kind: 'cast', arg: attr('p', 'price'), to: 'integer' })],
        }),
      ),
    ).toBe('not-meaningful:shown-by-name');
    expect(
      verdict(
        select({
          from: entity('Product', 'p'),
          joins: [{ kind: 'elements', type: 'inner', of: 'p', attribute: 'tags', alias: 't' }],
          select: [out('tag', { kind: 'element', alias: 't' })],
        }),
      ),
    ).toBe('not-meaningful:shown-by-name');
    expect(verdict(select({ from: entity('Product', 'p'), select: [out('price', attr('p', 'price'))] }))).toBe(
      'not-meaningful:shown-by-name',
    );
  });

  it('two bounds on one column where one implies the other: age >= 53 AND age > 34', () => {
    const q = select({
      from: entity('ConsumerAccount', 'c'),
      select: [out('username', attr('c', 'username'))],
      where: and(cmp(attr('c', 'age'), '>=', lit(53)), cmp(attr('c', 'age'), '>', lit(34))),
    });
    expect(verdict(q, social)).toBe('not-meaningful:implied-bound');
  });

  it('thresholds no person types, and an alphabetical sort cut to the first row', () => {
    const duration = select({
      from: entity('Content', 'c'),
      select: [out('title', attr('c', 'title'))],
      where: cmp(attr('c', 'duration'), '<', lit(8479)),
    });
    expect(verdict(duration, social)).toBe('not-meaningful:typed-value');
    // A bound of 4,300 seconds is no number a person types; 4,200 seconds is "70 minutes".
    const shorter = (seconds: number) =>
      select({
        from: entity('Content', 'c'),
        select: [out('title', attr('c', 'title'))],
        where: cmp(attr('c', 'duration'), '<', lit(seconds)),
      });
    expect(verdict(shorter(4300), social)).toBe('not-meaningful:typed-value');
    expect(verdict(shorter(4200), social)).not.toBe('not-meaningful:typed-value');
    expect(verdict(shorter(4000), social)).not.toBe('not-meaningful:typed-value');
    // An exact price is both an exact match on a measure and a number no one types.
    expect(verdict(products([], { where: cmp(attr('p', 'price'), '=', lit(795.36)) }))).toBe(
      'not-meaningful:exact-match',
    );
    const having = select({
      from: entity('Employee', 'e'),
      joins: [inner('recommends', 'e', 'forward', 'p', 'Product')],
      select: [out('department', attr('e', 'department')), out('total_price', agg('sum', attr('p', 'price')))],
      groupBy: [attr('e', 'department')],
      having: cmp(agg('sum', attr('p', 'price')), '>', lit(9512.32)),
    });
    expect(verdict(having)).toBe('not-meaningful:typed-value');
    expect(verdict(products([out('price', attr('p', 'price'))], { orderBy: [asc('name')], limit: 1 }))).toBe(
      'not-meaningful:alphabetical-cut',
    );
  });

  it("a constant output: the entity itself listed before its subclasses (CASE WHEN TRUE THEN 'PhysicalProduct' …)", () => {
    const q = select({
      from: entity('PhysicalProduct', 'pp'),
      select: [
        out('name', attr('pp', 'name')),
        out('physical_product_kind', classOf('pp', ['PhysicalProduct', 'Apparel', 'Accessories', 'Electronics'])),
      ],
    });
    expect(verdict(q)).toBe('not-meaningful:constant-output');
  });

  it('and lets through what an analyst asks', () => {
    expect(
      verdict(
        products([out('stock_value', arith('*', attr('p', 'price'), attr('p', 'quantity')))], {
          where: cmp(attr('p', 'price'), '>', lit(250)),
        }),
      ),
    ).toBe('accepted');
    expect(
      verdict(
        select({
          from: entity('Clip', 'c'),
          select: [
            out('title', attr('c', 'title')),
            out('length', arith('-', attr('c', 'end_offset'), attr('c', 'start_offset'))),
          ],
        }),
        social,
      ),
    ).toBe('accepted');
  });
});
