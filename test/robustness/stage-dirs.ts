/**
 * Generated directories for the tests of sealed stage files and of check's listing: a tiny
 * real run (PGlite, eight paper queries on two variants), and a copy of it whose groups file
 * is widened to many groups (resealed as the groups stage would seal it), so the questions and
 * export stages run long enough for a kill to land in the middle of them.
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect } from 'vitest';
import { runCli, REPO_ROOT, type CliRun } from '../helpers/run-cli.ts';
import { PAPER_SOCIAL_MEDIA } from '../../generator/suites/paper-social-media.ts';
import { BUILT_IN_DOMAINS } from '../../generator/domains/index.ts';
import { indexDomain } from '../../generator/er-model/er-index.ts';
import { generateInstance } from '../../generator/instance/generate-instance.ts';
import { randomQuery } from '../../generator/query/random-query.ts';
import { createRng } from '../../generator/common/rng.ts';
import { sha256, stableStringify } from '../../generator/common/hash.ts';
import { serializeGroup, type GroupRecord } from '../../generator/records/group-record.ts';
import { sealFiles, updateSeals } from '../../generator/common/file-seal.ts';

export const NO_SERVER = { DATABASE_URL: undefined };
export const VARIANTS = 'full_normalized,full_sti';

/** `generate` of eight paper queries into `out`, the arguments a resume repeats. */
export function generateArgs(out: string, suite: string): string[] {
  return [
    'generate',
    '--dataset',
    'social_media',
    '--variants',
    VARIANTS,
    '--scale',
    'tiny',
    '--from-suite',
    suite,
    '--out',
    out,
  ];
}

/** Runs a tiny real generate into `out` (suite file written beside it); returns the suite's path. */
export function generateTiny(root: string, out: string): string {
  const suite = join(root, 'suite.jsonl');
  writeFileSync(
    suite,
    PAPER_SOCIAL_MEDIA.slice(0, 8)
      .map((q) => JSON.stringify({ id: q.id, query: q.query, question: q.question }))
      .join('\n') + '\n',
  );
  const run = runCli(generateArgs(out, suite), { env: NO_SERVER });
  expect(run.stderr).toMatch(/export: \d+ rows/u);
  // A paper query the two variants cannot both answer is rejected: fewer groups than lines (exit 1).
  expect([0, 1], run.stderr).toContain(run.status);
  return suite;
}

/**
 * Widens a generated directory's groups file to `count` groups of random conceptual queries
 * (plain SQL per variant: the questions and export stages never run it), with no rejections,
 * sealed as the groups stage seals its files; then writes its questions and exports it.
 */
export function widen(dir: string, count: number): void {
  const domain = BUILT_IN_DOMAINS.social_media!;
  const index = indexDomain(domain);
  const instance = generateInstance(domain, { seed: 1, scale: 'tiny', profile: 'default' });
  const rng = createRng('stage-dirs');
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const query = randomQuery(index, instance, rng.fork(String(i)));
    const group: GroupRecord = {
      group_id: sha256(stableStringify(query)),
      dataset: 'social_media',
      candidate: i,
      query,
      ordered: false,
      variants: {
        full_normalized: { sql: `SELECT ${i} AS n`, row_count: 1, result_hash: sha256(String(i)) },
        full_sti: { sql: `SELECT ${i} AS m`, row_count: 1, result_hash: sha256(String(i)) },
      },
      skeleton: 'SELECT _',
      long_tail: false,
      reference_variant: 'full_normalized',
      structure_hash: sha256(`s${i}`),
      difficulty: 'easy',
      counts: { joins: 0, aggregates: 0, subqueries: 0, set_operations: 0 },
      distinct_sql: 2,
      verified_on: [],
    };
    lines.push(serializeGroup(group));
  }
  writeFileSync(join(dir, 'groups', 'social_media.jsonl'), lines.join(''));
  writeFileSync(join(dir, 'rejections.jsonl'), '');
  updateSeals(dir, sealFiles(dir, ['groups/social_media.jsonl', 'rejections.jsonl']));
  for (const args of [
    ['questions', '--dir', dir],
    ['export', '--dir', dir],
  ]) {
    const run = runCli(args, { env: NO_SERVER });
    expect(run.status, run.stderr).toBe(0);
  }
}

/** Every file a user takes away (not the databases, not hidden files), the manifest's timings left out. */
export function snapshot(dir: string): Record<string, string> {
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
  if (files['manifest.json']) {
    const m = JSON.parse(files['manifest.json']);
    delete m.timings;
    files['manifest.json'] = JSON.stringify(m);
  }
  return files;
}

/** Every hidden temporary file under `dir` (what an atomic write leaves when killed), relative. */
export function tempFiles(dir: string): string[] {
  const found: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      const rel = relative(dir, path);
      if (rel === 'pglite' || rel === 'edge') continue;
      if (statSync(path).isDirectory()) walk(path);
      else if (/^\..+\.\d+\.tmp$/u.test(name)) found.push(rel);
    }
  };
  walk(dir);
  return found.sort();
}

/** A copy of `from` at `to`, fresh. */
export function copyDir(from: string, to: string): string {
  rmSync(to, { recursive: true, force: true });
  cpSync(from, to, { recursive: true });
  return to;
}

/** Expects a refusal in one line with exit 2 that matches `message`. */
export function expectRefused(run: CliRun, message: RegExp): void {
  expect(run.stderr.trim().split('\n'), run.stderr).toHaveLength(1);
  expect(run.stderr.trim()).toMatch(message);
  expect(run.stderr).not.toMatch(/internal error/u);
  expect(run.status, run.stderr).toBe(2);
}

/**
 * Runs `equisql args…` in a child process and kills it with SIGKILL as soon as `when()` holds
 * (polled every millisecond), or lets it end. Resolves with whether it was killed.
 */
export function killWhen(args: readonly string[], when: () => boolean): Promise<boolean> {
  return new Promise((done) => {
    const env = { ...process.env };
    delete env['DATABASE_URL'];
    const child = spawn(process.execPath, [join(REPO_ROOT, 'bin/equisql.js'), ...args], {
      cwd: REPO_ROOT,
      env,
      stdio: 'ignore',
    });
    let killed = false;
    const timer = setInterval(() => {
      let hit = false;
      try {
        hit = when();
      } catch {
        hit = false;
      }
      if (hit) {
        killed = true;
        clearInterval(timer);
        child.kill('SIGKILL');
      }
    }, 1);
    child.once('exit', () => {
      clearInterval(timer);
      done(killed);
    });
  });
}

/** The size of a file, 0 when missing. */
export function sizeOf(path: string): number {
  return existsSync(path) ? statSync(path).size : 0;
}
