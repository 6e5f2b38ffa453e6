/**
 * Executed fixtures of the SQLite dialect's rules: each case is a PostgreSQL tree (as the
 * compiler makes them), the SQLite text the rules make of it, and both run, on PGlite and on
 * SQLite, over the same rows: one answer, in the cross-engine normal form.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { openDatabase, type Database as PgDatabase } from '../../generator/database/database.ts';
import {
  binary,
  call,
  column,
  emptySelect,
  FALSE,
  literal,
  table,
  TRUE,
  type SqlCall,
  type SqlExpr,
  type SqlQuery,
  type SqlSelect,
} from '../../generator/compile/sql-tree.ts';
import { printSql } from '../../generator/compile/print-sql.ts';
import { sqliteTree } from '../../generator/compile/sqlite/compile-sqlite.ts';
import { SQLITE_RULES } from '../../generator/compile/sqlite/rules/index.ts';
import { DialectError } from '../../generator/common/errors.ts';
import { neutralResult } from '../../generator/execute/engine-neutral.ts';
import { sqliteText } from '../../generator/database/sqlite-database.ts';
import type { RelationalSchema } from '../../generator/variants/relational-schema.ts';

const PG_SETUP = `SET TimeZone = 'UTC';
CREATE TABLE t (id integer NOT NULL, d date, ts timestamptz, name text, price numeric(10,2), flag boolean, tags jsonb NOT NULL, colors text[] NOT NULL);
INSERT INTO t VALUES
 (1, '2024-01-31', '2024-01-31 22:15:00+00', 'Alpha*', 12.50, true, '["red","blue"]', '{red,blue}'),
 (2, '2023-11-05', '2023-11-05 03:00:00+00', 'beta_x', 7.25, false, '[]', '{}'),
 (3, NULL, NULL, NULL, NULL, NULL, '["green"]', '{green}'),
 (4, '2024-12-29', '2024-03-01 00:00:00+00', 'ALPHA beta', 2.5, true, '["blue"]', '{blue}'),
 (5, NULL, NULL, 'gamma', 1.10, NULL, '[]', '{}'),
 (6, NULL, NULL, 'delta', 1.20, NULL, '[]', '{}');`;

const SQLITE_SETUP = `CREATE TABLE t (id INTEGER NOT NULL, d DATE, ts TIMESTAMP, name TEXT, price REAL, flag BOOLEAN, tags TEXT NOT NULL, colors TEXT NOT NULL);
INSERT INTO t VALUES
 (1, '2024-01-31', '2024-01-31 22:15:00', 'Alpha*', 12.5, 1, '["red","blue"]', '["red","blue"]'),
 (2, '2023-11-05', '2023-11-05 03:00:00', 'beta_x', 7.25, 0, '[]', '[]'),
 (3, NULL, NULL, NULL, NULL, NULL, '["green"]', '["green"]'),
 (4, '2024-12-29', '2024-03-01 00:00:00', 'ALPHA beta', 2.5, 1, '["blue"]', '["blue"]'),
 (5, NULL, NULL, 'gamma', 1.1, NULL, '[]', '[]'),
 (6, NULL, NULL, 'delta', 1.2, NULL, '[]', '[]');`;

const nullable = (name: string): boolean => name !== 'id' && name !== 'tags' && name !== 'colors';
const SQL_TYPES: Record<string, string> = {
  id: 'integer',
  d: 'date',
  ts: 'timestamptz',
  name: 'text',
  price: 'numeric(10,2)',
  flag: 'boolean',
  tags: 'jsonb',
  colors: 'text[]',
};
const SCHEMA = {
  domain: 'fixture',
  variant: { name: 'fixture' },
  tables: [
    {
      name: 't',
      columns: Object.entries(SQL_TYPES).map(([name, sqlType]) => ({ name, sqlType, nullable: nullable(name) })),
    },
  ],
} as unknown as RelationalSchema;

const t = (name: string): SqlExpr => column('t', name);
const cast = (arg: SqlExpr, type: string, colons = false): SqlExpr => ({
  kind: 'cast',
  arg,
  type,
  ...(colons ? { colons } : {}),
});
const interval = (text: string): SqlExpr => ({ kind: 'interval', text });
const extract = (field: string, arg: SqlExpr): SqlExpr => ({ kind: 'extract', field, arg });
const like = (arg: SqlExpr, pattern: string, caseInsensitive = false, negated = false): SqlExpr => ({
  kind: 'like',
  arg,
  pattern: literal(pattern),
  caseInsensitive,
  negated,
});

/** `SELECT t.id, <expr> AS v FROM t ORDER BY t.id`. */
function selecting(expr: SqlExpr): SqlSelect {
  return {
    ...emptySelect(table('t', 't')),
    columns: [{ expr: t('id') }, { expr, alias: 'v' }],
    orderBy: [{ expr: t('id') }],
  };
}
/** `SELECT <expr> AS v FROM t WHERE <cond>`: an aggregate over some rows. */
function aggregating(expr: SqlExpr, cond: SqlExpr): SqlSelect {
  return { ...emptySelect(table('t', 't')), columns: [{ expr, alias: 'v' }], where: [cond] };
}
const avg = (arg: SqlExpr, extra: Partial<SqlCall> = {}): SqlExpr => ({ ...call('avg', arg), ...extra });
/** `SELECT t.id FROM t WHERE <cond> ORDER BY t.id`. */
function where(cond: SqlExpr): SqlSelect {
  return { ...emptySelect(table('t', 't')), columns: [{ expr: t('id') }], where: [cond], orderBy: [{ expr: t('id') }] };
}

interface Case {
  readonly rule: string;
  readonly title: string;
  readonly tree: SqlQuery;
  /** A piece of the SQLite text the rule writes. */
  readonly writes: string;
}

const CASES: readonly Case[] = [
  {
    rule: 'dates-through-strftime',
    title: 'EXTRACT(YEAR)',
    tree: selecting(extract('year', t('d'))),
    writes: "CAST(strftime('%Y', t.d) AS INTEGER)",
  },
  {
    rule: 'dates-through-strftime',
    title: 'EXTRACT(QUARTER)',
    tree: selecting(extract('quarter', t('d'))),
    writes: "(CAST(strftime('%m', t.d) AS INTEGER) + 2) / 3",
  },
  {
    rule: 'dates-through-strftime',
    title: 'EXTRACT(DOW)',
    tree: selecting(extract('dow', t('d'))),
    writes: "strftime('%w', t.d)",
  },
  {
    rule: 'dates-through-strftime',
    title: 'EXTRACT(HOUR) of a timestamp',
    tree: selecting(extract('hour', t('ts'))),
    writes: "strftime('%H', t.ts)",
  },
  {
    rule: 'dates-through-strftime',
    title: 'date_trunc month',
    tree: selecting(cast(call('date_trunc', literal('month'), t('d')), 'date')),
    writes: "date(t.d, 'start of month')",
  },
  {
    rule: 'dates-through-strftime',
    title: 'date_trunc week starts on Monday',
    tree: selecting(cast(call('date_trunc', literal('week'), t('d')), 'date')),
    writes: "date(t.d, '-6 days', 'weekday 1')",
  },
  {
    rule: 'dates-through-strftime',
    title: 'date_trunc quarter',
    tree: selecting(cast(call('date_trunc', literal('quarter'), t('d')), 'date')),
    writes: "date(t.d, 'start of year', printf('+%d months'",
  },
  {
    rule: 'dates-through-strftime',
    title: 'a month later stays in the month (January 31)',
    tree: selecting(cast(binary('+', t('d'), interval('1 month')), 'date')),
    writes: "min(date(t.d, '+1 months'), date(t.d, 'start of month', '+2 months', '-1 day'))",
  },
  {
    rule: 'dates-through-strftime',
    title: 'a timestamp a month later keeps its time of day',
    tree: selecting({ kind: 'paren', arg: binary('+', t('ts'), interval('1 month')) }),
    writes:
      "min(datetime(t.ts, '+1 months'), date(t.ts, 'start of month', '+2 months', '-1 day') || ' ' || time(t.ts))",
  },
  {
    rule: 'dates-through-strftime',
    title: 'a month earlier (December 31 from January 31)',
    tree: selecting(cast(binary('-', t('d'), interval('1 month')), 'date')),
    writes: "min(date(t.d, '-1 months'), date(t.d, 'start of month', '-1 day'))",
  },
  {
    rule: 'dates-through-strftime',
    title: 'three months earlier',
    tree: selecting(cast(binary('-', t('d'), interval('3 months')), 'date')),
    writes: "date(t.d, 'start of month', '-2 months', '-1 day')",
  },
  {
    rule: 'dates-through-strftime',
    title: 'a year later',
    tree: selecting(cast(binary('+', t('d'), interval('1 year')), 'date')),
    writes: "min(date(t.d, '+1 years'), date(t.d, 'start of month', '+1 years', '+1 months', '-1 day'))",
  },
  {
    rule: 'dates-through-strftime',
    title: 'a timestamp two weeks earlier',
    tree: selecting({ kind: 'paren', arg: binary('-', t('ts'), interval('2 weeks')) }),
    writes: "datetime(t.ts, '-14 days')",
  },
  {
    rule: 'dates-through-strftime',
    title: 'whole years between, either order',
    tree: selecting(extract('year', call('age', cast(literal('2025-01-30'), 'date'), t('d')))),
    writes: '/ 10000000000',
  },
  {
    rule: 'dates-through-strftime',
    title: 'a timestamp literal in UTC',
    tree: where(binary('<', t('ts'), literal('2024-01-31 22:15:00+00'))),
    writes: "t.ts < '2024-01-31 22:15:00'",
  },
  {
    rule: 'like-as-glob',
    title: 'LIKE is case-sensitive, a GLOB star taken literally',
    tree: where(like(t('name'), 'Alpha*%')),
    writes: "t.name GLOB 'Alpha[*]*'",
  },
  {
    rule: 'like-as-glob',
    title: 'LIKE with an escaped underscore',
    tree: where(like(t('name'), 'beta\\_%')),
    writes: "GLOB 'beta_*'",
  },
  { rule: 'like-as-glob', title: 'NOT LIKE', tree: where(like(t('name'), 'alpha%', false, true)), writes: 'NOT GLOB' },
  {
    rule: 'like-as-glob',
    title: 'ILIKE is LIKE',
    tree: where(like(t('name'), 'alpha%', true)),
    writes: "t.name LIKE 'alpha%'",
  },
  {
    rule: 'text-functions',
    title: 'strpos is instr',
    tree: selecting(call('strpos', t('name'), literal('a'))),
    writes: "instr(t.name, 'a')",
  },
  {
    rule: 'casts-for-sqlite',
    title: 'an integer cast rounds',
    tree: selecting(cast(t('price'), 'integer')),
    writes: 'CAST(round(t.price) AS INTEGER)',
  },
  {
    rule: 'casts-for-sqlite',
    title: 'a numeric cast keeps division fractional',
    tree: selecting(binary('/', cast(t('id'), 'numeric'), literal(4))),
    writes: 'CAST(t.id AS REAL) / 4',
  },
  {
    rule: 'casts-for-sqlite',
    title: 'integer division truncates in both',
    tree: selecting(binary('/', binary('-', literal(0), t('id')), literal(3))),
    writes: '(0 - t.id) / 3',
  },
  {
    rule: 'casts-for-sqlite',
    title: 'a date literal is its text',
    tree: where(binary('>=', t('d'), cast(literal('2024-01-01'), 'date'))),
    writes: "t.d >= '2024-01-01'",
  },
  {
    rule: 'casts-for-sqlite',
    title: 'a decimal string literal is a number',
    tree: where(binary('>', call('coalesce', t('price'), literal(0)), literal('7.25'))),
    writes: 'coalesce(t.price, 0) > 7.25',
  },
  {
    rule: 'exact-rounded-averages',
    title: 'an average of 1.10 and 1.20 rounds to 1.2, as the exact 1.15 does',
    tree: aggregating(call('round', avg(t('price')), literal(1)), binary('>=', t('id'), literal(5))),
    writes: 'round(sum(round(t.price * 100)) / (10 * count(t.price))) / 10 AS v',
  },
  {
    rule: 'exact-rounded-averages',
    title: 'to the cent, in cents',
    tree: aggregating(call('round', avg(t('price')), literal(2)), binary('<=', t('id'), literal(4))),
    writes: 'round(sum(round(t.price * 100)) / count(t.price)) / 100 AS v',
  },
  {
    rule: 'exact-rounded-averages',
    title: 'an integer average, made REAL before it is divided',
    tree: aggregating(call('round', avg(t('id')), literal(2)), binary('<=', t('id'), literal(3))),
    writes: 'round(sum(t.id) * 100.0 / count(t.id)) / 100 AS v',
  },
  {
    rule: 'exact-rounded-averages',
    title: 'DISTINCT and FILTER on both the sum and the count',
    tree: aggregating(
      call('round', avg(t('price'), { distinct: true, filter: [binary('>', t('id'), literal(1))] }), literal(1)),
      binary('>=', t('id'), literal(4)),
    ),
    writes: 'sum(DISTINCT round(t.price * 100)) FILTER (WHERE t.id > 1)',
  },
  {
    rule: 'exact-rounded-averages',
    title: 'a running average, over the same window',
    tree: {
      ...where(binary('>=', t('id'), literal(4))),
      columns: [
        { expr: t('id') },
        {
          expr: call('round', avg(t('price'), { over: { partitionBy: [], orderBy: [{ expr: t('id') }] } }), literal(1)),
          alias: 'v',
        },
      ],
    },
    writes: 'round(sum(round(t.price * 100)) OVER (ORDER BY t.id) / (10 * count(t.price) OVER (ORDER BY t.id))) / 10',
  },
  {
    rule: 'booleans-as-integers',
    title: 'FALSE is 0',
    tree: selecting(call('coalesce', t('flag'), FALSE)),
    writes: 'coalesce(t.flag, 0)',
  },
  { rule: 'booleans-as-integers', title: 'TRUE is 1', tree: where(binary('=', t('flag'), TRUE)), writes: 't.flag = 1' },
  {
    rule: 'nulls-as-postgres',
    title: 'NULLs last going up',
    tree: { ...selecting(t('name')), orderBy: [{ expr: t('d') }, { expr: t('id') }], limit: 3 },
    writes: 'ORDER BY t.d NULLS LAST, t.id',
  },
  {
    rule: 'nulls-as-postgres',
    title: 'NULLs first going down, in a window too',
    tree: selecting({
      kind: 'call',
      name: 'rank',
      args: [],
      over: { partitionBy: [], orderBy: [{ expr: t('price'), desc: true }] },
    }),
    writes: 'ORDER BY t.price DESC NULLS FIRST)',
  },
  {
    rule: 'sets-through-json-each',
    title: '= ANY of an array',
    tree: where(binary('=', literal('red'), { kind: 'any', arg: t('colors') })),
    writes: "'red' IN (SELECT value FROM json_each(t.colors))",
  },
  {
    rule: 'sets-through-json-each',
    title: 'jsonb containment',
    tree: where(binary('@>', t('tags'), cast(literal('["blue"]'), 'jsonb', true))),
    writes: "'blue' IN (SELECT value FROM json_each(t.tags))",
  },
  {
    rule: 'sets-through-json-each',
    title: 'cardinality and jsonb_array_length',
    tree: selecting(binary('+', call('cardinality', t('colors')), call('jsonb_array_length', t('tags')))),
    writes: 'json_array_length(t.colors) + json_array_length(t.tags)',
  },
  {
    rule: 'sets-through-json-each',
    title: 'elements of a set through a LEFT JOIN',
    tree: {
      ...emptySelect(table('t', 't')),
      columns: [{ expr: t('id') }, { expr: column('c', 'value') }],
      joins: [
        {
          type: 'LEFT JOIN',
          item: { kind: 'function', call: call('unnest', t('colors')), alias: 'c', column: 'value' },
          on: [TRUE],
        },
      ],
    },
    writes: 'LEFT JOIN json_each(t.colors) AS c ON TRUE',
  },
  {
    rule: 'sets-through-json-each',
    title: 'a set as an answer',
    tree: selecting({
      kind: 'array',
      query: {
        kind: 'subquery',
        layout: 'line',
        query: {
          ...emptySelect({
            kind: 'function',
            call: call('jsonb_array_elements_text', t('tags')),
            alias: 'x',
            column: 'value',
          }),
          columns: [{ expr: column('x', 'value') }],
        },
      },
    }),
    writes: "coalesce(t.tags, '[]') AS v",
  },
  {
    rule: 'compound-arms',
    title: 'an arm with ORDER BY and LIMIT is a derived table',
    tree: {
      kind: 'set',
      op: 'UNION ALL',
      left: { ...where(binary('<', t('id'), literal(3))), orderBy: [{ expr: t('id'), desc: true }], limit: 1 },
      right: { ...where(binary('>', t('id'), literal(3))), orderBy: [] },
      orderBy: [{ expr: column(undefined, 'id') }],
    },
    writes: ') AS arm\nUNION ALL',
  },
  {
    rule: 'order-by-columns',
    title: 'ORDER BY an unaliased output of a join',
    tree: {
      ...emptySelect(table('t', 'a')),
      columns: [{ expr: column('a', 'id') }],
      joins: [{ type: 'JOIN', item: table('t', 'b'), on: [binary('=', column('b', 'id'), column('a', 'id'))] }],
      orderBy: [{ expr: column(undefined, 'id'), desc: true }],
    },
    writes: 'ORDER BY a.id DESC',
  },
  {
    rule: 'order-by-columns',
    title: 'ORDER BY an output of a UNION whose arms both join (the first arm names it)',
    tree: {
      kind: 'set',
      op: 'UNION',
      left: {
        ...emptySelect(table('t', 'a')),
        columns: [{ expr: column('a', 'id') }],
        joins: [{ type: 'JOIN', item: table('t', 'b'), on: [binary('=', column('b', 'id'), column('a', 'id'))] }],
        where: [binary('<', column('a', 'id'), literal(3))],
      },
      right: {
        ...emptySelect(table('t', 'c')),
        columns: [{ expr: column('c', 'id') }],
        joins: [{ type: 'JOIN', item: table('t', 'e'), on: [binary('=', column('e', 'id'), column('c', 'id'))] }],
        where: [binary('>', column('c', 'id'), literal(2))],
      },
      orderBy: [{ expr: column(undefined, 'id'), desc: true, nulls: 'last' }],
      limit: 3,
    },
    writes: 'SELECT a.id AS id',
  },
];

let pg: PgDatabase;
let lite: Database.Database;
beforeAll(async () => {
  pg = await openDatabase({ kind: 'pglite' });
  await pg.exec(PG_SETUP);
  lite = new Database(':memory:');
  lite.exec(SQLITE_SETUP);
});
afterAll(async () => {
  await pg?.close();
  lite?.close();
});

describe('SQLite dialect rules', () => {
  it('every rule has fixtures', () => {
    expect(SQLITE_RULES.map((r) => r.name).filter((name) => !CASES.some((c) => c.rule === name))).toEqual([]);
  });

  it.each(CASES.map((c) => [`${c.rule}: ${c.title}`, c] as const))('%s', async (_, c) => {
    const postgres = printSql(c.tree);
    const sqlite = printSql(sqliteTree(c.tree, SCHEMA));
    expect(sqlite).toContain(c.writes);
    const pgResult = await pg.queryText(postgres);
    const liteRows = lite.prepare(sqlite).raw(true).all() as unknown[][];
    const liteResult = { columns: [], rows: liteRows.map((r) => r.map(sqliteText)) };
    expect(liteResult.rows.length, `${postgres}\n--\n${sqlite}`).toBeGreaterThan(0);
    expect(neutralResult(liteResult, true).rows, `${postgres}\n--\n${sqlite}`).toEqual(
      neutralResult(pgResult, true).rows,
    );
  });

  it('refuses by name what SQLite cannot say with the same meaning', () => {
    expect(() => sqliteTree(where(like(t('name'), 'é%', true)), SCHEMA)).toThrow(DialectError);
    expect(() => sqliteTree(where(like(t('name'), 'é%', true)), SCHEMA)).toThrow(/sqlite: ILIKE on a non-ASCII letter/);
    expect(() => sqliteTree(selecting(call('to_char', t('d'), literal('YYYY'))), SCHEMA)).toThrow(
      /sqlite: to_char\(\)/,
    );
    expect(() => sqliteTree(selecting(interval('1 century')), SCHEMA)).toThrow(/sqlite: INTERVAL/);
    // Case folding: SQLite folds ASCII letters only.
    expect(() => sqliteTree(selecting(call('lower', t('name'))), SCHEMA)).toThrow(
      /sqlite: lower\(\): SQLite folds ASCII letters only/,
    );
    expect(() => sqliteTree(selecting(call('upper', t('name'))), SCHEMA)).toThrow(/sqlite: upper\(\)/);
    // Arrays: PostgreSQL orders them element by element, SQLite the JSON text.
    for (const key of [t('colors'), t('tags'), column(undefined, 'v')]) {
      const ordered: SqlSelect = {
        ...emptySelect(table('t', 't')),
        columns: [{ expr: t('id') }, { expr: t('colors'), alias: 'v' }],
        orderBy: [{ expr: key, desc: true }],
      };
      expect(() => sqliteTree(ordered, SCHEMA), JSON.stringify(key)).toThrow(/sqlite: ORDER BY an array/);
    }
    // … read through a WITH query, as a top-N per group orders its outputs.
    const ranked: SqlSelect = {
      ...emptySelect(table('t', 't')),
      columns: [{ expr: t('id') }, { expr: t('colors'), alias: 'v' }],
    };
    const outer: SqlSelect = {
      ...emptySelect(table('r', 'r')),
      with: [{ name: 'r', query: ranked }],
      columns: [{ expr: column(undefined, 'id') }, { expr: column(undefined, 'v') }],
      orderBy: [{ expr: column(undefined, 'v') }],
    };
    expect(() => sqliteTree(outer, SCHEMA)).toThrow(/sqlite: ORDER BY an array/);
    // A rounded quotient: exact in PostgreSQL's numeric, a binary fraction in SQLite.
    expect(() =>
      sqliteTree(selecting(call('round', binary('/', literal(3), literal(20)), literal(1))), SCHEMA),
    ).toThrow(/sqlite: round\(\) of a quotient/);
  });
});
