// @tier long
import Sqlite from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EquisqlError } from '../../generator/common/errors.ts';
import type { Database } from '../../generator/database/database.ts';
import { openPglite } from '../../generator/database/pglite-database.ts';
import { domainToJson, parseDomainJson } from '../../generator/er-model/domain-json.ts';
import type { Domain } from '../../generator/er-model/er-model.ts';
import { type Draft, draftModel } from '../../generator/import/draft-model.ts';
import { importReport } from '../../generator/import/import-report.ts';
import { readDatabaseSource, readSource, type SourceRead } from '../../generator/import/read-source.ts';
import { runMain } from '../helpers/run-cli.ts';

/**
 * Hostile schemas, each read by the importer from a SQLite file or from PostgreSQL (PGlite):
 * each must end in a one-line error naming the table or column at fault, or in a draft the
 * model validator reads back with the part it skipped or changed reported — never a crash,
 * never a write to the source.
 */

/** What a row must end in: a refusal, or a draft with these `rule subject` findings. */
type Outcome =
  | { readonly error: RegExp }
  | { readonly findings: readonly string[]; readonly check?: (domain: Domain) => void };

interface SqliteRow {
  readonly name: string;
  /** The file's schema and rows, or its bytes, or a maker that puts whatever it likes at the path. */
  readonly sqlite: string | Buffer | ((file: string) => void);
  readonly outcome: Outcome;
}

interface PgRow {
  readonly name: string;
  /** Run in a schema of its own (the search path set to it), then read with `--schema` that schema. */
  readonly pg: string;
  readonly outcome: Outcome;
}

const dir = mkdtempSync(join(tmpdir(), 'equisql-hostile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const wide = (n: number, type: string): string => Array.from({ length: n }, (_, i) => `c${i} ${type}`).join(', ');
const chain = (n: number): string =>
  Array.from(
    { length: n },
    (_, i) =>
      `CREATE TABLE t${i} (id INTEGER PRIMARY KEY, v TEXT${i > 0 ? `, prev_id INTEGER REFERENCES t${i - 1}` : ''});`,
  ).join('\n');

/** A real SQLite file of a few megabytes, to cut and spoil. */
function sampleBytes(): Buffer {
  const file = join(dir, 'sample.sqlite');
  const db = new Sqlite(file);
  db.exec(`CREATE TABLE a (id INTEGER PRIMARY KEY, v TEXT);
    CREATE TABLE b (id INTEGER PRIMARY KEY, a_id INTEGER REFERENCES a, w TEXT);
    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
    INSERT INTO a SELECT i, printf('%0400d', i) FROM n;
    INSERT INTO b SELECT id, id, v FROM a;`);
  db.close();
  return readFileSync(file);
}
const SAMPLE = sampleBytes();

const SQLITE_ROWS: readonly SqliteRow[] = [
  {
    name: 'names with spaces, quotes, brackets and reserved words',
    sqlite: `CREATE TABLE [Order Items] ([Item Id] INTEGER PRIMARY KEY, "say ""hi""" TEXT, [select] TEXT, [group] INTEGER);
      CREATE TABLE "from" (id INTEGER PRIMARY KEY, [Order Items Id] INTEGER REFERENCES [Order Items]);`,
    outcome: {
      findings: ['entity-table Order Items', 'foreign-key from.Order Items Id'],
      check: (d) => expect(d.entities.map((e) => e.name)).toEqual(['OrderItem', 'From']),
    },
  },
  {
    name: 'unicode and emoji names, two of them with no ASCII letter at all',
    sqlite: `CREATE TABLE "café ☕" (id INTEGER PRIMARY KEY, "naïve 😀" TEXT, "名字" TEXT, "名前" TEXT);
      CREATE TABLE "用户" (id INTEGER PRIMARY KEY, "😀" INTEGER REFERENCES "café ☕");`,
    outcome: {
      findings: ['column-name café ☕.名前', 'foreign-key 用户.😀'],
      check: (d) => expect(d.entities.map((e) => e.name)).toEqual(['Caf', 'Unnamed']),
    },
  },
  {
    name: 'a table name and a column name holding a newline',
    sqlite: `CREATE TABLE "a\nb" (id INTEGER PRIMARY KEY, "c\nd" TEXT);`,
    outcome: { findings: ['entity-table a\nb'], check: (d) => expect(d.entities[0]?.attributes[0]?.name).toBe('c_d') },
  },
  {
    name: 'no primary key',
    sqlite: 'CREATE TABLE heap (a TEXT, b TEXT); CREATE TABLE t (id INTEGER PRIMARY KEY);',
    outcome: { findings: ['left-out heap'] },
  },
  {
    name: 'no table with a primary key at all',
    sqlite: 'CREATE TABLE heap (a TEXT, b TEXT); CREATE TABLE notes (v);',
    outcome: { error: /: no table could be read as an entity: heap \(no primary key\), notes \(no primary key\)$/u },
  },
  {
    name: 'a composite key and no integer key column',
    sqlite: 'CREATE TABLE pair (x TEXT, y TEXT, n INTEGER, PRIMARY KEY (x, y));',
    outcome: { findings: ['physical-names pair', 'entity-table pair'] },
  },
  {
    name: 'a composite foreign key onto a composite key',
    sqlite: `CREATE TABLE sec (course TEXT, term INTEGER, room TEXT, PRIMARY KEY (course, term));
      CREATE TABLE enr (id INTEGER PRIMARY KEY, course TEXT, term INTEGER, grade TEXT,
        FOREIGN KEY (course, term) REFERENCES sec (course, term));`,
    outcome: { findings: ['foreign-key enr.course,term', 'physical-names sec'] },
  },
  {
    name: '300 tables in a chain of foreign keys',
    sqlite: chain(300),
    outcome: { error: /300 entities, more than the 200 a model may have \(the first beyond is table t\d+\)/u },
  },
  {
    name: 'a cycle of two foreign keys',
    sqlite: `CREATE TABLE hen (id INTEGER PRIMARY KEY, egg_id INTEGER REFERENCES egg);
      CREATE TABLE egg (id INTEGER PRIMARY KEY, hen_id INTEGER REFERENCES hen);`,
    outcome: { findings: ['foreign-key-cycle egg, hen'] },
  },
  {
    name: 'a cycle of three foreign keys and a self-reference',
    sqlite: `CREATE TABLE a (id INTEGER PRIMARY KEY, b_id INTEGER REFERENCES b, boss_id INTEGER REFERENCES a);
      CREATE TABLE b (id INTEGER PRIMARY KEY, c_id INTEGER REFERENCES c);
      CREATE TABLE c (id INTEGER PRIMARY KEY, a_id INTEGER REFERENCES a);`,
    outcome: { findings: ['foreign-key-cycle a, b, c', 'self-reference a.boss_id'] },
  },
  {
    name: 'a table of 500 columns',
    sqlite: `CREATE TABLE wide (id INTEGER PRIMARY KEY, ${wide(499, 'INTEGER')});`,
    outcome: {
      findings: ['left-out wide.c200', 'left-out wide.c498'],
      check: (d) => expect(d.entities[0]?.attributes).toHaveLength(200),
    },
  },
  {
    name: 'an empty table, a table of NULLs only and one with only its key',
    sqlite: `CREATE TABLE empty (id INTEGER PRIMARY KEY, v TEXT);
      CREATE TABLE nulls (id INTEGER PRIMARY KEY, a TEXT, b INTEGER); INSERT INTO nulls VALUES (1, NULL, NULL), (2, NULL, NULL);
      CREATE TABLE bare (id INTEGER PRIMARY KEY);`,
    outcome: {
      findings: ['entity-table empty', 'entity-table nulls', 'entity-table bare'],
      check: (d) => expect(d.entities.find((e) => e.name === 'Empty')?.counts?.paper).toBe(1),
    },
  },
  {
    name: 'the same foreign key declared twice',
    sqlite: `CREATE TABLE p (id INTEGER PRIMARY KEY);
      CREATE TABLE a (id INTEGER PRIMARY KEY, p_id INTEGER REFERENCES p, FOREIGN KEY (p_id) REFERENCES p (id));`,
    outcome: {
      findings: ['foreign-key a.p_id', 'left-out a.p_id'],
      check: (d) => expect(d.relationships.map((r) => r.name)).toEqual(['a_p']),
    },
  },
  {
    name: 'two foreign keys to one table whose names reduce to one role (b_id, b_code)',
    sqlite: `CREATE TABLE b (id INTEGER PRIMARY KEY, code TEXT UNIQUE);
      CREATE TABLE a (id INTEGER PRIMARY KEY, b_code TEXT REFERENCES b (code), b_id INTEGER REFERENCES b);`,
    outcome: {
      findings: ['foreign-key a.b_id', 'foreign-key a.b_code', 'column-name a.b_code'],
      check: (d) => expect(d.relationships.map((r) => r.role)).toEqual(['b', 'b_code']),
    },
  },
  {
    name: 'a foreign key to a table that does not exist',
    sqlite: 'CREATE TABLE a (id INTEGER PRIMARY KEY, ghost_id INTEGER REFERENCES ghost (id));',
    outcome: { findings: ['left-out a.ghost_id'] },
  },
  {
    name: 'a foreign key to a non-key unique column, and a column named id that is not the key',
    sqlite: `CREATE TABLE country (code TEXT PRIMARY KEY, id INTEGER UNIQUE, name TEXT);
      CREATE TABLE city (id INTEGER PRIMARY KEY, country_id INTEGER REFERENCES country (id));`,
    outcome: { findings: ['column-name country.id', 'foreign-key city.country_id', 'physical-names country'] },
  },
  {
    name: 'a WITHOUT ROWID table with a text key',
    sqlite: `CREATE TABLE kv (k TEXT PRIMARY KEY, v TEXT) WITHOUT ROWID;
      CREATE TABLE r (id INTEGER PRIMARY KEY, k TEXT REFERENCES kv (k)); INSERT INTO kv VALUES ('a', 'b');`,
    outcome: { findings: ['physical-names kv', 'foreign-key r.k'] },
  },
  {
    name: 'columns with no declared type, and rows of mixed types in them',
    sqlite: `CREATE TABLE t (id PRIMARY KEY, a, b); INSERT INTO t VALUES (1, 'x', 2.5), ('two', NULL, x'00');`,
    outcome: {
      findings: ['entity-table t'],
      check: (d) => expect(d.entities[0]?.attributes.map((a) => a.name)).toEqual(['a', 'b']),
    },
  },
  {
    name: 'type affinities: VARCHAR(10), DATETIME, BOOLEAN, NUMERIC(5,2), BLOB, MONEY, a STRICT ANY',
    sqlite: `CREATE TABLE t (id INTEGER PRIMARY KEY, v VARCHAR(10), d DATETIME, b BOOLEAN, n NUMERIC(5,2), bl BLOB, m MONEY);
      CREATE TABLE s (id INTEGER PRIMARY KEY, x ANY) STRICT;`,
    outcome: { findings: ['column-type t.v', 'left-out t.bl', 'left-out t.m', 'left-out s.x'] },
  },
  {
    name: 'values that defy their column type',
    sqlite: `CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER, d DATE, ts DATETIME, b BOOLEAN, x NUMERIC(5,2));
      INSERT INTO t VALUES (1, 'abc', 'not a date', 'yesterday', 'maybe', 'lots'), (2, 5, '2020-01-01', '2020-01-01 00:00:00', 1, 2.5),
        (3, x'00', 3, 4.5, 2, 9999999);`,
    outcome: { findings: ['entity-table t'] },
  },
  {
    name: 'a view, a trigger and generated columns',
    sqlite: `CREATE TABLE t (id INTEGER PRIMARY KEY, a INTEGER, b INTEGER GENERATED ALWAYS AS (a * 2) VIRTUAL, c TEXT AS (a || 'x') STORED);
      CREATE VIEW tv AS SELECT * FROM t; CREATE TRIGGER tr AFTER INSERT ON t BEGIN SELECT 1; END;`,
    outcome: { findings: ['left-out tv', 'left-out t.tr', 'left-out t.b', 'left-out t.c'] },
  },
  {
    name: 'a full-text virtual table and its shadow tables',
    sqlite: `CREATE VIRTUAL TABLE doc USING fts5(body); INSERT INTO doc VALUES ('hello');
      CREATE TABLE note (id INTEGER PRIMARY KEY, v TEXT);`,
    outcome: {
      findings: ['left-out doc', 'left-out doc_data', 'left-out doc_idx', 'left-out doc_content'],
      check: (d) => expect(d.entities.map((e) => e.name)).toEqual(['Note']),
    },
  },
  {
    name: 'a virtual table of a module this SQLite lacks',
    sqlite: (file) => {
      const db = new Sqlite(file);
      db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY); CREATE VIRTUAL TABLE doc USING fts5(body);');
      db.close();
      const bytes = readFileSync(file);
      bytes.write('USING ftsx', bytes.indexOf('USING fts5'));
      writeFileSync(file, bytes);
    },
    outcome: { findings: ['left-out doc', 'entity-table t'] },
  },
  {
    name: 'a database with no tables',
    sqlite: 'PRAGMA user_version = 7;',
    outcome: { error: /: no tables to import$/u },
  },
  {
    name: 'a zero-byte file',
    sqlite: Buffer.alloc(0),
    outcome: { error: /zero\.sqlite: no tables to import$/u },
  },
  {
    name: 'a file that is not SQLite',
    sqlite: Buffer.from('hello, not a database\n'.repeat(100)),
    outcome: { error: /: cannot read as a SQLite database: file is not a database$/u },
  },
  {
    name: 'a SQLite file cut in half',
    sqlite: SAMPLE.subarray(0, Math.floor(SAMPLE.length / 2)),
    outcome: { error: /: cannot read as a SQLite database: database disk image is malformed$/u },
  },
  {
    name: 'a SQLite file with a page of its data overwritten',
    sqlite: Buffer.concat([SAMPLE.subarray(0, 8192), Buffer.alloc(4096, 0xab), SAMPLE.subarray(12288)]),
    outcome: { error: /\.sqlite: database disk image is malformed$/u },
  },
  {
    name: 'a directory given as the file',
    sqlite: (file) => mkdirSync(file),
    outcome: { error: /\.sqlite: cannot read as a SQLite database: disk I\/O error$/u },
  },
  {
    name: 'a hot rollback journal beside the file',
    sqlite: (file) => {
      const db = new Sqlite(file);
      db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT); INSERT INTO t VALUES (1, 'x');");
      db.close();
      writeFileSync(`${file}-journal`, Buffer.alloc(1024, 7));
    },
    outcome: { error: /\.sqlite: cannot read as a SQLite database: attempt to write a readonly database$/u },
  },
  {
    name: 'a WAL file beside the file, holding committed rows the main file lacks',
    sqlite: (file) => {
      const writer = new Sqlite(join(dir, 'wal-writer.sqlite'));
      writer.pragma('journal_mode = WAL');
      writer.pragma('wal_autocheckpoint = 0');
      writer.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT); INSERT INTO t VALUES (1, 'x');");
      // The copy taken while the writer is open: a main file and its WAL, as a crash leaves them.
      writeFileSync(file, readFileSync(join(dir, 'wal-writer.sqlite')));
      writeFileSync(`${file}-wal`, readFileSync(join(dir, 'wal-writer.sqlite-wal')));
      writer.close();
    },
    outcome: { findings: ['entity-table t'], check: (d) => expect(d.entities[0]?.counts?.paper).toBe(1) },
  },
];

const PG_ROWS: readonly PgRow[] = [
  {
    name: 'tables named user, order and select, with reserved column names',
    pg: `CREATE TABLE "user" (id integer PRIMARY KEY, "select" text, "from" integer);
      CREATE TABLE "order" (id integer PRIMARY KEY, "user" integer REFERENCES "user", "group" text);
      CREATE TABLE "select" (id integer PRIMARY KEY, order_id integer REFERENCES "order");`,
    outcome: {
      findings: ['foreign-key order.user', 'foreign-key select.order_id'],
      check: (d) => expect(d.entities.map((e) => e.name)).toEqual(['Order', 'Select', 'User']),
    },
  },
  {
    name: 'names that differ only by case: "Users" and users, "Name" and name',
    pg: `CREATE TABLE "Users" (id integer PRIMARY KEY, "Name" text, name text);
      CREATE TABLE users (id integer PRIMARY KEY, v text, users_id integer REFERENCES "Users");`,
    outcome: {
      findings: ['column-name Users.name', 'foreign-key users.users_id'],
      check: (d) => expect(d.entities.map((e) => e.name)).toEqual(['User', 'User2']),
    },
  },
  {
    name: 'identifiers of 63 bytes, in ASCII and in two-byte letters',
    pg: `CREATE TABLE ${'x'.repeat(63)} (id integer PRIMARY KEY, ${'y'.repeat(63)} text);
      CREATE TABLE "${'é'.repeat(31)}" (id integer PRIMARY KEY, r integer REFERENCES ${'x'.repeat(63)});`,
    outcome: { findings: [`entity-table ${'x'.repeat(63)}`, `foreign-key ${'é'.repeat(31)}.r`] },
  },
  {
    name: 'unicode and emoji names',
    pg: `CREATE TABLE "café ☕" (id integer PRIMARY KEY, "naïve 😀" text);
      CREATE TABLE "用户" (id integer PRIMARY KEY, "😀" integer REFERENCES "café ☕");`,
    outcome: { findings: ['foreign-key 用户.😀'] },
  },
  {
    name: 'dots, quotes and a dollar in names',
    pg: `CREATE TABLE "a.b""c" (id integer PRIMARY KEY, "x.y" text, "$" text);
      CREATE TABLE "d e" (id integer PRIMARY KEY, "a.b""c_id" integer REFERENCES "a.b""c");`,
    outcome: { findings: ['entity-table a.b"c', 'foreign-key d e.a.b"c_id'] },
  },
  {
    name: 'no primary key beside a keyed table',
    pg: 'CREATE TABLE log (at timestamptz, msg text); CREATE TABLE t (id integer PRIMARY KEY);',
    outcome: { findings: ['left-out log'] },
  },
  {
    name: 'a table without columns beside a keyed table',
    pg: 'CREATE TABLE nothing (); CREATE TABLE t (id integer PRIMARY KEY);',
    outcome: { findings: ['left-out nothing'] },
  },
  {
    name: 'only a table without columns',
    pg: 'CREATE TABLE nothing ();',
    outcome: { error: /: no table could be read as an entity: nothing \(no columns\)$/u },
  },
  {
    name: 'a schema with no tables',
    pg: 'CREATE VIEW v AS SELECT 1 AS one;',
    outcome: { error: /: no tables to import in schema "h\d+"$/u },
  },
  {
    name: 'a partitioned table with a composite key',
    pg: `CREATE TABLE m (id integer, at date NOT NULL, v text, PRIMARY KEY (id, at)) PARTITION BY RANGE (at);
      CREATE TABLE m_2020 PARTITION OF m FOR VALUES FROM ('2020-01-01') TO ('2021-01-01');
      INSERT INTO m VALUES (1, '2020-05-05', 'a');`,
    outcome: { findings: ['left-out m_2020', 'entity-table m'] },
  },
  {
    name: 'a partitioned table without a key, the only table',
    pg: `CREATE TABLE m (id integer, v text) PARTITION BY LIST (v);
      CREATE TABLE m_a PARTITION OF m FOR VALUES IN ('a'); CREATE TABLE m_rest PARTITION OF m DEFAULT;`,
    outcome: { error: /: no table could be read as an entity: m \(no primary key\)$/u },
  },
  {
    name: 'INHERITS two levels deep and from two parents',
    pg: `CREATE TABLE animal (id integer PRIMARY KEY, name text); CREATE TABLE dog (bark text) INHERITS (animal);
      CREATE TABLE puppy (age integer) INHERITS (dog);
      CREATE TABLE tagged (tag text); CREATE TABLE cat (claws integer) INHERITS (animal, tagged);`,
    outcome: { findings: ['inherits dog', 'inherits cat', 'left-out puppy', 'left-out tagged'] },
  },
  {
    name: 'arrays, a two-dimensional array, json and jsonb',
    pg: `CREATE TABLE t (id integer PRIMARY KEY, tags text[], grid integer[][], j json, jb jsonb, ja jsonb);
      INSERT INTO t VALUES (1, '{a}', '{{1,2},{3,4}}', '{"a": 1}', '[1, "x"]', '["a", "b"]');`,
    outcome: { findings: ['array-column t.tags', 'left-out t.j', 'left-out t.jb', 'json-array t.ja'] },
  },
  {
    name: 'enum types (one with no labels), an array of an enum, domains',
    pg: `CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy'); CREATE TYPE nothing AS ENUM ();
      CREATE DOMAIN posint AS integer CHECK (VALUE > 0); CREATE DOMAIN email AS text;
      CREATE TABLE t (id integer PRIMARY KEY, m mood, e nothing, n posint, mail email, ms mood[]);`,
    outcome: {
      findings: ['enum-type t.m', 'left-out t.e', 'array-column t.ms'],
      check: (d) =>
        expect(d.entities[0]?.attributes.find((a) => a.name === 'ms')?.type).toEqual({
          kind: 'enum',
          values: ['sad', 'ok', 'happy'],
        }),
    },
  },
  {
    name: 'CHECK constraints calling functions',
    pg: `CREATE FUNCTION short(t text) RETURNS boolean LANGUAGE sql IMMUTABLE AS 'SELECT length(t) < 10';
      CREATE TABLE t (id integer PRIMARY KEY, v text CHECK (short(v)), w text CHECK (lower(w) IN ('a', 'b')),
        k text CHECK (k IN ('x', 'y') OR k IS NULL));`,
    outcome: { findings: ['left-out short', 'check-in t.k'] },
  },
  {
    name: 'a view, a materialized view, a sequence, an identity key and a generated column',
    pg: `CREATE TABLE t (id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY, v text, g integer GENERATED ALWAYS AS (length(v)) STORED);
      CREATE VIEW tv AS SELECT * FROM t; CREATE MATERIALIZED VIEW tm AS SELECT * FROM t; CREATE SEQUENCE s;`,
    outcome: { findings: ['left-out tv', 'left-out tm', 'left-out s', 'left-out t_id_seq', 'left-out t.g'] },
  },
  {
    name: 'types no question asks about',
    pg: `CREATE TYPE pair AS (a integer, b integer);
      CREATE TABLE t (id integer PRIMARY KEY, p pair, r int4range, g point, ts tsvector, by bytea, ip inet, mo money, x xml);`,
    outcome: { findings: ['left-out t.p', 'left-out t.r', 'left-out t.g', 'left-out t.by', 'left-out t.x'] },
  },
  {
    name: 'composite foreign keys onto a composite key',
    pg: `CREATE TABLE sec (course text, term integer, room text, PRIMARY KEY (course, term));
      CREATE TABLE enr (id integer PRIMARY KEY, course text, term integer, grade text, FOREIGN KEY (course, term) REFERENCES sec);
      CREATE TABLE attend (course text, term integer, who text, PRIMARY KEY (course, term, who), FOREIGN KEY (course, term) REFERENCES sec);`,
    outcome: { findings: ['foreign-key enr.course,term', 'owner-keyed-child attend'] },
  },
  {
    name: 'a foreign key onto a unique column that is not the key',
    pg: `CREATE TABLE country (id integer PRIMARY KEY, code text UNIQUE NOT NULL);
      CREATE TABLE city (id integer PRIMARY KEY, country_code text REFERENCES country (code));`,
    outcome: { findings: ['foreign-key city.country_code'] },
  },
  {
    name: 'a cycle of three foreign keys added after the tables, and a self-reference',
    pg: `CREATE TABLE a (id integer PRIMARY KEY, b_id integer); CREATE TABLE b (id integer PRIMARY KEY, c_id integer);
      CREATE TABLE c (id integer PRIMARY KEY, a_id integer REFERENCES a, parent_id integer REFERENCES c);
      ALTER TABLE a ADD FOREIGN KEY (b_id) REFERENCES b; ALTER TABLE b ADD FOREIGN KEY (c_id) REFERENCES c;`,
    outcome: { findings: ['foreign-key-cycle a, b, c', 'self-reference c.parent_id'] },
  },
  {
    name: 'the same foreign key declared twice',
    pg: `CREATE TABLE p (id integer PRIMARY KEY);
      CREATE TABLE a (id integer PRIMARY KEY, p_id integer REFERENCES p, CONSTRAINT again FOREIGN KEY (p_id) REFERENCES p);`,
    outcome: { findings: ['foreign-key a.p_id', 'left-out a.p_id'] },
  },
  {
    name: 'one column referencing two tables',
    pg: `CREATE TABLE p (id integer PRIMARY KEY); CREATE TABLE q (id integer PRIMARY KEY);
      CREATE TABLE a (id integer PRIMARY KEY, x_id integer REFERENCES p REFERENCES q);`,
    outcome: {
      findings: ['foreign-key a.x_id', 'left-out a.x_id'],
      check: (d) => expect(d.relationships).toHaveLength(1),
    },
  },
  {
    name: 'a foreign key into another schema, onto a table named like one of this schema',
    pg: `CREATE SCHEMA IF NOT EXISTS elsewhere; CREATE TABLE elsewhere.b (code text PRIMARY KEY);
      CREATE TABLE b (id integer PRIMARY KEY);
      CREATE TABLE a (id integer PRIMARY KEY, b_code text REFERENCES elsewhere.b (code), b_id integer REFERENCES b);`,
    outcome: {
      findings: ['foreign-key a.b_id', 'left-out a.b_code'],
      check: (d) => expect(d.relationships.map((r) => `${r.from}>${r.to}`)).toEqual(['A>B']),
    },
  },
  {
    name: 'a table of 500 columns',
    pg: `CREATE TABLE w (id integer PRIMARY KEY, ${wide(499, 'integer')}); INSERT INTO w (id) VALUES (1);`,
    outcome: { findings: ['left-out w.c200', 'left-out w.c498'] },
  },
  {
    name: 'row-level security forced on, an unlogged table, unique indexes on expressions and part of the rows',
    pg: `CREATE TABLE t (id integer PRIMARY KEY, e text); ALTER TABLE t ENABLE ROW LEVEL SECURITY; ALTER TABLE t FORCE ROW LEVEL SECURITY;
      CREATE UNIQUE INDEX ON t (lower(e)); CREATE UNIQUE INDEX ON t (e) WHERE e IS NOT NULL;
      CREATE UNLOGGED TABLE u (id integer PRIMARY KEY, t_id integer REFERENCES t);`,
    outcome: { findings: ['entity-table t', 'foreign-key u.t_id'] },
  },
];

/** Asserts the outcome of one read and its draft. */
async function expectOutcome(run: () => Promise<SourceRead>, outcome: Outcome): Promise<void> {
  let result: { read: SourceRead; draft: Draft } | { error: unknown };
  try {
    const read = await run();
    result = { read, draft: draftModel(read) };
  } catch (error) {
    result = { error };
  }
  if ('error' in outcome) {
    const error = 'error' in result ? result.error : undefined;
    expect(error).toBeInstanceOf(EquisqlError);
    const message = (error as Error).message;
    expect(message).not.toContain('\n');
    expect(message).toMatch(outcome.error);
    return;
  }
  if ('error' in result) throw result.error;
  const { read, draft } = result;
  // The draft as a user gets it: written as JSON and read back through the model validator.
  const back = parseDomainJson(domainToJson(draft.domain), 'the draft');
  expect(back.name).toBe(draft.domain.name);
  const lines = draft.findings.map((f) => `${f.rule} ${f.subject}`);
  for (const f of outcome.findings) expect(lines).toContain(f);
  expect(importReport(draft, read.catalog, 'read-only')).toContain('## Left out');
  outcome.check?.(draft.domain);
}

/** A file's sha256, or a mark for a directory. */
const digest = (file: string): string =>
  statSync(file).isDirectory() ? '(a directory)' : createHash('sha256').update(readFileSync(file)).digest('hex');

/** The files of a row (the database, its journal and WAL), each with its digest. */
const filesOf = (file: string): string =>
  ['', '-journal', '-wal'].map((s) => `${s} ${existsSync(file + s) ? digest(file + s) : 'absent'}`).join('\n');

function sqliteFileOf(row: SqliteRow, i: number): string {
  const file = join(dir, typeof row.sqlite === 'object' && row.sqlite.length === 0 ? 'zero.sqlite' : `s${i}.sqlite`);
  if (typeof row.sqlite === 'string') {
    const db = new Sqlite(file);
    db.exec(row.sqlite);
    db.close();
  } else if (Buffer.isBuffer(row.sqlite)) writeFileSync(file, row.sqlite);
  else row.sqlite(file);
  return file;
}

describe('hostile SQLite files', () => {
  it.each(SQLITE_ROWS.map((row, i) => [row.name, row, i] as const))('%s', async (_name, row, i) => {
    const file = sqliteFileOf(row, i);
    const before = filesOf(file);
    await expectOutcome(() => readSource(file), row.outcome);
    expect(filesOf(file)).toBe(before);
  });
});

describe('hostile PostgreSQL schemas (PGlite)', () => {
  let db: Database;
  beforeAll(async () => {
    db = await openPglite();
  }, 60_000);
  afterAll(async () => {
    await db?.close();
  });

  /** Every object, column, constraint and type outside the system schemas, and every table's rows. */
  async function snapshot(): Promise<string> {
    const [catalog] = await db.query(`SELECT md5(string_agg(x, E'\\n' ORDER BY x)) AS m FROM (
        SELECT format('%s.%s %s', n.nspname, c.relname, c.relkind) AS x FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
        UNION ALL SELECT format('%s.%s %s %s %s', a.attrelid::regclass, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull, a.attnum)
          FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast') AND a.attnum > 0
        UNION ALL SELECT format('%s %s %s', conrelid::regclass, conname, pg_get_constraintdef(oid)) FROM pg_constraint
         WHERE connamespace NOT IN ('pg_catalog'::regnamespace, 'information_schema'::regnamespace)
        UNION ALL SELECT format('%s.%s', typnamespace::regnamespace, typname) FROM pg_type
         WHERE typnamespace NOT IN ('pg_catalog'::regnamespace, 'information_schema'::regnamespace, 'pg_toast'::regnamespace)
        UNION ALL SELECT format('%s.%s', pronamespace::regnamespace, proname) FROM pg_proc
         WHERE pronamespace NOT IN ('pg_catalog'::regnamespace, 'information_schema'::regnamespace)) s`);
    const tables = await db.query(`SELECT format('%I.%I', n.nspname, c.relname) AS t FROM pg_class c
      JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('r', 'p', 'm')
       AND n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast') ORDER BY 1`);
    const rows: string[] = [];
    for (const { t } of tables) {
      const [r] = await db.query(
        `SELECT md5(coalesce(string_agg(x::text, ',' ORDER BY x::text), '')) AS m FROM ${t} x`,
      );
      rows.push(`${t} ${r?.['m']}`);
    }
    return `${catalog?.['m']}\n${rows.join('\n')}`;
  }

  it.each(PG_ROWS.map((row, i) => [row.name, row, i] as const))('%s', async (_name, row, i) => {
    const schema = `h${i}`;
    await db.exec(`CREATE SCHEMA ${schema}; SET search_path = ${schema}; ${row.pg}; RESET search_path;`);
    const before = await snapshot();
    await expectOutcome(() => readDatabaseSource(db, { schema }), row.outcome);
    expect(await snapshot()).toBe(before);
  });

  it('names a schema that does not exist', async () => {
    await expectOutcome(() => readDatabaseSource(db, { schema: 'nowhere' }), { error: /no schema "nowhere"/u });
  });
});

describe('hostile sources through the command', () => {
  /** `equisql import SOURCE --out …` refused: status 2, one line on stderr naming the source, nothing written. */
  async function expectRefused(source: string, line: RegExp): Promise<void> {
    const out = join(dir, `cli-${createHash('md5').update(source).digest('hex')}`, 'model.er.json');
    const { status, stdout, stderr } = await runMain(['import', source, '--out', out]);
    expect(status).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.endsWith('\n') && stderr.split('\n').length === 2).toBe(true);
    expect(stderr).toMatch(line);
    expect(existsSync(out)).toBe(false);
    expect(existsSync(out.replace(/\.er\.json$/u, '.import.md'))).toBe(false);
  }

  it('refuses a file that is not SQLite, a cut file, a directory and a zero-byte file, changing none', async () => {
    const cases: [string, Buffer | ((file: string) => void), RegExp][] = [
      [
        'text.sqlite',
        Buffer.from('not a database\n'.repeat(50)),
        /^equisql import: .*text\.sqlite: cannot read as a SQLite database: file is not a database\n$/u,
      ],
      [
        'cut.sqlite',
        SAMPLE.subarray(0, 5000),
        /^equisql import: .*cut\.sqlite: cannot read as a SQLite database: database disk image is malformed\n$/u,
      ],
      [
        'folder.sqlite',
        (f) => mkdirSync(f),
        /^equisql import: .*folder\.sqlite: cannot read as a SQLite database: disk I\/O error\n$/u,
      ],
      ['empty.sqlite', Buffer.alloc(0), /^equisql import: .*empty\.sqlite: no tables to import\n$/u],
    ];
    for (const [name, make, line] of cases) {
      const file = join(dir, `cli-${name}`);
      if (Buffer.isBuffer(make)) writeFileSync(file, make);
      else make(file);
      const before = filesOf(file);
      await expectRefused(file, line);
      expect(filesOf(file)).toBe(before);
    }
  });

  it('refuses a URL where nothing listens, and one that is not a URL, without printing the password', async () => {
    await expectRefused(
      'postgres://nobody:secret@127.0.0.1:1/none',
      /^equisql import: cannot connect to postgres:\/\/nobody:\*\*\*@127\.0\.0\.1:1\/none: connect ECONNREFUSED/u,
    );
    await expectRefused(
      'postgresql://host:notaport/db',
      /^equisql import: cannot connect to postgresql:\/\/host:notaport\/db: Invalid URL\n$/u,
    );
  });

  it('drafts a file with a doubled foreign key, reporting the second', async () => {
    const file = join(dir, 'cli-doubled.sqlite');
    const db = new Sqlite(file);
    db.exec(
      'CREATE TABLE p (id INTEGER PRIMARY KEY); CREATE TABLE a (id INTEGER PRIMARY KEY, p_id INTEGER REFERENCES p, FOREIGN KEY (p_id) REFERENCES p (id));',
    );
    db.close();
    const before = filesOf(file);
    const out = join(dir, 'cli-doubled.er.json');
    const done = await runMain(['import', file, '--out', out]);
    expect(done.stderr).toBe('');
    expect(done.status).toBe(0);
    expect(done.stdout).toMatch(/^- left-out a\.p_id: a second foreign key on these columns/mu);
    expect(parseDomainJson(readFileSync(out, 'utf8'), out).relationships).toHaveLength(1);
    expect(filesOf(file)).toBe(before);
  });
});
