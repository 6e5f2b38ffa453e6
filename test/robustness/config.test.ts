// @tier long
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/build-fixtures.ts';

// A new user's project: a folder outside the repository, with no package.json and no
// node_modules, whose config imports the package by name.
const tmp = tempDir('user-config');
afterAll(() => tmp.remove());
const NO_SERVER = { DATABASE_URL: undefined };

const SHOP_CONFIG = `import { defineConfig, defineDomain, attr, noun } from 'equisql';

const shop = defineDomain({
  name: 'shop',
  entities: [
    { name: 'Product', lexicon: noun('product'), counts: { tiny: 12, small: 50, paper: 500, large: 5000 },
      attributes: [attr.text('title'), attr.numeric('price', 8, 2, { hints: { min: 1, max: 90 } })] },
    { name: 'Review', lexicon: noun('review'), counts: { tiny: 20, small: 80, paper: 800, large: 8000 },
      attributes: [attr.integer('stars', { hints: { min: 1, max: 5 } })] },
  ],
  relationships: [
    { name: 'about', from: 'Review', to: 'Product', cardinality: 'many-to-one', role: 'product',
      participation: { from: 'total' }, lexicon: { forward: 'about', reverse: 'reviewed in' } },
  ],
});

export default defineConfig({ datasets: { shop: { domain: shop, scale: 'tiny', seed: 5 } } });
`;

describe('a datasets.config.ts outside the repository', () => {
  const project = join(tmp.dir, 'project');
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, 'datasets.config.ts'), SHOP_CONFIG);

  it('loads from the working directory, importing defineConfig and defineDomain from "equisql"', () => {
    const run = runCli(['variants', '--dataset', 'shop', '--variants', 'full_sti', '--json'], { cwd: project });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const line = JSON.parse(run.stdout.trim()) as { name: string; tables: string[] };
    expect(line.name).toBe('full_sti');
    expect(line.tables).toEqual(['products', 'reviews']);
  });

  it('builds at tiny scale from that directory, and verify agrees', () => {
    const out = join(project, 'out');
    const build = runCli(['build', '--dataset', 'shop', '--variants', 'full_sti,full_normalized', '--out', out], {
      cwd: project,
      env: NO_SERVER,
    });
    expect(build.stderr).toMatch(/built 2 variants of shop \(\d+ rows\)/);
    expect(build.status).toBe(0);
    expect(JSON.parse(readFileSync(join(out, 'er.json'), 'utf8')).name).toBe('shop');
    const verify = runCli(['verify', '--dir', out], { cwd: project, env: NO_SERVER });
    expect(verify.status).toBe(0);
  });

  it("keeps the shipped datasets reachable beside the user's own", () => {
    const run = runCli(['variants', '--dataset', 'social_media', '--variants', 'full_sti'], { cwd: project });
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^full_sti: /);
  });

  it('is found through --config from another directory', () => {
    const elsewhere = join(tmp.dir, 'elsewhere');
    mkdirSync(elsewhere, { recursive: true });
    const run = runCli(
      ['variants', '--dataset', 'shop', '--variants', 'full_cti', '--config', join(project, 'datasets.config.ts')],
      { cwd: elsewhere },
    );
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/tables \(2, singular\): product, review/);
  });

  it('a config with a bad model gets a one-line error naming the path, exit 2, nothing written', () => {
    const bad = join(tmp.dir, 'bad');
    mkdirSync(bad, { recursive: true });
    writeFileSync(
      join(bad, 'datasets.config.ts'),
      SHOP_CONFIG.replace("cardinality: 'many-to-one'", "cardinality: 'many-to-few'"),
    );
    const run = runCli(['build', '--dataset', 'shop', '--out', join(bad, 'out')], { cwd: bad, env: NO_SERVER });
    expect(run.status).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/relationships.*about.*cardinality/);
    expect(existsSync(join(bad, 'out'))).toBe(false);
  });

  it('a config whose default export is not a config is named as such', () => {
    const odd = join(tmp.dir, 'odd');
    mkdirSync(odd, { recursive: true });
    writeFileSync(join(odd, 'datasets.config.ts'), 'export default { sets: {} };\n');
    const run = runCli(['variants', '--dataset', 'shop'], { cwd: odd });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/datasets\.config\.ts: the default export has no "datasets" object/);
  });
});

describe("the public API ('equisql')", () => {
  it('exports the user-facing functions and error classes by the package name', async () => {
    const api = await import('equisql');
    expect(Object.keys(api).sort()).toEqual([
      'CompileError',
      'ConfigError',
      'DEFAULT_CAPS',
      'EquisqlError',
      'LoadError',
      'MAX_RANDOM_VARIANTS',
      'ShredError',
      'attr',
      'attributeRoles',
      'buildDataset',
      'buildRelationalSchema',
      'compileQuery',
      'createSqliteExecutor',
      'createUntrustedExecutor',
      'defineConfig',
      'defineDomain',
      'domainToJson',
      'generateInstance',
      'generateInstanceReport',
      'indexDomain',
      'inferRole',
      'noun',
      'openDatabase',
      'parseDomainJson',
      'runUntrusted',
      'selectVariants',
      'selectVariantsReport',
      'streamUntrusted',
      'validateDomain',
      'verifyDataset',
    ]);
    const config = api.defineConfig({ datasets: { x: { domain: 'retail', scale: 'tiny' } } });
    expect(config.datasets['x']?.domain).toBe('retail');
  });
});
