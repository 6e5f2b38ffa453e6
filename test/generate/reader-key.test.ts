import { describe, expect, it } from 'vitest';
import { BUILT_IN_DOMAINS } from '../../generator/domains/index.ts';
import { indexDomain } from '../../generator/er-model/er-index.ts';
import { groupId } from '../../generator/generate/canonical-query.ts';
import { addKeys, duplicateKeys, duplicateOf, readerKey } from '../../generator/generate/candidate.ts';
import { compileQuery } from '../../generator/compile/compile-query.ts';
import { buildRelationalSchema } from '../../generator/variants/build-schema.ts';
import { presetVariant } from '../../generator/variants/variant-presets.ts';
import type { Query } from '../../generator/query/conceptual-query.ts';

// Two fillings a 1,000-group retail run drew: the orders counted over their customers, and
// the customers' distinct orders counted. Every order has its customer, so the answers are
// the same, and so is the natural question ("What is the number of orders placed by
// customers?"); only their SQL differs.
const index = indexDomain(BUILT_IN_DOMAINS['retail']!);
const ordersOverCustomers = {
  kind: 'select',
  from: { entity: 'CustOrder', alias: 'co' },
  joins: [
    {
      kind: 'relationship',
      type: 'inner',
      relationship: 'places',
      from: 'co',
      direction: 'forward',
      alias: 'c',
      entity: 'Customer',
    },
  ],
  select: [{ name: 'count', expr: { kind: 'aggregate', fn: 'count' } }],
} as unknown as Query;
const customersDistinctOrders = {
  kind: 'select',
  from: { entity: 'Customer', alias: 'c' },
  joins: [
    {
      kind: 'relationship',
      type: 'inner',
      relationship: 'places',
      from: 'c',
      direction: 'reverse',
      alias: 'co',
      entity: 'CustOrder',
    },
  ],
  select: [
    {
      name: 'distinct_cust_orders',
      expr: {
        kind: 'aggregate',
        fn: 'count',
        distinct: true,
        arg: { kind: 'attribute', alias: 'co', attribute: 'id' },
      },
    },
  ],
} as unknown as Query;
const answers = (main: string, edge: string) => ({ main: { result_hash: main }, edge: { result_hash: edge } });

describe('groups a reader cannot tell apart are duplicates', () => {
  it('two fillings with different ids and SQL but one natural question and the same answers share the reader key', () => {
    expect(groupId(ordersOverCustomers)).not.toBe(groupId(customersDistinctOrders));
    const schema = buildRelationalSchema(index, presetVariant(index, 'full_normalized'));
    const [a, b] = [ordersOverCustomers, customersDistinctOrders].map((q) => compileQuery(index, schema, q));
    expect(a).not.toBe(b);
    const same = answers('m1', 'e1');
    expect(readerKey(index, ordersOverCustomers, same)).toBe(readerKey(index, customersDistinctOrders, same));

    const seen = new Set<string>();
    addKeys(seen, duplicateKeys(a as string, { index, query: ordersOverCustomers, verified: same }));
    expect(
      duplicateOf(seen, duplicateKeys(b as string, { index, query: customersDistinctOrders, verified: same })),
    ).toBe('same natural question and answers as an earlier group');
  });

  it('a tie-breaker no instance needs changes the evidence, not the question: one reader key', () => {
    const social = indexDomain(BUILT_IN_DOMAINS['social_media']!);
    const year = { kind: 'extract', field: 'year', arg: { kind: 'attribute', alias: 'c', attribute: 'created_at' } };
    const busiestYear = (tieBreak: boolean) =>
      ({
        kind: 'select',
        select: [
          { name: 'created_at_year', expr: year },
          { name: 'count', expr: { kind: 'aggregate', fn: 'count' } },
        ],
        from: { entity: 'Channel', alias: 'c' },
        groupBy: [year],
        orderBy: [
          { expr: { kind: 'output', name: 'count' }, direction: 'desc' },
          ...(tieBreak ? [{ expr: { kind: 'output', name: 'created_at_year' }, direction: 'desc' }] : []),
        ],
        limit: 1,
      }) as unknown as Query;
    expect(groupId(busiestYear(true))).not.toBe(groupId(busiestYear(false)));
    const same = answers('m', 'e');
    expect(readerKey(social, busiestYear(true), same)).toBe(readerKey(social, busiestYear(false), same));
  });

  it('another answer on either instance, or another question, is another group', () => {
    const seen = new Set<string>();
    addKeys(seen, duplicateKeys('SELECT 1', { index, query: ordersOverCustomers, verified: answers('m1', 'e1') }));
    for (const other of [answers('m1', 'e2'), answers('m2', 'e1')])
      expect(
        duplicateOf(seen, duplicateKeys('SELECT 2', { index, query: customersDistinctOrders, verified: other })),
      ).toBeUndefined();
    const plainCount = {
      kind: 'select',
      from: { entity: 'CustOrder', alias: 'co' },
      select: [{ name: 'count', expr: { kind: 'aggregate', fn: 'count' } }],
    } as unknown as Query;
    expect(
      duplicateOf(seen, duplicateKeys('SELECT 2', { index, query: plainCount, verified: answers('m1', 'e1') })),
    ).toBeUndefined();
  });

  it('a user suite query keeps only its structure key, which still catches the same SQL', () => {
    const seen = new Set<string>();
    addKeys(seen, duplicateKeys('SELECT count(*) FROM cust_order'));
    expect(duplicateKeys('SELECT count(*) FROM cust_order').split(' ')).toHaveLength(1);
    expect(duplicateOf(seen, duplicateKeys('SELECT  COUNT(*) FROM cust_order'))).toBe(
      'same structure and literals as an earlier group',
    );
  });
});
