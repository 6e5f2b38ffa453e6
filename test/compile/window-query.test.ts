import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { BUILT_IN_DOMAINS } from '../../generator/domains/index.ts';
import { indexDomain } from '../../generator/er-model/er-index.ts';
import { ConfigError } from '../../generator/common/errors.ts';
import { openDatabase, type Database } from '../../generator/database/database.ts';
import { buildDataset, type BuildManifest } from '../../generator/assemble/build-dataset.ts';
import { buildRelationalSchema } from '../../generator/variants/build-schema.ts';
import { allPresets } from '../../generator/variants/variant-presets.ts';
import { compileQuery } from '../../generator/compile/compile-query.ts';
import { runReadOnly } from '../../generator/execute/run-query.ts';
import { generateInstance } from '../../generator/instance/generate-instance.ts';
import type { Expr, Query, SelectQuery, WindowExpr } from '../../generator/query/conceptual-query.ts';
import { writeTemplateQuestion } from '../../generator/questions/template-writer.ts';
import { TEMPLATE_STYLES } from '../../generator/records/question-record.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import { englishFaults, expectedFacts, expectedNaturalFacts } from '../helpers/question-checks.ts';

const domain = BUILT_IN_DOMAINS['retail']!;
const index = indexDomain(domain);
const a = (alias: string, attribute: string): Expr => ({ kind: 'attribute', alias, attribute });
const LEAVES = ['Apparel', 'Accessories', 'Electronics', 'Media', 'Software'];
const productClass: Expr = { kind: 'classOf', alias: 'p', among: LEAVES };

/** The two dearest products of each kind, ties included: rank() <= 2 over the kind. */
const topTwoPerKind: SelectQuery = {
  kind: 'select',
  from: { entity: 'Product', alias: 'p' },
  select: [
    { name: 'kind', expr: productClass },
    { name: 'name', expr: a('p', 'name') },
    { name: 'price', expr: a('p', 'price') },
  ],
  qualify: {
    window: {
      kind: 'window',
      fn: 'rank',
      partitionBy: [productClass],
      orderBy: [{ expr: a('p', 'price'), direction: 'desc' }],
    },
    op: '<=',
    value: 2,
  },
  orderBy: [
    { expr: { kind: 'output', name: 'kind' }, direction: 'asc' },
    { expr: { kind: 'output', name: 'price' }, direction: 'desc' },
    { expr: { kind: 'output', name: 'name' }, direction: 'asc' },
  ],
};

/** Each review with the rating of the review before it (by id) about the same product. */
const previousRating: SelectQuery = {
  kind: 'select',
  from: { entity: 'Review', alias: 'r' },
  joins: [
    {
      kind: 'relationship',
      type: 'inner',
      relationship: 'about',
      from: 'r',
      direction: 'forward',
      alias: 'p',
      entity: 'Product',
    },
  ],
  select: [
    { name: 'review', expr: a('r', 'id') },
    { name: 'product', expr: a('p', 'id') },
    {
      name: 'previous_rating',
      expr: {
        kind: 'window',
        fn: 'lag',
        arg: a('r', 'rating'),
        partitionBy: [a('p', 'id')],
        orderBy: [{ expr: a('r', 'id'), direction: 'asc' }],
      },
    },
    {
      name: 'running_stock',
      expr: { kind: 'window', fn: 'sum', arg: a('p', 'quantity'), orderBy: [{ expr: a('r', 'id'), direction: 'asc' }] },
    },
  ],
};

function scopeError(query: Query): string {
  try {
    compileQuery(index, buildRelationalSchema(index, allPresets(index)[0]!), query);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  return expect.fail('compiled');
}

describe('window functions in the conceptual query', () => {
  it('refuse an order that leaves ties where the answer depends on it, naming the tie-break to add', () => {
    const rowNumber: WindowExpr = {
      kind: 'window',
      fn: 'row_number',
      partitionBy: [productClass],
      orderBy: [{ expr: a('p', 'price'), direction: 'desc' }],
    };
    expect(scopeError({ ...topTwoPerKind, qualify: { window: rowNumber, op: '<=', value: 2 } })).toBe(
      'query.qualify.window: row_number must order every row apart: add p.id to its orderBy (a tie-break)',
    );
    const lag: Expr = {
      kind: 'window',
      fn: 'lag',
      arg: a('r', 'rating'),
      orderBy: [{ expr: a('r', 'id'), direction: 'asc' }],
    };
    expect(scopeError({ ...previousRating, select: [{ name: 'x', expr: lag }] })).toBe(
      'query.select[0].expr: lag must order every row apart: add p.id to its orderBy (a tie-break)',
    );
    // Over groups, the grouping keys single out a row.
    const grouped: SelectQuery = {
      kind: 'select',
      from: { entity: 'Product', alias: 'p' },
      select: [
        { name: 'q', expr: a('p', 'quantity') },
        { name: 'n', expr: { kind: 'aggregate', fn: 'count' } },
        {
          name: 'r',
          expr: {
            kind: 'window',
            fn: 'row_number',
            orderBy: [{ expr: { kind: 'aggregate', fn: 'count' }, direction: 'desc' }],
          },
        },
      ],
      groupBy: [a('p', 'quantity')],
    };
    expect(scopeError(grouped)).toMatch(
      /^query\.select\[2\]\.expr: row_number must order every group apart: add the grouping key p\.quantity/,
    );
    // rank gives ties one number: no tie-break needed, and the query compiles.
    expect(() => compileQuery(index, buildRelationalSchema(index, allPresets(index)[0]!), topTwoPerKind)).not.toThrow();
  });

  it('refuse windows where PostgreSQL evaluates rows before windows, and malformed windows', () => {
    const rank: Expr = { kind: 'window', fn: 'rank', orderBy: [{ expr: a('p', 'price'), direction: 'desc' }] };
    expect(
      scopeError({
        ...topTwoPerKind,
        qualify: undefined,
        where: { kind: 'compare', op: '<=', left: rank, right: { kind: 'literal', value: 2 } },
      }),
    ).toBe('query.where.left: a window function is not allowed here (only in select, orderBy and qualify)');
    expect(
      scopeError({
        ...topTwoPerKind,
        qualify: undefined,
        select: [
          {
            name: 'x',
            expr: {
              kind: 'window',
              fn: 'rank',
              arg: a('p', 'price'),
              orderBy: [{ expr: a('p', 'id'), direction: 'asc' }],
            },
          },
        ],
      }),
    ).toBe('query.select[0].expr.arg: rank takes no argument');
    expect(
      scopeError({
        ...topTwoPerKind,
        qualify: undefined,
        select: [
          { name: 'x', expr: { kind: 'window', fn: 'lead', orderBy: [{ expr: a('p', 'id'), direction: 'asc' }] } },
        ],
      }),
    ).toBe('query.select[0].expr: lead needs an argument');
    expect(
      scopeError({
        ...topTwoPerKind,
        qualify: undefined,
        select: [{ name: 'x', expr: { kind: 'window', fn: 'dense_rank' } }],
      }),
    ).toBe('query.select[0].expr.orderBy: dense_rank needs an order');
    expect(
      scopeError({
        ...topTwoPerKind,
        qualify: undefined,
        select: [{ name: 'x', expr: { kind: 'aggregate', fn: 'sum', arg: { kind: 'window', fn: 'count' } } }],
      }),
    ).toBe('query.select[0].expr.arg: a window function is not allowed here (only in select, orderBy and qualify)');
    // qualify: the outermost query only, ordered by its outputs.
    expect(scopeError({ ...topTwoPerKind, orderBy: [{ expr: a('p', 'quantity'), direction: 'asc' }] })).toBe(
      'query.orderBy[0].expr: a query with qualify is ordered by its output columns: select this expression, or order by an output',
    );
    const nested: SelectQuery = {
      ...previousRating,
      select: [{ name: 'review', expr: a('r', 'id') }],
      where: {
        kind: 'exists',
        query: {
          ...topTwoPerKind,
          from: { entity: 'Product', alias: 'q' },
          select: [{ name: 'one', expr: { kind: 'literal', value: 1 } }],
          orderBy: undefined,
          qualify: {
            window: { kind: 'window', fn: 'rank', orderBy: [{ expr: a('q', 'price'), direction: 'desc' }] },
            op: '<=',
            value: 1,
          },
        },
      },
    };
    expect(scopeError(nested)).toBe('query.where.query.qualify: only the outermost query may qualify its rows');
  });

  it('compile top-N per group into a WITH that ranks beside the outputs', () => {
    const sql = compileQuery(
      index,
      buildRelationalSchema(index, allPresets(index).find((v) => v.name === 'full_sti')!),
      topTwoPerKind,
    );
    expect(sql).toMatch(/^WITH ranked AS \(\n {2}SELECT\b/);
    expect(sql).toContain(' AS rnk\n');
    expect(sql).toMatch(/rank\(\) OVER \(PARTITION BY .+ ORDER BY p\.price DESC\) AS rnk/);
    expect(sql.split('\n').slice(-4)).toEqual([
      'SELECT kind, name, price',
      'FROM ranked',
      'WHERE rnk <= 2',
      'ORDER BY kind, price DESC, name',
    ]);
  });
});

describe('window functions in questions', () => {
  it('state the partition, the order, what ties get and the threshold of a top-N per group', () => {
    const w = writeTemplateQuestion(index, topTwoPerKind, 'precise', 0, 'top2');
    expect(w.question).toContain(
      'keeping only the rows whose rank of the row among the rows with the same first that applies of',
    );
    expect(w.question).toContain(
      'sorted by the price of the product in descending order (tied rows share a rank and the next rank skips ahead: 1, 1, 3) is at most 2',
    );
    for (const style of TEMPLATE_STYLES) {
      const text = writeTemplateQuestion(index, topTwoPerKind, style, 0, 'top2');
      expect(englishFaults(text.question)).toEqual([]);
      // The natural style states what its register's defaults leave open (templates/README.md).
      const facts =
        style === 'natural' ? expectedNaturalFacts(index, topTwoPerKind) : expectedFacts(index, topTwoPerKind);
      for (const f of facts) expect(f.test(`${text.question} ${text.evidence}`), `${style}: ${f.construct}`).toBe(true);
    }
  });

  it('say what lag gives the first row, and that a running total counts the tied rows', () => {
    const { question } = writeTemplateQuestion(index, previousRating, 'precise', 0, 'lag');
    expect(question).toContain(
      'the rating of the review, taken from the row just before it among the rows with the same id of the product, sorted by the id of the review in ascending order (empty for the first row)',
    );
    expect(question).toContain(
      'the running total of the quantity in stock of the product among all rows, sorted by the id of the review in ascending order, counting the rows up to and including this one and any tied with it',
    );
  });
});

describe('window functions agree with the instance on every variant of retail', () => {
  let db: Database;
  let manifest: BuildManifest;
  const tmp = tempDir('window');
  const instance = generateInstance(domain, { seed: 3, scale: 'tiny', profile: 'edge' });
  beforeAll(async () => {
    db = await openDatabase({ kind: 'pglite' });
    manifest = (
      await buildDataset({
        dataset: 'retail',
        domain,
        variants: 'all',
        scale: 'tiny',
        seed: 3,
        profile: 'edge',
        target: db,
        out: join(tmp.dir, 'retail'),
        schemaPrefix: 'window_',
      })
    ).manifest;
  }, 300_000);
  afterAll(async () => {
    await db?.close();
    tmp.remove();
  });

  async function everyVariant(query: Query): Promise<string[][]> {
    const answers = new Map<string, string>();
    let rows: string[][] = [];
    for (const v of manifest.variants) {
      const result = await runReadOnly(
        db,
        v.pg_schema,
        compileQuery(index, buildRelationalSchema(index, v.spec), query),
      );
      rows = result.rows.map((r) => r.map((x) => x ?? 'NULL'));
      answers.set(v.name, JSON.stringify(rows));
    }
    expect(manifest.variants).toHaveLength(10);
    expect(new Set(answers.values()).size).toBe(1);
    return rows;
  }

  it('top two per kind by price, ties included, as computed from the instance', async () => {
    const products = instance.objects['Product']!.map((o) => ({
      kind: o.classes[0] as string,
      name: o.values['name'] as string,
      price: Number(o.values['price']),
    }));
    const expected = products
      .filter((p) => products.filter((q) => q.kind === p.kind && q.price > p.price).length < 2)
      .sort((x, y) =>
        x.kind < y.kind
          ? -1
          : x.kind > y.kind
            ? 1
            : y.price - x.price || (x.name < y.name ? -1 : x.name > y.name ? 1 : 0),
      )
      .map((p) => [p.kind, p.name, p.price.toFixed(2)]);
    const rows = await everyVariant(topTwoPerKind);
    expect(rows).toEqual(expected);
    expect(new Set(rows.map((r) => r[0])).size).toBe(LEAVES.length);
  }, 120_000);

  it('lag and a running sum over reviews, as computed from the instance', async () => {
    const about = new Map(instance.links['about']!.map((l) => [l.from, l.to]));
    const quantity = new Map(instance.objects['Product']!.map((o) => [o.id, Number(o.values['quantity'])]));
    const reviews = instance.objects['Review']!.filter((r) => about.has(r.id)).sort((x, y) => x.id - y.id);
    let running = 0;
    const expected = reviews.map((r) => {
      const product = about.get(r.id) as number;
      const before = reviews.filter((x) => about.get(x.id) === product && x.id < r.id).pop();
      running += quantity.get(product) as number;
      return [
        String(r.id),
        String(product),
        before ? String(before.values['rating'] ?? 'NULL') : 'NULL',
        String(running),
      ];
    });
    const rows = await everyVariant({
      ...previousRating,
      orderBy: [{ expr: { kind: 'output', name: 'review' }, direction: 'asc' }],
    });
    expect(rows).toEqual(expected);
    expect(rows.some((r) => r[2] !== 'NULL')).toBe(true);
  }, 120_000);
});
