// @tier long
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { openDatabase, type Database } from '../../generator/database/database.ts';
import { runReadOnly } from '../../generator/execute/run-query.ts';
import { guardQuery, READ_ONLY_FUNCTIONS, type GuardScope } from '../../generator/execute/query-guard.ts';
import { loadPgParser } from '../../generator/sql/pg-parser.ts';
import { BUILT_IN_DOMAINS } from '../../generator/domains/index.ts';
import { indexDomain } from '../../generator/er-model/er-index.ts';
import type { Domain } from '../../generator/er-model/er-model.ts';
import { buildRelationalSchema } from '../../generator/variants/build-schema.ts';
import { presetVariant } from '../../generator/variants/variant-presets.ts';
import { grantReader, READER_ROLE } from '../../generator/database/reader-role.ts';
import { createDatabase, describeServer } from '../helpers/postgres.ts';
import { REPO_ROOT } from '../helpers/run-cli.ts';
import { ExecutionError } from '../../generator/common/errors.ts';
import { createRng } from '../../generator/common/rng.ts';

const SETUP = `
  CREATE SCHEMA v1; CREATE SCHEMA v2; CREATE SCHEMA secret;
  CREATE TABLE v1.t (id integer PRIMARY KEY, name text);
  CREATE TABLE v2.t (id integer PRIMARY KEY, name text);
  CREATE TABLE secret.t (id integer PRIMARY KEY, name text);
  INSERT INTO v1.t VALUES (1, 'one'), (2, 'two');
  INSERT INTO v2.t VALUES (3, 'three');
  INSERT INTO secret.t VALUES (9, 'hidden');
`;

/** A path no test run shares, for the files an attack would write. */
function scratch(label: string): string {
  return join(tmpdir(), `equisql-attack-${label}-${process.pid}-${Math.floor(performance.now())}`);
}

function attacks(open: () => Promise<Database>) {
  let db: Database;
  const files: string[] = [];
  beforeAll(async () => {
    db = await open();
    await db.exec(SETUP);
  });
  afterAll(async () => {
    for (const f of files) rmSync(f, { force: true });
    await db?.close();
  });

  const scalar = async (sql: string): Promise<unknown> => Object.values((await db.query(sql))[0] ?? {})[0];

  it('refuses COPY … TO a file, and no file appears', async () => {
    const file = scratch('copy');
    files.push(file);
    await expect(runReadOnly(db, 'v1', `COPY t TO '${file}'`)).rejects.toThrow(
      /^schema v1: refused: only one SELECT is run, not COPY$/,
    );
    await expect(runReadOnly(db, 'v1', `COPY (SELECT * FROM t) TO '${file}'`)).rejects.toThrow(
      /refused: only one SELECT is run, not COPY/,
    );
    expect(existsSync(file)).toBe(false);
  });

  it('refuses COPY … TO PROGRAM, and the program does not run', async () => {
    const file = scratch('program');
    files.push(file);
    await expect(runReadOnly(db, 'v1', `COPY t TO PROGRAM 'id > ${file}'`)).rejects.toThrow(
      /refused: only one SELECT is run, not COPY/,
    );
    expect(existsSync(file)).toBe(false);
  });

  it('refuses large-object functions, and no large object exists', async () => {
    const before = Number(await scalar('SELECT count(*) FROM pg_largeobject_metadata'));
    await expect(runReadOnly(db, 'v1', "SELECT lo_from_bytea(0, 'x')")).rejects.toThrow(
      /^schema v1: refused: function lo_from_bytea at character 8 is not on the list/,
    );
    await expect(runReadOnly(db, 'v1', 'SELECT lo_create(0)')).rejects.toThrow(/refused: function lo_create/);
    await expect(runReadOnly(db, 'v1', 'SELECT id FROM t WHERE lo_create(id) > 0')).rejects.toThrow(
      /refused: function lo_create/,
    );
    expect(Number(await scalar('SELECT count(*) FROM pg_largeobject_metadata'))).toBe(before);
  });

  it('refuses pg_reload_conf and pg_stat_reset, and neither ran', async () => {
    const loaded = await scalar('SELECT pg_conf_load_time()::text');
    const reset = await scalar('SELECT stats_reset::text FROM pg_stat_database WHERE datname = current_database()');
    await expect(runReadOnly(db, 'v1', 'SELECT pg_reload_conf()')).rejects.toThrow(/refused: function pg_reload_conf/);
    await expect(runReadOnly(db, 'v1', 'SELECT pg_stat_reset()')).rejects.toThrow(/refused: function pg_stat_reset/);
    expect(await scalar('SELECT pg_conf_load_time()::text')).toBe(loaded);
    expect(await scalar('SELECT stats_reset::text FROM pg_stat_database WHERE datname = current_database()')).toBe(
      reset,
    );
  });

  it('refuses the disguises of a call: quoted, qualified, commented, hidden from the parser in a backslash string', async () => {
    for (const sql of [
      'SELECT "pg_reload_conf"()',
      'SELECT pg_catalog.pg_reload_conf()',
      'SELECT pg_reload_conf /* gap */ ()',
      "SELECT 'a\\', pg_reload_conf() --'",
      "SELECT query_to_xml('COPY t TO PROGRAM ''id''', true, true, '')",
      "SELECT set_config('search_path', 'secret', false)",
      "SELECT current_setting('data_directory')",
      'SELECT pg_sleep(10)',
      'SELECT id FROM t ORDER BY random()',
      "SELECT E'\\x27', pg_reload_conf()",
      'SELECT $$x$$',
    ]) {
      await expect(runReadOnly(db, 'v1', sql), sql).rejects.toThrow(/^schema v1: refused: /);
    }
  });

  it("refuses SET, and the search_path of later queries is the variant's", async () => {
    const before = await scalar('SHOW search_path');
    await expect(runReadOnly(db, 'v1', 'SET search_path TO secret')).rejects.toThrow(
      /refused: only one SELECT is run, not SET/,
    );
    await expect(runReadOnly(db, 'v1', 'SET LOCAL search_path TO secret')).rejects.toThrow(
      /refused: only one SELECT is run, not SET/,
    );
    await expect(runReadOnly(db, 'v1', 'RESET ROLE')).rejects.toThrow(/refused: only one SELECT is run, not RESET/);
    expect(await scalar('SHOW search_path')).toBe(before);
    expect(await scalar('SELECT current_user')).not.toBe(READER_ROLE);
    expect((await runReadOnly(db, 'v2', 'SELECT id, name FROM t')).rows).toEqual([['3', 'three']]);
  });

  it('refuses reading another schema or the catalogs', async () => {
    await expect(runReadOnly(db, 'v1', 'SELECT * FROM secret.t')).rejects.toThrow(
      /refused: table secret.t: a query reads only its variant's tables/,
    );
    await expect(runReadOnly(db, 'v1', 'SELECT * FROM pg_authid')).rejects.toThrow(/refused: table pg_authid/);
    await expect(runReadOnly(db, 'v1', 'SELECT * FROM pg_catalog.pg_settings')).rejects.toThrow(
      /refused: table pg_catalog.pg_settings/,
    );
  });

  it('still refuses writes, several statements, SELECT INTO, DO blocks and writable CTEs', async () => {
    for (const [sql, why] of [
      ['DELETE FROM t', /not DELETE$/],
      ['SELECT 1; COMMIT; DELETE FROM t; SELECT 2', /several statements \(a ";" at character 9\)/],
      ['SELECT * INTO t2 FROM t', /^schema v1: refused: SELECT … INTO \(it creates a table\)/],
      ["DO 'BEGIN DELETE FROM t; END'", /not DO$/],
      [
        'WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d',
        /refused: data-modifying WITH \(DELETE at character 12\)/,
      ],
      ['SELECT * FROM t FOR UPDATE', /^schema v1: refused: a locking clause \(FOR UPDATE, FOR SHARE\)/],
    ] as const) {
      await expect(runReadOnly(db, 'v1', sql), sql).rejects.toThrow(why);
    }
    expect((await runReadOnly(db, 'v1', 'SELECT count(*) FROM t')).rows).toEqual([['2']]);
  });

  it("runs as the reader role, which by itself can neither write files nor call an administrator's function nor read other schemas", async () => {
    expect((await runReadOnly(db, 'v1', 'SELECT lower(name) FROM t ORDER BY id')).rows).toEqual([['one'], ['two']]);
    const asReader = async (sql: string): Promise<void> => {
      await db.exec(`BEGIN; SET LOCAL ROLE ${READER_ROLE}; SET LOCAL search_path TO v1`);
      try {
        await db.query(sql);
      } finally {
        await db.exec('ROLLBACK');
      }
    };
    const file = scratch('role');
    files.push(file);
    await expect(asReader(`COPY t TO '${file}'`)).rejects.toThrow(/permission denied|must be superuser|not allowed/);
    await expect(asReader('SELECT pg_reload_conf()')).rejects.toThrow(/permission denied/);
    await expect(asReader('SELECT * FROM secret.t')).rejects.toThrow(/permission denied/);
    expect(existsSync(file)).toBe(false);
  });

  it('gives the grants a build made before the reader role did not', async () => {
    await db.exec('CREATE SCHEMA old; CREATE TABLE old.t (id integer); INSERT INTO old.t VALUES (7)');
    expect((await runReadOnly(db, 'old', 'SELECT id FROM t')).rows).toEqual([['7']]);
  });

  it('allows no function PostgreSQL marks volatile (one that may change the database or its answer)', async () => {
    const rows = await db.query(
      "SELECT DISTINCT proname FROM pg_proc WHERE proname = ANY($1) AND provolatile = 'v' ORDER BY 1",
      [[...READ_ONLY_FUNCTIONS]],
    );
    expect(rows.map((r) => r['proname'])).toEqual([]);
  });
}

describe('the executor under attack, on PGlite', () => attacks(() => openDatabase({ kind: 'pglite' })));

describeServer('the executor under attack, on the server as superuser', (serverUrl) => {
  let drop: (() => Promise<void>) | undefined;
  afterAll(async () => drop?.());
  attacks(async () => {
    const fresh = await createDatabase(serverUrl, 'attack');
    drop = fresh.drop;
    const db = await openDatabase({ kind: 'postgres', url: fresh.url });
    expect((await db.query('SELECT rolsuper FROM pg_roles WHERE rolname = current_user'))[0]?.['rolsuper']).toMatch(
      /^(t|true)$/,
    );
    return db;
  });
});

const sqlFiles = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) =>
    statSync(join(dir, f)).isDirectory() ? sqlFiles(join(dir, f)) : f.endsWith('.sql') ? [join(dir, f)] : [],
  );

/** The scope of a built-in variant: its tables, as the executor reads them from the catalog. */
function variantScope(domain: string, variant: string): GuardScope {
  const index = indexDomain(BUILT_IN_DOMAINS[domain] as Domain);
  return {
    pgSchema: `${domain}__${variant}`,
    tables: new Set(buildRelationalSchema(index, presetVariant(index, variant)).tables.map((t) => t.name)),
  };
}

/** A scope for hand-written texts: the tables they name. */
const X: GuardScope = { pgSchema: 'x', tables: new Set(['t', 'u', 'book']) };

describe("the guard lets the compiler's SQL through", () => {
  beforeAll(() => loadPgParser());

  it("accepts every compiled paper query, over its variant's tables", () => {
    const files = sqlFiles(join(REPO_ROOT, 'test/fixtures/compiled')).filter((f) => !f.includes('/queries/'));
    expect(files.length).toBeGreaterThanOrEqual(300);
    for (const f of files) {
      const [domain, variant] = f.split('/').slice(-3, -1) as [string, string];
      expect(() => guardQuery(readFileSync(f, 'utf8'), variantScope(domain, variant)), f).not.toThrow();
    }
  });

  it('reads strings, quoted names and comments as PostgreSQL does', () => {
    expect(() =>
      guardQuery(
        'SELECT \'pg_reload_conf()\' AS "lo_create(" -- pg_sleep(1)\n FROM t /* a /* nested */ set_config( */',
        X,
      ),
    ).not.toThrow();
    expect(() =>
      guardQuery(
        'SELECT CAST(price AS numeric(10, 2)), price::varchar(5), s.value FROM t JOIN LATERAL unnest(t.tags) AS s(value) ON true',
        X,
      ),
    ).not.toThrow();
    expect(() => guardQuery("SELECT 'it''s', x FROM t WHERE x IN (1) AND EXISTS (SELECT 1 FROM u)", X)).not.toThrow();
    expect(() =>
      guardQuery("SELECT title FROM book AS a WHERE 'history' = ANY (a.genres) AND 1 <> ALL (a.n)", X),
    ).not.toThrow();
    // PostgreSQL takes any non-ASCII character for a letter, astral ones too.
    expect(() => guardQuery('SELECT 😀pg_reload_conf()', X)).toThrow(
      /refused: function 😀pg_reload_conf at character 8/,
    );
  });

  it('answers any mangled query with a pass or a refusal, never a crash', () => {
    const texts = sqlFiles(join(REPO_ROOT, 'test/fixtures/compiled'))
      .slice(0, 50)
      .map((f) => readFileSync(f, 'utf8'));
    const rng = createRng('guard-fuzz');
    const pieces = [
      "'",
      '"',
      '$$',
      '/*',
      '*/',
      '--',
      ';',
      '(',
      ')',
      '\\',
      "E'",
      'U&',
      '😀',
      'pg_sleep(',
      '::',
      '.',
      '\n',
    ];
    for (let i = 0; i < 1000; i++) {
      let text = texts[rng.int(0, texts.length - 1)] as string;
      for (let k = rng.int(1, 3); k > 0; k--) {
        const at = rng.int(0, text.length);
        text = rng.chance(0.5)
          ? text.slice(0, at) + (pieces[rng.int(0, pieces.length - 1)] as string) + text.slice(at)
          : text.slice(0, at) + text.slice(at + rng.int(1, 5));
      }
      try {
        guardQuery(text, X);
      } catch (error) {
        expect(error, text).toBeInstanceOf(ExecutionError);
        expect((error as Error).message, text).toMatch(/^schema x: refused: [^\n]+$/);
      }
    }
  });
});

describe('the reader role', () => {
  it('is granted by build on every variant schema (grantReader twice is harmless)', async () => {
    const db = await openDatabase({ kind: 'pglite' });
    try {
      await db.exec('CREATE SCHEMA v; CREATE TABLE v.t (id integer)');
      await grantReader(db, 'v');
      await grantReader(db, 'v');
      const rows = await db.query("SELECT has_table_privilege($1, 'v.t', 'SELECT') AS ok", [READER_ROLE]);
      expect(rows[0]?.['ok']).toBe(true);
    } finally {
      await db.close();
    }
  });
});

describe('a query that overruns its timeout on PGlite', () => {
  const HEAVY = 'SELECT count(*) FROM generate_series(1, 300000000)';

  it('fails with "timed out" well before it would finish, and the persisted data reads back after', async () => {
    const dir = scratch('pglite');
    const db = await openDatabase({ kind: 'pglite', dir });
    try {
      await db.exec('CREATE SCHEMA v1; CREATE TABLE v1.t (id integer PRIMARY KEY, name text)');
      // Loaded the way build loads: COPY, never subject to a timeout.
      await db.copyIn('COPY v1.t (id, name) FROM STDIN', '1\tone\n2\ttwo\n3\tthree\n');
      const started = performance.now();
      await expect(runReadOnly(db, 'v1', HEAVY, { timeoutMs: 1000 })).rejects.toThrow(
        /^schema v1: timed out after 1000 ms$/,
      );
      // Unbounded, this query runs for minutes; the bound is the point.
      expect(performance.now() - started).toBeLessThan(10_000);
      expect((await runReadOnly(db, 'v1', 'SELECT id, name FROM t ORDER BY id')).rows).toEqual([
        ['1', 'one'],
        ['2', 'two'],
        ['3', 'three'],
      ]);
      // Twice in a row, and the database still takes writes outside the executor.
      await expect(db.queryText(HEAVY, { timeoutMs: 500 })).rejects.toThrow(/^timed out after 500 ms$/);
      await db.exec("INSERT INTO v1.t VALUES (4, 'four')");
      expect((await runReadOnly(db, 'v1', 'SELECT count(*) FROM t')).rows).toEqual([['4']]);
    } finally {
      await db.close();
    }
    const again = await openDatabase({ kind: 'pglite', dir });
    try {
      expect((await again.queryText('SELECT id FROM v1.t ORDER BY id')).rows).toEqual([['1'], ['2'], ['3'], ['4']]);
    } finally {
      await again.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);

  it('keeps an in-memory database across the restart', async () => {
    const db = await openDatabase({ kind: 'pglite' });
    try {
      await db.exec('CREATE SCHEMA v1; CREATE TABLE v1.t (id integer); INSERT INTO v1.t VALUES (1), (2)');
      await expect(runReadOnly(db, 'v1', HEAVY, { timeoutMs: 300 })).rejects.toThrow(/timed out after 300 ms/);
      expect((await runReadOnly(db, 'v1', 'SELECT sum(id) FROM t')).rows).toEqual([['3']]);
    } finally {
      await db.close();
    }
  }, 300_000);
});
