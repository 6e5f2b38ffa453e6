// @tier long
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { indexDomain } from '../../generator/er-model/er-index.ts';
import { allPresets } from '../../generator/variants/variant-presets.ts';
import { variantSignature } from '../../generator/variants/random-variants.ts';
import { selectVariants } from '../../generator/variants/select-variants.ts';
import { openDatabase, type Database } from '../../generator/database/database.ts';
import { buildDataset } from '../../generator/assemble/build-dataset.ts';
import { verifyDataset } from '../../generator/assemble/verify-dataset.ts';
import { DOMAINS, tempDir } from '../helpers/build-fixtures.ts';

let db: Database;
const tmp = tempDir('random');
beforeAll(async () => {
  db = await openDatabase({ kind: 'pglite' });
});
afterAll(async () => {
  await db?.close();
  tmp.remove();
});

describe.each(DOMAINS)('random:8 for %s', (name, domain) => {
  const index = indexDomain(domain);

  it('draws eight variants distinct from every preset and from each other', () => {
    const drawn = selectVariants(index, 'random:8', 11);
    expect(drawn.map((v) => v.name)).toEqual([
      'random_1',
      'random_2',
      'random_3',
      'random_4',
      'random_5',
      'random_6',
      'random_7',
      'random_8',
    ]);
    const presetSignatures = new Set(allPresets(index).map(variantSignature));
    const signatures = drawn.map(variantSignature);
    expect(new Set(signatures).size).toBe(8);
    for (const s of signatures) expect(presetSignatures.has(s)).toBe(false);
  });

  it('draws the same eight from the same seed and others from another seed', () => {
    const a = selectVariants(index, 'random:8', 11).map(variantSignature);
    expect(selectVariants(index, 'random:8', 11).map(variantSignature)).toEqual(a);
    expect(selectVariants(index, 'random:8', 12).map(variantSignature)).not.toEqual(a);
  });

  it('builds the eight into PGlite and each reads back into the instance', async () => {
    const out = join(tmp.dir, name);
    const built = await buildDataset({
      dataset: name,
      domain,
      variants: 'random:8',
      scale: 'tiny',
      seed: 11,
      profile: 'edge',
      target: db,
      out,
      schemaPrefix: `${name}_r_`,
    });
    expect(built.manifest.variants).toHaveLength(8);
    const checks = await verifyDataset(out, db);
    for (const check of checks) expect(check.differences, check.variant).toEqual([]);
    expect(checks.every((c) => c.ok)).toBe(true);
  });
});

describe('the presets themselves', () => {
  it.each(DOMAINS)('are ten different schemas for %s', (_name, domain) => {
    const signatures = allPresets(indexDomain(domain)).map(variantSignature);
    expect(new Set(signatures).size).toBe(10);
  });
});
