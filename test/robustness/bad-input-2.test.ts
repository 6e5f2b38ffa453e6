// @tier long
/**
 * Bad input that crashed or hung (issue 16, findings 20 and 23): each gets one line and
 * exit 2, and what was written before is left as it was.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { PAPER_RETAIL } from '../../generator/suites/paper-retail.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import { REPO_ROOT, runCli, type CliRun } from '../helpers/run-cli.ts';

const NO_SERVER = { DATABASE_URL: undefined };
const BIG_SEED = '12345678901234567890';
const GENERATE = ['generate', '--dataset', 'retail', '--variants', 'full_sti,full_cti', '--scale', 'tiny'];
const ESC = '\u001b';

/** One line on stderr, exit 2, no "internal error". */
function refusedInOneLine(run: CliRun, pattern: RegExp): void {
  expect(run.status, run.stderr).toBe(2);
  expect(run.stderr).not.toMatch(/internal error/u);
  expect(run.stderr.split('\n')).toHaveLength(2);
  expect(run.stderr).toMatch(pattern);
}

const tmp = tempDir('bad-input-2');
const base = join(tmp.dir, 'base');
afterAll(() => tmp.remove());

beforeAll(() => {
  // A seed past 2^53-1, as `build` keeps it: exact, as typed.
  const run = runCli([...GENERATE, '--seed', BIG_SEED, '--groups', '3', '--out', base, '--quiet'], { env: NO_SERVER });
  expect(run.status, run.stderr).toBe(0);
}, 240_000);

/** A copy of the generated directory to spoil. */
function copyOfBase(name: string): string {
  const dir = join(tmp.dir, name);
  cpSync(base, dir, { recursive: true });
  return dir;
}

describe('flags', () => {
  it('a single-valued flag given twice is refused in one line, not silently the last value', () => {
    const ratios = runCli([
      'export',
      '--dir',
      base,
      '--ratios',
      'train=0.8,validation=0.1,test=0.1',
      '--ratios',
      'train=0.1,validation=0.1,test=0.8',
    ]);
    refusedInOneLine(ratios, /^equisql export: --ratios is given twice \(give it once\)\n$/u);
    refusedInOneLine(
      runCli(['build', '--dataset', 'retail', '--seed', '1', '--seed=2', '--out', join(tmp.dir, 'never')]),
      /^equisql build: --seed is given twice/u,
    );
    expect(existsSync(join(tmp.dir, 'never'))).toBe(false);
  });

  it('a key given twice inside one flag value is refused in one line, and the export before it stays', () => {
    const manifest = readFileSync(join(base, 'manifest.json'));
    const ratios = runCli(['export', '--dir', base, '--ratios', 'train=0.8,validation=0.1,test=0.1,train=0.1']);
    refusedInOneLine(
      ratios,
      /^equisql export: --ratios: train is given twice in "train=0\.8,validation=0\.1,test=0\.1,train=0\.1"\n$/u,
    );
    expect(readFileSync(join(base, 'manifest.json'))).toEqual(manifest);
    const mix = runCli(
      [...GENERATE, '--difficulty', 'easy=0.5,hard=0.5,easy=0.1', '--out', join(tmp.dir, 'never-mix')],
      { env: NO_SERVER },
    );
    refusedInOneLine(mix, /generate: --difficulty: easy is given twice in "easy=0\.5,hard=0\.5,easy=0\.1"/u);
    expect(existsSync(join(tmp.dir, 'never-mix'))).toBe(false);
  });

  it('generate keeps a seed past 2^53-1 exact, as build does', () => {
    const settings = JSON.parse(readFileSync(join(base, 'manifest.json'), 'utf8')).settings;
    expect(settings.seed).toBe(BIG_SEED);
    expect(JSON.parse(readFileSync(join(base, 'build.json'), 'utf8')).seed).toBe(BIG_SEED);
  });
});

describe('files that are not what a command expects', () => {
  it('export over a groups file with a line that is not an object (42): one line naming file and line', () => {
    const dir = copyOfBase('forty-two');
    const groups = join(dir, 'groups', 'retail.jsonl');
    const lines = readFileSync(groups, 'utf8').split('\n').length - 1;
    appendFileSync(groups, '42\n');
    // The groups stage sealed the file, so the seal is the first to see the change (sealed-files.test.ts
    // reseals such a file and shows the line itself refused as not a group).
    refusedInOneLine(
      runCli(['export', '--dir', dir]),
      new RegExp(
        `^equisql export: ${groups} differs from its seal in .*manifest\\.json \\(${lines + 1} lines, .*; sealed: ${lines} lines, `,
        'u',
      ),
    );
  });

  it('questions --dir /etc/passwd: one line, exit 2', () => {
    refusedInOneLine(
      runCli(['questions', '--dir', '/etc/passwd']),
      /^equisql questions: \/etc\/passwd: exists and is not a directory/u,
    );
  });

  it('suite --suite DIR: one line naming the directory', () => {
    const dir = join(tmp.dir, 'suite-dir.jsonl');
    mkdirSync(dir);
    refusedInOneLine(
      runCli(['suite', '--dir', base, '--suite', dir]),
      new RegExp(`^equisql suite: --suite: ${dir} is a directory, not a file\\n$`, 'u'),
    );
  });

  it('compile --query /dev/zero reads at most a bounded size', () => {
    const run = spawnSync(
      process.execPath,
      [join(REPO_ROOT, 'bin/equisql.js'), 'compile', '--dir', base, '--variant', 'full_sti', '--query', '/dev/zero'],
      { encoding: 'utf8', timeout: 60_000 },
    );
    refusedInOneLine(
      { status: run.status ?? -1, stdout: run.stdout, stderr: run.stderr },
      /^equisql compile: --query: \/dev\/zero is larger than 16 MB/u,
    );
  });

  it('build --out /proc/x does not spin: one line, exit 2', () => {
    const run = spawnSync(
      process.execPath,
      [
        join(REPO_ROOT, 'bin/equisql.js'),
        'build',
        '--dataset',
        'retail',
        '--scale',
        'tiny',
        '--out',
        '/proc/x',
        '--quiet',
      ],
      { encoding: 'utf8', timeout: 60_000, env: { ...process.env, DATABASE_URL: '' } },
    );
    expect(run.signal, 'killed after 60 s: it spun').toBeNull();
    refusedInOneLine(
      { status: run.status ?? -1, stdout: run.stdout, stderr: run.stderr },
      /^equisql build: cannot create the directory \/proc\/x: /u,
    );
  });

  it('export --dir FILE: one line, exit 2, the file untouched', () => {
    const file = join(tmp.dir, 'a-file');
    writeFileSync(file, 'mine\n');
    refusedInOneLine(runCli(['export', '--dir', file]), /^equisql export: .*a-file: exists and is not a directory/u);
    expect(readFileSync(file, 'utf8')).toBe('mine\n');
  });

  it('merge --out through a symlink loop: one line before any work, nothing left behind', () => {
    const dir = join(tmp.dir, 'loops');
    mkdirSync(dir);
    symlinkSync(join(dir, 'loopB'), join(dir, 'loopA'));
    symlinkSync(join(dir, 'loopA'), join(dir, 'loopB'));
    refusedInOneLine(
      runCli(['merge', '--out', join(dir, 'loopA'), base]),
      /^equisql merge: --out .*loopA: too many levels of symbolic links \(a symlink loop\) \(ELOOP, stat\)\n$/u,
    );
    expect(readdirSync(dir).sort()).toEqual(['loopA', 'loopB']);
  });

  it('export --include refuses a dataset name that is a path (../), writing nothing outside DIR', () => {
    const other = copyOfBase('evil');
    const buildPath = join(other, 'build.json');
    writeFileSync(
      buildPath,
      readFileSync(buildPath, 'utf8').replace('"dataset": "retail"', '"dataset": "../../escaped"'),
    );
    const target = copyOfBase('target');
    refusedInOneLine(
      runCli(['export', '--dir', target, '--include', other]),
      /^equisql export: .*evil\/build\.json: dataset "\.\.\/\.\.\/escaped" is not a dataset name/u,
    );
    expect(existsSync(join(tmp.dir, 'escaped'))).toBe(false);
  });
});

describe('a user config is code, and loaded as such', () => {
  const project = join(tmp.dir, 'project');
  beforeAll(() => mkdirSync(project));
  const build = (body: string, name: string): CliRun => {
    const file = join(project, `${name}.config.ts`);
    writeFileSync(file, `${body}\nexport default { datasets: {} };\n`);
    return runCli(['build', '--config', file, '--dataset', 'x', '--out', join(project, `out-${name}`)], {
      env: NO_SERVER,
    });
  };

  it('one that calls process.exit(0) is refused, not taken for success', () => {
    refusedInOneLine(
      build('process.exit(0);', 'exits'),
      /^equisql build: .*exits\.config\.ts: cannot load: it ended the process while loading \(exit code 0\) instead of exporting a config\n$/u,
    );
    expect(existsSync(join(project, 'out-exits'))).toBe(false);
  });

  it('one that exhausts memory is refused in one line', () => {
    refusedInOneLine(
      build('const hoard = []; for (;;) hoard.push(new Array(1e6).fill(7));', 'hungry'),
      /^equisql build: .*hungry\.config\.ts: cannot load: it ran out of memory while loading \(limit 512 MB\)\n$/u,
    );
  });

  it('one that loops is stopped after its time limit', () => {
    refusedInOneLine(
      build('for (;;) {}', 'loops'),
      /^equisql build: .*loops\.config\.ts: cannot load: it did not finish loading within 30 s \(a loop\?\)\n$/u,
    );
  }, 120_000);
});

describe('output and limits', () => {
  it('show escapes control characters in questions, evidence and SQL', () => {
    const dir = copyOfBase('escapes');
    const qpath = join(dir, 'questions', 'retail.jsonl');
    const lines = readFileSync(qpath, 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    const spoiled = lines.map((l) => {
      const q = JSON.parse(l);
      return JSON.stringify({
        ...q,
        question: `${ESC}[2J${ESC}]0;owned\u0007 ${q.question}`,
        evidence: `\u202e${q.evidence ?? ''}`,
      });
    });
    writeFileSync(qpath, `${spoiled.join('\n')}\n`);
    const run = runCli(['show', '--dir', dir, '--style', 'all', '-n', '3']);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/u);
    expect(run.stdout).toContain('\\u001b[2J\\u001b]0;owned\\u0007 ');
    expect(run.stdout).toContain('evidence: \\u202e');
  });

  it('run prints no raw escape sequence from data, as a table or as JSON', () => {
    const sql = "SELECT chr(27) || '[2J' || chr(155) || '31m' || chr(8238) AS x";
    for (const format of ['table', 'json']) {
      const run = runCli(['run', '--dir', base, '--variant', 'full_sti', '--format', format, sql]);
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/u);
      expect(run.stdout).toContain('\\u001b[2J\\u009b31m\\u202e');
    }
    // JSON stays the same value: escaped text parses back to the data.
    const json = runCli(['run', '--dir', base, '--variant', 'full_sti', '--format', 'json', sql]);
    expect(JSON.parse(json.stdout.trim()).x).toBe(`${ESC}[2J\u009b31m\u202e`);
  });

  it('--count within the old cap but beyond what memory holds is refused before work starts', () => {
    const out = join(tmp.dir, 'huge');
    const run = spawnSync(
      process.execPath,
      [
        join(REPO_ROOT, 'bin/equisql.js'),
        'build',
        '--dataset',
        'social_media',
        '--scale',
        'tiny',
        '--count',
        'Account=10000000',
        '--out',
        out,
      ],
      { encoding: 'utf8', timeout: 60_000, env: { ...process.env, DATABASE_URL: '' } },
    );
    expect(run.signal, 'killed after 60 s: it started the work').toBeNull();
    refusedInOneLine(
      { status: run.status ?? -1, stdout: run.stdout, stderr: run.stderr },
      /^equisql build: counts: 10000\d+ objects \(10000000 Account\) need about \d+\.\d GB of memory, more than the \d+\.\d GB this process may use; lower the counts \(about \d+ Account fit\)/u,
    );
    expect(existsSync(out)).toBe(false);
  });

  it('a --from-suite query refused by the difficulty quota says so', () => {
    const suite = join(tmp.dir, 'one.jsonl');
    const q = PAPER_RETAIL[0] as (typeof PAPER_RETAIL)[number];
    writeFileSync(suite, `${JSON.stringify({ id: q.id, query: q.query, question: q.question })}\n`);
    // q01 is extra hard; a mix with no extra share has no room for it.
    const run = runCli(
      [
        ...GENERATE,
        '--from-suite',
        suite,
        '--difficulty',
        'easy=1,medium=1,hard=1,extra=0',
        '--out',
        join(tmp.dir, 'quota'),
      ],
      { env: NO_SERVER },
    );
    expect(run.status).toBe(1);
    expect(run.stderr).not.toMatch(/has no groups\//u);
    expect(run.stderr).toMatch(
      /generate: no group from 1 candidates \(rejected: difficulty-quota 1\); the first: difficulty-quota: q01: refused by the difficulty quota: the query is extra, and the extra quota \(0 of 1 groups\) is full/u,
    );
  }, 240_000);
});
