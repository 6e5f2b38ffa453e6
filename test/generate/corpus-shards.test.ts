// @tier long
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCliAsync, runMain } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/build-fixtures.ts';

// A corpus run split over an array job's tasks by whole databases (`generate --corpus …
// --shard auto`), each task its own process told only its engine's variables, then one
// `merge` of the folders by a pattern: the unsharded corpus run's files, byte for byte (every
// manifest without its timings, PGlite's own files aside, as for one dataset's shards).
const tmp = tempDir('corpus-shards');
afterAll(() => tmp.remove());
const env = {
  DATABASE_URL: undefined,
  JOB_COMPLETION_INDEX: undefined,
  SLURM_ARRAY_TASK_ID: undefined,
  SLURM_ARRAY_TASK_COUNT: undefined,
  SLURM_ARRAY_TASK_MIN: undefined,
  SLURM_ARRAY_TASK_MAX: undefined,
  SLURM_ARRAY_TASK_STEP: undefined,
  AWS_BATCH_JOB_ARRAY_INDEX: undefined,
  CLOUD_RUN_TASK_INDEX: undefined,
  EQUISQL_SHARD_COUNT: undefined,
};
const LIBRARY = join(REPO_ROOT, 'test/fixtures/er-model/valid/library.json');
const list = join(tmp.dir, 'three.json');
const RUN = ['--corpus', list, '--groups', '2', '--scale', 'tiny', '--variants', 'full_sti,full_cti'];
const EXPORT = ['--split', 'database', '--formats', 'jsonl'];

/** Every file of a run directory (PGlite's and the lock aside), as hex; each manifest without its timings. */
function files(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (name === 'pglite' || name === '.equisql.lock') continue;
      if (statSync(path).isDirectory()) walk(path);
      else if (name === 'manifest.json') {
        const m = JSON.parse(readFileSync(path, 'utf8'));
        delete m.timings;
        out[relative(dir, path)] = JSON.stringify(m);
      } else out[relative(dir, path)] = readFileSync(path).toString('hex');
    }
  };
  walk(dir);
  return out;
}

const single = join(tmp.dir, 'single');

/** The tasks at once, each its own process. */
async function arrayJob(folder: string, tasks: number, taskEnv: (task: number) => Record<string, string>) {
  const dirs = Array.from({ length: tasks }, (_, t) => join(tmp.dir, folder, `task-${t}`));
  const runs = await Promise.all(
    dirs.map((dir, t) =>
      runCliAsync(['generate', ...RUN, ...EXPORT, '--shard', 'auto', '--out', dir], {
        env: { ...env, ...taskEnv(t) },
      }),
    ),
  );
  for (const r of runs) expect(r.status, r.stderr.slice(-2000)).toBe(0);
  return dirs;
}

describe('generate --corpus --shard auto, then merge', () => {
  beforeAll(async () => {
    writeFileSync(list, JSON.stringify(['retail', 'social_media', LIBRARY]));
    const run = await runMain(['generate', ...RUN, ...EXPORT, '--out', single], { env });
    expect(run.status, run.stderr.slice(-2000)).toBe(0);
  }, 300_000);

  it('two Kubernetes tasks each run whole databases, and the merge is the unsharded run', async () => {
    const dirs = await arrayJob('k8s', 2, (t) => ({ JOB_COMPLETION_INDEX: String(t), EQUISQL_SHARD_COUNT: '2' }));
    // Databases 0 and 2 in the first task, 1 in the second; no export in either.
    expect(readdirSync(join(dirs[0] as string, 'databases')).sort()).toEqual(['library', 'retail']);
    expect(readdirSync(join(dirs[1] as string, 'databases'))).toEqual(['social_media']);
    expect(existsSync(join(dirs[0] as string, 'data'))).toBe(false);
    const out = join(tmp.dir, 'k8s-merged');
    const merged = await runMain(['merge', ...EXPORT, '--out', out, join(tmp.dir, 'k8s', 'task-*')], { env });
    expect(merged.status, merged.stderr).toBe(0);
    expect(merged.stderr).toMatch(/merge: 6 groups, \d+ rows into /u);
    const want = files(single);
    const got = files(out);
    expect(Object.keys(got).sort()).toEqual(Object.keys(want).sort());
    for (const [rel, bytes] of Object.entries(want)) expect(got[rel] === bytes, rel).toBe(true);
    expect((await runMain(['check', '--dir', out])).status).toBe(0);
    // A shard run with another scale is not of this run: merge names the flag.
    const state = JSON.parse(readFileSync(join(dirs[1] as string, 'corpus-shard.json'), 'utf8'));
    expect(state.run).toMatchObject({ scale: 'tiny', groups: '2', variants: 'full_sti,full_cti' });
    writeFileSync(
      join(dirs[1] as string, 'corpus-shard.json'),
      JSON.stringify({ ...state, run: { ...state.run, scale: 'small' } }),
    );
    const other = await runMain(['merge', ...EXPORT, '--out', join(tmp.dir, 'k8s-other'), ...dirs], { env });
    expect(other.status).toBe(2);
    expect(other.stderr).toMatch(
      /^equisql merge: .*task-1 was generated with scale "small", but .*task-0 with "tiny"\n$/u,
    );
  }, 300_000);

  it('three Slurm tasks (--array=1-3) merge to the same bytes; a missing or unfinished shard is refused naming it', async () => {
    const dirs = await arrayJob('slurm', 3, (t) => ({
      SLURM_ARRAY_TASK_ID: String(t + 1),
      SLURM_ARRAY_TASK_COUNT: '3',
      SLURM_ARRAY_TASK_MIN: '1',
      SLURM_ARRAY_TASK_MAX: '3',
    }));
    const out = join(tmp.dir, 'slurm-merged');
    const missing = await runMain(['merge', ...EXPORT, '--out', out, dirs[0] as string, dirs[2] as string], { env });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/^equisql merge: shard 2\/3 of corpus three missing \(given: 1\/3, 3\/3\)\n$/u);
    rmSync(join(dirs[1] as string, 'shard.done'));
    const unfinished = await runMain(['merge', ...EXPORT, '--out', out, join(tmp.dir, 'slurm', 'task-*')], { env });
    expect(unfinished.status).toBe(2);
    expect(unfinished.stderr).toMatch(/merge: shard 2\/3 in .*task-1 is incomplete: no completion marker shard\.done/u);
    expect(existsSync(out)).toBe(false);
    // Its task resumed finishes at once and marks it complete.
    const resumed = await runCliAsync(
      ['generate', ...RUN, ...EXPORT, '--shard', '2/3', '--resume', '--out', dirs[1] as string],
      { env },
    );
    expect(resumed.status, resumed.stderr).toBe(0);
    const merged = await runMain(['merge', ...EXPORT, '--out', out, join(tmp.dir, 'slurm', 'task-*')], { env });
    expect(merged.status, merged.stderr).toBe(0);
    const want = files(single);
    const got = files(out);
    for (const [rel, bytes] of Object.entries(want)) expect(got[rel] === bytes, rel).toBe(true);
  }, 300_000);

  it('a shard that would run no database is refused before anything is built', async () => {
    const out = join(tmp.dir, 'none');
    const run = await runMain(['generate', ...RUN, '--shard', '4/4', '--out', out], { env });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(
      /^equisql generate: --corpus three has 3 databases: shard 4\/4 would run none \(use at most 3 shards\)\n$/u,
    );
    expect(existsSync(out)).toBe(false);
  });
});
