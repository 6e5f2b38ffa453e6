/**
 * The guarded executor sends a query's transaction start, the query and its end as one
 * message (one round trip), and on a server several queries as one message. These tests hold it to what the separate round trips gave: text
 * that would reach past the query is refused before anything is sent, an error or a timeout
 * inside the batch leaves no transaction open, and the query runs as the reader role.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchText, openDatabase, type Database, type TextBatch } from '../../generator/database/database.ts';
import { explainCost, runReadOnly, runReadOnlyMany } from '../../generator/execute/run-query.ts';
import { READER_ROLE } from '../../generator/database/reader-role.ts';
import { mintCompiledSql } from '../../generator/compile/compiled-sql.ts';

/** Hand-written SQL standing for the compiler's: these tests are about the batched path it takes. */
const c = mintCompiledSql;
import { createDatabase, describeServer } from '../helpers/postgres.ts';

const SETUP = `
  CREATE SCHEMA v1;
  CREATE TABLE v1.t (id integer PRIMARY KEY, name text);
  INSERT INTO v1.t VALUES (1, 'one'), (2, 'two'), (3, 'three');
`;

/** The real database, with every batch it is sent written down. */
function recording(db: Database): { db: Database; batches: TextBatch[] } {
  const batches: TextBatch[] = [];
  return {
    batches,
    db: {
      ...db,
      queryTextBatch: (batch, options) => {
        batches.push(batch);
        return db.queryTextBatch(batch, options);
      },
      // An untrusted read is written down as the statements it sends.
      readPaged: (read) => {
        batches.push({ statements: [...read.setup, read.query], results: [read.setup.length] });
        return db.readPaged(read);
      },
    },
  };
}

/** No transaction is open: a write outside the executor succeeds, as the session user. */
async function expectNoOpenTransaction(db: Database): Promise<void> {
  await db.exec('CREATE TABLE v1.probe (x integer); DROP TABLE v1.probe');
  const rows = await db.query("SELECT current_user AS who, current_setting('transaction_read_only') AS ro");
  expect(rows[0]?.['who']).not.toBe(READER_ROLE);
  expect(rows[0]?.['ro']).toBe('off');
}

function contract(open: () => Promise<Database>) {
  let real: Database;
  beforeAll(async () => {
    real = await open();
    await real.exec(SETUP);
  });
  afterAll(async () => {
    await real?.close();
  });

  it('sends a query as one batch that opens a read-only transaction and runs the query as the reader role', async () => {
    const { db, batches } = recording(real);
    const r = await runReadOnly(db, 'v1', c('SELECT count(*) AS n FROM t'));
    expect(r.rows).toEqual([['3']]);
    expect(batches).toHaveLength(1);
    const batch = batches[0] as TextBatch;
    expect(batch.statements[0]).toBe('BEGIN READ ONLY');
    expect(batch.statements).toContain(`SET LOCAL ROLE ${READER_ROLE}`);
    expect(batch.statements.at(-1)).toBe('COMMIT');
    expect(batch.results).toEqual([batch.statements.indexOf('SELECT count(*) AS n FROM t')]);
    // What the batch's statements do is the database's to say: the role and the read-only
    // transaction hold while the query runs.
    const statements = batch.statements.map((s, i) =>
      i === batch.results[0] ? "SELECT current_user, current_setting('transaction_read_only')" : s,
    );
    const [seen] = await real.queryTextBatch({ statements, results: batch.results });
    expect(seen?.rows).toEqual([[READER_ROLE, 'on']]);
    await expectNoOpenTransaction(real);
  });

  it('refuses text smuggling a second statement before anything reaches the database', async () => {
    const { db, batches } = recording(real);
    const smuggled = [
      'SELECT 1; COMMIT; DELETE FROM t',
      'SELECT 1 --\n; COMMIT; DELETE FROM t',
      'SELECT 1 /* ; */ ; COMMIT; DELETE FROM t',
      // With standard strings the lexer ends the string at the second quote, as PostgreSQL does.
      "SELECT 'a\\'; COMMIT; DELETE FROM t; --'",
      'SELECT "x;"; COMMIT; DELETE FROM t',
      'SELECT $q$; COMMIT; DELETE FROM t; $q$',
      "SELECT E'\\''; COMMIT; DELETE FROM t; --'",
      'SELECT 1 /* unterminated ; COMMIT; DELETE FROM t',
    ];
    for (const sql of smuggled) {
      // As untrusted text (the full guard) and as if the compiler had printed it (the lexer).
      await expect(runReadOnly(db, 'v1', sql), sql).rejects.toThrow(/^schema v1: refused: /);
      await expect(runReadOnly(db, 'v1', c(sql)), sql).rejects.toThrow(/^schema v1: refused: /);
    }
    await expect(explainCost(db, 'v1', c('SELECT 1; COMMIT; DELETE FROM t'))).rejects.toThrow(
      /^schema v1: refused: several statements/,
    );
    expect(batches).toEqual([]);
    expect((await runReadOnly(real, 'v1', 'SELECT count(*) FROM t')).rows).toEqual([['3']]);
  });

  it('keeps a passed text to its schema when it names one, however often it ran before', async () => {
    await real.exec('CREATE SCHEMA IF NOT EXISTS v3; CREATE TABLE IF NOT EXISTS v3.t (id integer)');
    for (let i = 0; i < 2; i++)
      expect((await runReadOnly(real, 'v1', 'SELECT count(*) FROM v1.t')).rows).toEqual([['3']]);
    await expect(runReadOnly(real, 'v3', 'SELECT count(*) FROM v1.t')).rejects.toThrow(
      /^schema v3: refused: table v1\.t: a query reads only its variant's tables$/,
    );
    await expect(runReadOnly(real, 'v3', 'SELECT count(*) FROM "V1".t')).rejects.toThrow(/^schema v3: refused: /);
    // A text that names no schema passes for any, once parsed.
    expect((await runReadOnly(real, 'v1', 'SELECT count(*) AS n FROM t')).rows).toEqual([['3']]);
    expect((await runReadOnly(real, 'v3', 'SELECT count(*) AS n FROM t')).rows).toEqual([['0']]);
  });

  it('ends a query that closes on a line comment or semicolons on its own line, so the COMMIT still runs', async () => {
    expect(
      (await runReadOnly(real, 'v1', c('SELECT count(*) FROM t -- the rest of this line is a comment'))).rows,
    ).toEqual([['3']]);
    await expectNoOpenTransaction(real);
    expect((await runReadOnly(real, 'v1', c('SELECT count(*) FROM t ;; '))).rows).toEqual([['3']]);
    await expectNoOpenTransaction(real);
    expect(batchText({ statements: ['BEGIN', 'SELECT 1 -- c;', 'COMMIT'], results: [1] })).toBe(
      'BEGIN\n;\nSELECT 1 -- c\n;\nCOMMIT\n;\n',
    );
  });

  it('rolls back after an error inside the batch: no transaction stays open and the next query works', async () => {
    // Fails while running (division by zero on the row with id 1), after BEGIN and the settings.
    await expect(runReadOnly(real, 'v1', c('SELECT 10 / (id - 1) FROM t'))).rejects.toThrow(
      /^schema v1: division by zero$/,
    );
    await expectNoOpenTransaction(real);
    expect((await runReadOnly(real, 'v1', c('SELECT name FROM t ORDER BY id'))).rows).toEqual([
      ['one'],
      ['two'],
      ['three'],
    ]);
    // A table the query cannot see fails at planning, still inside the batch.
    await expect(runReadOnly(real, 'v1', c('SELECT * FROM missing'))).rejects.toThrow(
      /^schema v1: relation "missing" does not exist$/,
    );
    await expectNoOpenTransaction(real);
    await expect(explainCost(real, 'v1', c('SELECT * FROM missing'))).rejects.toThrow(
      /^schema v1: relation "missing" does not exist$/,
    );
    await expectNoOpenTransaction(real);
    expect((await runReadOnly(real, 'v1', c('SELECT count(*) FROM t'))).rows).toEqual([['3']]);
  });

  it('stops a batch at the statement timeout and leaves the connection clean', async () => {
    await expect(
      runReadOnly(real, 'v1', c('SELECT count(*) FROM generate_series(1, 300000000)'), { timeoutMs: 200 }),
    ).rejects.toThrow(/^schema v1: timed out after 200 ms$/);
    await expectNoOpenTransaction(real);
    expect((await runReadOnly(real, 'v1', c('SELECT max(id) FROM t'))).rows).toEqual([['3']]);
  }, 120_000);

  it('runs nothing of the batch when the session reads strings otherwise than the guard', async () => {
    // With standard_conforming_strings off, PostgreSQL reads 'a\', ' as one string and the
    // rest as statements; the guard (standard strings) sees two strings and no semicolon.
    const tricky = "SELECT 'a\\', ' ; SELECT 1 ; --' AS x FROM t";
    expect((await runReadOnly(real, 'v1', c(tricky))).rows).toHaveLength(3);
    await real.exec('SET standard_conforming_strings = off');
    try {
      await expect(runReadOnly(real, 'v1', c(tricky))).rejects.toThrow(
        /standard_conforming_strings is off, so the query is not run/,
      );
      await expectNoOpenTransaction(real);
      // Untrusted text sets the reading itself before its text is parsed, and is parsed alone.
      expect((await runReadOnly(real, 'v1', tricky)).rows).toHaveLength(3);
      await expectNoOpenTransaction(real);
    } finally {
      await real.exec('SET standard_conforming_strings = on');
    }
    expect((await runReadOnly(real, 'v1', c('SELECT count(*) FROM t'))).rows).toEqual([['3']]);
  });

  it('runs several queries as one each would, stopping at the first refused or failing one', async () => {
    await real.exec(
      "CREATE SCHEMA v2; CREATE TABLE v2.t (id integer PRIMARY KEY, name text); INSERT INTO v2.t VALUES (7, 'seven')",
    );
    const { db, batches } = recording(real);
    const queries = [
      { pgSchema: 'v1', sql: c('SELECT name FROM t ORDER BY id') },
      { pgSchema: 'v2', sql: c('SELECT name FROM t ORDER BY id -- v2 has its own t') },
      { pgSchema: 'v1', sql: c('SELECT count(*) FROM t') },
    ];
    const all = await runReadOnlyMany(db, queries);
    expect(all.failure).toBeUndefined();
    expect(all.results.map((r) => r.rows)).toEqual([[['one'], ['two'], ['three']], [['seven']], [['3']]]);
    // One round trip on a server, one per query on PGlite (whose timeout is a message's).
    expect(batches).toHaveLength(real.kind === 'postgres' ? 1 : 3);
    await expectNoOpenTransaction(real);

    // A query that fails while running: the ones before it answer, the error is its own.
    const failing = await runReadOnlyMany(real, [
      queries[0]!,
      { pgSchema: 'v2', sql: c('SELECT 10 / (id - 7) FROM t') },
      queries[2]!,
    ]);
    expect(failing.results.map((r) => r.rows)).toEqual([[['one'], ['two'], ['three']]]);
    expect(failing.failure?.index).toBe(1);
    expect(failing.failure?.error.message).toBe('schema v2: division by zero');
    await expectNoOpenTransaction(real);

    // A refused query: nothing from it on reaches the database.
    batches.length = 0;
    const refused = await runReadOnlyMany(db, [
      queries[0]!,
      queries[1]!,
      { pgSchema: 'v1', sql: c('SELECT 1; DELETE FROM t') },
      queries[2]!,
    ]);
    expect(refused.results).toHaveLength(2);
    expect(refused.failure?.index).toBe(2);
    expect(refused.failure?.error.message).toMatch(/^schema v1: refused: several statements/);
    expect(batches.flatMap((b) => b.statements).filter((s) => /DELETE/u.test(s))).toEqual([]);

    // A timeout: each query of a server's batch keeps its own statement timeout (PGlite runs
    // them one at a time, as runReadOnly, whose timeout is tested above).
    if (real.kind === 'pglite') return;
    const slow = await runReadOnlyMany(
      real,
      [queries[2]!, { pgSchema: 'v1', sql: c('SELECT count(*) FROM generate_series(1, 300000000)') }],
      { timeoutMs: 200 },
    );
    expect(slow.results.map((r) => r.rows)).toEqual([[['3']]]);
    expect(slow.failure?.error.message).toBe('schema v1: timed out after 200 ms');
    await expectNoOpenTransaction(real);
    expect((await runReadOnly(real, 'v2', c('SELECT count(*) FROM t'))).rows).toEqual([['1']]);
  }, 120_000);

  it('estimates cost under the guard, as the reader role, and rolls back', async () => {
    const one = await explainCost(real, 'v1', c('SELECT id FROM t'));
    const cross = await explainCost(real, 'v1', c('SELECT a.id FROM t AS a, t AS b, t AS c'));
    expect(one).toBeGreaterThan(0);
    expect(cross).toBeGreaterThan(100 * one);
    await expect(explainCost(real, 'v1', c('DELETE FROM t'))).rejects.toThrow(
      /^schema v1: refused: only one SELECT is run, not DELETE$/,
    );
    await expectNoOpenTransaction(real);
  });
}

describe('batched guarded queries on PGlite', () => contract(() => openDatabase({ kind: 'pglite' })));

describeServer('batched guarded queries on the server', (serverUrl) => {
  let drop: (() => Promise<void>) | undefined;
  afterAll(async () => drop?.());
  contract(async () => {
    const fresh = await createDatabase(serverUrl, 'batch');
    drop = fresh.drop;
    return openDatabase({ kind: 'postgres', url: fresh.url });
  });
});
