import { describe, expect, it } from 'vitest';
import { BUILT_IN_DOMAINS } from '../../generator/domains/index.ts';
import { indexDomain } from '../../generator/er-model/er-index.ts';
import { buildRelationalSchema } from '../../generator/variants/build-schema.ts';
import { presetVariant } from '../../generator/variants/variant-presets.ts';
import { compileQuery } from '../../generator/compile/compile-query.ts';

describe('an aggregate of arithmetic', () => {
  it('is written without a second pair of brackets: sum(p.price * p.quantity), count(DISTINCT p.price * p.quantity)', () => {
    const index = indexDomain(BUILT_IN_DOMAINS['retail']!);
    const schema = buildRelationalSchema(index, presetVariant(index, 'full_normalized'));
    const times = {
      kind: 'arithmetic',
      op: '*',
      left: { kind: 'attribute', alias: 'p', attribute: 'price' },
      right: { kind: 'attribute', alias: 'p', attribute: 'quantity' },
    } as const;
    const sql = compileQuery(index, schema, {
      kind: 'select',
      from: { entity: 'Product', alias: 'p' },
      select: [
        { name: 'stock_value', expr: { kind: 'aggregate', fn: 'sum', arg: times } },
        { name: 'values', expr: { kind: 'aggregate', fn: 'count', arg: times, distinct: true } },
      ],
    });
    expect(sql).toContain('sum(p.price * p.quantity) AS stock_value');
    expect(sql).toContain('count(DISTINCT p.price * p.quantity) AS "values"');
  });
});
