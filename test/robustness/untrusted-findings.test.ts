/**
 * Findings 1–3 of the second hostile run, and their relatives, against the executor as every
 * caller of untrusted text reaches it (`runReadOnly` of a string), on PGlite and on the
 * server as superuser:
 * 1. `FROM ONLY pg_authid` (and the other catalogs) passed: node-sql-parser read `ONLY` as a
 *    table aliased `pg_authid`;
 * 2. casts to `reg*` types passed and read the catalog;
 * 3. `localtimestamp` and `localtime` passed although the clock is refused.
 * Each refused text must be refused in one line before it runs; each allowed neighbour must
 * still run and give its rows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../generator/database/database.ts';
import { runReadOnly } from '../../generator/execute/run-query.ts';
import { READ_ONLY_FUNCTIONS } from '../../generator/execute/query-guard.ts';
import { ATTRIBUTE_CALLS } from '../../generator/execute/guard-tree.ts';
import { createDatabase, describeServer } from '../helpers/postgres.ts';

const SETUP = `
  CREATE SCHEMA v1; CREATE SCHEMA secret;
  CREATE TABLE v1.t (id integer PRIMARY KEY, name text, born date);
  CREATE TABLE v1.pg_things (id integer);
  CREATE TABLE secret.t (id integer PRIMARY KEY, name text);
  INSERT INTO v1.t VALUES (1, 'one', '2020-01-02'), (2, 'Now and Then', '2021-03-04');
  INSERT INTO v1.pg_things VALUES (5);
  INSERT INTO secret.t VALUES (9, 'hidden');
`;

/** Finding 1: every catalog, with ONLY, qualified or not, parenthesized or not. */
const CATALOG_READS = [
  'SELECT * FROM ONLY pg_authid',
  'SELECT rolname, rolpassword FROM ONLY pg_authid',
  'SELECT * FROM ONLY pg_namespace',
  'SELECT * FROM ONLY pg_roles',
  'SELECT * FROM ONLY pg_settings',
  'SELECT * FROM ONLY pg_proc',
  'SELECT * FROM ONLY pg_stat_activity',
  'SELECT * FROM ONLY pg_stats',
  'SELECT * FROM ONLY pg_catalog.pg_class',
  'SELECT * FROM ONLY (pg_authid)',
  'SELECT * FROM ONLY pg_authid AS a',
  'SELECT * FROM t, ONLY pg_user',
  'SELECT * FROM t JOIN ONLY pg_database AS d ON true',
  'SELECT * FROM ONLY information_schema.tables',
  'SELECT * FROM ONLY secret.t',
  'SELECT * FROM "pg_authid"',
  'SELECT * FROM pg_catalog . pg_authid',
  'SELECT (SELECT count(*) FROM ONLY pg_class) FROM t',
  'SELECT id FROM t WHERE EXISTS (SELECT 1 FROM ONLY pg_shadow)',
  'WITH x AS (SELECT * FROM ONLY pg_authid) SELECT * FROM x',
  'TABLE pg_authid',
  'TABLE ONLY pg_roles',
];

/** Finding 2: casts to the reg* types, in every spelling. */
const CATALOG_CASTS = [
  "SELECT 'pg_authid'::regclass",
  "SELECT 'pg_catalog.pg_authid'::regclass::oid",
  "SELECT 'secret.t'::pg_catalog.regclass",
  "SELECT CAST('secret' AS regnamespace)",
  "SELECT regclass 'pg_authid'",
  "SELECT '{pg_authid,pg_class}'::regclass[]",
  "SELECT 'postgres'::regrole",
  "SELECT 'now'::regproc",
  "SELECT 'pg_sleep(double precision)'::regprocedure",
  "SELECT '+'::regoper",
  "SELECT '+(int,int)'::regoperator",
  "SELECT 'int4'::regtype",
  "SELECT 'english'::regconfig",
  "SELECT 'simple'::regdictionary",
  "SELECT 'C'::regcollation",
  "SELECT id FROM t WHERE id = 'pg_authid'::regclass::oid::int",
];

/** Finding 3 and its family: the clock and the session, however spelled. */
const CLOCK_READS = [
  'SELECT localtimestamp',
  'SELECT localtime',
  'SELECT localtimestamp(2)',
  'SELECT LOCALTIME(0)',
  'SELECT current_time',
  'SELECT current_date',
  'SELECT current_timestamp',
  'SELECT current_user',
  'SELECT session_user',
  'SELECT user',
  'SELECT current_role',
  'SELECT current_catalog',
  'SELECT current_schema',
  "SELECT 'now'::timestamp",
  "SELECT date 'today'",
  "SELECT ' Tomorrow '::date",
  "SELECT id FROM t WHERE born < 'yesterday'",
  "SELECT 'today 10:00'::timestamp",
  'SELECT age(born) FROM t',
];

/** Other things found while reading the grammar: system columns, attribute-notation calls, sampling, parameters. */
const OTHERS = [
  'SELECT ctid FROM t',
  'SELECT t.xmin, t.xmax FROM t',
  'SELECT tableoid FROM t',
  'SELECT t.pg_column_size FROM t',
  'SELECT (t).pg_typeof FROM t',
  'SELECT * FROM t TABLESAMPLE SYSTEM (50)',
  'SELECT * FROM t WHERE id = $1',
  "SELECT public.dblink('dbname=postgres', 'SELECT 1')",
  "SELECT * FROM t WHERE name = ANY (xpath('/a', '<a/>'))",
  "SELECT xmlparse(document '<a/>')",
  'SELECT * FROM t FOR SHARE',
  'SELECT * FROM t FOR KEY SHARE SKIP LOCKED',
  'SELECT 1 OPERATOR(public.+) 1',
  "SELECT 'x'::public.sometype",
  "SELECT pg_catalog.set_config('role', 'none', true)",
  "SELECT * FROM unnest(ARRAY[1]) WITH ORDINALITY AS u(x, n), ROWS FROM (pg_ls_dir('.'))",
  'SELECT collation for (name) FROM t',
  'EXPLAIN SELECT 1',
  'SELECT 1 UNION SELECT * FROM ONLY pg_authid',
  // The protocol ends a text at a NUL; our readers must not read past one either.
  'SELECT 1 \u0000 FROM t',
  'SELECT \'<!DOCTYPE a [<!ENTITY e SYSTEM "file:///etc/passwd">]><a>&e;</a>\'::xml',
  // Deep or long enough to exhaust a reader's stack: refused, not a crash.
  `SELECT ${'(SELECT '.repeat(300)}1${')'.repeat(300)}`,
  `SELECT ${Array.from({ length: 20_000 }, () => '1').join(' + ')}`,
  `SELECT ${'x'.repeat(200_000)}`,
];

/** Neighbours that must still run, with their rows. */
const ALLOWED: readonly (readonly [string, readonly (readonly (string | null)[])[]])[] = [
  ['SELECT count(*) FROM ONLY t', [['2']]],
  ['SELECT id FROM ONLY v1.t ORDER BY id', [['1'], ['2']]],
  ['SELECT id FROM v1.pg_things', [['5']]],
  ['SELECT id FROM pg_things', [['5']]],
  ["SELECT name FROM t WHERE name = 'Now and Then'", [['Now and Then']]],
  ["SELECT (born::timestamp AT TIME ZONE 'UTC')::date FROM t WHERE id = 1", [['2020-01-02']]],
  ["SELECT age(date '2021-01-02', born) FROM t WHERE id = 1", [['1 year']]],
  ['WITH pg_authid AS (SELECT id FROM t) SELECT count(*) FROM pg_authid', [['2']]],
  [
    "SELECT extract(year FROM born), substring(name FROM 1 FOR 3), position('o' IN name), trim(both ' ' FROM name) FROM t WHERE id = 1",
    [['2020', 'one', '1', 'one']],
  ],
  ['SELECT x FROM unnest(ARRAY[3, 1]) WITH ORDINALITY AS u(x, n) ORDER BY n', [['3'], ['1']]],
];

function findings(open: () => Promise<Database>) {
  let db: Database;
  beforeAll(async () => {
    db = await open();
    await db.exec(SETUP);
  });
  afterAll(async () => db?.close());

  it('refuses every read of a catalog, ONLY or not (finding 1)', async () => {
    for (const sql of CATALOG_READS)
      await expect(runReadOnly(db, 'v1', sql), sql).rejects.toThrow(/^schema v1: refused: [^\n]+$/u);
  });

  it('refuses every cast to a reg* type (finding 2)', async () => {
    for (const sql of CATALOG_CASTS)
      await expect(runReadOnly(db, 'v1', sql), sql).rejects.toThrow(/^schema v1: refused: [^\n]+$/u);
  });

  it('refuses the clock and the session in every spelling, localtimestamp and localtime among them (finding 3)', async () => {
    for (const sql of CLOCK_READS)
      await expect(runReadOnly(db, 'v1', sql), sql).rejects.toThrow(/^schema v1: refused: [^\n]+$/u);
  });

  it('refuses system columns, attribute-notation calls, sampling, parameters, locks and foreign operators', async () => {
    for (const sql of OTHERS)
      await expect(runReadOnly(db, 'v1', sql), sql).rejects.toThrow(/^schema v1: refused: [^\n]+$/u);
  });

  it('knows every function the catalog would call in attribute notation (t.f is f(t))', async () => {
    const rows = await db.query(`SELECT DISTINCT p.proname FROM pg_proc p JOIN pg_type ty ON ty.oid = p.proargtypes[0]
      WHERE p.pronargs = 1 AND p.pronamespace = 'pg_catalog'::regnamespace AND p.prokind = 'f'
        AND ty.typname IN ('any', 'anyelement', 'record', 'anycompatible', 'anynonarray', 'anycompatiblenonarray') ORDER BY 1`);
    const names = rows.map((r) => String(r['proname']));
    expect(names.length).toBeGreaterThan(10);
    for (const name of names) expect(READ_ONLY_FUNCTIONS.has(name) || ATTRIBUTE_CALLS.has(name), name).toBe(true);
  });

  it('sends the text alone by the extended protocol: under the guard, the server itself refuses a second statement', async () => {
    // The layer under both readers, given what they would refuse: nothing of it runs.
    const read = (query: string) =>
      db.readPaged({
        setup: ['BEGIN READ ONLY'],
        query,
        pageRows: 100,
        maxRows: 100,
        maxBytes: 1e6,
        timeoutMs: 10_000,
      });
    for (const query of [
      "SELECT 1; COMMIT; UPDATE v1.t SET name = 'pwned'",
      "SELECT --\r'a\\' AS x; COMMIT; UPDATE v1.t SET name = $$pwned$$; --' AS z",
    ]) {
      await expect(read(query), query).rejects.toThrow(/cannot insert multiple commands into a prepared statement/u);
    }
    expect((await runReadOnly(db, 'v1', 'SELECT name FROM t ORDER BY id')).rows).toEqual([['one'], ['Now and Then']]);
    const [state] = await db.query("SELECT current_setting('transaction_read_only') AS ro");
    expect(state?.['ro']).toMatch(/^(off|false)$/u);
  });

  it('still runs the neighbours of what it refuses', async () => {
    for (const [sql, rows] of ALLOWED) expect((await runReadOnly(db, 'v1', sql)).rows, sql).toEqual(rows);
  });
}

describe('untrusted SQL findings on PGlite', () => findings(() => openDatabase({ kind: 'pglite' })));

describeServer('untrusted SQL findings on the server as superuser', (serverUrl) => {
  let drop: (() => Promise<void>) | undefined;
  afterAll(async () => drop?.());
  findings(async () => {
    const fresh = await createDatabase(serverUrl, 'findings');
    drop = fresh.drop;
    return openDatabase({ kind: 'postgres', url: fresh.url });
  });
});
