// @tier long
/**
 * Faults of the run are not verdicts on candidates (issue 16, findings 10, 11, 23): two
 * runs into one directory, a database connection lost mid-run (backends terminated, the
 * server stopped), a full disk. Each stops the stage in one line, or gets over the fault,
 * and what is left continues with --resume to the bytes of an uninterrupted run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { openPglite } from '../../generator/database/pglite-database.ts';
import { LoadError } from '../../generator/common/errors.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import { createDatabase, describeServer } from '../helpers/postgres.ts';
import { REPO_ROOT, runCli, runCliAsync, type CliRun } from '../helpers/run-cli.ts';

const BIN = join(REPO_ROOT, 'bin/equisql.js');
const ARGS = ['generate', '--dataset', 'retail', '--variants', 'full_sti,full_cti', '--scale', 'tiny', '--seed', '3'];

/** The files a run's stages write whose bytes must not depend on faults along the way. */
function outputBytes(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const rel of ['groups/retail.jsonl', 'rejections.jsonl', 'questions/retail.jsonl'])
    files[rel] = readFileSync(join(dir, rel), 'utf8');
  for (const sub of ['data', 'finetune'])
    for (const f of readdirSync(join(dir, sub)).sort()) files[`${sub}/${f}`] = readFileSync(join(dir, sub, f), 'utf8');
  return files;
}

function lineCount(path: string): number {
  try {
    return readFileSync(path, 'utf8').split('\n').length - 1;
  } catch {
    return 0;
  }
}

async function waitFor(what: string, ok: () => boolean, timeoutMs = 120_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 25));
  }
}

describe('two generate runs into one new directory', () => {
  const tmp = tempDir('faults-lock');
  afterAll(() => tmp.remove());

  it('started together: one runs, the other gets one line "in use by equisql generate (pid …)", exit 2, and the database verifies', async () => {
    const out = join(tmp.dir, 'together');
    const env = { DATABASE_URL: undefined };
    const args = [...ARGS, '--groups', '3', '--out', out, '--quiet'];
    const [a, b] = await Promise.all([runCliAsync(args, { env }), runCliAsync(args, { env })]);
    const runs = [a, b].sort((x, y) => x.status - y.status) as [CliRun, CliRun];
    expect(runs[0].status, runs[0].stderr).toBe(0);
    expect(runs[1].status, runs[1].stderr).toBe(2);
    expect(runs[1].stderr).toMatch(
      new RegExp(
        `^equisql generate: ${out} is in use by equisql generate \\(pid \\d+, since [^)]*\\); wait for it to finish .*\\n$`,
        'u',
      ),
    );
    expect(runCli(['verify', '--dir', out], { env }).status).toBe(0);
  }, 240_000);

  it('started a second apart: the second never opens DIR/pglite while the first builds it', async () => {
    const out = join(tmp.dir, 'apart');
    const env = { DATABASE_URL: undefined };
    const args = [...ARGS, '--groups', '3', '--out', out, '--quiet'];
    const first = runCliAsync(args, { env });
    await new Promise((done) => setTimeout(done, 1000));
    const second = runCli(args, { env });
    expect(second.status, second.stderr).toBe(2);
    expect(second.stderr).toMatch(
      /^equisql generate: .* is in use by equisql generate \(pid \d+, since [^)]*\); wait for it to finish .*\n$/u,
    );
    const done = await first;
    expect(done.status, done.stderr).toBe(0);
    expect(runCli(['verify', '--dir', out], { env }).status).toBe(0);
  }, 240_000);

  it('PGlite loading has a timeout: a data directory that does not open in time is refused in one line', async () => {
    const dir = join(tmp.dir, 'slow-pglite');
    const fresh = await openPglite(dir);
    await fresh.close();
    const opening = openPglite(dir, { openTimeoutMs: 1 });
    await expect(opening).rejects.toThrow(LoadError);
    await expect(opening).rejects.toThrow(`cannot open PGlite database in ${dir}: it did not open within 0.001 s`);
    // The database itself is unharmed: with time to open, it opens.
    const again = await openPglite(dir);
    expect(await again.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    await again.close();
  });
});

describeServer('a database connection lost mid-generate (backends terminated)', (serverUrl) => {
  const tmp = tempDir('faults-terminate');
  let db: { url: string; drop: () => Promise<void> };
  let reference: Record<string, string>;
  beforeAll(async () => {
    db = await createDatabase(serverUrl, 'faults_term');
    const out = join(tmp.dir, 'uninterrupted');
    const run = await runCliAsync([...ARGS, '--groups', '150', '--db', db.url, '--out', out, '--quiet']);
    expect(run.status, run.stderr).toBe(0);
    reference = outputBytes(out);
  }, 240_000);
  afterAll(async () => {
    await db?.drop();
    tmp.remove();
  });

  it('reconnects and runs the query again: the run ends as an uninterrupted one, with no rejection for the lost connection', async () => {
    const out = join(tmp.dir, 'terminated');
    const running = runCliAsync([...ARGS, '--groups', '150', '--db', db.url, '--out', out, '--quiet']);
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    let terminated = 0;
    try {
      const dbName = new URL(db.url).pathname.slice(1);
      // Only the backends of this test's own database, never anyone else's.
      for (const after of [20, 60, 120]) {
        await waitFor(`${after} rejections`, () => lineCount(join(out, 'rejections.jsonl')) >= after);
        const r = await admin.query(
          'SELECT count(pg_terminate_backend(pid)) AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
          [dbName],
        );
        terminated += Number(r.rows[0].n);
      }
    } finally {
      await admin.end();
    }
    const run = await running;
    expect(terminated).toBeGreaterThan(0);
    expect(run.status, run.stderr).toBe(0);
    expect(readFileSync(join(out, 'rejections.jsonl'), 'utf8')).not.toMatch(/connection|terminat/iu);
    expect(outputBytes(out)).toEqual(reference);
  }, 240_000);
});

// A server this test may stop: a cluster of its own, as `.ci/run` starts one (root runs it as postgres).
const PGBIN = ['/usr/lib/postgresql/17/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/15/bin'].find((d) =>
  existsSync(join(d, 'pg_ctl')),
);
const ownCluster = PGBIN !== undefined && process.getuid?.() === 0 && spawnSync('id', ['postgres']).status === 0;

describe.skipIf(!ownCluster)('the server stopped mid-generate (pg_ctl stop -m immediate)', () => {
  const tmp = tempDir('faults-stop');
  const data = join(tmp.dir, 'pgdata');
  const port = 54400 + (process.pid % 400);
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const asPostgres = (command: string) => {
    const r = spawnSync('su', ['postgres', '-c', command], { cwd: '/', encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${command}: ${r.stderr}`);
  };
  const start = () =>
    asPostgres(
      `${PGBIN}/pg_ctl -D '${data}' -l '${data}/server.log' -w -o '-h 127.0.0.1 -p ${port} -k /tmp -c fsync=off -c synchronous_commit=off -c full_page_writes=off' start`,
    );
  const stop = () => asPostgres(`${PGBIN}/pg_ctl -D '${data}' -m immediate stop`);
  let reference: Record<string, string>;
  beforeAll(async () => {
    mkdirSync(data);
    spawnSync('chown', ['postgres:postgres', tmp.dir, data]);
    asPostgres(`${PGBIN}/initdb -D '${data}' -U postgres --auth=trust -E UTF8 --locale=C.UTF-8`);
    start();
    const out = join(tmp.dir, 'uninterrupted');
    const run = await runCliAsync([...ARGS, '--groups', '150', '--db', url, '--out', out, '--quiet']);
    expect(run.status, run.stderr).toBe(0);
    reference = outputBytes(out);
  }, 240_000);
  afterAll(() => {
    spawnSync('su', ['postgres', '-c', `${PGBIN}/pg_ctl -D '${data}' -m immediate stop`], { cwd: '/' });
    tmp.remove();
  });

  it('stops in one line, exit 2, records nothing for the candidate, and --resume after a restart gives the uninterrupted bytes', async () => {
    const out = join(tmp.dir, 'stopped');
    const running = runCliAsync([...ARGS, '--groups', '150', '--db', url, '--out', out, '--quiet']);
    await waitFor('40 rejections', () => lineCount(join(out, 'rejections.jsonl')) >= 40);
    stop();
    const run = await running;
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(
      /^equisql generate: lost the connection to postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres and could not reopen it \(5 attempts\): .*--resume continues once the database is back\n$/u,
    );
    const rejections = readFileSync(join(out, 'rejections.jsonl'), 'utf8');
    expect(rejections).not.toMatch(/connection|ECONNREFUSED|terminat/iu);
    // What the stopped run wrote is the start of what the uninterrupted run wrote.
    expect(reference['rejections.jsonl']?.startsWith(rejections)).toBe(true);
    expect(reference['groups/retail.jsonl']?.startsWith(readFileSync(join(out, 'groups/retail.jsonl'), 'utf8'))).toBe(
      true,
    );
    start();
    const resumed = await runCliAsync([...ARGS, '--groups', '150', '--db', url, '--out', out, '--quiet', '--resume']);
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(outputBytes(out)).toEqual(reference);
  }, 240_000);
});

// A full disk needs a small file system of its own: a tmpfs, which only root may mount.
const mountTmpfs = (size: string, dir: string): boolean => {
  mkdirSync(dir, { recursive: true });
  return spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]).status === 0;
};

describeServer('a full disk mid-generate', (serverUrl) => {
  const tmp = tempDir('faults-enospc');
  const disk = join(tmp.dir, 'disk');
  // Mounted when the block runs, not when it is collected: a skipped block leaves no mount behind.
  let mounted = false;
  beforeAll(() => {
    mounted = mountTmpfs('40m', disk);
  });
  let db: { url: string; drop: () => Promise<void> };
  afterAll(async () => {
    if (mounted) spawnSync('umount', [disk]);
    await db?.drop();
    tmp.remove();
  });

  it('stops in one line naming the file and ENOSPC, exit 2; --resume with room again gives the uninterrupted bytes', async (context) => {
    if (!mounted) context.skip('a tmpfs needs root to mount');
    db = await createDatabase(serverUrl, 'faults_enospc');
    const full = join(tmp.dir, 'uninterrupted');
    const whole = await runCliAsync([...ARGS, '--groups', '150', '--db', db.url, '--out', full, '--quiet']);
    expect(whole.status, whole.stderr).toBe(0);
    const out = join(disk, 'out');
    const child = spawn(process.execPath, [BIN, ...ARGS, '--groups', '150', '--db', db.url, '--out', out, '--quiet'], {
      cwd: REPO_ROOT,
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const exited = new Promise<number>((done) => child.on('close', (code) => done(code ?? -1)));
    await waitFor('40 rejections', () => lineCount(join(out, 'rejections.jsonl')) >= 40);
    // Fill the disk: what is left is less than a line.
    const fs = statfsSync(disk);
    const filler = join(disk, 'filler');
    try {
      writeFileSync(filler, Buffer.alloc(fs.bavail * fs.bsize));
    } catch {
      // Full: exactly what was wanted.
    }
    const status = await exited;
    expect(status, stderr).toBe(2);
    expect(stderr).toMatch(
      new RegExp(
        `^equisql generate: cannot append to ${out}/(?:rejections\\.jsonl|groups/retail\\.jsonl): no space left on device \\(ENOSPC, write\\); free the space and continue with --resume\\n$`,
        'u',
      ),
    );
    rmSync(filler);
    const resumed = await runCliAsync([
      ...ARGS,
      '--groups',
      '150',
      '--db',
      db.url,
      '--out',
      out,
      '--quiet',
      '--resume',
    ]);
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(outputBytes(out)).toEqual(outputBytes(full));
  }, 240_000);
});
