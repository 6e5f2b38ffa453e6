import { fork, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/build-fixtures.ts';
import { REPO_ROOT } from '../helpers/run-cli.ts';
import { guardSqlite } from '../../generator/execute/sqlite-guard.ts';
import { createSqliteExecutor, type SqliteExecutor } from '../../generator/execute/untrusted-sqlite.ts';

// The SQLite executor for untrusted SQL, each layer on its own: our lexer, SQLite's own
// reading in the child process (sent texts our lexer would refuse, to show it refuses them
// too), and the executor's caps, time bound and check of the file.
const tmp = tempDir('untrusted-sqlite');
afterAll(() => tmp.remove());
const file = join(tmp.dir, 'v.sqlite');
const digest = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');
let before: string;

beforeAll(() => {
  const db = new Database(file);
  db.exec(
    "CREATE TABLE streamer (id INTEGER PRIMARY KEY, name TEXT, avg REAL, tags TEXT); INSERT INTO streamer VALUES (1, 'ann', 12.5, '[\"a\",\"b\"]'), (2, 'bob', 3.0, NULL), (3, 'cy', NULL, '[]')",
  );
  db.close();
  before = digest(file);
});

describe('our lexer', () => {
  const where = 'v.sqlite';
  it.each([
    ['SELECT name FROM streamer'],
    ['select 1;'],
    ['SELECT 1 /* ; */ ; -- done'],
    ['SELECT \';\', "a;b", [c;d], `e;f` FROM streamer AS "a;b"'],
    ["SELECT replace(name, 'a', 'b') FROM streamer"],
    ["SELECT printf('%5.2f', avg) FROM streamer"],
    ['WITH t AS (SELECT id FROM streamer) SELECT count(*) FROM t'],
    ["SELECT value FROM streamer, json_each(streamer.tags) WHERE name = 'ann'"],
    ["SELECT CASE WHEN avg > 5 THEN 'hi' ELSE 'lo' END FROM streamer"],
    ['SELECT name FROM sqlite_master'],
    ["SELECT name FROM streamer WHERE name <> 'now' AND 'UTC' = upper(name)"],
  ])('passes %s', (sql) => {
    expect(() => guardSqlite(sql, where)).not.toThrow();
  });
  it.each([
    ['SELECT 1; SELECT 2', 'several statements (a ";" at character 9)'],
    ['SELECT 1;;', 'several statements'],
    ["SELECT 1 /* x */; ATTACH 'y' AS y", 'several statements'],
    ['SELECT 1 --\n; DETACH y', 'several statements'],
    ["ATTACH 'y' AS y", 'ATTACH at character 1'],
    ['PRAGMA query_only = 0', 'PRAGMA at character 1'],
    [
      "SELECT * FROM pragma_table_info('streamer') WHERE 0 UNION SELECT 1 FROM streamer; PRAGMA x",
      'several statements',
    ],
    ['REPLACE INTO streamer (id) VALUES (9)', 'REPLACE at character 1'],
    ['WITH t AS (SELECT 1) INSERT INTO streamer (id) SELECT 1 FROM t', 'INSERT at character 22'],
    ["SELECT load_extension('/tmp/x.so')", 'function load_extension'],
    ["SELECT LOAD_EXTENSION ('/tmp/x.so')", 'function load_extension'],
    ['SELECT zeroblob(1e9)', 'function zeroblob'],
    ['SELECT random()', 'function random'],
    ["SELECT printf('%*d', 1000000000, 1)", 'a printf width given as *'],
    ["SELECT format('%1000000000d', 1)", 'past 10000'],
    ['SELECT printf(name, 1) FROM streamer', 'takes its format as a string literal'],
    ['SELECT CURRENT_TIMESTAMP', 'reads the clock'],
    ["SELECT julianday('NOW ')", 'reads the clock'],
    ["SELECT date(0, 'localtime')", 'local time zone'],
    ["SELECT strftime('%Y', CASE WHEN 1 THEN 'now' END)", 'reads the clock'],
    ["SELECT 'open", 'is not closed'],
    ['SELECT "open', 'is not closed'],
    ['', 'no statement'],
    ['-- nothing', 'no statement'],
    ['VALUES (1)', 'only one SELECT'],
  ])('refuses %s', (sql, why) => {
    expect(() => guardSqlite(sql, where)).toThrow(`${where}: refused: `);
    expect(() => guardSqlite(sql, where)).toThrow(why);
  });
});

describe("SQLite's own reading, in the child process", () => {
  let child: ChildProcess;
  let next = 1;
  const ask = (sql: string): Promise<{ kind: string; message?: string; rows?: unknown[][] }> =>
    new Promise((done) => {
      const id = next++;
      const on = (m: { id: number; kind: string }): void => {
        if (m.id !== id) return;
        child.off('message', on);
        done(m);
      };
      child.on('message', on);
      child.send({ id, path: file, sql, maxRows: 1000, maxBytes: 1_000_000 });
    });
  beforeAll(async () => {
    child = fork(fileURLToPath(new URL('../../generator/execute/sqlite-child.js', import.meta.url)), [], {
      execArgv: [],
      serialization: 'advanced',
    });
    await new Promise<void>((ready) => child.once('message', () => ready()));
  });
  afterAll(() => void child.kill('SIGKILL'));

  it.each([
    ['SELECT 1; DELETE FROM streamer', 'refused', /more than one statement/u],
    ['DELETE FROM streamer', 'refused', /returns no rows/u],
    ['WITH t AS (SELECT 1) DELETE FROM streamer', 'refused', /returns no rows/u],
    ["ATTACH DATABASE '/tmp/equisql-untrusted-sqlite-attached.sqlite' AS x", 'refused', /returns no rows/u],
    ['PRAGMA writable_schema = 1', 'refused', /returns no rows/u],
    ["VACUUM INTO '/tmp/equisql-untrusted-sqlite-copy.sqlite'", 'refused', /returns no rows/u],
    ['CREATE TABLE t (x integer)', 'refused', /returns no rows/u],
    ['INSERT INTO streamer (id) VALUES (9) RETURNING id', 'refused', /writes|attempt to write a readonly database/u],
    ["SELECT load_extension('/tmp/equisql-none.so')", 'error', /not authorized/u],
    ['SELECT randomblob(1000000000)', 'error', /too big/u],
    ['SELECT zeroblob(1000000000)', 'error', /too big/u],
  ])('%s: %s', async (sql, kind, message) => {
    const reply = await ask(sql);
    expect(reply.kind).toBe(kind);
    expect(reply.message).toMatch(message);
    expect(digest(file)).toBe(before);
  });

  it('reads sqlite_master, and reads read-only PRAGMA functions', async () => {
    expect((await ask("SELECT name FROM sqlite_master WHERE type = 'table'")).rows).toEqual([['streamer']]);
    expect((await ask("SELECT count(*) FROM pragma_table_info('streamer')")).rows).toEqual([[4n]]);
  });
});

describe('the executor', () => {
  let executor: SqliteExecutor;
  beforeAll(() => {
    executor = createSqliteExecutor(tmp.dir, { timeoutMs: 2_000, maxRows: 100, maxBytes: 100_000 });
  });
  afterAll(async () => executor.close());

  it('gives rows as text, as the reward prints them', async () => {
    expect(await executor.run('v.sqlite', "SELECT id, name, avg, x'00ff' AS b FROM streamer ORDER BY id")).toEqual({
      kind: 'rows',
      columns: ['id', 'name', 'avg', 'b'],
      rows: [
        ['1', 'ann', '12.5', '\\x00ff'],
        ['2', 'bob', '3.0', '\\x00ff'],
        ['3', 'cy', null, '\\x00ff'],
      ],
      bytes: expect.any(Number),
    });
  });

  it('keeps the row and byte caps while reading', async () => {
    const rows = await executor.run(
      'v.sqlite',
      'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c',
    );
    expect(rows).toMatchObject({
      kind: 'over-cap',
      cap: 'rows',
      limit: 100,
      message: 'v.sqlite: refused: the result has more than 100 rows (the cap; raise it to read more)',
    });
    const bytes = await executor.run(
      'v.sqlite',
      "SELECT printf('%.10000c', 'x') FROM streamer, streamer AS s2, streamer AS s3",
    );
    expect(bytes).toMatchObject({ kind: 'over-cap', cap: 'bytes', limit: 100_000 });
  });

  it('ends a query at the time cap by killing its process, and the next query runs in a fresh one', async () => {
    const started = performance.now();
    const outcome = await executor.run(
      'v.sqlite',
      'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c',
      { timeoutMs: 500 },
    );
    expect(outcome).toEqual({ kind: 'timeout', message: 'v.sqlite: timed out after 500 ms', timeoutMs: 500 });
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(await executor.run('v.sqlite', 'SELECT count(*) FROM streamer')).toMatchObject({
      kind: 'rows',
      rows: [['3']],
    });
    expect(digest(file)).toBe(before);
  });

  it("gives an error verdict with SQLite's message, and the same bytes each time", async () => {
    const a = await executor.run('v.sqlite', 'SELECT nope FROM streamer');
    expect(a).toEqual({ kind: 'error', message: 'v.sqlite: no such column: nope' });
    const sql = 'SELECT name, avg * 2, json_array_length(tags) FROM streamer ORDER BY name';
    expect(JSON.stringify(await executor.run('v.sqlite', sql))).toBe(
      JSON.stringify(await executor.run('v.sqlite', sql)),
    );
  });

  it('stops the run when a file changes under it, and when a file is missing', async () => {
    const other = join(tmp.dir, 'other.sqlite');
    const db = new Database(other);
    db.exec('CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1)');
    db.close();
    expect(await executor.run('other.sqlite', 'SELECT x FROM t')).toMatchObject({ kind: 'rows' });
    appendFileSync(other, Buffer.alloc(4096));
    await expect(executor.run('other.sqlite', 'SELECT x FROM t')).rejects.toThrow(
      /other\.sqlite: the SQLite file changed while queries ran on it/u,
    );
    await expect(executor.run('gone.sqlite', 'SELECT 1')).rejects.toThrow(/gone\.sqlite: no such SQLite file/u);
  });
});

/** The state letter of a process (`Z` once it died and awaits its parent), undefined when it is gone. */
function processState(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8')
      .replace(/^.*\) /su, '')
      .slice(0, 1);
  } catch {
    return undefined;
  }
}

/** The SQLite child processes of `parent`. */
function sqliteChildrenOf(parent: number): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/u.test(d))
    .map(Number)
    .filter((pid) => {
      try {
        return (
          readFileSync(`/proc/${pid}/stat`, 'utf8')
            .replace(/^.*\) /su, '')
            .split(' ')[1] === String(parent) &&
          readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('sqlite-child.js')
        );
      } catch {
        return false;
      }
    });
}

describe.skipIf(!existsSync('/proc/self/stat'))('a child that dies', () => {
  it('under a query gives that query an error verdict, and the next query runs in a fresh one', async () => {
    const executor = createSqliteExecutor(tmp.dir, { timeoutMs: 20_000 });
    try {
      await executor.run('v.sqlite', 'SELECT 1');
      const running = executor.run(
        'v.sqlite',
        'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c',
      );
      await new Promise((r) => setTimeout(r, 300));
      const children = sqliteChildrenOf(process.pid).filter((pid) => processState(pid) !== 'Z');
      expect(children).toHaveLength(1);
      process.kill(children[0] as number, 'SIGKILL');
      expect(await running).toEqual({
        kind: 'error',
        message: 'v.sqlite: the engine stopped while running the query (SIGKILL)',
      });
      expect(await executor.run('v.sqlite', 'SELECT count(*) FROM streamer')).toMatchObject({
        kind: 'rows',
        rows: [['3']],
      });
    } finally {
      await executor.close();
    }
  }, 30_000);
});

describe.skipIf(!existsSync('/proc/self/stat'))('a parent killed outright', () => {
  it('takes its SQLite child with it, even in a query without end', async () => {
    const script = join(tmp.dir, 'endless.ts');
    writeFileSync(
      script,
      [
        `import { createSqliteExecutor } from ${JSON.stringify(join(REPO_ROOT, 'generator/execute/untrusted-sqlite.ts'))};`,
        `const executor = createSqliteExecutor(${JSON.stringify(tmp.dir)}, { timeoutMs: 600_000 });`,
        "await executor.run('v.sqlite', 'SELECT 1');",
        "process.stdout.write('ready\\n');",
        "await executor.run('v.sqlite', 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c');",
      ].join('\n'),
    );
    writeFileSync(join(tmp.dir, 'package.json'), '{"type":"module"}');
    const parent = spawn(process.execPath, [join(REPO_ROOT, 'bin/run-ts.js'), script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((ready) =>
      parent.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && ready()),
    );
    const children = sqliteChildrenOf(parent.pid as number);
    expect(children).toHaveLength(1);
    const child = children[0] as number;
    await new Promise((r) => setTimeout(r, 300));
    expect(processState(child)).toMatch(/[RSD]/u);
    parent.kill('SIGKILL');
    const deadline = Date.now() + 5_000;
    while (Date.now() < deadline && ![undefined, 'Z'].includes(processState(child)))
      await new Promise((r) => setTimeout(r, 100));
    expect([undefined, 'Z']).toContain(processState(child));
  }, 30_000);
});
