import { afterAll, beforeAll, expect, it, describe } from 'vitest';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { openDatabase, type Database } from '../../generator/database/database.ts';
import { buildDataset } from '../../generator/assemble/build-dataset.ts';
import { verifyDataset } from '../../generator/assemble/verify-dataset.ts';
import { indexDomain } from '../../generator/er-model/er-index.ts';
import { generateInstance } from '../../generator/instance/generate-instance.ts';
import { diffInstances, instanceHash } from '../../generator/instance/canonical-instance.ts';
import { buildRelationalSchema } from '../../generator/variants/build-schema.ts';
import { readInstance } from '../../generator/readback/read-instance.ts';
import { PRESET_NAMES } from '../../generator/variants/variant-presets.ts';
import { DOMAINS, INSTANCES, tempDir } from '../helpers/build-fixtures.ts';
import { createDatabase, describeServer } from '../helpers/postgres.ts';
import type { BuildManifest } from '../../generator/assemble/build-dataset.ts';

describeServer('the PostgreSQL server', (serverUrl) => {
  let db: Database;
  let drop: () => Promise<void>;
  const tmp = tempDir('server');
  const built = new Map<string, BuildManifest>();
  beforeAll(async () => {
    const fresh = await createDatabase(serverUrl, 'build');
    drop = fresh.drop;
    db = await openDatabase({ kind: 'postgres', url: fresh.url });
  });
  afterAll(async () => {
    await db?.close();
    await drop?.();
    tmp.remove();
  });

  describe.each(DOMAINS)('%s', (name, domain) => {
    it.each(INSTANCES)(
      'builds all ten presets with COPY and reads each back unchanged (seed $seed, $profile)',
      async ({ seed, profile }) => {
        const out = join(tmp.dir, `${name}-${seed}`);
        const result = await buildDataset({
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
        built.set(`${name}-${seed}`, result.manifest);
        expect(result.manifest.database.kind).toBe('postgres');
        const checks = await verifyDataset(out, db);
        expect(checks.map((c) => c.variant)).toEqual([...PRESET_NAMES]);
        for (const check of checks) expect(check.differences, check.variant).toEqual([]);
      },
    );

    it.each(INSTANCES)(
      'loads every dump into a fresh database with psql ON_ERROR_STOP, and it reads back unchanged (seed $seed, $profile)',
      async (edge) => {
        const out = join(tmp.dir, `${name}-${edge.seed}`);
        const manifest = built.get(`${name}-${edge.seed}`);
        expect(manifest, 'the build above ran first').toBeDefined();
        const index = indexDomain(domain);
        const expected = instanceHash(
          generateInstance(domain, { seed: edge.seed, scale: 'tiny', profile: edge.profile }),
        );
        const dumps = readdirSync(join(out, 'dumps')).sort();
        expect(dumps).toHaveLength(10);
        for (const file of dumps) {
          const fresh = await createDatabase(serverUrl, 'dump');
          try {
            const psql = spawnSync(
              'psql',
              ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', fresh.url, '-f', join(out, 'dumps', file)],
              { encoding: 'utf8' },
            );
            expect(psql.error, 'psql is on PATH').toBeUndefined();
            expect(psql.stderr, file).toBe('');
            expect(psql.status, file).toBe(0);
            const spec = (manifest as BuildManifest).variants.find((v) => `${v.name}.sql` === file)?.spec;
            const conn = await openDatabase({ kind: 'postgres', url: fresh.url });
            try {
              const actual = await readInstance(conn, 'public', buildRelationalSchema(index, spec!), index);
              expect(
                instanceHash(actual),
                `${file}: ${diffInstances(generateInstance(domain, { seed: edge.seed, scale: 'tiny', profile: edge.profile }), actual).join('; ')}`,
              ).toBe(expected);
            } finally {
              await conn.close();
            }
          } finally {
            await fresh.drop();
          }
        }
      },
    );
  });
});
