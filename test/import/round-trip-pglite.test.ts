// @tier long
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDataset } from '../../generator/assemble/build-dataset.ts';
import { openDatabase, type Database } from '../../generator/database/database.ts';
import { BUILT_IN_DOMAINS } from '../../generator/domains/index.ts';
import { parseDomainJson } from '../../generator/er-model/domain-json.ts';
import type { Domain } from '../../generator/er-model/er-model.ts';
import { draftModel } from '../../generator/import/draft-model.ts';
import { readDatabaseSource } from '../../generator/import/read-source.ts';
import { PRESET_NAMES } from '../../generator/variants/variant-presets.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import { indexDomain } from '../../generator/er-model/er-index.ts';
import { instanceHash } from '../../generator/instance/canonical-instance.ts';
import { readDatabaseInstance } from '../../generator/instance/source-instance.ts';
import { buildRelationalSchema } from '../../generator/variants/build-schema.ts';
import { presetVariant } from '../../generator/variants/variant-presets.ts';
import { nativeVariant } from '../../generator/variants/native-names.ts';
import { renderSchemaFile } from '../../generator/shred/ddl-writer.ts';
import { modelShape, renameInstance } from './round-trip.ts';

const LIBRARY = parseDomainJson(
  readFileSync(resolve(import.meta.dirname, '../fixtures/er-model/valid/library.json'), 'utf8'),
  'library.json',
);
const DOMAINS: [string, Domain][] = [['library', LIBRARY], ...Object.entries(BUILT_IN_DOMAINS)];
const ACCEPTANCE = process.env['EQUISQL_ACCEPTANCE'] === '1';

/**
 * The variants whose import gives back the model up to names at the tiny scale: every preset
 * but hybrid_roots_merged of the library and retail, which is `AT_SMALL_SCALE`.
 */
const EQUAL_UP_TO_NAMES: Readonly<Record<string, readonly string[]>> = {
  library: PRESET_NAMES.filter((v) => v !== 'hybrid_roots_merged'),
  social_media: [...PRESET_NAMES],
  retail: PRESET_NAMES.filter((v) => v !== 'hybrid_roots_merged'),
};

/** The presets whose hierarchies are concrete tables (with a registry in concrete_all_tables). */
const CONCRETE = ['full_concrete', 'concrete_all_tables'];

/**
 * Variants that round-trip from the small scale up: a subclass table refers to a class kept
 * in its parent's table (a subtype or a flag), and at the tiny scale too few of its rows
 * refer to tell that class from chance, so the draft hangs it under the table's root.
 */
const AT_SMALL_SCALE: Readonly<Record<string, readonly string[]>> = {
  library: ['hybrid_roots_merged'],
  retail: ['hybrid_roots_merged'],
};

/**
 * The built rows, read through the imported draft's physical names (its native variant, with
 * the source's discriminator and flag columns) and put under the model's names, give the
 * build's instance hash.
 */
async function expectReadsBack(
  draft: Domain,
  domain: Domain,
  v: { readonly name: string; readonly pg_schema: string },
  built: { readonly manifest: { readonly instance_hash: string } },
): Promise<void> {
  const index = indexDomain(domain);
  const read = await readDatabaseInstance(db, indexDomain(draft), { schema: v.pg_schema });
  const renamed = renameInstance(read, draft, buildRelationalSchema(index, presetVariant(index, v.name)), domain);
  expect(instanceHash(renamed), `${v.name}: instance read through the draft`).toBe(built.manifest.instance_hash);
}

// One in-memory PGlite for the file: each build goes into schemas of its own.
let db: Database;
const tmp = tempDir('import-round-trip');
beforeAll(async () => {
  db = await openDatabase({ kind: 'pglite' });
});
afterAll(async () => {
  await db?.close();
  tmp.remove();
});

describe.each(DOMAINS)('%s: build, then import the built schemas', (name, domain) => {
  const variants = ACCEPTANCE ? [...PRESET_NAMES] : (EQUAL_UP_TO_NAMES[name] ?? []);
  it(`gives a valid draft for ${ACCEPTANCE ? 'every preset' : variants.join(', ')}, equal to the model up to names and reading back its rows where the reading is complete`, async () => {
    const built = await buildDataset({
      dataset: name,
      domain,
      variants: variants.join(','),
      scale: 'tiny',
      seed: 3,
      profile: 'default',
      target: db,
      out: join(tmp.dir, name),
      schemaPrefix: `rt_${name}_`,
    });
    const want = modelShape(domain);
    for (const v of built.manifest.variants) {
      const draft = draftModel(await readDatabaseSource(db, { schema: v.pg_schema }), { name });
      if ((EQUAL_UP_TO_NAMES[name] ?? []).includes(v.name)) expect(modelShape(draft.domain), v.name).toEqual(want);
      if ((EQUAL_UP_TO_NAMES[name] ?? []).includes(v.name)) await expectReadsBack(draft.domain, domain, v, built);
      // Concrete tables, their registry and the references no key states come back as the same DDL.
      if (CONCRETE.includes(v.name) && name !== 'library') {
        const index = indexDomain(domain);
        const ddl = (schema: Parameters<typeof renderSchemaFile>[0]) =>
          renderSchemaFile(schema, '').replaceAll('timestamp with time zone', 'timestamptz').split('\n').sort();
        const draftIndex = indexDomain(draft.domain);
        expect(ddl(buildRelationalSchema(draftIndex, nativeVariant(draftIndex))), v.name).toEqual(
          ddl(buildRelationalSchema(index, presetVariant(index, v.name))),
        );
      }
      expect(draft.domain.entities.length, v.name).toBeGreaterThan(0);
    }
  }, 300_000);
  const small = AT_SMALL_SCALE[name] ?? [];
  it.runIf(small.length > 0)(
    `is equal to the model up to names for ${small.join(', ')} at the small scale, and reads back its rows`,
    async () => {
      const built = await buildDataset({
        dataset: name,
        domain,
        variants: small.join(','),
        scale: 'small',
        seed: 3,
        profile: 'default',
        target: db,
        out: join(tmp.dir, `${name}-small`),
        schemaPrefix: `rt_small_${name}_`,
      });
      for (const v of built.manifest.variants) {
        const draft = draftModel(await readDatabaseSource(db, { schema: v.pg_schema }), { name });
        expect(modelShape(draft.domain), v.name).toEqual(modelShape(domain));
        await expectReadsBack(draft.domain, domain, v, built);
      }
    },
    300_000,
  );
});
