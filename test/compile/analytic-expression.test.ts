import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUILT_IN_DOMAINS } from '../../generator/domains/index.ts';
import { indexDomain } from '../../generator/er-model/er-index.ts';
import { buildRelationalSchema } from '../../generator/variants/build-schema.ts';
import { compileQuery } from '../../generator/compile/compile-query.ts';
import { openDatabase, type Database } from '../../generator/database/database.ts';
import { buildDataset, type BuildManifest } from '../../generator/assemble/build-dataset.ts';
import { runReadOnly } from '../../generator/execute/run-query.ts';
import { generateInstance } from '../../generator/instance/generate-instance.ts';
import { ConfigError } from '../../generator/common/errors.ts';
import type { Expr, Query, SelectQuery } from '../../generator/query/conceptual-query.ts';
import { REPO_ROOT } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/build-fixtures.ts';

// The analytic constructs mean what the documentation says: each query's answer on every
// variant equals the one worked out here in TypeScript from the conceptual instance.

const domain = BUILT_IN_DOMAINS['retail']!;
const index = indexDomain(domain);
const instance = generateInstance(domain, { seed: 1, scale: 'tiny', profile: 'default' });
const tmp = tempDir('analytic-expression');
let db: Database;
let manifest: BuildManifest;

beforeAll(async () => {
  db = await openDatabase({ kind: 'pglite' });
  manifest = (
    await buildDataset({
      dataset: 'retail',
      domain,
      variants: 'all',
      scale: 'tiny',
      seed: 1,
      profile: 'default',
      target: db,
      out: join(tmp.dir, 'retail'),
      schemaPrefix: 'analytic_',
    })
  ).manifest;
}, 300_000);
afterAll(async () => {
  await db?.close();
  tmp.remove();
});

/** The rows a query gives on every variant; fails unless all variants give the same. */
async function answer(query: Query): Promise<(string | null)[][]> {
  let first: (string | null)[][] | undefined;
  for (const v of manifest.variants) {
    const sql = compileQuery(index, buildRelationalSchema(index, v.spec), query);
    const rows = (await runReadOnly(db, v.pg_schema, sql)).rows.map((r) => [...r]);
    if (first === undefined) first = rows;
    else expect(rows, `${v.name}\n${sql}`).toEqual(first);
  }
  return first ?? [];
}

const attr = (alias: string, attribute: string): Expr => ({ kind: 'attribute', alias, attribute });
const lit = (value: string | number | null): Expr => ({ kind: 'literal', value });

/** Round half away from zero of p/q (p, q ≥ 0) to `digits` places, as PostgreSQL's numeric round prints it. */
function roundRatio(p: number, q: number, digits: number): string {
  const scale = 10 ** digits;
  const n = Math.floor((2 * p * scale + q) / (2 * q));
  return digits === 0 ? String(n) : `${Math.floor(n / scale)}.${String(n % scale).padStart(digits, '0')}`;
}

describe('analytic expressions on every variant of retail', () => {
  it('the documented example: orders per year and the percentage placed in the six months before a fixed date', async () => {
    const doc = readFileSync(join(REPO_ROOT, 'docs/conceptual-query.md'), 'utf8');
    const json = /Per year, the orders[\s\S]*?```json\n([\s\S]*?)```/u.exec(doc)?.[1];
    expect(json).toBeDefined();
    const rows = await answer(JSON.parse(json as string) as Query);
    const byYear = new Map<string, { n: number; recent: number }>();
    for (const o of instance.objects['CustOrder'] ?? []) {
      const at = o.values['placed_at'] as string;
      const year = at.slice(0, 4);
      const entry = byYear.get(year) ?? { n: 0, recent: 0 };
      entry.n += 1;
      // dateShift('2025-12-31', -6 month) is 2025-06-30, midnight UTC.
      if (at.slice(0, 10) >= '2025-06-30') entry.recent += 1;
      byYear.set(year, entry);
    }
    const expected = [...byYear]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([year, { n, recent }]) => [year, String(n), roundRatio(100 * recent, n, 1)]);
    expect(rows).toEqual(expected);
    expect(rows.some((r) => r[2] !== '0.0')).toBe(true);
  });

  it('CASE, NULLIF, COALESCE and text functions per review', async () => {
    const query: SelectQuery = {
      kind: 'select',
      from: { entity: 'Review', alias: 'r' },
      select: [
        { name: 'id', expr: attr('r', 'id') },
        {
          name: 'verdict',
          expr: {
            kind: 'case',
            whens: [
              { when: { kind: 'compare', op: '>=', left: attr('r', 'rating'), right: lit(4) }, then: lit('good') },
            ],
            else: lit('poor'),
          },
        },
        {
          name: 'grade',
          expr: {
            kind: 'simpleCase',
            operand: attr('r', 'rating'),
            whens: [
              { value: 1, then: lit('F') },
              { value: 5, then: lit('A') },
            ],
          },
        },
        { name: 'not_top', expr: { kind: 'nullif', arg: attr('r', 'rating'), value: lit(5) } },
        { name: 'body', expr: { kind: 'coalesce', args: [attr('r', 'body'), lit('none')] } },
        { name: 'chars', expr: { kind: 'textFunction', fn: 'length', arg: attr('r', 'body') } },
        { name: 'head', expr: { kind: 'substring', arg: attr('r', 'body'), start: 2, length: 3 } },
        { name: 'first_e', expr: { kind: 'position', search: 'e', arg: attr('r', 'body') } },
        {
          name: 'shout',
          expr: {
            kind: 'textFunction',
            fn: 'upper',
            arg: { kind: 'substring', arg: attr('r', 'body'), start: 1, length: 4 },
          },
        },
      ],
      orderBy: [{ expr: { kind: 'output', name: 'id' }, direction: 'asc' }],
    };
    const rows = await answer(query);
    const expected = (instance.objects['Review'] ?? []).map((o) => {
      const rating = o.values['rating'] as number;
      const body = o.values['body'] as string | null;
      const chars = body === null ? null : [...body];
      return [
        String(o.id),
        rating >= 4 ? 'good' : 'poor',
        rating === 1 ? 'F' : rating === 5 ? 'A' : null,
        rating === 5 ? null : String(rating),
        body ?? 'none',
        chars === null ? null : String(chars.length),
        chars === null ? null : chars.slice(1, 4).join(''),
        chars === null ? null : String(chars.indexOf('e') + 1),
        chars === null ? null : chars.slice(0, 4).join('').toUpperCase(),
      ];
    });
    expect(rows).toEqual(expected);
    expect(rows.some((r) => r[5] === null) && rows.some((r) => r[5] !== null)).toBe(true);
  });

  it('DISTINCT and filtered aggregates, ratios with a scale, ages and NULLS FIRST', async () => {
    const reviews = instance.objects['Review'] ?? [];
    const query: SelectQuery = {
      kind: 'select',
      from: { entity: 'Review', alias: 'r' },
      select: [
        { name: 'distinct_sum', expr: { kind: 'aggregate', fn: 'sum', arg: attr('r', 'rating'), distinct: true } },
        { name: 'distinct_count', expr: { kind: 'aggregate', fn: 'count', arg: attr('r', 'rating'), distinct: true } },
        {
          name: 'with_text',
          expr: { kind: 'aggregate', fn: 'count', filter: { kind: 'isNull', expr: attr('r', 'body'), negated: true } },
        },
        {
          name: 'good',
          expr: {
            kind: 'aggregate',
            fn: 'sum',
            arg: {
              kind: 'case',
              whens: [{ when: { kind: 'compare', op: '>=', left: attr('r', 'rating'), right: lit(4) }, then: lit(1) }],
              else: lit(0),
            },
          },
        },
        {
          name: 'mean',
          expr: {
            kind: 'ratio',
            numerator: { kind: 'aggregate', fn: 'sum', arg: attr('r', 'rating') },
            denominator: { kind: 'aggregate', fn: 'count' },
            percent: false,
            digits: 3,
          },
        },
        {
          name: 'none',
          expr: {
            kind: 'ratio',
            numerator: { kind: 'aggregate', fn: 'count' },
            denominator: {
              kind: 'aggregate',
              fn: 'count',
              filter: { kind: 'compare', op: '>', left: attr('r', 'rating'), right: lit(99) },
            },
            percent: true,
            digits: 2,
          },
        },
      ],
    };
    const ratings = reviews.map((o) => o.values['rating'] as number);
    const distinct = [...new Set(ratings)];
    const sum = ratings.reduce((a, b) => a + b, 0);
    expect(await answer(query)).toEqual([
      [
        String(distinct.reduce((a, b) => a + b, 0)),
        String(distinct.length),
        String(reviews.filter((o) => o.values['body'] !== null).length),
        String(ratings.filter((r) => r >= 4).length),
        roundRatio(sum, ratings.length, 3),
        null,
      ],
    ]);

    const employees: SelectQuery = {
      kind: 'select',
      from: { entity: 'Employee', alias: 'e' },
      select: [
        { name: 'id', expr: attr('e', 'id') },
        { name: 'years', expr: { kind: 'ageYears', from: attr('e', 'hire_date'), to: lit('2026-01-01') } },
        { name: 'month', expr: { kind: 'dateTrunc', unit: 'month', arg: attr('e', 'hire_date') } },
        { name: 'q', expr: { kind: 'extract', field: 'quarter', arg: attr('e', 'hire_date') } },
      ],
      orderBy: [
        { expr: { kind: 'output', name: 'years' }, direction: 'asc', nulls: 'first' },
        { expr: { kind: 'output', name: 'id' }, direction: 'asc' },
      ],
    };
    const members = (instance.objects[index.root('Employee').name] ?? []).filter((o) =>
      o.classes.some((c) => index.isAncestorOrSelf('Employee', c)),
    );
    const expected = members
      .map((o) => {
        const hired = o.values['hire_date'] as string | null;
        if (hired === null) return { id: o.id, row: [String(o.id), null, null, null] };
        const [y, m, d] = hired.split('-').map(Number) as [number, number, number];
        const years = 2026 - y - (m > 1 || d > 1 ? 1 : 0);
        return {
          id: o.id,
          years,
          row: [String(o.id), String(years), `${hired.slice(0, 7)}-01`, String(Math.floor((m - 1) / 3) + 1)],
        };
      })
      .sort((a, b) => ((a as { years?: number }).years ?? -1) - ((b as { years?: number }).years ?? -1) || a.id - b.id)
      .map((x) => x.row);
    expect(await answer(employees)).toEqual(expected);
  });
});

describe('analytic expressions are checked before they compile', () => {
  const refused = (query: unknown, message: RegExp): void => {
    expect(() => compileQuery(index, buildRelationalSchema(index, manifest.variants[0]!.spec), query as Query)).toThrow(
      ConfigError,
    );
    expect(() => compileQuery(index, buildRelationalSchema(index, manifest.variants[0]!.spec), query as Query)).toThrow(
      message,
    );
  };
  const base = (expr: unknown): unknown => ({
    kind: 'select',
    from: { entity: 'Review', alias: 'r' },
    select: [{ name: 'x', expr }],
  });

  it('refuses a function given the wrong kind of value, naming the path', () => {
    refused(
      base({ kind: 'textFunction', fn: 'lower', arg: attr('r', 'rating') }),
      /query\.select\[0\]\.expr\.arg: lower takes text, not number/u,
    );
    refused(
      base({
        kind: 'case',
        whens: [{ when: { kind: 'isNull', expr: attr('r', 'body') }, then: lit(1) }],
        else: attr('r', 'body'),
      }),
      /query\.select\[0\]\.expr: the values mix number and text/u,
    );
    refused(
      base({ kind: 'dateShift', arg: lit('2025-02-30'), amount: 1, unit: 'day' }),
      /query\.select\[0\]\.expr\.arg: dateShift takes a date literal as YYYY-MM-DD/u,
    );
    refused(
      base({ kind: 'extract', field: 'century', arg: attr('r', 'rating') }),
      /query\.select\[0\]\.expr\.field: expected one of year/u,
    );
    refused(
      {
        kind: 'select',
        from: { entity: 'Employee', alias: 'e' },
        select: [{ name: 'x', expr: { kind: 'extract', field: 'hour', arg: attr('e', 'hire_date') } }],
      },
      /query\.select\[0\]\.expr\.arg: extract of the hour takes time, not date/u,
    );
    refused(
      base({ kind: 'ratio', numerator: lit(1), denominator: lit(2), percent: true, digits: 40 }),
      /query\.select\[0\]\.expr\.digits: expected an integer from 0 to 20/u,
    );
  });

  it('refuses DISTINCT without an argument, an aggregate in a filter, and an unknown NULLS position', () => {
    refused(
      base({ kind: 'aggregate', fn: 'count', distinct: true }),
      /query\.select\[0\]\.expr\.distinct: count\(\*\) counts rows/u,
    );
    refused(
      base({
        kind: 'aggregate',
        fn: 'count',
        filter: { kind: 'compare', op: '>', left: { kind: 'aggregate', fn: 'count' }, right: lit(1) },
      }),
      /query\.select\[0\]\.expr\.filter\.left: an aggregate is not allowed here/u,
    );
    refused(
      {
        kind: 'select',
        from: { entity: 'Review', alias: 'r' },
        select: [{ name: 'x', expr: attr('r', 'id') }],
        orderBy: [{ expr: { kind: 'output', name: 'x' }, direction: 'asc', nulls: 'middle' }],
      },
      /query\.orderBy\[0\]\.nulls: expected one of first, last/u,
    );
  });
});
