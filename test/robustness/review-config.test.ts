import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../generator/common/errors.ts';
import { loadConfig, resolveDataset } from '../../generator/config/load-config.ts';
import { REPO_ROOT, runCli } from '../helpers/run-cli.ts';

describe('the shipped config and the generation keys of a dataset', () => {
  it('every dataset of datasets.config.ts resolves, difficulty and tail included', async () => {
    const { config, path } = await loadConfig(undefined, REPO_ROOT);
    const names = Object.keys(config.datasets);
    expect(names).toContain('retail');
    for (const name of names) {
      const resolved = resolveDataset(name, config, path, REPO_ROOT);
      expect(resolved.name).toBe(name);
    }
    expect(config.datasets['retail']?.difficulty).toBeDefined();
  });

  it('malformed difficulty and tail are refused in one line naming the key', () => {
    const refusal = (definition: unknown): string => {
      try {
        resolveDataset('x', { datasets: { x: definition } } as never, `${REPO_ROOT}/datasets.config.ts`, REPO_ROOT);
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        // A dataset's fields are named after the config file that holds them.
        const prefix = `${REPO_ROOT}/datasets.config.ts: `;
        expect((error as Error).message.startsWith(prefix)).toBe(true);
        return (error as Error).message.slice(prefix.length);
      }
      throw new Error('expected a refusal');
    };
    expect(refusal({ domain: 'retail', tail: 2 })).toBe('datasets.x.tail: must be a share between 0 and 1, got 2');
    expect(refusal({ domain: 'retail', difficulty: { easy: -1 } })).toBe(
      'datasets.x.difficulty.easy: must be a share between 0 and 1, got -1',
    );
    expect(refusal({ domain: 'retail', difficulty: { trivial: 1 } })).toBe(
      'datasets.x.difficulty["trivial"]: unknown level (expected one of easy, medium, hard, extra)',
    );
    expect(refusal({ domain: 'retail', difficulty: 'easy' })).toBe(
      'datasets.x.difficulty: must be an object {easy, medium, hard, extra} of shares, got "easy"',
    );
  });
});

describe('equisql run --timeout', () => {
  it('says what it accepts in words that match what it refuses', () => {
    const run = runCli(['run', '--dir', '/nonexistent', '--variant', 'v', '--timeout', '0', 'SELECT 1']);
    expect(run.status).toBe(2);
    expect(run.stderr.trim()).toBe('equisql run: --timeout: expected seconds above 0 and at most 86400, got "0"');
  });
});
