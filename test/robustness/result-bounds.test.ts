// @tier long
/**
 * Finding 4 of the second hostile run: results had no bound. `equisql run` buffered the whole
 * result (30M rows ended in a V8 heap out-of-memory, exit 134, after a minute), and
 * `--format table` over about 120k rows failed with "Maximum call stack size exceeded" (a
 * `Math.max(...rows)` spread). Now the rows are read in pages under a row cap and a byte cap,
 * `run` streams what it prints, and the table measures its columns with a loop.
 *
 * Memory is measured as the peak resident set of the `equisql run` child process
 * (/usr/bin/time's "maximum resident set size"); on PGlite about 450 MB of it is PGlite's own,
 * whatever the query (`SELECT 1` peaks there too).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { REPO_ROOT } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import { BUILT_IN_DOMAINS } from '../../generator/domains/index.ts';
import { buildDataset } from '../../generator/assemble/build-dataset.ts';
import type { DatabaseTarget } from '../../generator/database/database.ts';
import { createDatabase, describeServer } from '../helpers/postgres.ts';

const BIN = resolve(REPO_ROOT, 'bin/equisql.js');
const THIRTY_MILLION = 'SELECT g AS n FROM generate_series(1, 30000000) AS g';

/** `equisql run …` in a child process, with its peak resident set in MB. */
function runMeasured(
  dir: string,
  args: readonly string[],
  env: Record<string, string | undefined>,
): { status: number; stdout: string; stderr: string; peakMb: number } {
  const childEnv = { ...process.env, ...env };
  for (const [k, v] of Object.entries(childEnv)) if (v === undefined) delete childEnv[k];
  // A timeout far above what the work takes: a loaded machine must not make it a timeout.
  const r = spawnSync(
    '/usr/bin/time',
    [
      '-f',
      'peak-kb %M',
      process.execPath,
      BIN,
      'run',
      '--dir',
      dir,
      '--variant',
      'full_sti',
      '--timeout',
      '900',
      ...args,
    ],
    {
      cwd: REPO_ROOT,
      env: childEnv as NodeJS.ProcessEnv,
      encoding: 'utf8',
      maxBuffer: 512 * 1024 * 1024,
    },
  );
  // time's own lines: its note of a non-zero exit, and the peak.
  const lines = r.stderr.split('\n').filter((l) => l !== '' && !/^Command exited with non-zero status \d+$/u.test(l));
  const peak = lines.pop() ?? '';
  const kb = /^peak-kb (\d+)$/u.exec(peak);
  if (!kb) throw new Error(`no peak memory in: ${r.stderr}`);
  return {
    status: r.status ?? -1,
    stdout: r.stdout,
    stderr: lines.map((l) => `${l}\n`).join(''),
    peakMb: Number(kb[1]) / 1024,
  };
}

function bounds(
  label: string,
  target: (dir: string) => Promise<{ target: DatabaseTarget; env: Record<string, string | undefined> }>,
) {
  const tmp = tempDir(`result-bounds-${label}`);
  const dir = join(tmp.dir, 'social');
  let env: Record<string, string | undefined>;
  beforeAll(async () => {
    const t = await target(dir);
    env = t.env;
    const domain = BUILT_IN_DOMAINS['social_media'];
    if (!domain) throw new Error('social_media is a built-in domain');
    await buildDataset({
      dataset: 'social_media',
      domain,
      variants: 'full_sti',
      scale: 'tiny',
      seed: 4,
      profile: 'default',
      target: t.target,
      out: dir,
    });
  }, 300_000);
  afterAll(() => tmp.remove());

  it('refuses 30M rows in one line at the row cap, in every format, in well under 500 MB', () => {
    for (const format of ['csv', 'json', 'table']) {
      const r = runMeasured(dir, ['--format', format, '--max-rows', '100000', THIRTY_MILLION], env);
      expect(r.status, format).toBe(2);
      expect(r.stderr, format).toBe(
        'equisql run: schema social_media__full_sti: refused: the result has more than 100,000 rows (--max-rows 100000)\n',
      );
      expect(r.peakMb, format).toBeLessThan(500);
      // csv and json print the rows before the cap as they come; the table prints nothing then.
      const lines = r.stdout === '' ? 0 : r.stdout.split('\n').length - 1;
      expect(lines, format).toBe(format === 'csv' ? 100_001 : format === 'json' ? 100_000 : 0);
    }
  }, 600_000);

  it('refuses at the byte cap too', () => {
    const r = runMeasured(
      dir,
      ['--format', 'csv', '--max-bytes', '1000000', "SELECT repeat('x', 1000) AS s FROM generate_series(1, 30000000)"],
      env,
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      'equisql run: schema social_media__full_sti: refused: the result has more than 1,000,000 bytes of rows (--max-bytes 1000000)\n',
    );
    expect(r.peakMb).toBeLessThan(500);
  }, 300_000);

  it('prints 200k rows as a table, every column measured', () => {
    const r = runMeasured(
      dir,
      [
        '--format',
        'table',
        "SELECT g AS n, CASE WHEN g = 123456 THEN 'the longest cell of all' ELSE 'x' END AS s FROM generate_series(1, 200000) AS g",
      ],
      env,
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines).toHaveLength(200_004);
    expect(lines[0]).toBe('n      | s');
    expect(lines[1]).toBe(`-------+-${'-'.repeat('the longest cell of all'.length)}`);
    expect(lines[2]).toBe('1      | x');
    expect(lines[123457]).toBe('123456 | the longest cell of all');
    expect(lines[200_002]).toBe('(200000 rows)');
    // The table keeps its rows (its widths depend on all of them); PGlite alone takes about 450 MB.
    expect(r.peakMb).toBeLessThan(700);
  }, 300_000);
}

describe('bounded results on PGlite', () =>
  bounds('pglite', async (dir) => ({
    target: { kind: 'pglite', dir: join(dir, 'pglite') },
    env: { DATABASE_URL: undefined },
  })));

describeServer('bounded results on the server', (serverUrl) => {
  let drop: (() => Promise<void>) | undefined;
  afterAll(async () => drop?.());
  bounds('server', async () => {
    const fresh = await createDatabase(serverUrl, 'result_bounds');
    drop = fresh.drop;
    return { target: { kind: 'postgres', url: fresh.url }, env: { DATABASE_URL: fresh.url } };
  });
});
