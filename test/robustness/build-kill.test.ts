// @tier long
import { afterAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createRng } from '../../generator/common/rng.ts';
import { readManifest } from '../../generator/assemble/build-manifest.ts';
import { targetOf, verifyDataset } from '../../generator/assemble/verify-dataset.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import { REPO_ROOT, runCli } from '../helpers/run-cli.ts';
import { createDatabase, describeServer } from '../helpers/postgres.ts';

const tmp = tempDir('kill');
afterAll(() => tmp.remove());

const BIN = resolve(REPO_ROOT, 'bin/equisql.js');
const KILLS = 20;
// Two builds that differ in every file and in their variant sets, so a mix of them shows.
const BUILDS = {
  1: ['--seed', '1', '--variants', 'full_sti,full_cti'],
  2: ['--seed', '2', '--variants', 'full_sti'],
} as const;

/**
 * Runs `equisql build` into `out`; with `killAfterMs`, kills it with SIGKILL then. Resolves
 * with its exit code or signal. `db` is a server URL; PGlite in `out/pglite` otherwise.
 */
function build(
  out: string,
  which: 1 | 2,
  killAfterMs?: number,
  db?: string,
): Promise<{ code: number | null; signal: string | null; ms: number }> {
  const env = { ...process.env };
  delete env['DATABASE_URL'];
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [
      BIN,
      'build',
      '--dataset',
      'social_media',
      '--scale',
      'tiny',
      ...BUILDS[which],
      '--out',
      out,
      '--quiet',
      ...(db ? ['--db', db] : []),
    ],
    { cwd: REPO_ROOT, env, stdio: 'ignore' },
  );
  const timer = killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), killAfterMs);
  return new Promise((done) => {
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      done({ code, signal, ms: performance.now() - started });
    });
  });
}

/** The build's own files (not the database), by relative path. */
function files(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const name of ['er.json', 'build.json'])
    if (existsSync(join(dir, name))) out.set(name, readFileSync(join(dir, name)));
  for (const sub of ['schemas', 'dumps']) {
    if (!existsSync(join(dir, sub))) continue;
    for (const name of readdirSync(join(dir, sub))) out.set(`${sub}/${name}`, readFileSync(join(dir, sub, name)));
  }
  return out;
}

/** What `verify` says: passed (with the seed it passed on) or the one-line reason it failed. */
async function verify(dir: string, db?: string): Promise<{ ok: true; seed: string } | { ok: false; reason: string }> {
  try {
    const manifest = readManifest(dir);
    const checks = await verifyDataset(dir, targetOf(dir, manifest, db));
    const bad = checks.filter((c) => !c.ok);
    if (bad.length === 0) return { ok: true, seed: String(manifest.seed) };
    return { ok: false, reason: bad.map((c) => `${c.variant}: ${c.differences[0]}`).join('; ') };
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
}

/** Kills rebuilds at seeded times and checks what verify says after each; returns what happened. */
async function killRebuilds(out: string, kills: number, label: string, db?: string): Promise<string[]> {
  // Reference files of each complete build, to catch a verify that passes over a mix.
  const reference = new Map<string, Map<string, Buffer>>();
  expect((await build(out, 1, undefined, db)).code).toBe(0);
  reference.set('1', files(out));
  const full = await build(out, 2, undefined, db);
  expect(full.code).toBe(0);
  reference.set('2', files(out));
  const rng = createRng(label);
  const outcomes: string[] = [];
  for (let i = 0; i < kills; i++) {
    const which = i % 2 === 0 ? 1 : 2;
    // Kill anywhere from process start to a little past a whole rebuild's duration.
    const at = Math.round(rng.next() * full.ms * 1.1);
    const run = await build(out, which, at, db);
    const result = await verify(out, db);
    if (result.ok) {
      const expected = reference.get(result.seed) as Map<string, Buffer>;
      const actual = files(out);
      expect([...actual.keys()].sort(), `kill ${i} at ${at} ms: files of build ${result.seed}`).toEqual(
        [...expected.keys()].sort(),
      );
      for (const [path, bytes] of expected)
        expect(actual.get(path)?.equals(bytes), `kill ${i} at ${at} ms: ${path}`).toBe(true);
      outcomes.push(`${at} ms: ${run.signal ?? `exit ${run.code}`}, verify passes on build ${result.seed}`);
    } else {
      // A named problem of the directory, never a crash of the tool.
      expect(result.reason, `kill ${i} at ${at} ms`).toMatch(
        /interrupted while replacing|has no build\.json|differs|missing|does not list/,
      );
      expect(result.reason).not.toMatch(/Aborted|internal error|undefined/);
      outcomes.push(`${at} ms: ${run.signal ?? `exit ${run.code}`}, verify refuses: ${result.reason}`);
    }
  }
  // The directory always recovers: an uninterrupted build after all those kills is whole.
  expect((await build(out, 1, undefined, db)).code).toBe(0);
  expect(await verify(out, db)).toEqual({ ok: true, seed: '1' });
  expect(readdirSync(out).filter((n) => n.startsWith('.'))).toEqual([]);
  return outcomes;
}

describe('two build processes into one directory', () => {
  it('the second fails at once naming the directory and the holder; the first completes', async () => {
    const out = join(tmp.dir, 'two');
    const first = build(out, 1);
    const lock = join(out, '.equisql.lock');
    while (!existsSync(lock)) await new Promise((r) => setTimeout(r, 50));
    const holder = JSON.parse(readFileSync(lock, 'utf8')) as { pid: number };
    const second = runCli(
      ['build', '--dataset', 'social_media', '--scale', 'tiny', '--seed', '5', '--out', out, '--quiet'],
      { env: { DATABASE_URL: undefined } },
    );
    expect(second.stderr).toMatch(
      new RegExp(
        `^equisql build: ${out} is in use by equisql build \\(pid ${holder.pid}, since [0-9T:.Z-]+\\); wait for it to finish \\(or, if pid ${holder.pid} is no equisql, remove ${lock}\\)\\n$`,
      ),
    );
    expect(second.status).toBe(2);
    expect((await first).code).toBe(0);
    expect(await verify(out)).toEqual({ ok: true, seed: '1' });
  }, 300_000);
});

describe('kill -9 during a rebuild into a good directory', () => {
  it(`leaves, at each of ${KILLS} seeded kill times, a directory verify passes as one whole build or refuses by name`, async () => {
    const outcomes = await killRebuilds(join(tmp.dir, 'out'), KILLS, 'build-kill');
    expect(outcomes).toHaveLength(KILLS);
  }, 600_000);
});

describeServer('kill -9 during a rebuild on the server', (serverUrl) => {
  it('leaves the old schemas or a directory verify refuses; never a mix', async () => {
    const fresh = await createDatabase(serverUrl, 'kill');
    try {
      const outcomes = await killRebuilds(join(tmp.dir, 'server'), 6, 'build-kill-server', fresh.url);
      expect(outcomes).toHaveLength(6);
    } finally {
      await fresh.drop();
    }
  }, 600_000);
});
