/**
 * PGlite's memory, bounded for untrusted SQL: PGlite lets PostgreSQL's WebAssembly memory
 * grow to 2 GB and never gives it back, so one prediction building a value of 600 MB left an
 * evaluation at over 2 GB for the rest of its run. With `maxMemoryMb`, such a query fails
 * with PostgreSQL's "out of memory" and the database answers the next one.
 */
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openPglite } from '../../generator/database/pglite-database.ts';
import { runUntrusted, UNTRUSTED_PGLITE_MEMORY_MB } from '../../generator/execute/untrusted-query.ts';
import { tempDir } from '../helpers/build-fixtures.ts';

const tmp = tempDir('pglite-memory');
afterAll(() => tmp.remove());

it('a PGlite opened with maxMemoryMb refuses a query past it with 53200, and answers the next query', async () => {
  const dir = join(tmp.dir, 'db');
  await (await openPglite(dir)).close();
  const db = await openPglite(dir, { maxMemoryMb: 256 });
  try {
    // A value of 600 MB: PGlite's own 2 GB bound lets it through.
    const big = db.queryText("SELECT length(repeat(repeat('x', 1000000), 600)) AS n");
    await expect(big).rejects.toMatchObject({ code: '53200' });
    await expect(big).rejects.toThrow(/out of memory/u);
    expect(await db.queryText('SELECT 1 AS one')).toEqual({ columns: ['one'], rows: [['1']] });
    // What fits under the bound still runs.
    expect(await db.queryText("SELECT length(repeat(repeat('x', 1000000), 10)) AS n")).toEqual({
      columns: ['n'],
      rows: [['10000000']],
    });
  } finally {
    await db.close();
  }
}, 120_000);

it('a paged read that runs PGlite out of memory ends its worker, so the memory it grew to is given back', async () => {
  const db = await openPglite(undefined, { maxMemoryMb: UNTRUSTED_PGLITE_MEMORY_MB });
  try {
    await db.exec('CREATE SCHEMA s; CREATE TABLE s.t (id integer)');
    // A session setting shows whether the next read meets the same PostgreSQL.
    await db.exec("SET application_name = 'before'");
    const big = await runUntrusted(db, 's', "SELECT repeat(repeat('x', 1000000), 600) AS v");
    expect(big).toMatchObject({ kind: 'error' });
    expect((big as { message: string }).message).toMatch(/out of memory/u);
    expect(await db.queryText('SHOW application_name')).toEqual({ columns: ['application_name'], rows: [['']] });
    expect(await runUntrusted(db, 's', 'SELECT 1 AS one')).toMatchObject({ kind: 'rows', rows: [['1']] });
  } finally {
    await db.close();
  }
}, 120_000);
