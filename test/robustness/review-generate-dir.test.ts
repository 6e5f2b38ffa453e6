// @tier long
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import { LOCK_FILE } from '../../generator/assemble/dir-lock.ts';
import { SWAP_MARKER } from '../../generator/assemble/dir-swap.ts';

const ARGS = ['--dataset', 'retail', '--variants', 'full_sti,full_cti', '--scale', 'tiny', '--seed', '7'];

describe('generate on a build directory another command holds or a build left half-swapped', () => {
  const tmp = tempDir('review-generate');
  const out = join(tmp.dir, 'out');
  beforeAll(() => {
    const built = runCli(['generate', ...ARGS, '--groups', '1', '--out', out], { env: { DATABASE_URL: undefined } });
    expect(built.stderr).toMatch(/1 groups from/);
  }, 240_000);
  afterAll(() => tmp.remove());

  it('refuses a directory a live build holds, naming the holder, and writes nothing there', () => {
    const groups = join(out, 'groups', 'retail.jsonl');
    const before = readFileSync(groups, 'utf8');
    // This test's own process stands in for a live build.
    writeFileSync(
      join(out, LOCK_FILE),
      JSON.stringify({ pid: process.pid, command: 'build', since: '2026-01-01T00:00:00.000Z' }),
    );
    try {
      const run = runCli(['generate', ...ARGS, '--groups', '2', '--out', out], { env: { DATABASE_URL: undefined } });
      expect(run.status).toBe(2);
      expect(run.stderr).toContain(`is in use by equisql build (pid ${process.pid}`);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(readFileSync(groups, 'utf8')).toBe(before);
    } finally {
      rmSync(join(out, LOCK_FILE));
    }
  }, 120_000);

  it('does not reuse a build whose swap was interrupted: it rebuilds, and verify passes after', () => {
    // The old build.json stays while the marker says a swap to another one began.
    writeFileSync(join(out, SWAP_MARKER), JSON.stringify({ pid: 999999, build_sha256: '0'.repeat(64) }));
    expect(runCli(['verify', '--dir', out]).status).toBe(2);
    const run = runCli(['generate', ...ARGS, '--groups', '1', '--resume', '--out', out], {
      env: { DATABASE_URL: undefined },
    });
    expect(run.stderr).not.toMatch(/reusing the default build/);
    expect(run.status).toBe(0);
    expect(existsSync(join(out, SWAP_MARKER))).toBe(false);
    expect(runCli(['verify', '--dir', out]).status).toBe(0);
  }, 240_000);
});
