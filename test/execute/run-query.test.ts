import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../generator/database/database.ts';
import {
  compareResults,
  normalizeResult,
  runReadOnly,
  type NormalizedResult,
} from '../../generator/execute/run-query.ts';
import { createDatabase, describeServer } from '../helpers/postgres.ts';

const SETUP = `
  CREATE SCHEMA v1; CREATE SCHEMA v2;
  CREATE TABLE v1.t (id integer PRIMARY KEY, name text, at timestamptz, price numeric(10,2), tags text[], ok boolean);
  CREATE TABLE v2.t (id integer PRIMARY KEY, name text, at timestamptz, price numeric(10,2), tags text[], ok boolean);
  INSERT INTO v1.t VALUES (1, 'O''Brien', '2024-01-02 03:04:05+00', 1.5, '{a,"b c"}', true), (2, NULL, NULL, 2, '{}', false);
  INSERT INTO v2.t VALUES (2, NULL, NULL, 2, '{}', false), (1, 'O''Brien', '2024-01-02 03:04:05+00', 1.5, '{a,"b c"}', true);
`;

function contract(open: () => Promise<Database>) {
  let db: Database;
  beforeAll(async () => {
    db = await open();
    await db.exec(SETUP);
  });
  afterAll(async () => {
    await db?.close();
  });

  it('returns values as PostgreSQL prints them, in the variant named by the search_path', async () => {
    // "at" quoted: node-sql-parser takes a bare AT for AT TIME ZONE.
    const r = await runReadOnly(db, 'v1', 'SELECT id, name, "at", price, tags, ok FROM t ORDER BY id');
    expect(r.columns).toEqual(['id', 'name', 'at', 'price', 'tags', 'ok']);
    expect(r.rows).toEqual([
      ['1', "O'Brien", '2024-01-02 03:04:05+00', '1.50', '{a,"b c"}', 't'],
      ['2', null, null, '2.00', '{}', 'f'],
    ]);
  });

  it('refuses to write', async () => {
    await expect(runReadOnly(db, 'v1', 'DELETE FROM t')).rejects.toThrow(
      /^schema v1: refused: only one SELECT is run, not DELETE$/,
    );
    expect((await runReadOnly(db, 'v1', 'SELECT count(*) FROM t')).rows).toEqual([['2']]);
  });

  it('refuses several statements, so none can end the read-only transaction and write', async () => {
    await expect(runReadOnly(db, 'v1', 'SELECT 1; COMMIT; DELETE FROM t; SELECT 2')).rejects.toThrow(
      /^schema v1: refused: several statements \(a ";" at character 9\); only one SELECT is run$/,
    );
    expect((await runReadOnly(db, 'v1', 'SELECT count(*) FROM t')).rows).toEqual([['2']]);
  });

  it('stops a query at the statement timeout', async () => {
    await expect(
      runReadOnly(db, 'v1', 'SELECT count(*) FROM generate_series(1, 300000000)', { timeoutMs: 100 }),
    ).rejects.toThrow(/^schema v1: timed out after 100 ms$/);
    // The connection is usable afterwards.
    expect((await runReadOnly(db, 'v2', 'SELECT 1')).rows).toEqual([['1']]);
  });

  it('sorts rows unless their order is the answer, and compares variants by hash', async () => {
    const a = normalizeResult(await runReadOnly(db, 'v1', 'SELECT id, name FROM t'), false);
    const b = normalizeResult(await runReadOnly(db, 'v2', 'SELECT id, name FROM t'), false);
    expect(a.hash).toBe(b.hash);
    const ordered = normalizeResult(await runReadOnly(db, 'v1', 'SELECT id, name FROM t ORDER BY id DESC'), true);
    expect(ordered.rows.map((r) => r[0])).toEqual(['2', '1']);
    expect(ordered.hash).not.toBe(a.hash);
  });
}

describe('runReadOnly on PGlite', () => contract(() => openDatabase({ kind: 'pglite' })));

describeServer('runReadOnly on the server', (serverUrl) => {
  let drop: (() => Promise<void>) | undefined;
  afterAll(async () => drop?.());
  contract(async () => {
    const fresh = await createDatabase(serverUrl, 'exec');
    drop = fresh.drop;
    return openDatabase({ kind: 'postgres', url: fresh.url });
  });
});

describe('compareResults', () => {
  const result = (rows: string[][]): NormalizedResult => normalizeResult({ columns: ['x'], rows }, false);
  it('names the variants that differ from the majority and shows rows only they have or lack', () => {
    const c = compareResults(
      new Map([
        ['a', result([['1'], ['2']])],
        ['b', result([['2'], ['1']])],
        ['c', result([['1'], ['3']])],
      ]),
    );
    expect(c.agree).toBe(false);
    expect(c.rowCount).toBe(2);
    expect(c.differing).toEqual([
      { variant: 'c', hash: expect.any(String), rowCount: 2, sample: ['+ ["3"]', '- ["2"]'] },
    ]);
  });
  it('agrees when all hashes match', () => {
    expect(
      compareResults(
        new Map([
          ['a', result([['1']])],
          ['b', result([['1']])],
        ]),
      ).agree,
    ).toBe(true);
  });
});
