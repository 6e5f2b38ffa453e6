import { describe, expect, it } from 'vitest';
import { BUILT_IN_DOMAINS } from '../../generator/domains/index.ts';
import { indexDomain } from '../../generator/er-model/er-index.ts';
import { checkMeaning, MEANING_CHECKS } from '../../generator/meaning/check-meaning.ts';
import { MEANING_RULES, type MeaningRule } from '../../generator/meaning/meaning-rules.ts';
import { isTypedBound, isTypedNumber, significantDigits } from '../../generator/meaning/rules/typed-value.ts';
import type { Expr, Query } from '../../generator/query/conceptual-query.ts';
import {
  agg,
  and,
  arith,
  asc,
  attr,
  classOf,
  cmp,
  contains,
  count,
  countDistinct,
  desc,
  element,
  elements,
  entity,
  id,
  inner,
  lit,
  or,
  out,
  round,
  select,
} from '../../generator/query/query-builder.ts';

const retail = indexDomain(BUILT_IN_DOMAINS['retail']!);
const social = indexDomain(BUILT_IN_DOMAINS['social_media']!);
const rules = (q: Query, index = retail): MeaningRule[] => [...new Set(checkMeaning(index, q).map((v) => v.rule))];

const product = entity('Product', 'p');
const name = out('name', attr('p', 'name'));
/** Products, named, with one more output. */
const products = (extra: { name: string; expr: Expr }[], rest: Partial<Parameters<typeof select>[0]> = {}) =>
  select({ from: product, select: [name, ...extra], ...rest });

/** Each rule: a query it refuses and the closest one it accepts. */
const CASES: Record<MeaningRule, { bad: Query; good: Query; index?: typeof retail }> = {
  'unit-arithmetic': {
    bad: products([out('x', arith('-', attr('p', 'price'), attr('p', 'quantity')))]),
    good: products([out('stock_value', arith('*', attr('p', 'price'), attr('p', 'quantity')))]),
  },
  'comparable-columns': {
    bad: select({
      from: entity('Review', 'r'),
      joins: [inner('about', 'r', 'forward', 'p', 'Product')],
      select: [name],
      where: cmp(attr('p', 'price'), '>', attr('r', 'rating')),
    }),
    good: select({
      from: entity('CustOrder', 'o'),
      joins: [inner('contains', 'o', 'forward', 'p', 'Product'), inner('contains', 'p', 'reverse', 'o2', 'CustOrder')],
      select: [name],
      where: cmp(attr('o', 'placed_at'), '>', attr('o2', 'placed_at')),
    }),
  },
  'additive-sum': {
    bad: select({ from: entity('Review', 'r'), select: [out('total_rating', agg('sum', attr('r', 'rating')))] }),
    good: select({
      from: entity('Review', 'r'),
      select: [out('avg_rating', round(agg('avg', attr('r', 'rating')), 2))],
    }),
  },
  'aggregate-argument': {
    bad: select({ from: product, select: [out('avg_id', agg('avg', id('p')))] }),
    good: select({ from: product, select: [out('avg_price', agg('avg', attr('p', 'price')))] }),
  },
  'distinct-aggregate': {
    bad: select({ from: product, select: [out('s', agg('sum', attr('p', 'price'), true))] }),
    good: select({ from: product, select: [out('s', agg('sum', attr('p', 'price')))] }),
  },
  'group-key': {
    bad: select({
      from: product,
      select: [out('price', attr('p', 'price')), out('n', count())],
      groupBy: [attr('p', 'price')],
    }),
    good: select({
      from: entity('Employee', 'e'),
      select: [out('department', attr('e', 'department')), out('n', count())],
      groupBy: [attr('e', 'department')],
    }),
  },
  'exact-match': {
    bad: select({
      from: entity('DigitalProduct', 'd'),
      select: [out('name', attr('d', 'name'))],
      where: cmp(attr('d', 'description'), '=', lit('Ergonomic Cheese made with Silk for all-day unaware support')),
    }),
    good: select({
      from: entity('DigitalProduct', 'd'),
      select: [out('name', attr('d', 'name'))],
      where: cmp(attr('d', 'format'), '=', lit('pdf')),
    }),
  },
  'range-on-quantity': {
    bad: select({
      from: entity('User', 'u'),
      select: [out('email', attr('u', 'email'))],
      where: cmp(attr('u', 'last_name'), '>', lit('M')),
    }),
    good: select({
      from: entity('Customer', 'c'),
      select: [out('email', attr('c', 'email'))],
      where: cmp(attr('c', 'loyalty_points'), '>', lit(5000)),
    }),
  },
  'like-on-text': {
    bad: select({
      from: entity('User', 'u'),
      select: [out('last_name', attr('u', 'last_name'))],
      where: { kind: 'like', expr: attr('u', 'email'), pattern: '%gmail%' },
    }),
    good: select({
      from: entity('User', 'u'),
      select: [out('email', attr('u', 'email'))],
      where: { kind: 'like', expr: attr('u', 'last_name'), pattern: 'Mc%' },
    }),
  },
  'text-function': {
    bad: select({
      from: entity('Electronics', 'e'),
      select: [
        out('name', attr('e', 'name')),
        out('len', { kind: 'textFunction', fn: 'length', arg: attr('e', 'model_no') }),
      ],
    }),
    good: select({
      from: entity('Review', 'r'),
      joins: [inner('about', 'r', 'forward', 'p', 'Product')],
      select: [name, out('len', { kind: 'textFunction', fn: 'length', arg: attr('r', 'body') })],
    }),
  },
  'shown-by-name': {
    bad: select({ from: product, select: [out('price', attr('p', 'price'))] }),
    good: select({
      from: product,
      select: [out('price', attr('p', 'price'))],
      where: cmp(attr('p', 'name'), '=', lit('Sleek Steel Chair')),
    }),
  },
  'self-pairing': {
    bad: select({
      from: entity('CustOrder', 'o'),
      joins: [inner('contains', 'o', 'forward', 'p', 'Product'), inner('contains', 'o', 'forward', 'p2', 'Product')],
      select: [out('n', count())],
    }),
    good: select({
      from: entity('CustOrder', 'o'),
      joins: [inner('contains', 'o', 'forward', 'p', 'Product'), inner('places', 'o', 'forward', 'c', 'Customer')],
      select: [out('n', count())],
    }),
  },
  'implied-bound': {
    bad: select({
      from: entity('ConsumerAccount', 'c'),
      select: [out('username', attr('c', 'username'))],
      where: and(cmp(attr('c', 'age'), '>=', lit(53)), cmp(attr('c', 'age'), '>', lit(34))),
    }),
    good: select({
      from: entity('ConsumerAccount', 'c'),
      select: [out('username', attr('c', 'username'))],
      where: and(cmp(attr('c', 'age'), '>=', lit(30)), cmp(attr('c', 'age'), '<', lit(40))),
    }),
    index: social,
  },
  'constant-output': {
    bad: select({
      from: entity('PhysicalProduct', 'pp'),
      select: [
        out('name', attr('pp', 'name')),
        out('kind', classOf('pp', ['PhysicalProduct', 'Apparel', 'Accessories', 'Electronics'])),
      ],
    }),
    good: select({
      from: entity('PhysicalProduct', 'pp'),
      select: [out('name', attr('pp', 'name')), out('kind', classOf('pp', ['Apparel', 'Accessories', 'Electronics']))],
    }),
  },
  'single-object-groups': {
    bad: select({
      from: entity('Review', 'r'),
      joins: [inner('about', 'r', 'forward', 'p', 'Product')],
      select: [out('review_id', id('r')), out('n', count())],
      groupBy: [id('r')],
    }),
    good: select({
      from: product,
      joins: [inner('about', 'p', 'reverse', 'r', 'Review')],
      select: [name, out('n', count())],
      groupBy: [id('p')],
    }),
  },
  'fan-out': {
    bad: select({
      from: product,
      joins: [elements('inner', 'p', 'tags', 't')],
      select: [out('total_price', agg('sum', attr('p', 'price')))],
    }),
    good: select({
      from: product,
      joins: [elements('inner', 'p', 'tags', 't')],
      select: [out('tag', element('t')), out('total_price', agg('sum', attr('p', 'price')))],
      groupBy: [element('t')],
    }),
  },
  'cross-product': {
    bad: select({
      from: product,
      joins: [elements('inner', 'p', 'tags', 't'), inner('about', 'p', 'reverse', 'r', 'Review')],
      select: [name, out('n', count())],
      groupBy: [id('p')],
    }),
    good: select({
      from: product,
      joins: [inner('about', 'p', 'reverse', 'r', 'Review')],
      select: [name, out('n', count())],
      groupBy: [id('p')],
    }),
  },
  'repeated-rows': {
    bad: select({
      from: entity('PhysicalProduct', 'pp'),
      joins: [inner('recommends', 'pp', 'reverse', 'e', 'Employee')],
      select: [out('last_name', attr('e', 'last_name'))],
    }),
    good: select({
      distinct: true,
      from: entity('PhysicalProduct', 'pp'),
      joins: [inner('recommends', 'pp', 'reverse', 'e', 'Employee')],
      select: [out('last_name', attr('e', 'last_name'))],
    }),
  },
  'typed-value': {
    bad: products([], { where: cmp(attr('p', 'price'), '>', lit(9512.32)) }),
    good: products([], { where: cmp(attr('p', 'price'), '>', lit(9500)) }),
  },
  'round-limit': {
    bad: products([out('price', attr('p', 'price'))], { orderBy: [desc('price'), asc('name')], limit: 7 }),
    good: products([out('price', attr('p', 'price'))], { orderBy: [desc('price'), asc('name')], limit: 5 }),
  },
  'alphabetical-cut': {
    bad: products([out('price', attr('p', 'price'))], { orderBy: [asc('name')], limit: 1 }),
    good: products([out('price', attr('p', 'price'))], { orderBy: [desc('price')], limit: 1 }),
  },
};

describe('the meaning check', () => {
  it('has one check per rule, in the order of the rules', () => {
    expect(MEANING_CHECKS.map((c) => c.rule)).toEqual([...MEANING_RULES]);
  });

  for (const rule of MEANING_RULES) {
    it(`${rule}: refuses a hand-made bad query and accepts its twin`, () => {
      const { bad, good, index } = CASES[rule];
      expect(rules(bad, index)).toContain(rule);
      expect(rules(good, index)).not.toContain(rule);
    });
  }

  it('accepts a query an analyst would ask, whole', () => {
    // The five best-rated products with at least 3 reviews, by name and average rating.
    const q = select({
      from: product,
      joins: [inner('about', 'p', 'reverse', 'r', 'Review')],
      select: [name, out('avg_rating', round(agg('avg', attr('r', 'rating')), 2)), out('reviews', count(id('r')))],
      groupBy: [id('p')],
      having: cmp(count(id('r')), '>=', lit(3)),
      orderBy: [desc('avg_rating'), asc('name')],
      limit: 5,
    });
    expect(checkMeaning(retail, q)).toEqual([]);
  });

  it('reads sets, links and subqueries for roles', () => {
    const tagged = select({
      from: product,
      joins: [elements('inner', 'p', 'tags', 't')],
      select: [name, out('tag', element('t'))],
      where: cmp(element('t'), '=', lit('sale')),
    });
    // The tag the WHERE clause fixes is the same in every row.
    expect(rules(tagged)).toEqual(['constant-output']);
    expect(rules({ ...tagged, select: [name] })).toEqual([]);
    expect(rules(select({ from: product, select: [name], where: contains('p', 'tags', 'sale') }))).toEqual([]);
    const sub = select({
      from: product,
      select: [name],
      where: cmp(attr('p', 'price'), '>', {
        kind: 'scalarSubquery',
        query: select({ from: entity('Product', 'p2'), select: [out('a', agg('sum', attr('p2', 'quantity')))] }),
      }),
    });
    expect(rules(sub)).toEqual([]);
    // The number of reviews HAVING fixes to 4 is 4 in every row; a bound leaves it to say.
    const reviewed = (op: '=' | '>=') =>
      select({
        from: product,
        joins: [inner('about', 'p', 'reverse', 'r', 'Review')],
        select: [name, out('reviews', count(id('r')))],
        groupBy: [id('p')],
        having: cmp(count(id('r')), op, lit(4)),
      });
    expect(rules(reviewed('='))).toEqual(['constant-output']);
    // The number of different names of products named "Lamp" is 1.
    const named = (fn: 'count' | 'sum') =>
      select({
        from: product,
        select: [out('n', fn === 'count' ? countDistinct(attr('p', 'name')) : agg('sum', attr('p', 'price')))],
        where: cmp(attr('p', 'name'), '=', lit('Lamp')),
      });
    expect(rules(named('count'))).toEqual(['constant-output']);
    expect(rules(named('sum'))).toEqual([]);
    // A list of names leaves the number free.
    expect(
      rules(
        select({
          from: product,
          select: [out('n', countDistinct(attr('p', 'name')))],
          where: { kind: 'in', expr: attr('p', 'name'), values: ['Lamp', 'Desk'] },
        }),
      ),
    ).toEqual([]);
    expect(rules(reviewed('>='))).toEqual([]);
    const or2 = select({
      from: product,
      select: [name],
      where: or(cmp(attr('p', 'quantity'), '>', lit(5)), cmp(attr('p', 'quantity'), '>', lit(10))),
    });
    expect(rules(or2)).toEqual(['implied-bound']);
    // A value equal to 'Steel' and NULL at once keeps nothing: the OR beside it is the whole filter.
    const prefs = attr('p', 'material');
    const physical = entity('PhysicalProduct', 'p');
    const contradiction = select({
      from: physical,
      select: [name],
      where: or(
        and(cmp(prefs, '=', lit('Steel')), { kind: 'isNull', expr: prefs }),
        cmp(attr('p', 'quantity'), '>', lit(5)),
      ),
    });
    expect(rules(contradiction)).toEqual(['implied-bound']);
    // IS NOT NULL beside an equality says it again; one condition twice says nothing more.
    const notNull = select({
      from: physical,
      select: [name],
      where: and(cmp(prefs, '=', lit('Steel')), { kind: 'isNull', expr: prefs, negated: true }),
    });
    expect(rules(notNull)).toEqual(['implied-bound']);
    const subscriber = { kind: 'isA', alias: 'p', entity: 'PhysicalProduct' } as const;
    expect(rules(select({ from: product, select: [name], where: and(subscriber, subscriber) }))).toEqual([
      'implied-bound',
    ]);
    expect(rules(select({ from: product, select: [name], where: or(subscriber, subscriber) }))).toEqual([
      'implied-bound',
    ]);
    expect(
      rules(
        select({
          from: physical,
          select: [name],
          where: or(cmp(prefs, '=', lit('Steel')), { kind: 'isNull', expr: prefs }),
        }),
      ),
    ).toEqual([]);
    expect(
      rules(select({ from: entity('Employee', 'e'), select: [out('n', countDistinct(attr('e', 'hire_date')))] })),
    ).toEqual(['aggregate-argument']);
  });

  it("finds an aggregate of a group's own key, in the outputs or in HAVING", () => {
    const notes = attr('ca', 'preferences');
    const perNote = (having: Parameters<typeof select>[0]['having']) =>
      select({
        from: entity('ConsumerAccount', 'ca'),
        select: [out('preferences', notes), out('n', count())],
        groupBy: [notes],
        having,
      });
    // "Each preference note whose number of different preference notes is under 1" keeps the missing one only.
    expect(rules(perNote(cmp(countDistinct(notes), '<', lit(1))), social)).toEqual(['constant-output']);
    // The number of viewers of each preference note is a question.
    expect(rules(perNote(cmp(count(), '>', lit(50))), social)).toEqual([]);
  });

  it('finds the number of different values each object has its own of', () => {
    // "The number of different email addresses of accounts" is the number of accounts.
    const accounts = (counted: Expr) =>
      select({ from: entity('Account', 'a'), select: [out('n', countDistinct(counted))] });
    expect(rules(accounts(attr('a', 'email')), social)).toEqual(['aggregate-argument']);
    expect(rules(accounts(attr('a', 'username')), social)).toEqual(['aggregate-argument']);
    // Preference notes repeat: how many there are is a question.
    const viewers = select({
      from: entity('ConsumerAccount', 'ca'),
      select: [out('n', countDistinct(attr('ca', 'preferences')))],
    });
    expect(rules(viewers, social)).toEqual([]);
  });

  it('finds an aggregate over the one object a unique value picks', () => {
    const viewers = (where: Parameters<typeof select>[0]['where'], groupBy?: Expr[]) =>
      select({
        from: entity('ConsumerAccount', 'ca'),
        select: [out('avg_age', agg('avg', attr('ca', 'age')))],
        where,
        ...(groupBy ? { groupBy } : {}),
      });
    // "The average age of viewers with the username Judah30" is Judah30's age.
    expect(rules(viewers(cmp(attr('ca', 'username'), '=', lit('Judah30'))), social)).toEqual(['single-object-groups']);
    expect(rules(viewers(cmp(attr('ca', 'email'), '=', lit('a@b.org')), [attr('ca', 'preferences')]), social)).toEqual([
      'single-object-groups',
    ]);
    // Viewers over 30 are many.
    expect(rules(viewers(cmp(attr('ca', 'age'), '>', lit(30))), social)).toEqual([]);
  });

  it('counts significant digits as a person types them', () => {
    expect([250, 1000, 9500, 0.5, 37, 4].every(isTypedNumber)).toBe(true);
    expect([8479, 795.36, 9512.32, 1250, 104].some(isTypedNumber)).toBe(false);
    // As a bound, from 20 on: a multiple of five in the second digit.
    expect([30, 150, 1000, 4500, 25_000, 17, 4.5].every(isTypedBound)).toBe(true);
    expect([37, 4300, 970, 104, 1250].some(isTypedBound)).toBe(false);
    expect(significantDigits(9500)).toBe(2);
    expect(significantDigits(0.05)).toBe(1);
  });
});
