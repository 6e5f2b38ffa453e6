// @tier long
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync, statfsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { buildDataset } from '../../generator/assemble/build-dataset.ts';
import { readManifest } from '../../generator/assemble/build-manifest.ts';
import { targetOf, verifyDataset } from '../../generator/assemble/verify-dataset.ts';
import { LoadError } from '../../generator/common/errors.ts';
import { BUILT_IN_DOMAINS } from '../../generator/domains/index.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import { runCli } from '../helpers/run-cli.ts';

// A full disk needs a small file system of its own: a tmpfs, which only root may mount.
const tmp = tempDir('fulldisk');
const mount = (size: string, dir: string): boolean => {
  mkdirSync(dir, { recursive: true });
  return spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]).status === 0;
};
const small = join(tmp.dir, 'small');
const canMount = mount('1m', small);
const roomy = join(tmp.dir, 'roomy');
const canMountRoomy = canMount && mount('80m', roomy);
afterAll(() => {
  for (const dir of [small, roomy]) spawnSync('umount', [dir]);
  tmp.remove();
});

const domain = BUILT_IN_DOMAINS['social_media']!;

// Skipped only where tmpfs cannot be mounted (not root); the CI container runs as root.
describe.skipIf(!canMount)('a full disk', () => {
  it('at the start of a build: one line naming the path and ENOSPC, exit 2, nothing left behind', () => {
    const out = join(small, 'out');
    const run = runCli(
      ['build', '--dataset', 'social_media', '--variants', 'full_sti', '--scale', 'tiny', '--out', out, '--quiet'],
      { env: { DATABASE_URL: undefined } },
    );
    expect(run.stderr).toMatch(
      new RegExp(
        `^equisql build: cannot open PGlite database in ${out}/\\.staging-\\d+/pglite: ENOSPC \\(no space left on device\\)\\n$`,
      ),
    );
    expect(run.status).toBe(2);
    expect(readdirSync(out)).toEqual([]);
  });

  describe.skipIf(!canMountRoomy)('during a rebuild', () => {
    let out: string;
    beforeAll(async () => {
      out = join(roomy, 'out');
      await buildDataset({
        dataset: 'social_media',
        domain,
        variants: 'full_sti',
        scale: 'tiny',
        seed: 1,
        profile: 'default',
        target: { kind: 'pglite', dir: join(out, 'pglite') },
        out,
      });
    });
    it('fails with one line naming the directory and ENOSPC, and the old build still verifies', async () => {
      const before = readFileSync(join(out, 'build.json'), 'utf8');
      // Leave less room than a copy of the database needs.
      const fs = statfsSync(roomy);
      writeFileSync(join(roomy, 'filler'), Buffer.alloc(Math.max(0, fs.bavail * fs.bsize - 4 * 1024 * 1024)));
      const rebuild = buildDataset({
        dataset: 'social_media',
        domain,
        variants: 'full_sti',
        scale: 'tiny',
        seed: 2,
        profile: 'default',
        target: { kind: 'pglite', dir: join(out, 'pglite') },
        out,
      });
      await expect(rebuild).rejects.toThrow(LoadError);
      await expect(rebuild).rejects.toThrow(/ENOSPC/);
      await expect(rebuild).rejects.toThrow(out);
      expect(readFileSync(join(out, 'build.json'), 'utf8')).toBe(before);
      expect(readdirSync(out).sort()).toEqual(['build.json', 'dumps', 'er.json', 'pglite', 'schemas']);
      const checks = await verifyDataset(out, targetOf(out, readManifest(out), undefined));
      expect(checks.map((c) => c.ok)).toEqual([true]);
    });
  });
});
