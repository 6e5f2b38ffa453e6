import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/build-fixtures.ts';
import { runMain } from '../helpers/run-cli.ts';

// Bad input is refused before anything is built, opened or written: the run's directory
// does not come into being, and the one line names what was wrong.
const tmp = tempDir('refuse-first');
afterAll(() => tmp.remove());
const NO_SERVER = { DATABASE_URL: undefined };

describe('generate refuses bad names before it builds', () => {
  const cases: [string, string[], RegExp][] = [
    [
      'a variant name',
      ['--dataset', 'social_media', '--variants', 'full_sti,ful_cti'],
      /^equisql generate: --variants: unknown variant "ful_cti" \(presets: full_sti, /u,
    ],
    [
      'a dataset name',
      ['--dataset', 'social_medai'],
      /^equisql generate: --dataset: unknown dataset "social_medai" \(known: social_media, /u,
    ],
    ['a scale', ['--dataset', 'social_media', '--scale', 'huge'], /^equisql generate: --scale must be one of /u],
    [
      'a shard',
      ['--dataset', 'social_media', '--shard', '3/2'],
      /^equisql generate: --shard expects i\/N with 1 ≤ i ≤ N, got "3\/2"/u,
    ],
    [
      'a grammar file',
      ['--dataset', 'social_media', '--grammar', 'no-such-grammar'],
      /^equisql generate: --grammar: no file no-such-grammar and no grammars\/no-such-grammar\.pcfg/u,
    ],
  ];
  for (const [what, args, message] of cases) {
    it(`${what}: exit 2, one line, and no directory written`, async () => {
      const out = join(tmp.dir, what.replaceAll(' ', '-'));
      const scale = args.includes('--scale') ? [] : ['--scale', 'tiny'];
      const run = await runMain(['generate', ...args, ...scale, '--groups', '2', '--out', out], { env: NO_SERVER });
      expect(run.status, run.stderr).toBe(2);
      expect(run.stderr.split('\n').filter((l) => l !== '')).toHaveLength(1);
      expect(run.stderr).toMatch(message);
      expect(existsSync(out)).toBe(false);
    });
  }
});
