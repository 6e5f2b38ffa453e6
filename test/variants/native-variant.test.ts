import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDataset } from '../../generator/assemble/build-dataset.ts';
import { verifyDataset } from '../../generator/assemble/verify-dataset.ts';
import { openDatabase, type Database } from '../../generator/database/database.ts';
import { retail } from '../../generator/domains/retail.ts';
import { indexDomain } from '../../generator/er-model/er-index.ts';
import { draftModel } from '../../generator/import/draft-model.ts';
import { readDatabaseSource, readSource } from '../../generator/import/read-source.ts';
import { selectVariants } from '../../generator/variants/select-variants.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import { catalogShape } from '../helpers/catalog-shape.ts';

const CHINOOK = resolve(import.meta.dirname, '../../../shared/databases/chinook/Chinook_Sqlite.sqlite');

describe('the native variant', () => {
  let db: Database;
  const tmp = tempDir('native-variant');
  beforeAll(async () => {
    db = await openDatabase({ kind: 'pglite' });
  });
  afterAll(async () => {
    await db?.close();
    tmp.remove();
  });

  it('is refused in one line for a model without physical names', () => {
    expect(() => selectVariants(indexDomain(retail), 'native', 1)).toThrow(/^variant native: model retail has no physical names \(entity \w+ has no "storage"\)/u);
    // `all` of such a model stays the ten presets.
    expect(selectVariants(indexDomain(retail), 'all', 1)).toHaveLength(10);
  });

  it.skipIf(!existsSync(CHINOOK))('builds Chinook (read from its SQLite file) as the same tables, columns, types, keys and foreign keys in PostgreSQL, and reads back its instance', async () => {
    const source = await readSource(CHINOOK);
    const { domain } = draftModel(source, { name: 'chinook' });
    const out = join(tmp.dir, 'chinook');
    const built = await buildDataset({ dataset: 'chinook', domain, variants: 'native,full_cti', scale: 'tiny', seed: 5, profile: 'default', target: db, out, schemaPrefix: 'chinook_' });
    const native = built.manifest.variants.find((v) => v.name === 'native');
    expect(native).toBeDefined();
    const rebuilt = await readDatabaseSource(db, { schema: native?.pg_schema as string });
    expect(catalogShape(rebuilt.catalog)).toEqual(catalogShape(source.catalog));
    const checks = await verifyDataset(out, db);
    expect(checks.map((c) => c.variant)).toEqual(['native', 'full_cti']);
    for (const check of checks) expect(check.differences, check.variant).toEqual([]);
  }, 120_000);
});
