/**
 * The compiler's SQL is a `CompiledSql` value, the only thing the executor's batched path
 * takes; any string, whatever it holds, is untrusted and goes through the full guard and the
 * extended protocol. The value cannot be forged from text: not from a JSON line of a groups
 * file, not from a copy of one, and only the compiler's modules make it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { BUILT_IN_DOMAINS } from '../../generator/domains/index.ts';
import { indexDomain } from '../../generator/er-model/er-index.ts';
import type { Domain } from '../../generator/er-model/er-model.ts';
import { buildRelationalSchema } from '../../generator/variants/build-schema.ts';
import { presetVariant } from '../../generator/variants/variant-presets.ts';
import { compileQuery, compileSql } from '../../generator/compile/compile-query.ts';
import { isCompiledSql, type CompiledSql } from '../../generator/compile/compiled-sql.ts';
import type { Query } from '../../generator/query/conceptual-query.ts';
import { openDatabase, type Database, type TextBatch } from '../../generator/database/database.ts';
import { runReadOnly, runReadOnlyMany } from '../../generator/execute/run-query.ts';
import { REPO_ROOT } from '../helpers/run-cli.ts';

const index = indexDomain(BUILT_IN_DOMAINS['retail'] as Domain);
const schema = buildRelationalSchema(index, presetVariant(index, 'full_normalized'));
const QUERY: Query = {
  kind: 'select',
  from: { entity: 'Product', alias: 'p' },
  select: [{ name: 'n', expr: { kind: 'aggregate', fn: 'count' } }],
};

describe('CompiledSql', () => {
  it('is what compileSql gives, holding the text compileQuery prints', () => {
    const sql = compileSql(index, schema, QUERY);
    expect(isCompiledSql(sql)).toBe(true);
    expect(sql.text).toBe(compileQuery(index, schema, QUERY));
    expect(Object.isFrozen(sql)).toBe(true);
  });

  it('cannot be made from text: not a JSON line read back, not a copy, not a look-alike', () => {
    const sql = compileSql(index, schema, QUERY);
    expect(isCompiledSql(JSON.parse(JSON.stringify(sql)))).toBe(false);
    expect(isCompiledSql({ ...sql })).toBe(false);
    expect(isCompiledSql({ text: sql.text })).toBe(false);
    expect(isCompiledSql(Object.create(Object.getPrototypeOf(sql) as object))).toBe(false);
    expect(isCompiledSql(sql.text)).toBe(false);
  });

  it('is made only by the compiler: no module outside generator/compile/ mints one', () => {
    const files = (dir: string): string[] =>
      readdirSync(dir).flatMap((f) =>
        statSync(join(dir, f)).isDirectory() ? files(join(dir, f)) : /\.(ts|js)$/u.test(f) ? [join(dir, f)] : [],
      );
    const minting = files(join(REPO_ROOT, 'generator'))
      .filter((f) => /\bmintCompiledSql\b/u.test(readFileSync(f, 'utf8')))
      .map((f) => relative(REPO_ROOT, f));
    expect(minting.length).toBeGreaterThan(0);
    for (const f of minting) expect(f, f).toMatch(/^generator\/compile\//u);
  });
});

describe('the executor by what it is given', () => {
  let db: Database;
  const batches: TextBatch[] = [];
  const reads: string[] = [];
  let recorded: Database;
  beforeAll(async () => {
    db = await openDatabase({ kind: 'pglite' });
    await db.exec('CREATE SCHEMA v1; CREATE TABLE v1.t (id integer); INSERT INTO v1.t VALUES (1), (2)');
    recorded = {
      ...db,
      queryTextBatch: (batch, options) => {
        batches.push(batch);
        return db.queryTextBatch(batch, options);
      },
      readPaged: (read) => {
        reads.push(read.query);
        return db.readPaged(read);
      },
    };
  });
  afterAll(async () => db?.close());

  it("runs the compiler's value on the batched path and any string by the extended protocol", async () => {
    const text = compileSql(index, schema, QUERY).text.replace(/FROM\s+\S+ AS p/u, 'FROM t AS p');
    // The same text twice: once as a string (untrusted), once as if the compiler had made it.
    expect((await runReadOnly(recorded, 'v1', text)).rows).toEqual([['2']]);
    // The string went by the extended protocol, inside the server-side byte cap's wrapper.
    expect(reads).toHaveLength(1);
    expect(reads[0]).toContain(text);
    expect(reads[0]).toMatch(/rows past the byte cap/u);
    expect(batches).toEqual([]);
    const fake = { text } as unknown as CompiledSql;
    // A look-alike object is no CompiledSql: the batched path refuses it.
    await expect(runReadOnly(recorded, 'v1', fake)).rejects.toThrow(
      /^schema v1: refused: the batched path runs only the compiler's own SQL$/u,
    );
    await expect(runReadOnlyMany(recorded, [{ pgSchema: 'v1', sql: fake }])).resolves.toMatchObject({
      failure: { index: 0 },
    });
    expect(batches).toEqual([]);
  });

  it('holds a string from a groups file to the full guard, even where the lexer alone would pass it', async () => {
    // The lexer sees no call and one statement; PostgreSQL's parser sees a catalog behind ONLY.
    const line = JSON.parse(JSON.stringify({ sql: 'SELECT * FROM ONLY pg_authid' })) as { sql: string };
    await expect(runReadOnly(recorded, 'v1', line.sql)).rejects.toThrow(/^schema v1: refused: table ONLY pg_authid/u);
    expect(reads).not.toContain(line.sql);
  });
});
