// @tier long
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { openDatabase, type Database } from '../../generator/database/database.ts';
import { buildDataset } from '../../generator/assemble/build-dataset.ts';
import { verifyDataset } from '../../generator/assemble/verify-dataset.ts';
import { pgSchemaName, pgSchemaNames } from '../../generator/assemble/schema-names.ts';
import { BUILT_IN_DOMAINS } from '../../generator/domains/index.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import { createDatabase, describeServer } from '../helpers/postgres.ts';

const domain = BUILT_IN_DOMAINS['social_media']!;
const tmp = tempDir('names');
afterAll(() => tmp.remove());

// 60 characters, as in the finding; and a prefix whose characters are two bytes each, so a
// name can be short in characters and long in bytes.
const LONG_DATASET = 'a_dataset_name_of_exactly_sixty_characters_for_the_test_wxyz';
const WIDE_PREFIX = `${'ü'.repeat(30)}_`;

describe('schema names within 63 bytes', () => {
  it('names over 63 bytes are cut at a character boundary and told apart by a hash suffix', () => {
    expect(LONG_DATASET).toHaveLength(60);
    const names = pgSchemaNames(`${LONG_DATASET}__`, ['full_sti', 'full_cti', 'full_concrete']);
    for (const name of names) expect(Buffer.byteLength(name)).toBeLessThanOrEqual(63);
    expect(new Set(names).size).toBe(3);
    expect(names[0]).toMatch(/^a_dataset_name_of_exactly_sixty_characters_for_the_tes_[0-9a-f]{8}$/);
    const wide = pgSchemaName(WIDE_PREFIX, 'full_sti');
    expect(Buffer.byteLength(wide)).toBeLessThanOrEqual(63);
    expect(wide).toMatch(/^ü{27}_[0-9a-f]{8}$/);
    expect(pgSchemaName('retail__', 'full_sti')).toBe('retail__full_sti');
  });

  const cases = (name: string, open: () => Promise<{ db: Database; done: () => Promise<void> }>) =>
    describe(name, () => {
      let db: Database;
      let done: () => Promise<void>;
      beforeAll(async () => {
        ({ db, done } = await open());
      });
      afterAll(async () => {
        await db?.close();
        await done?.();
      });
      it.each([
        ['a 60-character dataset name', { dataset: LONG_DATASET }],
        ['a prefix of two-byte characters', { dataset: 'social_media', schemaPrefix: WIDE_PREFIX }],
      ])('%s: three variants land in three schemas and each reads back unchanged', async (label, naming) => {
        const out = join(tmp.dir, `${name}-${label.length}`);
        const built = await buildDataset({
          ...naming,
          domain,
          variants: 'full_sti,full_cti,full_concrete',
          scale: 'tiny',
          seed: 2,
          profile: 'default',
          target: db,
          out,
        });
        const schemas = built.manifest.variants.map((v) => v.pg_schema);
        expect(new Set(schemas).size).toBe(3);
        const rows = await db.query(`SELECT nspname FROM pg_namespace WHERE nspname = ANY($1::text[])`, [schemas]);
        expect(rows.map((r) => r['nspname']).sort()).toEqual([...schemas].sort());
        const checks = await verifyDataset(out, db);
        for (const check of checks) expect(check.differences, check.variant).toEqual([]);
        // No staging schema is left behind.
        expect(await db.query(`SELECT nspname FROM pg_namespace WHERE nspname LIKE 'equisql_staging_%'`)).toEqual([]);
      });
    });

  cases('on PGlite', async () => ({ db: await openDatabase({ kind: 'pglite' }), done: async () => {} }));
  describeServer('on the server', (url) => {
    cases('server', async () => {
      const fresh = await createDatabase(url, 'names');
      return { db: await openDatabase({ kind: 'postgres', url: fresh.url }), done: fresh.drop };
    });
  });
});
