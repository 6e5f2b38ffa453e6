// @tier long
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { openDatabase, type Database } from '../../generator/database/database.ts';
import { buildDataset } from '../../generator/assemble/build-dataset.ts';
import { verifyDataset } from '../../generator/assemble/verify-dataset.ts';
import { PRESET_NAMES } from '../../generator/variants/variant-presets.ts';
import { quoteIdent } from '../../generator/common/sql-text.ts';
import { DOMAINS, INSTANCES, tempDir } from '../helpers/build-fixtures.ts';

// One in-memory PGlite for the whole file: each build goes into schemas of its own.
let db: Database;
const tmp = tempDir('pglite');
beforeAll(async () => {
  db = await openDatabase({ kind: 'pglite' });
});
afterAll(async () => {
  await db?.close();
  tmp.remove();
});

describe.each(DOMAINS)('%s on PGlite', (name, domain) => {
  it.each(INSTANCES)(
    'builds all ten presets and reads each back unchanged (seed $seed, $profile)',
    async ({ seed, profile }) => {
      const out = join(tmp.dir, `${name}-${seed}`);
      const built = await buildDataset({
        dataset: name,
        domain,
        variants: 'all',
        scale: 'tiny',
        seed,
        profile,
        target: db,
        out,
        schemaPrefix: `${name}_${seed}_`,
      });
      expect(built.manifest.variants.map((v) => v.name)).toEqual([...PRESET_NAMES]);
      const checks = await verifyDataset(out, db);
      expect(checks.map((c) => c.variant)).toEqual([...PRESET_NAMES]);
      for (const check of checks) {
        expect(check.differences, check.variant).toEqual([]);
        expect(check.instance_hash, check.variant).toBe(built.manifest.instance_hash);
      }
    },
  );
});

describe('verify reads the databases, not memory', () => {
  it('reports a changed value, a lost link and a moved reference in the variant that has them', async () => {
    const [name, domain] = DOMAINS.find(([n]) => n === 'social_media') as (typeof DOMAINS)[number];
    const out = join(tmp.dir, 'tamper');
    const built = await buildDataset({
      dataset: name,
      domain,
      variants: 'full_sti,full_cti,kitchen_sink',
      scale: 'tiny',
      seed: 5,
      profile: 'default',
      target: db,
      out,
      schemaPrefix: 'tamper_',
    });
    const [sti, cti, sink] = built.manifest.variants.map((v) => quoteIdent(v.pg_schema)) as [string, string, string];
    await db.exec(`UPDATE ${sti}.accounts SET username = username || 'x' WHERE id = 3`);
    await db.exec(
      `DELETE FROM ${cti}.content_tagged_with WHERE (content_id, tag_id) IN (SELECT content_id, tag_id FROM ${cti}.content_tagged_with ORDER BY 1, 2 LIMIT 1)`,
    );
    await db.exec(
      `UPDATE ${sink}.content SET producer_id = (SELECT min(id) FROM ${sink}.creator_account) + 0 WHERE id = (SELECT max(id) FROM ${sink}.content) AND producer_id <> (SELECT min(id) FROM ${sink}.creator_account)`,
    );
    const checks = await verifyDataset(out, db);
    const byName = Object.fromEntries(checks.map((c) => [c.variant, c]));
    expect(byName['full_sti']?.ok).toBe(false);
    expect(byName['full_sti']?.differences.join('\n')).toMatch(/^missing: 3 /m);
    expect(byName['full_cti']?.ok).toBe(false);
    expect(byName['full_cti']?.differences.join('\n')).toMatch(/links tagged_with|missing: \d+ \d+ \{\}/);
    expect(byName['kitchen_sink']?.ok).toBe(false);
    expect(byName['kitchen_sink']?.differences.join('\n')).toMatch(/^unexpected: \d+ \d+ \{\}$/m);
  });
});

describe('verify catches tables that say more than the instance', () => {
  const dropChecks = (table: string): string =>
    `DO $$ DECLARE r record; BEGIN FOR r IN SELECT conname FROM pg_constraint WHERE conrelid = '${table}'::regclass AND contype IN ('c', 'f') LOOP EXECUTE format('ALTER TABLE ${table} DROP CONSTRAINT %I', r.conname); END LOOP; END $$`;
  // Each case changes one variant in a way that reads back into the same instance, or
  // nearly, but leaves rows no correct shredding would write.
  const cases: [string, string, (s: string) => string[]][] = [
    [
      'an object stored in two concrete tables',
      'full_concrete',
      (s) => [
        `INSERT INTO ${s}.accounts SELECT id, username, email, created_at FROM ${s}.streamers ORDER BY id LIMIT 1`,
      ],
    ],
    [
      'a registry type that contradicts the concrete table',
      'concrete_all_tables',
      (s) => [`UPDATE ${s}.account_registry SET type = 'account' WHERE id = (SELECT min(id) FROM ${s}.streamers)`],
    ],
    [
      'a discriminator that contradicts a subclass table',
      'hybrid_roots_merged',
      (s) => [
        dropChecks(`${s}.account`),
        `UPDATE ${s}.account SET type = 'account' WHERE id = (SELECT min(id) FROM ${s}.streamer)`,
      ],
    ],
    [
      'a value on a row of another class',
      'full_sti',
      (s) => [
        dropChecks(`${s}.accounts`),
        `UPDATE ${s}.accounts SET platform = 'twitch' WHERE id = (SELECT min(id) FROM ${s}.accounts WHERE type = 'consumer_account')`,
      ],
    ],
    [
      'a duplicate array element',
      'full_sti',
      (s) => [
        `UPDATE ${s}.content_items SET quality_opts = quality_opts || quality_opts[1] WHERE id = (SELECT min(id) FROM ${s}.content_items WHERE cardinality(quality_opts) > 0)`,
      ],
    ],
    [
      'a JSONB element of the wrong JSON type',
      'full_sti',
      (s) => [
        `UPDATE ${s}.content_items SET chapter_markers = (SELECT jsonb_agg(e #>> '{}') FROM jsonb_array_elements(chapter_markers) AS e) WHERE id = (SELECT min(id) FROM ${s}.content_items WHERE jsonb_array_length(chapter_markers) > 0)`,
      ],
    ],
  ];
  it.each(cases)('%s', async (_what, variant, tamper) => {
    const [name, domain] = DOMAINS.find(([n]) => n === 'social_media') as (typeof DOMAINS)[number];
    const out = join(tmp.dir, `strict-${variant}-${Math.random().toString(36).slice(2, 8)}`);
    const prefix = `strict_${Math.random().toString(36).slice(2, 8)}_`;
    const built = await buildDataset({
      dataset: name,
      domain,
      variants: variant,
      scale: 'tiny',
      seed: 6,
      profile: 'default',
      target: db,
      out,
      schemaPrefix: prefix,
    });
    expect((await verifyDataset(out, db))[0]?.ok).toBe(true);
    for (const sql of tamper(quoteIdent(built.manifest.variants[0]!.pg_schema))) await db.exec(sql);
    const [check] = await verifyDataset(out, db);
    expect(check?.ok).toBe(false);
    expect(check?.differences.join('\n')).toMatch(
      /^table \w+: row (not implied by the instance|the instance implies is missing): /m,
    );
  });
});

describe('a domain with what the reference domains lack', () => {
  it('overlapping hierarchy, one-to-one, self and attributed relationships: all presets and random:8 read back unchanged', async () => {
    const { readFileSync } = await import('node:fs');
    const { parseDomainJson } = await import('../../generator/er-model/domain-json.ts');
    const { REPO_ROOT } = await import('../helpers/run-cli.ts');
    const domain = parseDomainJson(
      readFileSync(join(REPO_ROOT, 'test/fixtures/er-model/valid/library.json'), 'utf8'),
      'library.json',
    );
    for (const profile of ['default', 'edge'] as const) {
      const out = join(tmp.dir, `library-${profile}`);
      await buildDataset({
        dataset: 'library',
        domain,
        variants: 'all,random:8',
        scale: 'tiny',
        seed: 8,
        profile,
        target: db,
        out,
        schemaPrefix: `library_${profile}_`,
      });
      const checks = await verifyDataset(out, db);
      // Two presets fall back to another's design on an overlapping hierarchy and are left
      // out (full_concrete = full_cti, concrete_all_tables = full_normalized): 8 + random:8.
      expect(checks).toHaveLength(16);
      expect(checks.map((c) => c.variant)).not.toContain('full_concrete');
      for (const check of checks) expect(check.differences, `${profile} ${check.variant}`).toEqual([]);
    }
  });
});
