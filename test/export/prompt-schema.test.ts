// @tier long
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countTokens } from 'gpt-tokenizer';
import { indexDomain } from '../../generator/er-model/er-index.ts';
import { generateInstance } from '../../generator/instance/generate-instance.ts';
import { renderSchemaFile } from '../../generator/shred/ddl-writer.ts';
import { buildRelationalSchema } from '../../generator/variants/build-schema.ts';
import { selectVariants } from '../../generator/variants/select-variants.ts';
import { columnExamples, compactDdl, fullDdl } from '../../generator/export/prompt-schema.ts';
import type { RelationalSchema } from '../../generator/variants/relational-schema.ts';
import { DOMAINS } from '../helpers/build-fixtures.ts';

let db: PGlite;
beforeAll(async () => {
  db = await PGlite.create();
});
afterAll(async () => db.close());

/**
 * What PostgreSQL's catalog holds of a schema's tables: each table's columns (name, type,
 * NOT NULL, in order) and its constraints (primary keys, uniques, checks, foreign keys, as
 * the server prints them).
 */
async function catalog(pgSchema: string): Promise<Record<string, { columns: string[]; constraints: string[] }>> {
  await db.exec(`SET search_path = ${pgSchema}`);
  const columns = await db.query<{ t: string; c: string }>(
    `SELECT c.relname AS t, a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE '' END AS c
       FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped ORDER BY c.relname, a.attnum`,
    [pgSchema],
  );
  const constraints = await db.query<{ t: string; c: string }>(
    `SELECT c.relname AS t, k.contype::text || ' ' || pg_get_constraintdef(k.oid) AS c
       FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 ORDER BY 1, 2`,
    [pgSchema],
  );
  const out: Record<string, { columns: string[]; constraints: string[] }> = {};
  for (const r of columns.rows) (out[r.t] ??= { columns: [], constraints: [] }).columns.push(r.c);
  for (const r of constraints.rows) out[r.t]?.constraints.push(r.c);
  return out;
}

async function load(pgSchema: string, ddl: string): Promise<void> {
  await db.exec(
    `DROP SCHEMA IF EXISTS ${pgSchema} CASCADE; CREATE SCHEMA ${pgSchema}; SET search_path = ${pgSchema};\n${ddl}`,
  );
}

const cases: { name: string; schema: RelationalSchema; full: string; examples: ReturnType<typeof columnExamples> }[] =
  [];
for (const [name, domain] of DOMAINS) {
  const index = indexDomain(domain);
  const instance = generateInstance(domain, { seed: 1, scale: 'tiny', profile: 'default' });
  for (const spec of selectVariants(index, 'all', 1)) {
    const schema = buildRelationalSchema(index, spec);
    cases.push({
      name: `${name}/${spec.name}`,
      schema,
      full: fullDdl(renderSchemaFile(schema, '-- header')),
      examples: columnExamples(index, instance, schema),
    });
  }
}

describe('prompt schemas', () => {
  it('compact and compact+values DDL give PostgreSQL the same tables, columns, types, keys and checks as the full DDL, on every variant of both domains', async () => {
    let fullTokens = 0;
    let compactTokens = 0;
    for (const c of cases) {
      await load('full_ddl', c.full);
      const expected = await catalog('full_ddl');
      expect(Object.keys(expected).length).toBe(c.schema.tables.length);
      expect(
        Object.values(expected).some((t) => t.constraints.some((k) => k.startsWith('f '))),
        c.name,
      ).toBe(true);
      const compact = compactDdl(c.schema);
      expect(compact).not.toMatch(/CREATE INDEX|ALTER TABLE|--/u);
      await load('compact_ddl', compact);
      expect(await catalog('compact_ddl'), c.name).toEqual(expected);
      await load('values_ddl', compactDdl(c.schema, c.examples));
      expect(await catalog('values_ddl'), c.name).toEqual(expected);
      fullTokens += countTokens(c.full);
      compactTokens += countTokens(compact);
    }
    // Inlining keys and dropping indexes is worth doing: a third fewer tokens at least.
    expect(compactTokens).toBeLessThan(fullTokens * 0.67);
  });

  it("example values are the data's own, at most two a column, none for keys, quoted as SQL literals", () => {
    const c = cases.find((x) => x.name === 'social_media/full_cti') as (typeof cases)[number];
    const platforms = c.examples.get('streamer')?.get('platform') ?? [];
    expect(platforms.length).toBe(2);
    for (const p of platforms) expect(["'twitch'", "'youtube'", "'kick'", "'facebook'"]).toContain(p);
    expect(c.examples.get('streamer')?.has('id')).toBe(false);
    expect(c.examples.get('content')?.has('producer_id')).toBe(false);
    const verified = c.examples.get('creator_account')?.get('verified') ?? [];
    for (const v of verified) expect(['true', 'false']).toContain(v);
    const text = compactDdl(c.schema, c.examples);
    expect(text).toMatch(/platform text NOT NULL, -- e\.g\. '\w+', '\w+'\n/u);
  });
});
