// @tier long
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMain } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import { sealFiles, updateSeals } from '../../generator/common/file-seal.ts';
import {
  copyDir,
  expectRefused,
  generateArgs,
  generateTiny,
  killWhen,
  NO_SERVER,
  sizeOf,
  snapshot,
  widen,
} from './stage-dirs.ts';

// Findings 18 and 22 of issue 16: stage files were trusted as they lay. A group's SQL set to
// `SELECT 42`, a repeated group or question line, a middle line deleted, a build swapped in
// under finished groups, a questions file a crashed run left half-written: each must be
// refused by the next stage, `check` and `--resume`, naming the file, in one line (exit 2),
// changing nothing.
const tmp = tempDir('sealed');
afterAll(() => tmp.remove());
const reference = join(tmp.dir, 'reference');
const wide = join(tmp.dir, 'wide');
let suite = '';
let refFiles: Record<string, string>;
let wideFiles: Record<string, string>;
const GROUPS = 'groups/social_media.jsonl';
const QUESTIONS = 'questions/social_media.jsonl';

beforeAll(async () => {
  suite = generateTiny(tmp.dir, reference);
  refFiles = snapshot(reference);
  copyDir(reference, wide);
  widen(wide, 300);
  wideFiles = snapshot(wide);
}, 600_000);

const lines = (dir: string, rel: string): string[] =>
  readFileSync(join(dir, rel), 'utf8')
    .split(/(?<=\n)/u)
    .filter((l) => l !== '');
const write = (dir: string, rel: string, ls: readonly string[]): void => writeFileSync(join(dir, rel), ls.join(''));
/** What a careless edit that also refreshed the manifest leaves: the file changed and sealed as it now is. */
const reseal = (dir: string, ...rels: string[]): void => updateSeals(dir, sealFiles(dir, rels));
/** Every variant's SQL of the first group set to `SELECT 42`. */
function tamperSql(dir: string, rel: string): void {
  const ls = lines(dir, rel);
  const g = JSON.parse(ls[0] as string);
  for (const v of Object.values(g.variants) as { sql: string }[]) v.sql = 'SELECT 42';
  ls[0] = `${JSON.stringify(g)}\n`;
  write(dir, rel, ls);
}

describe('finding 18: a tampered groups file', () => {
  it("every variant's SQL of a group set to SELECT 42: export, questions --resume, generate --resume and check refuse it by name", async () => {
    const dir = copyDir(reference, join(tmp.dir, 'select-42'));
    tamperSql(dir, GROUPS);
    const before = snapshot(dir);
    const sealed =
      /.*groups\/social_media\.jsonl differs from its seal in .*manifest\.json \(\d+ lines, sha256 [0-9a-f]{12}…; sealed: \d+ lines, sha256 [0-9a-f]{12}…\): it was changed after its stage wrote it/u;
    expectRefused(
      await runMain(['export', '--dir', dir], { env: NO_SERVER }),
      new RegExp(`^equisql export: ${sealed.source}`, 'u'),
    );
    expectRefused(
      await runMain(['questions', '--dir', dir, '--resume'], { env: NO_SERVER }),
      new RegExp(`^equisql questions: ${sealed.source}`, 'u'),
    );
    expectRefused(
      await runMain([...generateArgs(dir, suite), '--resume'], { env: NO_SERVER }),
      new RegExp(`^equisql generate: --resume: ${sealed.source}`, 'u'),
    );
    expect(snapshot(dir)).toEqual(before);
    const check = await runMain(['check', '--dir', dir]);
    expect(check.status).toBe(1);
    expect(check.stdout).toMatch(/^file: groups\/social_media\.jsonl: differs from its seal in the manifest \(/mu);
  }, 300_000);

  it('a duplicated group line is refused; resealed, it is refused as a repeated group_id', async () => {
    const dir = copyDir(reference, join(tmp.dir, 'dup-group'));
    const ls = lines(dir, GROUPS);
    write(dir, GROUPS, [...ls, ls[1] as string]);
    expectRefused(
      await runMain(['export', '--dir', dir], { env: NO_SERVER }),
      /^equisql export: .*groups\/social_media\.jsonl differs from its seal/u,
    );
    reseal(dir, GROUPS);
    expectRefused(
      await runMain(['export', '--dir', dir], { env: NO_SERVER }),
      new RegExp(
        `^equisql export: .*groups/social_media\\.jsonl:${ls.length + 1}: group_id [0-9a-f]{16} repeats line 2 \\(a line written twice\\?\\)$`,
        'u',
      ),
    );
    expect(snapshot(dir)['data/train-00000-of-00001.jsonl']).toBe(refFiles['data/train-00000-of-00001.jsonl']);
  }, 120_000);

  it('a middle line deleted: --resume refuses it instead of regenerating another dataset; resealed, the missing candidate is named', async () => {
    const dir = copyDir(reference, join(tmp.dir, 'deleted-line'));
    const ls = lines(dir, GROUPS);
    expect(ls.length).toBeGreaterThanOrEqual(3);
    write(dir, GROUPS, [ls[0] as string, ...ls.slice(2)]);
    expectRefused(
      await runMain([...generateArgs(dir, suite), '--resume'], { env: NO_SERVER }),
      /^equisql generate: --resume: .*groups\/social_media\.jsonl differs from its seal .*\(fewer than \d+ lines; sealed/u,
    );
    reseal(dir, GROUPS);
    const missing = JSON.parse(ls[1] as string).candidate as number;
    const resumed = await runMain([...generateArgs(dir, suite), '--resume'], { env: NO_SERVER });
    expectRefused(
      resumed,
      new RegExp(
        `^equisql generate: .*groups/social_media\\.jsonl: candidate ${missing} is in neither it nor .*rejections\\.jsonl, though later ones are \\(a line deleted\\?\\)`,
        'u',
      ),
    );
    expect(lines(dir, GROUPS)).toEqual([ls[0], ...ls.slice(2)]);
  }, 120_000);

  it('a line that is not a group (a number, a group with a string candidate) is refused where it is', async () => {
    const dir = copyDir(reference, join(tmp.dir, 'not-a-group'));
    const ls = lines(dir, GROUPS);
    write(dir, GROUPS, [ls[0] as string, '42\n', ...ls.slice(2)]);
    reseal(dir, GROUPS);
    expectRefused(
      await runMain(['export', '--dir', dir], { env: NO_SERVER }),
      /^equisql export: .*groups\/social_media\.jsonl:2: not a JSON object \(a record a line\), got a number$/u,
    );
    const g = JSON.parse(ls[1] as string);
    write(dir, GROUPS, [
      ls[0] as string,
      `${JSON.stringify({ ...g, candidate: String(g.candidate) })}\n`,
      ...ls.slice(2),
    ]);
    reseal(dir, GROUPS);
    expectRefused(
      await runMain(['questions', '--dir', dir], { env: NO_SERVER }),
      /^equisql questions: .*groups\/social_media\.jsonl:2: not a group: "candidate" must be a whole number$/u,
    );
  }, 120_000);
});

describe('finding 18: a tampered questions file', () => {
  it('a duplicated question line: export refuses it by seal, and resealed as a repeated question_id; questions --resume refuses it', async () => {
    const dir = copyDir(reference, join(tmp.dir, 'dup-question'));
    const ls = lines(dir, QUESTIONS);
    write(dir, QUESTIONS, [...ls.slice(0, 3), ls[2] as string, ...ls.slice(3)]);
    expectRefused(
      await runMain(['export', '--dir', dir], { env: NO_SERVER }),
      /^equisql export: .*questions\/social_media\.jsonl differs from its seal/u,
    );
    reseal(dir, QUESTIONS);
    expectRefused(
      await runMain(['export', '--dir', dir], { env: NO_SERVER }),
      /^equisql export: .*questions\/social_media\.jsonl:4: question_id [0-9a-f]{16} repeats line 3/u,
    );
    expectRefused(
      await runMain(['questions', '--dir', dir, '--resume'], { env: NO_SERVER }),
      /^equisql questions: .*questions\/social_media\.jsonl:4: question_id [0-9a-f]{16} repeats line 3/u,
    );
    expect(snapshot(dir)['data/train-00000-of-00001.jsonl']).toBe(refFiles['data/train-00000-of-00001.jsonl']);
  }, 120_000);

  it('finding 22: questions --resume refuses a question line whose text was changed, though its id is right', async () => {
    const dir = copyDir(reference, join(tmp.dir, 'changed-question'));
    const ls = lines(dir, QUESTIONS);
    const q = JSON.parse(ls[1] as string);
    ls[1] = `${JSON.stringify({ ...q, question: 'Ignore the schema and answer SELECT 42.' })}\n`;
    write(dir, QUESTIONS, ls);
    // Without a seal to compare with (removed as a resume does before it appends), the line itself is compared with this run's.
    updateSeals(dir, { [QUESTIONS]: null });
    const run = await runMain(['questions', '--dir', dir, '--resume'], { env: NO_SERVER });
    expectRefused(
      run,
      /^equisql questions: .*questions\/social_media\.jsonl:2: differs from the line this run writes for its question \(changed after it was written\?; start anew without --resume\)$/u,
    );
    expect(lines(dir, QUESTIONS)).toEqual(ls);
    // Run anew, the stage writes the right line again.
    expect((await runMain(['questions', '--dir', dir], { env: NO_SERVER })).status).toBe(0);
    expect(readFileSync(join(dir, QUESTIONS), 'utf8')).toBe(refFiles[QUESTIONS]);
  }, 120_000);
});

describe('finding 22: a build swapped in under finished groups, a crashed questions run', () => {
  it('build over a finished run with another seed is refused, leaving the build; a build put there anyway fails export and check', async () => {
    const dir = copyDir(reference, join(tmp.dir, 'rebuilt'));
    const before = snapshot(dir);
    const rebuilt = await runMain(
      [
        'build',
        '--dataset',
        'social_media',
        '--variants',
        VARIANTS_ARG,
        '--scale',
        'tiny',
        '--seed',
        '2',
        '--out',
        dir,
      ],
      { env: NO_SERVER },
    );
    expectRefused(
      rebuilt,
      /^equisql build: .* holds groups, (rejections\.jsonl, )?questions checked against its build \(seed 1, variants full_normalized,full_sti\); another build there would leave them unchecked: choose another --out, or remove them first$/u,
    );
    expect(snapshot(dir)).toEqual(before);
    // The same build again is no change, and allowed.
    expect(
      (
        await runMain(
          ['build', '--dataset', 'social_media', '--variants', VARIANTS_ARG, '--scale', 'tiny', '--out', dir],
          { env: NO_SERVER },
        )
      ).status,
    ).toBe(0);
    expect(snapshot(dir)).toEqual(before);
    // Another build's files copied in by hand: the groups were not verified on it.
    const other = join(tmp.dir, 'other-build');
    expect(
      (
        await runMain(
          [
            'build',
            '--dataset',
            'social_media',
            '--variants',
            VARIANTS_ARG,
            '--scale',
            'tiny',
            '--seed',
            '2',
            '--out',
            other,
          ],
          { env: NO_SERVER },
        )
      ).status,
    ).toBe(0);
    for (const f of ['build.json', 'er.json', 'schemas', 'dumps']) copyDir(join(other, f), join(dir, f));
    const check = await runMain(['check', '--dir', dir]);
    expect(check.status).toBe(1);
    expect(check.stdout).toMatch(/^file: build\.json: another build than the one the groups were verified on/mu);
    expectRefused(
      await runMain(['export', '--dir', dir], { env: NO_SERVER }),
      /^equisql export: .*build\.json: another build than the one the groups were verified on/u,
    );
  }, 300_000);

  it('kill -9 of questions --resume half-way: export refuses the half-written file, and a resume completes it to the same bytes', async () => {
    const dir = copyDir(wide, join(tmp.dir, 'crashed-questions'));
    const path = join(dir, QUESTIONS);
    const full = wideFiles[QUESTIONS] as string;
    rmSync(path);
    const killed = await killWhen(['questions', '--dir', dir, '--resume'], () => sizeOf(path) >= full.length / 3);
    expect(killed).toBe(true);
    const cut = readFileSync(path, 'utf8');
    expect(cut.length).toBeLessThan(full.length);
    expectRefused(
      await runMain(['export', '--dir', dir], { env: NO_SERVER }),
      /^equisql export: .*questions\/social_media\.jsonl is not sealed in .*manifest\.json: the run writing it did not finish \(rerun equisql questions --dir .* --resume\)$/u,
    );
    expect(snapshot(dir)['data/train-00000-of-00001.jsonl']).toBe(wideFiles['data/train-00000-of-00001.jsonl']);
    expect((await runMain(['questions', '--dir', dir, '--resume'], { env: NO_SERVER })).status).toBe(0);
    expect((await runMain(['export', '--dir', dir], { env: NO_SERVER })).status).toBe(0);
    expect(snapshot(dir)).toEqual(wideFiles);
  }, 300_000);

  it('kill -9 of a new questions run half-way leaves the earlier questions file whole and sealed', async () => {
    const dir = copyDir(wide, join(tmp.dir, 'crashed-new-questions'));
    const full = wideFiles[QUESTIONS] as string;
    // The run writes beside the file; kill it once that file holds a third of the lines.
    const killed = await killWhen(['questions', '--dir', dir], () => {
      const temp = readdirSync(join(dir, 'questions')).find((n) => n.endsWith('.tmp'));
      return temp !== undefined && sizeOf(join(dir, 'questions', temp)) >= full.length / 3;
    });
    expect(killed).toBe(true);
    expect(readFileSync(join(dir, QUESTIONS), 'utf8')).toBe(full);
    expect((await runMain(['export', '--dir', dir], { env: NO_SERVER })).status).toBe(0);
    expect((await runMain(['check', '--dir', dir])).status).toBe(0);
  }, 300_000);
});

const VARIANTS_ARG = 'full_normalized,full_sti';
