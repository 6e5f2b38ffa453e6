/**
 * Finding 3 of the third hostile run: the guard refused types by a pattern of names (`reg.*`,
 * `xml`), and missed their array types (`'{pg_authid}'::_regclass` enumerated the catalog),
 * aclitem (its input reads the role catalog), xml through `_xml`, and the clock through array
 * and range literals (`'{now}'::timestamptz[]`). It now decides by type: only the types of
 * answers (`ALLOWED_TYPES`, listed in docs/safe-queries.md) and the variant's own may be
 * named. Held here to every type of the test server's catalog, as a cast of a literal to it
 * and to its array type; the refusals that matter most are run on the server too.
 */
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { ExecutionError } from '../../generator/common/errors.ts';
import { openDatabase } from '../../generator/database/database.ts';
import { ALLOWED_TYPES } from '../../generator/execute/guard-tree.ts';
import { guardQuery } from '../../generator/execute/query-guard.ts';
import { runUntrusted } from '../../generator/execute/untrusted-query.ts';
import { loadPgParser } from '../../generator/sql/pg-parser.ts';
import { describeServer } from '../helpers/postgres.ts';

const scope = { pgSchema: 'v1', tables: new Set(['t']) };
const quoted = (name: string): string => `"${name.replace(/"/gu, '""')}"`;

function refusal(sql: string): string | undefined {
  try {
    guardQuery(sql, scope);
    return undefined;
  } catch (error) {
    if (error instanceof ExecutionError) return error.message;
    throw error;
  }
}

beforeAll(() => loadPgParser());

describe('the guard decides by type', () => {
  it.each([
    ["SELECT '{pg_authid}'::regclass[]", 'regclass'],
    ["SELECT '{pg_authid}'::_regclass", '_regclass'],
    ["SELECT '{postgres=arwdDxt/postgres}'::aclitem[]", 'aclitem'],
    ["SELECT '{<a/>}'::_xml", '_xml'],
    ["SELECT '1'::oid", 'oid'],
    ["SELECT '1'::money", 'money'],
    ["SELECT '(1,2)'::pg_catalog.pg_authid", 'pg_authid'],
  ])('refuses %s', (sql, type) => {
    expect(refusal(sql)).toMatch(new RegExp(`refused: type (pg_catalog\\.)?${type}`, 'u'));
  });

  it.each([
    "SELECT '{now}'::timestamptz[]",
    "SELECT '[today,)'::daterange",
    'SELECT \'{"tomorrow"}\'::date[]',
    "SELECT ARRAY['now']::timestamp[]",
  ])('refuses the clock in %s', (sql) => {
    expect(refusal(sql)).toMatch(/reads the clock/u);
  });

  it.each([
    "SELECT '{1,2}'::int4[]",
    "SELECT '[2020-01-01,2021-01-01)'::daterange",
    "SELECT 'Now and Then'::text",
    "SELECT '{a,b}'::_text",
    'SELECT 1::integer, 2::bigint, 3.0::double precision',
  ])('passes %s', (sql) => {
    expect(refusal(sql)).toBeUndefined();
  });
});

describe('format() is bounded', () => {
  it.each([
    "SELECT format('%1000000000s', 'x')",
    "SELECT format('%*s', 1000000000, 'x')",
    "SELECT format('%1$-20000s', 'x')",
    "SELECT format(name, 'x') FROM t",
  ])('refuses %s', (sql) => {
    expect(refusal(sql)).toMatch(/refused: format\(\)/u);
  });
  it.each(["SELECT format('%s-%10s|%2$-5s %%', 'a', 'b')", "SELECT format('%I.%L', 'a', 'b')"])('passes %s', (sql) => {
    expect(refusal(sql)).toBeUndefined();
  });
});

describeServer('every type of the server', (serverUrl) => {
  it('is refused in a cast of a literal, to it and to its array type, unless it is an answer type', async () => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    const { rows } = await client.query<{ nspname: string; typname: string; elem: string | null }>(
      "SELECT n.nspname, t.typname, e.typname AS elem FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace LEFT JOIN pg_type e ON e.oid = t.typelem AND t.typname = '_' || e.typname ORDER BY 1, 2",
    );
    await client.end();
    expect(rows.length).toBeGreaterThan(100);
    const wrong: string[] = [];
    for (const r of rows) {
      // The variant's own types pass qualified by its schema (and unqualified, through GuardScope.types, which this scope lacks).
      const allowed = r.nspname === 'pg_catalog' && ALLOWED_TYPES.has(r.elem ?? r.typname);
      if (r.nspname === scope.pgSchema) continue;
      for (const sql of [
        `SELECT 'x'::${quoted(r.typname)}`,
        `SELECT 'x'::${quoted(r.typname)}[]`,
        `SELECT 'x'::${quoted(r.nspname)}.${quoted(r.typname)}`,
      ]) {
        const refused = refusal(sql) !== undefined;
        // A literal the type's input rejects is the server's error, not the guard's: only the guard's verdict is asked here.
        if (refused === allowed) wrong.push(`${sql}: ${refused ? 'refused' : 'passed'}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('refuses on the server what enumerated the catalog', async () => {
    const db = await openDatabase({ kind: 'postgres', url: serverUrl });
    try {
      await db.exec('CREATE SCHEMA IF NOT EXISTS guard_types; CREATE TABLE IF NOT EXISTS guard_types.t (id int)');
      for (const sql of ["SELECT '{pg_authid}'::regclass[]", "SELECT '{now}'::timestamptz[]", "SELECT 'x'::aclitem"]) {
        expect((await runUntrusted(db, 'guard_types', sql)).kind, sql).toBe('refused');
      }
      const ok = await runUntrusted(db, 'guard_types', "SELECT '{1,2}'::int4[] AS a");
      expect(ok.kind === 'rows' && ok.rows).toEqual([['{1,2}']]);
    } finally {
      await db.exec('DROP SCHEMA guard_types CASCADE').catch(() => {});
      await db.close();
    }
  });
});
