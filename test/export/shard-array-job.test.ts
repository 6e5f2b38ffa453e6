// @tier long
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runCliAsync } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import { command as generate } from '../../generator/cli/generate-command.ts';

// An array job's tasks are separate processes that learn their shard from the engine's
// variables (`--shard auto`), each writing its folder and a completion marker; one `merge`
// over a pattern of the folders gives the unsharded run's bytes. Four processes run as a
// Kubernetes Indexed Job (JOB_COMPLETION_INDEX 0…3) and again as a Slurm array
// (SLURM_ARRAY_TASK_ID 1…4, as `--array=1-4` sets it). Small by default; EQUISQL_ACCEPTANCE=1
// runs 60 groups.
const ACCEPTANCE = process.env['EQUISQL_ACCEPTANCE'] === '1';
const GROUPS = ACCEPTANCE ? '60' : '6';
const tmp = tempDir('shard-array-job');
afterAll(() => tmp.remove());
const env = {
  DATABASE_URL: undefined,
  JOB_COMPLETION_INDEX: undefined,
  SLURM_ARRAY_TASK_ID: undefined,
  AWS_BATCH_JOB_ARRAY_INDEX: undefined,
  CLOUD_RUN_TASK_INDEX: undefined,
  EQUISQL_SHARD_COUNT: undefined,
};
const RUN = ['--dataset', 'retail', '--variants', 'full_normalized,full_sti', '--scale', 'tiny', '--groups', GROUPS];

/** Every file of a run directory (the database and the lock aside), as bytes in hex; the manifest without its timings. */
function files(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (name === 'pglite' || name === '.equisql.lock') continue;
      if (statSync(path).isDirectory()) walk(path);
      else out[relative(dir, path)] = readFileSync(path).toString('hex');
    }
  };
  walk(dir);
  const m = JSON.parse(Buffer.from(out['manifest.json'] as string, 'hex').toString('utf8'));
  delete m.timings;
  out['manifest.json'] = JSON.stringify(m);
  return out;
}

function expectSame(got: Record<string, string>, want: Record<string, string>): void {
  expect(Object.keys(got).sort()).toEqual(Object.keys(want).sort());
  for (const [rel, bytes] of Object.entries(want)) expect(got[rel] === bytes, rel).toBe(true);
}

/** A folder holding only the build of `from` (each task would build the same bytes itself). */
function builtCopy(from: string, to: string): string {
  for (const f of ['build.json', 'er.json', 'schemas', 'dumps', 'edge', 'pglite'])
    cpSync(join(from, f), join(to, f), { recursive: true });
  return to;
}

const unsharded = join(tmp.dir, 'unsharded');

/** Four tasks at once, each its own process, told only its engine's variables. */
async function arrayJob(
  folder: string,
  taskEnv: (task: number) => Record<string, string>,
  shardFlags: readonly string[],
): Promise<void> {
  mkdirSync(join(tmp.dir, folder));
  const dirs = [0, 1, 2, 3].map((t) => builtCopy(unsharded, join(tmp.dir, folder, `task-${t}`)));
  const runs = await Promise.all(
    dirs.map((dir, t) =>
      runCliAsync(['generate', ...RUN, ...shardFlags, '--out', dir], { env: { ...env, ...taskEnv(t) } }),
    ),
  );
  for (const [t, r] of runs.entries()) {
    expect(r.status, r.stderr).toBe(0);
    const done = JSON.parse(readFileSync(join(dirs[t] as string, 'shard.done'), 'utf8'));
    const state = JSON.parse(readFileSync(join(dirs[t] as string, 'shard.json'), 'utf8'));
    // The marker names the shard its task's variables gave, and seals the candidates as closed.
    expect(done.shard).toEqual({ index: t + 1, count: 4 });
    expect(done.seals).toEqual(state.seals);
    expect(Object.keys(done.seals)).toEqual(['shard/retail.candidates.jsonl']);
  }
}

beforeAll(async () => {
  const lines: string[] = [];
  const io = { out: () => {}, err: (t: string) => void lines.push(t), readStdin: async () => '', env };
  expect(await generate.run([...RUN, '--out', unsharded], io), lines.join('\n')).toBe(0);
  // As docs/scale-out.md's manifest runs it: --resume on a folder holding only the build starts the shard.
  await arrayJob('k8s', (t) => ({ JOB_COMPLETION_INDEX: String(t), EQUISQL_SHARD_COUNT: '4' }), [
    '--shard',
    'auto',
    '--resume',
  ]);
  await arrayJob(
    'slurm',
    (t) => ({
      SLURM_ARRAY_TASK_ID: String(t + 1),
      SLURM_ARRAY_TASK_MIN: '1',
      SLURM_ARRAY_TASK_MAX: '4',
      SLURM_ARRAY_TASK_COUNT: '4',
    }),
    ['--shard', 'auto'],
  );
}, 600_000);

describe('shards of an array job', () => {
  it('four Kubernetes Indexed Job tasks merged from a pattern are the unsharded run, byte for byte', () => {
    const merged = join(tmp.dir, 'k8s-merged');
    const r = runCli(['merge', '--out', merged, join(tmp.dir, 'k8s', 'task-*')], { env });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`merge: ${GROUPS} groups, \\d+ rows into `, 'u'));
    expectSame(files(merged), files(unsharded));
  }, 300_000);

  it('four Slurm array tasks (--array=1-4) merged from a pattern are the unsharded run, byte for byte', () => {
    const merged = join(tmp.dir, 'slurm-merged');
    const r = runCli(['merge', '--out', merged, join(tmp.dir, 'slurm', 'task-?')], { env });
    expect(r.status, r.stderr).toBe(0);
    expectSame(files(merged), files(unsharded));
  }, 300_000);

  it('a finished task run again (a retried pod, with --resume) leaves its candidates and marker as they were', () => {
    const dir = join(tmp.dir, 'slurm', 'task-2');
    const before = ['shard/retail.candidates.jsonl', 'shard.done'].map((f) => readFileSync(join(dir, f), 'utf8'));
    const r = runCli(['generate', ...RUN, '--shard', 'auto', '--resume', '--out', dir], {
      env: {
        ...env,
        SLURM_ARRAY_TASK_ID: '3',
        SLURM_ARRAY_TASK_MIN: '1',
        SLURM_ARRAY_TASK_MAX: '4',
        SLURM_ARRAY_TASK_COUNT: '4',
      },
    });
    expect(r.status, r.stderr).toBe(0);
    expect(['shard/retail.candidates.jsonl', 'shard.done'].map((f) => readFileSync(join(dir, f), 'utf8'))).toEqual(
      before,
    );
  }, 120_000);

  it('refuses a pattern with a shard missing, a shard without its marker, and a pattern matching nothing, each in one line naming it', () => {
    const out = join(tmp.dir, 'refused');
    const refusal = (operands: readonly string[]): string => {
      const r = runCli(['merge', '--out', out, ...operands], { env });
      expect(r.status).toBe(2);
      expect(r.stderr.trim()).not.toContain('\n');
      expect(existsSync(out)).toBe(false);
      return r.stderr.trim();
    };
    // Shard 3 (task 2) never reached the shared folder.
    expect(refusal([join(tmp.dir, 'k8s', 'task-[013]')])).toMatch(
      /^equisql merge: shard 3\/4 missing \(given: 1\/4, 2\/4, 4\/4\)$/u,
    );
    // A task killed before its marker: the folder has its candidates but is not complete.
    const partial = join(tmp.dir, 'partial');
    cpSync(join(tmp.dir, 'k8s'), partial, { recursive: true });
    rmSync(join(partial, 'task-1', 'shard.done'));
    expect(refusal([join(partial, 'task-*')])).toBe(
      `equisql merge: shard 2/4 in ${join(partial, 'task-1')} is incomplete: no completion marker shard.done (its task did not finish: rerun its generate command with --resume)`,
    );
    // The same shard twice (two runs' folders in one pattern).
    expect(
      refusal([join(tmp.dir, 'k8s', 'task-0'), join(tmp.dir, 'slurm', 'task-0'), join(tmp.dir, 'k8s', 'task-[123]')]),
    ).toMatch(/shard 1\/4 is given twice/u);
    expect(refusal([join(tmp.dir, 'k8s', 'nothing-*')])).toBe(
      `equisql merge: ${join(tmp.dir, 'k8s', 'nothing-*')} matches no directory`,
    );
  }, 120_000);

  it("without an engine's variables --shard auto is refused in one line before anything is written", () => {
    const dir = join(tmp.dir, 'no-engine');
    const r = runCli(['generate', ...RUN, '--shard', 'auto/4', '--out', dir], { env });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      /^equisql generate: --shard auto: no array-job index in the environment .*give --shard i\/N\n$/u,
    );
    expect(existsSync(dir)).toBe(false);
  });
});
