import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../generator/common/errors.ts';
import { resolveDataset } from '../../generator/config/load-config.ts';
import { validateDataset } from '../../generator/config/validate-config.ts';
import { REPO_ROOT, runCli } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const CONFIG = join(REPO_ROOT, 'datasets.config.ts');

/** The one-line ConfigError resolving dataset `x` defined as `definition` throws. */
function refusal(definition: unknown): string {
  try {
    resolveDataset('x', { datasets: { x: definition } } as never, CONFIG, REPO_ROOT);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).not.toMatch(/[\n\r]/);
    // Messages about a dataset's fields name the config file first.
    return message.startsWith(`${CONFIG}: `) ? message.slice(CONFIG.length + 2) : message;
  }
  throw new Error('expected the dataset to be refused');
}

describe('dataset definitions are checked when the config is read', () => {
  it('names the key and what is allowed for each malformed field', () => {
    expect(refusal({ domain: 'retail', scale: 'gigantic' })).toBe(
      'datasets.x.scale: must be one of tiny, small, paper, large, got "gigantic"',
    );
    expect(refusal({ domain: 'retail', variants: true })).toBe(
      'datasets.x.variants: must be a string such as "all", "full_sti,full_cti" or "random:4", got true',
    );
    expect(refusal({ domain: 'retail', counts: 'Product=5' })).toBe(
      'datasets.x.counts: must be an object {Entity: N}, got "Product=5"',
    );
    expect(refusal({ domain: 'retail', counts: { Product: 99999999999999999999 } })).toBe(
      'datasets.x.counts.Product: must be at most 10000000 objects per entity, got 100000000000000000000',
    );
    expect(refusal({ domain: 'retail', seed: 12345678901234567890 })).toBe(
      'datasets.x.seed: 12345678901234567000 is above 2^53-1 and was already rounded when the config was read; write the seed as a string',
    );
    expect(refusal({ domain: 'retail', seed: [[[1]]] })).toBe(
      'datasets.x.seed: must be an integer or 1 to 64 letters, digits or . _ : -, got an array',
    );
    expect(refusal({ domain: 'retail', profle: 'edge' })).toBe(
      'datasets.x["profle"]: unknown key (did you mean "profile"?)',
    );
    expect(refusal('retail')).toBe('datasets.x: must be an object {domain, scale, seed, …}, got "retail"');
  });

  it('does not take Object.prototype members for built-in domains', () => {
    expect(refusal({ domain: 'constructor' })).toBe(
      'datasets.x.domain: "constructor" is neither a built-in domain (social_media, retail) nor a JSON model file',
    );
  });

  it('reports a domain object under the dataset that holds it', () => {
    expect(refusal({ domain: {} })).toBe('datasets.x.domain: domain.name: must be a string, got nothing');
  });

  it('passes a well-formed definition through', () => {
    const definition = {
      domain: 'retail',
      scale: 'tiny',
      seed: 'a:1',
      profile: 'edge',
      counts: { Product: 5 },
      variants: 'all',
    };
    expect(validateDataset(definition, 'datasets.x')).toBe(definition);
  });
});

describe('--count with a number too large for memory', () => {
  it('exits 2 with one line naming the flag and the cap, writing nothing', () => {
    const tmp = tempDir('count');
    try {
      const out = join(tmp.dir, 'out');
      const run = runCli(
        ['build', '--dataset', 'social_media', '--count', 'Account=99999999999999999999', '--out', out],
        { env: { DATABASE_URL: undefined } },
      );
      expect(run.status).toBe(2);
      expect(run.stderr).toBe(
        'equisql build: --count Account: at most 10000000 objects per entity, got 99999999999999999999\n',
      );
      expect(existsSync(out)).toBe(false);
    } finally {
      tmp.remove();
    }
  }, 60_000);
});
