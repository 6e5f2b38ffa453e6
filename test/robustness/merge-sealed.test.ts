// @tier long
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import { copyDir, expectRefused, generateTiny, NO_SERVER, VARIANTS } from './stage-dirs.ts';

// Findings 18 and 19 of issue 16 for sharded runs: a shard's candidates file changed after the
// shard closed it (a group's SQL set to SELECT 42, a line deleted, two lines swapped) was
// merged, or refused with advice that cannot help ("continue shard 1 with --resume and a
// larger --shard-margin"); a file where merge expects a directory ended in exit 3.
const tmp = tempDir('merge-sealed');
afterAll(() => tmp.remove());
const shards = [join(tmp.dir, 's1'), join(tmp.dir, 's2')];
const CANDIDATES = 'shard/social_media.candidates.jsonl';
let suite = '';

beforeAll(() => {
  // A finished run's build, copied into each shard directory so the shards reuse it.
  const whole = join(tmp.dir, 'whole');
  suite = generateTiny(tmp.dir, whole);
  for (const [i, dir] of shards.entries()) {
    for (const f of ['build.json', 'er.json', 'schemas', 'dumps', 'edge', 'pglite'])
      copyDir(join(whole, f), join(dir, f));
    const run = runCli(
      [
        'generate',
        '--dataset',
        'social_media',
        '--variants',
        VARIANTS,
        '--scale',
        'tiny',
        '--from-suite',
        suite,
        '--shard',
        `${i + 1}/2`,
        '--out',
        dir,
      ],
      { env: NO_SERVER },
    );
    expect(run.status, run.stderr).toBe(0);
  }
  const merged = runCli(['merge', '--out', join(tmp.dir, 'merged'), ...shards], { env: NO_SERVER });
  expect(merged.stderr).toMatch(/merge: \d+ groups, \d+ rows into /u);
}, 600_000);

const lines = (dir: string): string[] =>
  readFileSync(join(dir, CANDIDATES), 'utf8')
    .split(/(?<=\n)/u)
    .filter((l) => l !== '');
let merges = 0;
const merge = (...dirs: string[]) =>
  runCli(['merge', '--out', join(tmp.dir, `out-${++merges}`), ...dirs], { env: NO_SERVER });

describe("finding 18: a shard's candidates file changed after the shard closed it", () => {
  it("a group's SQL set to SELECT 42 inside a candidate outcome is refused by merge, naming the file", () => {
    const dir = copyDir(shards[1] as string, join(tmp.dir, 'select-42'));
    const ls = lines(dir);
    const k = ls.findIndex((l) => (JSON.parse(l).attempts as { group?: unknown }[]).some((a) => a.group !== undefined));
    expect(k).toBeGreaterThanOrEqual(0);
    const outcome = JSON.parse(ls[k] as string);
    const attempt = outcome.attempts.find((a: { group?: unknown }) => a.group !== undefined);
    const group = JSON.parse(attempt.group.line);
    for (const v of Object.values(group.variants) as { sql: string }[]) v.sql = 'SELECT 42';
    attempt.group.line = `${JSON.stringify(group)}\n`;
    ls[k] = `${JSON.stringify(outcome)}\n`;
    writeFileSync(join(dir, CANDIDATES), ls.join(''));
    const out = join(tmp.dir, 'merged-42');
    const run = runCli(['merge', '--out', out, shards[0] as string, dir], { env: NO_SERVER });
    expectRefused(
      run,
      /^equisql merge: .*select-42\/shard\/social_media\.candidates\.jsonl differs from its seal in .*select-42\/shard\.json \(.*\): it was changed after its stage wrote it \(run shard 2\/2 again into a new --out\)$/u,
    );
    expect(existsSync(out)).toBe(false);
  }, 120_000);
});

describe('finding 19: advice that fits, and a file where a directory is expected', () => {
  it('a missing or swapped candidates line is refused as a changed file, not as a shard to continue with a larger margin', () => {
    const dir = copyDir(shards[0] as string, join(tmp.dir, 'missing-line'));
    const ls = lines(dir);
    expect(ls.length).toBeGreaterThanOrEqual(3);
    writeFileSync(join(dir, CANDIDATES), [ls[0], ...ls.slice(2)].join(''));
    const missing = merge(dir, shards[1] as string);
    expectRefused(missing, /candidates\.jsonl differs from its seal .*\(run shard 1\/2 again into a new --out\)$/u);
    expect(missing.stderr).not.toMatch(/shard-margin/u);
    // Without the seal (a shard.json and its marker edited too), the lines out of the shard's order are named.
    const state = JSON.parse(readFileSync(join(dir, 'shard.json'), 'utf8'));
    delete state.seals;
    writeFileSync(join(dir, 'shard.json'), JSON.stringify(state));
    writeFileSync(
      join(dir, 'shard.done'),
      JSON.stringify({ ...JSON.parse(readFileSync(join(dir, 'shard.done'), 'utf8')), seals: {} }),
    );
    expectRefused(
      merge(dir, shards[1] as string),
      /^equisql merge: .*candidates\.jsonl:2: candidate 4 where shard 1\/2's candidate 2 belongs \(a line deleted, moved or copied after the shard wrote it\): run the shard again into a new --out$/u,
    );
    writeFileSync(join(dir, CANDIDATES), [ls[1], ls[0], ...ls.slice(2)].join(''));
    const swapped = merge(dir, shards[1] as string);
    expectRefused(
      swapped,
      /^equisql merge: .*candidates\.jsonl:1: candidate 2 where shard 1\/2's candidate 0 belongs/u,
    );
    expect(swapped.stderr).not.toMatch(/shard-margin/u);
  }, 120_000);

  it('merge with a file as --out, as its parent, or as a shard: one line, exit 2, nothing written', () => {
    const file = join(tmp.dir, 'a-file');
    writeFileSync(file, 'not a directory\n');
    expectRefused(
      runCli(['merge', '--out', file, ...shards], { env: NO_SERVER }),
      /^equisql merge: --out .*a-file: a file, not a directory \(merge writes a new directory\)$/u,
    );
    expectRefused(
      runCli(['merge', '--out', join(file, 'merged'), ...shards], { env: NO_SERVER }),
      /^equisql merge: --out .*a-file\/merged: .*a-file is a file, not a directory$/u,
    );
    expectRefused(
      runCli(['merge', '--out', join(tmp.dir, 'never'), shards[0] as string, file], { env: NO_SERVER }),
      /^equisql merge: .*a-file: a file, not a shard directory/u,
    );
    expect(existsSync(join(tmp.dir, 'never'))).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe('not a directory\n');
  }, 120_000);
});
