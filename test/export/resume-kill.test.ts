// @tier long
import { spawn } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, REPO_ROOT } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import { createRng } from '../../generator/common/rng.ts';
import { PAPER_SOCIAL_MEDIA } from '../../generator/suites/paper-social-media.ts';
import { sized } from '../helpers/tiers.ts';

// kill -9 at seeded random moments of a `generate` run, each followed by the same command
// with --resume, must end in the same files as a run never killed. The runs start from a copy of
// a finished build (killing the build itself is test/robustness/build-kill.test.ts), so
// the kills land in the groups and export stages and each run takes seconds.
// 2 kills by default, 5 in the acceptance tier; EQUISQL_KILL_POINTS raises the number (EQUISQL_KILL_POINTS=20).
const POINTS = sized('EQUISQL_KILL_POINTS', 2, 5);
const tmp = tempDir('resume-kill');
afterAll(() => tmp.remove());
const noServer = { ...process.env, DATABASE_URL: undefined };
delete noServer.DATABASE_URL;
const suite = join(tmp.dir, 'suite.jsonl');
const args = (out: string) => [
  'generate',
  '--dataset',
  'social_media',
  '--variants',
  'full_normalized,full_sti',
  '--scale',
  'tiny',
  '--from-suite',
  suite,
  '--difficulty',
  'easy=1,medium=1,hard=1,extra=1',
  '--out',
  out,
];

/** Every file the stages write that a user takes away, with the manifest's timings left out (they are of one run). */
function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      const rel = relative(dir, path);
      if (rel === 'pglite' || rel === 'edge' || name.startsWith('.')) continue;
      if (statSync(path).isDirectory()) walk(path);
      else files[rel] = readFileSync(path, 'utf8');
    }
  };
  walk(dir);
  const m = JSON.parse(files['manifest.json'] as string);
  delete m.timings;
  files['manifest.json'] = JSON.stringify(m);
  return files;
}

function killedAfter(out: string, ms: number): Promise<void> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, 'bin/equisql.js'), ...args(out)], {
      cwd: REPO_ROOT,
      env: noServer,
      stdio: 'ignore',
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    child.on('exit', () => {
      clearTimeout(timer);
      done();
    });
  });
}

let reference: Record<string, string>;
let wallMs = 0;
/** The reference directory's builds only: what a run killed after the build stage finds. */
const BUILT = ['build.json', 'er.json', 'schemas', 'dumps', 'edge', 'pglite'];
let built: string;
beforeAll(() => {
  writeFileSync(
    suite,
    PAPER_SOCIAL_MEDIA.slice(0, 6)
      .map((q) => JSON.stringify({ id: q.id, query: q.query, question: q.question }))
      .join('\n') + '\n',
  );
  const out = join(tmp.dir, 'reference');
  const run = runCli(args(out), { env: { DATABASE_URL: undefined } });
  expect(run.stderr).toMatch(/export: \d+ rows/u);
  reference = snapshot(out);
  built = join(tmp.dir, 'built');
  for (const f of BUILT) cpSync(join(out, f), join(built, f), { recursive: true });
  // How long a run on a finished build takes: the range the kills are drawn from.
  const timing = join(tmp.dir, 'timing');
  cpSync(built, timing, { recursive: true });
  const started = Date.now();
  expect(runCli(args(timing), { env: { DATABASE_URL: undefined } }).stderr).toMatch(/reusing the default build/u);
  wallMs = Date.now() - started;
  expect(snapshot(timing)).toEqual(reference);
}, 300_000);

describe('kill -9 and rerun', () => {
  it(`${POINTS} kills at seeded moments, each followed by a rerun, give the files of an uninterrupted run`, async () => {
    const rng = createRng('kill-points');
    for (let i = 0; i < POINTS; i++) {
      const out = join(tmp.dir, `killed-${i}`);
      cpSync(built, out, { recursive: true });
      const ms = Math.round(rng.next() * wallMs);
      await killedAfter(out, ms);
      const run = runCli([...args(out), '--resume'], { env: { DATABASE_URL: undefined } });
      expect(run.stderr, `kill ${i} at ${ms} ms`).toMatch(/export: \d+ rows/u);
      const got = snapshot(out);
      expect(Object.keys(got).sort(), `kill ${i} at ${ms} ms`).toEqual(Object.keys(reference).sort());
      for (const [rel, text] of Object.entries(reference))
        expect(got[rel] === text, `kill ${i} at ${ms} ms: ${rel}`).toBe(true);
    }
  }, 1_200_000);

  it('without --resume, a directory holding a run is refused in one line, exit 2, and left as it was', () => {
    const out = join(tmp.dir, 'reference');
    const run = runCli(args(out), { env: { DATABASE_URL: undefined } });
    expect(run.status).toBe(2);
    expect(run.stderr).toBe(
      `equisql generate: ${out} holds a run already; pass --resume to continue it (same settings), or choose another --out\n`,
    );
    expect(snapshot(out)).toEqual(reference);
    const other = runCli(
      [...args(out).map((a) => (a === 'easy=1,medium=1,hard=1,extra=1' ? 'easy=1' : a)), '--resume'],
      { env: { DATABASE_URL: undefined } },
    );
    expect(other.status).toBe(2);
    expect(other.stderr).toMatch(
      /^equisql generate: --resume: .* was generated with difficulty \{"easy":1,"extra":1,"hard":1,"medium":1\}, not \{"easy":1,"extra":0,"hard":0,"medium":0\}; resume with the same settings or choose another --out\n$/u,
    );
    expect(snapshot(out)).toEqual(reference);
  }, 120_000);
});
