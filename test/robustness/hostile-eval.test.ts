/**
 * Findings 1 and 2 of the third hostile run, through `equisql eval` on a server: a
 * prediction whose value is too long to take in, one that fails with any SQLSTATE, and a
 * connection lost under a prediction. Seeded hostile predictions are all scored, each
 * counted by its kind; a lost connection stops the run in one line, and --resume continues
 * it to the bytes of an uninterrupted run. Values of 600 MB and 1 GB run under
 * EQUISQL_ACCEPTANCE=1 (minutes on a loaded machine).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { EvalSummary, PredictionLine } from '../../generator/eval/eval-summary.ts';
import type { ExportRecord } from '../../generator/records/export-record.ts';
import { PAPER_SOCIAL_MEDIA } from '../../generator/suites/paper-social-media.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import { createDatabase, describeServer } from '../helpers/postgres.ts';
import { runCli, runCliAsync } from '../helpers/run-cli.ts';

const ACCEPTANCE = process.env['EQUISQL_ACCEPTANCE'] === '1';
/** A query that runs until the timeout, unless its backend is ended first. */
const LONG = 'SELECT count(*) FROM generate_series(1, 2000000000) AS hostile_long';

/** Hostile texts and the kind each must be scored as. */
const HOSTILE: readonly (readonly [string, string])[] = [
  ["SELECT repeat('x', 1100000000)", 'error'], // 54000: past PostgreSQL's own limit
  ['SELECT 1 / 0', 'error'], // 22012
  ["SELECT 'a'::int", 'error'], // 22P02
  ['SELECT ln(-1)', 'error'], // 2201E
  ['SELECT 2147483647 + 1', 'error'], // 22003
  ['SELECT (SELECT 1 UNION SELECT 2)', 'error'], // 21000
  ['SELECT no_such_column', 'error'], // 42703
  ["SELECT '{pg_authid}'::regclass[]", 'refused'],
  ["SELECT '{now}'::timestamptz[]", 'refused'],
  ["SELECT repeat('x', 3000000) FROM generate_series(1, 50)", 'over-cap'], // 150 MB of rows, 3 MB each
  [LONG, 'timeout'],
  ...(ACCEPTANCE
    ? ([
        ["SELECT repeat('x', 600000000)", 'over-cap'],
        ["SELECT repeat('x', 1000000000)", 'over-cap'],
      ] as const)
    : []),
];

/** The seed's choice of a hostile text for each row: a small LCG, so the same seed gives the same file. */
function hostilePredictions(rows: readonly ExportRecord[], seed: number): Map<string, string> {
  let state = seed >>> 0;
  const next = (): number => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state;
  };
  const chosen = new Map<string, string>();
  rows.forEach((r, i) => {
    // Every hostile text at least once, then the seed's picks.
    const text =
      i < HOSTILE.length
        ? (HOSTILE[i] as readonly [string, string])[0]
        : (HOSTILE[next() % HOSTILE.length] as readonly [string, string])[0];
    chosen.set(r.id, text);
  });
  return chosen;
}

describeServer('hostile predictions through eval on a server', (serverUrl) => {
  const tmp = tempDir('hostile-eval');
  const dir = join(tmp.dir, 'generated');
  let url = '';
  let drop: (() => Promise<void>) | undefined;
  let rows: ExportRecord[] = [];
  let predictions = '';
  const read = (path: string) =>
    readFileSync(path, 'utf8')
      .split('\n')
      .filter((l) => l !== '');

  beforeAll(async () => {
    const fresh = await createDatabase(serverUrl, 'hostile_eval');
    url = fresh.url;
    drop = fresh.drop;
    const suite = join(tmp.dir, 'suite.jsonl');
    writeFileSync(
      suite,
      PAPER_SOCIAL_MEDIA.map((q) => JSON.stringify({ id: q.id, query: q.query, question: q.question })).join('\n') +
        '\n',
    );
    const generated = runCli([
      'generate',
      '--dataset',
      'social_media',
      '--variants',
      'full_normalized',
      '--scale',
      'tiny',
      '--from-suite',
      suite,
      '--db',
      url,
      '--out',
      dir,
    ]);
    expect(generated.stderr).toMatch(/groups from/);
    const exported = runCli(['export', '--dir', dir, '--ratios', 'test=1', '--formats', 'jsonl']);
    expect(exported.status, exported.stderr).toBe(0);
    rows = read(join(dir, 'data/test-00000-of-00001.jsonl')).map((l) => JSON.parse(l) as ExportRecord);
    const chosen = hostilePredictions(rows, 31);
    predictions = join(tmp.dir, 'hostile.jsonl');
    writeFileSync(predictions, rows.map((r) => JSON.stringify({ id: r.id, sql: chosen.get(r.id) })).join('\n') + '\n');
  }, 600_000);
  afterAll(async () => {
    await drop?.();
    tmp.remove();
  });

  it('scores every hostile prediction by its kind, and a lost connection stops in one line that --resume continues to the same bytes', async () => {
    expect(rows.length).toBeGreaterThanOrEqual(HOSTILE.length);
    const args = (out: string) => [
      'eval',
      '--dir',
      dir,
      '--predictions',
      predictions,
      '--db',
      url,
      '--timeout',
      '20',
      '--concurrency',
      '1',
      '--out',
      out,
    ];
    const whole = join(tmp.dir, 'whole');
    const run = runCli(args(whole));
    expect(run.status, run.stderr).toBe(0);
    const lines = read(join(whole, 'predictions.jsonl')).map((l) => JSON.parse(l) as PredictionLine);
    expect(lines.length).toBe(rows.length);
    const expected = new Map(HOSTILE.map(([sql, kind]) => [sql, kind]));
    // PostgreSQL builds repeat()'s value a byte at a time: a value of 600 MB or 1 GB is over the
    // cap when the server finishes it within the timeout, and a timeout on a loaded machine.
    // Both are bounded verdicts; neither may be an error or a crash.
    const eitherBound = (sql: string): boolean => /^SELECT repeat\('x', (?:600000000|1000000000)\)$/u.test(sql);
    for (const l of lines) {
      const sql = l.sql as string;
      if (eitherBound(sql)) expect(['over-cap', 'timeout'], `${sql} => ${l.outcome}`).toContain(l.outcome);
      else expect(`${sql} => ${l.outcome}`).toBe(`${sql} => ${expected.get(sql)}`);
    }
    const summary = JSON.parse(readFileSync(join(whole, 'summary.json'), 'utf8')) as EvalSummary;
    const count = (kind: string) => lines.filter((l) => l.outcome === kind).length;
    expect(summary.errors.by_kind).toMatchObject({
      error: count('error'),
      refused: count('refused'),
      'over-cap': count('over-cap'),
      timeout: count('timeout'),
    });

    // The same run, with the backend under the long prediction ended once.
    const cut = join(tmp.dir, 'cut');
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    let ended = false;
    const terminator = setInterval(() => {
      if (ended) return;
      void admin
        // This test's database alone: other server-tier files run the same long query at once.
        .query(
          "SELECT pg_terminate_backend(pid) AS t FROM pg_stat_activity WHERE datname = $1 AND query LIKE '%hostile_long%' AND pid <> pg_backend_pid()",
          [new URL(url).pathname.slice(1)],
        )
        .then(
          (r) => {
            if (r.rows.some((x) => x['t'] === true)) ended = true;
          },
          () => {},
        );
    }, 100);
    const first = await runCliAsync(args(cut));
    clearInterval(terminator);
    await admin.end();
    expect(ended).toBe(true);
    expect(first.status, first.stderr).toBe(2);
    // Progress lines, then the one line of the stop.
    const last = first.stderr.trim().split('\n').pop() as string;
    expect(last).toMatch(/^equisql eval: .*stopped after \d+ of \d+ predictions \(rerun with --resume to continue\)$/u);
    expect(first.stderr).not.toMatch(/internal error|\n\s+at /u);
    const resumed = runCli([...args(cut), '--resume']);
    expect(resumed.status, resumed.stderr).toBe(0);
    // The same bytes, but for the verdicts the load decides (a value of 600 MB or 1 GB is over
    // the cap or past the timeout, above): those only agree that they are bounded.
    const bounded = (path: string) =>
      read(path).map((line) => {
        const l = JSON.parse(line) as PredictionLine;
        return eitherBound(l.sql as string) && ['over-cap', 'timeout'].includes(l.outcome as string)
          ? JSON.stringify({ ...l, outcome: 'bounded', message: null })
          : line;
      });
    expect(bounded(join(cut, 'predictions.jsonl'))).toEqual(bounded(join(whole, 'predictions.jsonl')));
  }, 900_000);
});
