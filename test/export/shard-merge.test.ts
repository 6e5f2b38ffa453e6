// @tier long
import { cpSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sealFile } from '../../generator/common/file-seal.ts';
import { runCli } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import { PAPER_SOCIAL_MEDIA } from '../../generator/suites/paper-social-media.ts';
import { command as generate } from '../../generator/cli/generate-command.ts';
import { command as merge } from '../../generator/cli/merge-command.ts';
import { ConfigError } from '../../generator/common/errors.ts';

// N shard runs merged must be the unsharded run, byte for byte: the groups (which the merge
// decides by replaying every shard's candidates: duplicates across shards, difficulty quotas,
// where the run stops), the questions, the JSONL and Parquet files, the fine-tuning files,
// the card, the build, and the manifest but for its timings.
// The commands run in this process (a child per run costs seconds on a loaded machine); the
// exit status and one-line message of a refusal are checked once through the real CLI.
const tmp = tempDir('shard-merge');
afterAll(() => tmp.remove());
const env = { ...process.env, DATABASE_URL: undefined };
// The dataset's own difficulty mix applies (datasets.config.ts), so quotas are replayed too.
const SAMPLED = [
  '--dataset',
  'social_media',
  '--variants',
  'full_normalized,full_sti',
  '--scale',
  'tiny',
  '--groups',
  '6',
];
const suite = join(tmp.dir, 'suite.jsonl');
const FROM_SUITE = [
  '--dataset',
  'social_media',
  '--variants',
  'full_normalized,full_sti',
  '--scale',
  'tiny',
  '--from-suite',
  suite,
];

/** Every file of a run directory (the database and the lock aside), as bytes in hex. */
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
  expect(m.timings.total_seconds).toBeGreaterThan(0);
  delete m.timings;
  out['manifest.json'] = JSON.stringify(m);
  return out;
}

function expectSame(got: Record<string, string>, want: Record<string, string>): void {
  expect(Object.keys(got).sort()).toEqual(Object.keys(want).sort());
  for (const [rel, bytes] of Object.entries(want)) expect(got[rel] === bytes, rel).toBe(true);
}

/** Runs `equisql generate|merge …` in this process: its exit status and stderr lines; a refusal throws. */
async function run([name, ...args]: readonly string[]): Promise<{ status: number; stderr: string }> {
  const lines: string[] = [];
  const io = { out: () => {}, err: (t: string) => void lines.push(t), readStdin: async () => '', env };
  const status = await (name === 'merge' ? merge : generate).run(args, io);
  return { status, stderr: lines.join('\n') };
}

/** A directory holding only the build of `from`: what a run finds after its build stage. */
function builtCopy(from: string, to: string): string {
  for (const f of ['build.json', 'er.json', 'schemas', 'dumps', 'edge', 'pglite'])
    cpSync(join(from, f), join(to, f), { recursive: true });
  return to;
}

const unsharded = join(tmp.dir, 'unsharded');
const shards = [join(tmp.dir, 's1'), join(tmp.dir, 's2')];
beforeAll(async () => {
  writeFileSync(
    suite,
    PAPER_SOCIAL_MEDIA.slice(0, 4)
      .map((q) => JSON.stringify({ id: q.id, query: q.query, question: q.question }))
      .join('\n') + '\n',
  );
  const whole = await run(['generate', ...SAMPLED, '--out', unsharded]);
  expect(whole.stderr).toMatch(/6 groups from \d+ candidates/u);
  expect(whole.status).toBe(0);
  // Progress off a terminal: a plain line at the end of each stage (and every 10 s between).
  expect(whole.stderr).toMatch(/^groups: 6\/6 groups in \d+:\d\d$/mu);
  expect(whole.stderr).toMatch(/^questions: 6\/6 groups in \d+:\d\d$/mu);
  expect(whole.stderr).toMatch(/^export: (\d+)\/\1 rows in \d+:\d\d$/mu);
  for (const [i, dir] of shards.entries()) {
    builtCopy(unsharded, dir);
    const r = await run(['generate', ...SAMPLED, '--shard', `${i + 1}/2`, '--out', dir]);
    expect(r.stderr).toMatch(/reusing the default build/u);
    expect(r.stderr).toMatch(new RegExp(`shard ${i + 1}/2: \\d+ candidates decided`, 'u'));
    expect(r.status).toBe(0);
    // A shard writes its candidates, not the stages after them.
    expect(existsSync(join(dir, 'shard', 'social_media.candidates.jsonl'))).toBe(true);
    expect(existsSync(join(dir, 'groups'))).toBe(false);
  }
}, 300_000);

describe('equisql merge', () => {
  it('joins two shards of a sampled run (quotas, duplicates, stopping point) into the unsharded run, byte for byte', async () => {
    const merged = join(tmp.dir, 'merged');
    // Given in the other order: the merge orders shards by their index, not by the command line.
    const r = await run(['merge', '--out', merged, shards[1] as string, shards[0] as string]);
    expect(r.stderr).toMatch(/merge: 6 groups, \d+ rows into /u);
    expect(r.status).toBe(0);
    const want = files(unsharded);
    expect(Object.keys(want)).toEqual(
      expect.arrayContaining([
        'groups/social_media.jsonl',
        'rejections.jsonl',
        'questions/social_media.jsonl',
        'data/train-00000-of-00001.parquet',
        'finetune/train.chat.jsonl',
        'README.md',
        'edge/build.json',
        '.run.json',
      ]),
    );
    expectSame(files(merged), want);
    // The shards did the unsharded run's candidates between them, each its own residue.
    const decided = shards.map((d) =>
      readFileSync(join(d, 'shard', 'social_media.candidates.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).candidate as number),
    );
    decided.forEach((cs, i) => expect(cs.every((c) => c % 2 === i)).toBe(true));
    const manifest = JSON.parse(readFileSync(join(unsharded, 'manifest.json'), 'utf8'));
    const covered = new Set(decided.flat());
    for (let c = 0; c < manifest.counts.candidates; c++) expect(covered.has(c), `candidate ${c}`).toBe(true);
    // The merged directory keeps the database (the build.json files name it relative to DIR):
    // verify finds it as in the unsharded one.
    expect(runCli(['verify', '--dir', merged], { env }).status).toBe(0);
    // Through the CLI, whose stderr here is a pipe: the export's progress as a plain line.
    const again = runCli(['export', '--dir', merged], { env });
    expect(again.status).toBe(0);
    expect(again.stderr).toMatch(/^export: (\d+)\/\1 rows in \d+:\d\d$/mu);
    expect(again.stderr).not.toContain('\r');
    expectSame(files(merged), want);
  }, 300_000);

  it('joins three shards of a suite run into the unsharded run, byte for byte', async () => {
    const whole = builtCopy(unsharded, join(tmp.dir, 'suite-whole'));
    // Some paper queries fail the checks on these variants: the run ends short of its target
    // (exit 1), and so does the merge, with the same files.
    const unshardedRun = await run(['generate', ...FROM_SUITE, '--out', whole]);
    expect(unshardedRun.stderr).toMatch(/export: \d+ rows/u);
    const parts: string[] = [];
    for (const i of [1, 2, 3]) {
      const dir = builtCopy(unsharded, join(tmp.dir, `suite-${i}`));
      expect((await run(['generate', ...FROM_SUITE, '--shard', `${i}/3`, '--out', dir])).status).toBe(0);
      parts.push(dir);
    }
    const merged = join(tmp.dir, 'suite-merged');
    const r = await run(['merge', '--out', merged, ...parts]);
    expect(r.stderr).toMatch(/merge: \d+ groups, \d+ rows into /u);
    expect(r.status).toBe(unshardedRun.status);
    expectSame(files(merged), files(whole));
  }, 300_000);

  it('refuses a missing shard, a shard given twice, shards of other settings, an unfinished or short shard, and a non-empty --out, each with one line', async () => {
    const [s1, s2] = shards as [string, string];
    const out = join(tmp.dir, 'refused');
    const refused = async (args: readonly string[], message: RegExp): Promise<void> => {
      const error = await run(['merge', '--out', out, ...args]).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).not.toContain('\n');
      expect(existsSync(join(out, 'groups'))).toBe(false);
    };
    await refused([s1], /shard 2\/2 missing/u);
    await refused([s1, s1], /shard 1\/2 is given twice/u);
    // Another seed: the shard's recorded settings differ.
    const other = join(tmp.dir, 'other-seed');
    cpSync(s2, other, { recursive: true });
    const state = JSON.parse(readFileSync(join(other, 'shard.json'), 'utf8'));
    writeFileSync(join(other, 'shard.json'), JSON.stringify({ ...state, settings: { ...state.settings, seed: 2 } }));
    await refused([s1, other], /other-seed was generated with seed 2, but .* with 1/u);
    writeFileSync(join(other, 'shard.json'), JSON.stringify({ ...state, complete: false }));
    await refused([s1, other], /shard 2\/2 in .* is unfinished: rerun its generate command with --resume/u);
    // Lines cut off a shard's sealed candidates file: changed after the shard closed it.
    writeFileSync(join(other, 'shard.json'), JSON.stringify(state));
    const path = join(other, 'shard', 'social_media.candidates.jsonl');
    writeFileSync(path, `${readFileSync(path, 'utf8').split('\n')[0]}\n`);
    await refused(
      [s1, other],
      /candidates\.jsonl differs from its seal in .*shard\.json \(1 line, .*\(run shard 2\/2 again into a new --out\)$/u,
    );
    // A shard that stopped before a candidate the merged run needs (its file as it closed it).
    const resealed = { 'shard/social_media.candidates.jsonl': sealFile(path) };
    writeFileSync(join(other, 'shard.json'), JSON.stringify({ ...state, seals: resealed }));
    // Its marker still seals the file as the shard closed it.
    await refused(
      [s1, other],
      /other-seed\/shard\.done does not match .*other-seed\/shard\.json .*: run shard 2\/2 again into a new --out$/u,
    );
    writeFileSync(
      join(other, 'shard.done'),
      JSON.stringify({ ...JSON.parse(readFileSync(join(other, 'shard.done'), 'utf8')), seals: resealed }),
    );
    await refused(
      [s1, other],
      /the run needs candidate 3, but shard 2\/2 .* stopped after candidate 1: continue shard 2 with its generate command plus --resume and a larger --shard-margin/u,
    );
    // Through the CLI: exit status 2 and one line, and the directory it would merge into untouched.
    const cli = runCli(['merge', '--out', unsharded, s1, s2], { env });
    expect(cli.status).toBe(2);
    expect(cli.stderr).toMatch(/^equisql merge: --out .* is not empty \(merge writes a new directory\)\n$/u);
  }, 120_000);

  it('a shard resumed after losing its last lines writes the same candidates file; --resume refuses another shard or another setting', async () => {
    const s1 = shards[0] as string;
    const copy = join(tmp.dir, 's1-resumed');
    cpSync(s1, copy, { recursive: true });
    const path = join(copy, 'shard', 'social_media.candidates.jsonl');
    const whole = readFileSync(path, 'utf8');
    const lines = whole.split('\n');
    // Half the lines and an unfinished one, as a kill leaves them (the shard unfinished, nothing sealed yet).
    writeFileSync(path, `${lines.slice(0, Math.floor(lines.length / 2)).join('\n')}\n{"candidate":`);
    const state = JSON.parse(readFileSync(join(copy, 'shard.json'), 'utf8'));
    delete state.seals;
    writeFileSync(join(copy, 'shard.json'), JSON.stringify({ ...state, complete: false }));
    await expect(run(['generate', ...SAMPLED, '--shard', '1/2', '--out', copy])).rejects.toThrow(
      /holds a run already; pass --resume to continue it/u,
    );
    const r = await run(['generate', ...SAMPLED, '--shard', '1/2', '--resume', '--out', copy]);
    expect(r.status, r.stderr).toBe(0);
    expect(readFileSync(path, 'utf8')).toBe(whole);
    await expect(run(['generate', ...SAMPLED, '--shard', '2/2', '--resume', '--out', copy])).rejects.toThrow(
      /holds shard 1\/2, not shard 2\/2/u,
    );
    await expect(run(['generate', ...SAMPLED, '--resume', '--out', copy])).rejects.toThrow(
      /holds shard 1\/2, not an unsharded run/u,
    );
    await expect(
      run(['generate', ...SAMPLED, '--seed', '5', '--shard', '1/2', '--resume', '--out', copy]),
    ).rejects.toThrow(
      new ConfigError(
        `generate: --resume: ${copy} was generated with seed 1, not 5; resume with the same settings or choose another --out`,
      ),
    );
  }, 120_000);
});
