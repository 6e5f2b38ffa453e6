import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../generator/database/database.ts';
import { guardQuery, type GuardScope } from '../../generator/execute/query-guard.ts';
import { loadPgParser } from '../../generator/sql/pg-parser.ts';

const V1: GuardScope = { pgSchema: 'v1', tables: new Set(['t']) };
import { runReadOnly } from '../../generator/execute/run-query.ts';
import { createDatabase, describeServer } from '../helpers/postgres.ts';

const ACCEPTED = [
  'WITH a AS (SELECT id, name FROM t) SELECT name FROM a',
  'WITH a AS (SELECT id FROM t), b(n) AS (SELECT count(*) FROM a) SELECT n FROM b',
  'WITH a AS (SELECT id FROM t UNION SELECT 3) SELECT * FROM a EXCEPT SELECT 1',
  'SELECT x.n FROM (WITH c AS (SELECT count(*) AS n FROM t) SELECT n FROM c) AS x',
  'SELECT id, row_number() OVER (PARTITION BY name ORDER BY id DESC) FROM t',
  'SELECT id, sum(id) OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW), lag(id, 1) OVER (ORDER BY id) FROM t',
  'SELECT id, count(*) OVER (), rank() OVER (ORDER BY name NULLS LAST) FROM t',
  'SELECT sum(id) OVER w FROM t WINDOW w AS (ORDER BY id)',
  // A CTE may shadow a catalog's name: reading it reads the CTE.
  'WITH pg_authid AS (SELECT id FROM t) SELECT id FROM pg_authid',
];

const REFUSED: readonly (readonly [string, RegExp])[] = [
  ['WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d', /refused: data-modifying WITH \(DELETE at character 12\)/],
  ["WITH d AS (INSERT INTO t VALUES (9, 'x') RETURNING id) SELECT id FROM d", /refused: data-modifying WITH \(INSERT/],
  [
    "WITH d(i) AS NOT MATERIALIZED (UPDATE t SET name = 'x' RETURNING id) SELECT i FROM d",
    /refused: data-modifying WITH \(UPDATE/,
  ],
  [
    'WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM r) SELECT n FROM r',
    /^schema v1: refused: WITH RECURSIVE/,
  ],
  ['WITH a AS (SELECT * INTO t2 FROM t) SELECT * FROM a', /^schema v1: refused: SELECT … INTO/],
  ['WITH a AS (SELECT id FROM t FOR UPDATE) SELECT * FROM a', /^schema v1: refused: a locking clause/],
  // A CTE's own WITH is read in its scope: its table is checked, its CTE name is not.
  [
    'WITH a AS (WITH b AS (SELECT 1) SELECT * FROM b, pg_roles) SELECT * FROM a',
    /refused: table pg_roles: .*system catalogs/,
  ],
  ['SELECT * FROM (WITH b AS (SELECT 1) SELECT * FROM b) AS x, b', /refused: table b: .*v1 has no table b/],
  [
    'WITH a(x) AS (SELECT pg_sleep(1)) SELECT x FROM a',
    /refused: function pg_sleep at character 22 is not on the list/,
  ],
  // The CTE's name is in scope in the body only, not in a CTE listed before it.
  [
    'WITH b AS (SELECT * FROM pg_authid), pg_authid AS (SELECT 1) SELECT * FROM b',
    /refused: table pg_authid: .*system catalogs/,
  ],
  [
    'WITH a AS (SELECT 1) SELECT * FROM secret.t, a',
    /refused: table secret.t: a query reads only its variant's tables/,
  ],
  ['SELECT id FROM t, evil(1) AS (a int)', /refused: function evil at character 19/],
  ['WITH a AS (SELECT 1) DELETE FROM t', /^schema v1: refused: /],
];

describe('the guard reads WITH and window functions', () => {
  beforeAll(() => loadPgParser());

  it.each(ACCEPTED)('accepts %s', (sql) => {
    expect(() => guardQuery(sql, V1)).not.toThrow();
  });

  it.each(REFUSED)('refuses %s', (sql, why) => {
    expect(() => guardQuery(sql, V1)).toThrow(why);
  });
});

const SETUP = `
  CREATE SCHEMA v1; CREATE SCHEMA secret;
  CREATE TABLE v1.t (id integer PRIMARY KEY, name text);
  CREATE TABLE secret.t (id integer PRIMARY KEY, name text);
  INSERT INTO v1.t VALUES (1, 'a'), (2, 'a'), (3, 'b'), (4, NULL);
  INSERT INTO secret.t VALUES (9, 'hidden');
`;

function runs(open: () => Promise<Database>) {
  let db: Database;
  beforeAll(async () => {
    db = await open();
    await db.exec(SETUP);
  });
  afterAll(async () => db?.close());

  it('runs a WITH and window functions as the reader role and returns their rows', async () => {
    const sql =
      'WITH named AS (SELECT id, name FROM t WHERE name IS NOT NULL), ranked(id, name, pos) AS (SELECT id, name, row_number() OVER (PARTITION BY name ORDER BY id DESC) FROM named) ' +
      'SELECT name, id, pos, sum(id) OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS running FROM ranked ORDER BY id';
    const r = await runReadOnly(db, 'v1', sql);
    expect(r.columns).toEqual(['name', 'id', 'pos', 'running']);
    expect(r.rows).toEqual([
      ['a', '1', '2', '1'],
      ['a', '2', '1', '3'],
      ['b', '3', '1', '6'],
    ]);
  });

  it('refuses a writing CTE before it reaches the database, and the table keeps its rows', async () => {
    await expect(runReadOnly(db, 'v1', 'WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d')).rejects.toThrow(
      /refused: data-modifying WITH/,
    );
    expect((await runReadOnly(db, 'v1', 'SELECT count(*) FROM t')).rows).toEqual([['4']]);
  });
}

describe('WITH and windows through the executor on PGlite', () => runs(() => openDatabase({ kind: 'pglite' })));

describeServer('WITH and windows through the executor on the server', (serverUrl) => {
  let drop: (() => Promise<void>) | undefined;
  afterAll(async () => drop?.());
  runs(async () => {
    const fresh = await createDatabase(serverUrl, 'guard_with');
    drop = fresh.drop;
    return openDatabase({ kind: 'postgres', url: fresh.url });
  });
});
