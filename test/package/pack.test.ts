import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/build-fixtures.ts';
import { REPO_ROOT } from '../helpers/run-cli.ts';
import { ACCEPTANCE } from '../helpers/tiers.ts';

// The package as a user gets it: `npm pack` (which builds dist/ first, through prepack), the
// tarball installed into an empty folder, and the CLI and the library used from there, with
// nothing of this checkout on the path. The install reaches the npm registry for equisql's
// dependencies (from npm's cache when it holds them), so this runs in the acceptance tier.
describe.runIf(ACCEPTANCE)('the packed package, installed into an empty folder', () => {
  const work = tempDir('pack');
  afterAll(() => work.remove());
  const npm = (args: string[], cwd: string) =>
    execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

  it('answers `npx equisql --help`, lists variants, and a plain .mjs imports defineDomain and defineConfig', () => {
    npm(['pack', '--silent', '--pack-destination', work.dir], REPO_ROOT);
    const tarball = readdirSync(work.dir).find((name) => name.endsWith('.tgz'));
    expect(tarball).toBeDefined();
    const project = join(work.dir, 'project');
    execFileSync('mkdir', [project]);
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'uses-equisql', version: '1.0.0', type: 'module', private: true }),
    );
    npm(['install', '--prefer-offline', '--no-audit', '--no-fund', join(work.dir, tarball as string)], project);

    const help = spawnSync('npx', ['--no-install', 'equisql', '--help'], { cwd: project, encoding: 'utf8' });
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^usage: equisql <command> \[options\]\n/u);
    expect(help.stdout).toMatch(/^ {2}generate$/mu);

    const variants = spawnSync('npx', ['--no-install', 'equisql', 'variants', '--dataset', 'social_media', '--json'], {
      cwd: project,
      encoding: 'utf8',
    });
    expect(variants.status, variants.stderr).toBe(0);
    expect(variants.stdout).toMatch(/full_sti/u);

    writeFileSync(
      join(project, 'use.mjs'),
      [
        "import { defineConfig, defineDomain } from 'equisql';",
        "const shop = defineDomain({ name: 'shop', entities: [{ name: 'Item', lexicon: { singular: 'item', plural: 'items' }, attributes: [{ name: 'title', type: { kind: 'text' } }] }], relationships: [] });",
        'const config = defineConfig({ datasets: { shop: { domain: shop } } });',
        'console.log(JSON.stringify({ domain: shop.name, datasets: Object.keys(config.datasets) }));',
      ].join('\n'),
    );
    const used = spawnSync(process.execPath, ['use.mjs'], { cwd: project, encoding: 'utf8' });
    expect(used.status, used.stderr).toBe(0);
    expect(JSON.parse(used.stdout)).toEqual({ domain: 'shop', datasets: ['shop'] });
  }, 900_000);
});
