// @tier long
/**
 * Seeded hostile predictions through `equisql eval`, on PGlite and on a server: values of
 * 1 GB, errors of many SQLSTATE classes, refused casts, results past the caps, timeouts, and
 * plain right and wrong SQL, each text made distinct (a comment naming its row) so that every
 * prediction runs. The run must score every row by its kind, stay under 1 GB of resident
 * memory, and a run killed with SIGKILL part
 * way and resumed must give the bytes of the uninterrupted one. EQUISQL_HOSTILE_PREDICTIONS predictions (60; 1,000 in the acceptance
 * tier), over every preset variant of as many random groups as that takes.
 *
 * Eval runs in one process: PGlite is a worker thread in it, and nothing is forked, so the
 * peak resident set `/usr/bin/time` reports for the process is the whole tree's.
 *
 * Every text's outcome here is decided by the text, not by the machine's speed, so the
 * killed and uninterrupted runs must agree to the byte. That leaves out, per engine:
 * - on the server, a 600 MB or 1 GB value returned whole (`repeat(repeat('x', 1000000), 1000)`):
 *   over the byte cap or past the timeout depending on load (hostile-eval.test.ts covers it,
 *   accepting either). Here the 1 GB values are built a hundred times under a count, which
 *   is a timeout on any machine, and asked at 1.1 GB, which PostgreSQL refuses (54000).
 * - on PGlite, results past the caps: PGlite moves rows through its worker too slowly to
 *   pass the row cap within the timeout, and with its memory bounded for predictions (256 MB)
 *   a value past the byte cap fails as "out of memory" (53200) before it is measured. Both
 *   are bounded verdicts, checked by kind below; neither can be an over-cap on PGlite.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EvalSummary, OutcomeKind, PredictionLine } from '../../generator/eval/eval-summary.ts';
import type { ExportRecord } from '../../generator/records/export-record.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import { createDatabase, describeServer } from '../helpers/postgres.ts';
import { REPO_ROOT, runCliAsync } from '../helpers/run-cli.ts';
import { sized } from '../helpers/tiers.ts';
import { DEFAULT_QUESTION_PLAN } from '../../generator/records/question-record.ts';

const PREDICTIONS = sized('EQUISQL_HOSTILE_PREDICTIONS', 60, 1000);
/** Rows a random group gives in the test split: each question of the default plan on the ten presets. */
const ROWS_PER_GROUP = 10 * Object.values(DEFAULT_QUESTION_PLAN).reduce<number>((a, b) => a + (b ?? 0), 0);
const BIN = join(REPO_ROOT, 'bin/equisql.js');
const MB = 1024 * 1024;

type Engine = 'pglite' | 'server';
/** What a text must be scored as: an outcome kind, or `right`/`wrong` (rows, correct or not). */
type Expect = Exclude<OutcomeKind, 'rows' | 'missing'> | 'right' | 'wrong';
interface Hostile {
  /** The text, or a function of the row (the gold). */
  readonly sql: string | ((row: ExportRecord) => string);
  readonly pglite: Expect;
  readonly server: Expect;
  /** The seed's weight: slow texts (timeouts) are drawn less often. */
  readonly weight: number;
  /** The SQLSTATE of an error, checked in its message's line. */
  readonly state?: string;
}

const error = (sql: string, state: string): Hostile => ({ sql, pglite: 'error', server: 'error', weight: 1, state });
const HOSTILE: readonly Hostile[] = [
  // Values of 1 GB: built a hundred times (a timeout on the server; past PGlite's bounded
  // memory, 53200), and asked for at 1.1 GB (past PostgreSQL's own limit, 54000).
  // (`1000 + g - g`: a constant count would be folded into one value for all the rows.)
  {
    sql: "SELECT length(repeat(repeat('x', 1000000), 1000 + g - g)) AS gb FROM generate_series(1, 100) AS g",
    pglite: 'error',
    server: 'timeout',
    weight: 0.5,
  },
  error("SELECT repeat('x', 1100000000)", '54000'),
  // The class 22 data exceptions a SELECT reaches.
  error('SELECT 1 / 0', '22012'),
  error("SELECT 'a'::int", '22P02'),
  error('SELECT ln(-1)', '2201E'),
  error('SELECT 2147483647 + 1', '22003'),
  error("SELECT '1e400'::float8", '22003'),
  error('SELECT factorial(40000)', '22003'),
  error("SELECT '2020-13-45'::date", '22008'),
  error('SELECT make_date(2020, 13, 1)', '22008'),
  error("SELECT regexp_match('a', '(')", '2201B'),
  error('SELECT generate_series(1, 10, 0)', '22023'),
  error("SELECT jsonb_array_length('{}'::jsonb)", '22023'),
  error('SELECT sum(1) OVER (ROWS -1 PRECEDING)', '22013'),
  error('SELECT ntile(0) OVER ()', '22014'),
  error('SELECT nth_value(1, 0) OVER ()', '22016'),
  error('SELECT 1 LIMIT -1', '2201W'),
  error('SELECT 1 OFFSET -1', '2201X'),
  // 21: cardinality; 54: program limits; 0A: not supported.
  error('SELECT (SELECT 1 UNION SELECT 2)', '21000'),
  error('SELECT chr(0)', '54000'),
  error('SELECT CASE WHEN true THEN generate_series(1, 2) END', '0A000'),
  // 42: the statement's own faults, past the guard (which reads syntax and names only).
  error('SELECT no_such_column', '42703'),
  error('SELECT x FROM (VALUES (1)) AS a(x), (VALUES (2)) AS b(x)', '42702'),
  error('SELECT lower(1)', '42883'),
  error('SELECT 1::date', '42846'),
  error('SELECT 1 ORDER BY 2', '42P10'),
  error('SELECT x, count(*) FROM (VALUES (1)) AS v(x)', '42803'),
  // Refused by the guard: casts that read the catalogs or the clock, a second statement, a call not listed.
  { sql: "SELECT '{pg_authid}'::regclass[]", pglite: 'refused', server: 'refused', weight: 1 },
  { sql: "SELECT '{now}'::timestamptz[]", pglite: 'refused', server: 'refused', weight: 1 },
  { sql: 'SELECT 1; SELECT 2', pglite: 'refused', server: 'refused', weight: 1 },
  { sql: 'SELECT pg_sleep(60)', pglite: 'refused', server: 'refused', weight: 1 },
  // Past the caps: 140 MB in one value (over the byte cap on the server; 53200 in PGlite's
  // bounded memory), and past the row cap (the server; a timeout on PGlite, too slow to pass it).
  { sql: "SELECT repeat(repeat('x', 100000), 1400)", pglite: 'error', server: 'over-cap', weight: 0.5 },
  { sql: 'SELECT generate_series(1, 1000001)', pglite: 'timeout', server: 'over-cap', weight: 0.25 },
  // Runs until the timeout.
  {
    sql: 'SELECT count(*) FROM generate_series(1, 2000000000) AS hostile_long',
    pglite: 'timeout',
    server: 'timeout',
    weight: 0.5,
  },
  // Plain SQL: the gold (right), and an answer of the wrong shape (wrong).
  { sql: (row) => row.sql, pglite: 'right', server: 'right', weight: 6 },
  { sql: 'SELECT 1 AS wrong', pglite: 'wrong', server: 'wrong', weight: 2 },
];

/** The seed's choice of a hostile text per row: every text once, then weighted picks of a small LCG. */
function hostileChoices(count: number, seed: number): number[] {
  let state = seed >>> 0;
  const next = (): number => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  const total = HOSTILE.reduce((n, h) => n + h.weight, 0);
  const chosen: number[] = [];
  for (let i = 0; i < count; i++) {
    if (i < HOSTILE.length) {
      chosen.push(i);
      continue;
    }
    let r = next() * total;
    let k = 0;
    while (k < HOSTILE.length - 1 && r >= (HOSTILE[k] as Hostile).weight) r -= (HOSTILE[k++] as Hostile).weight;
    chosen.push(k);
  }
  return chosen;
}

const read = (path: string): string[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '');

/** `node bin/equisql.js …` under `/usr/bin/time`: its status, stderr, and peak resident set in bytes. */
function evalMeasured(
  args: readonly string[],
  env: Record<string, string | undefined>,
): Promise<{ status: number; stderr: string; peak: number }> {
  const childEnv = { ...process.env, ...env };
  for (const [k, v] of Object.entries(childEnv)) if (v === undefined) delete childEnv[k];
  return new Promise((done, fail) => {
    const child = spawn('/usr/bin/time', ['-f', 'equisql-peak-kb %M', process.execPath, BIN, ...args], {
      cwd: REPO_ROOT,
      env: childEnv as NodeJS.ProcessEnv,
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.stdout.resume();
    child.on('error', fail);
    child.on('close', (code) => {
      const peak = /equisql-peak-kb (\d+)\s*$/u.exec(stderr);
      done({ status: code ?? -1, stderr, peak: peak ? Number(peak[1]) * 1024 : Number.NaN });
    });
  });
}

/** Starts eval as a child and kills it with SIGKILL once predictions.jsonl holds `after` lines. */
function evalKilled(
  args: readonly string[],
  env: Record<string, string | undefined>,
  predictions: string,
  after: number,
): Promise<{ killed: boolean; stderr: string }> {
  const childEnv = { ...process.env, ...env };
  for (const [k, v] of Object.entries(childEnv)) if (v === undefined) delete childEnv[k];
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: REPO_ROOT, env: childEnv as NodeJS.ProcessEnv });
    let stderr = '';
    let killed = false;
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.stdout.resume();
    const watch = setInterval(() => {
      if (killed || !existsSync(predictions)) return;
      if (readFileSync(predictions, 'utf8').split('\n').length - 1 >= after) {
        killed = true;
        child.kill('SIGKILL');
      }
    }, 20);
    child.on('error', fail);
    child.on('close', () => {
      clearInterval(watch);
      done({ killed, stderr });
    });
  });
}

/**
 * The checks of one engine: generate over every preset, export the test split, write the
 * predictions, run eval whole under /usr/bin/time, then killed and resumed.
 */
function hostileRun(
  engine: Engine,
  setup: () => Promise<{ db: string[]; env: Record<string, string | undefined>; close: () => Promise<void> }>,
): void {
  const tmp = tempDir(`hostile-1000-${engine}`);
  const dir = join(tmp.dir, 'generated');
  const predictions = join(tmp.dir, 'hostile.jsonl');
  let rows: ExportRecord[] = [];
  let chosen: number[] = [];
  let db: string[] = [];
  let env: Record<string, string | undefined> = {};
  let close = async () => {};
  // PGlite reopens its worker after each timeout, so its timeouts cost more; the server's
  // is longer so that 140 MB over the byte cap (about 2 s on a quiet machine, two at a time)
  // is reached well before it on a loaded one.
  const timeout = engine === 'pglite' ? '2' : '10';
  // At 1,000 predictions the eval process (run from the sources through tsx) peaked at 620 MB
  // on PGlite beside two other test files, and at 677 to 719 MB on a server.
  const memoryBound = 1024 * MB;
  const args = (out: string) => [
    'eval',
    '--dir',
    dir,
    '--predictions',
    predictions,
    ...db,
    '--timeout',
    timeout,
    '--concurrency',
    engine === 'pglite' ? '1' : '2',
    '--out',
    out,
  ];

  beforeAll(async () => {
    ({ db, env, close } = await setup());
    const groups = String(Math.ceil(PREDICTIONS / ROWS_PER_GROUP));
    const generated = await runCliAsync(
      [
        'generate',
        '--dataset',
        'social_media',
        '--variants',
        'all',
        '--scale',
        'tiny',
        '--groups',
        groups,
        ...db,
        '--out',
        dir,
      ],
      { env },
    );
    expect(generated.status, generated.stderr).toBe(0);
    const exported = await runCliAsync(['export', '--dir', dir, '--ratios', 'test=1', '--formats', 'jsonl'], { env });
    expect(exported.status, exported.stderr).toBe(0);
    rows = read(join(dir, 'data/test-00000-of-00001.jsonl')).map((l) => JSON.parse(l) as ExportRecord);
    chosen = hostileChoices(PREDICTIONS, 1000);
    // The first PREDICTIONS rows get a prediction each; any row after them is scored missing.
    const text = (i: number): string => {
      const h = HOSTILE[chosen[i] as number] as Hostile;
      return `/* prediction ${i} */ ${typeof h.sql === 'string' ? h.sql : h.sql(rows[i] as ExportRecord)}`;
    };
    writeFileSync(
      predictions,
      rows
        .slice(0, PREDICTIONS)
        .map((r, i) => JSON.stringify({ id: r.id, sql: text(i) }))
        .join('\n') + '\n',
    );
  }, 900_000);
  afterAll(async () => {
    await close();
    tmp.remove();
  });

  it(`scores ${PREDICTIONS} hostile predictions by kind within the memory bound, and a run killed with SIGKILL resumes to the same bytes`, async () => {
    expect(rows.length).toBeGreaterThanOrEqual(PREDICTIONS);
    const whole = join(tmp.dir, 'whole');
    const run = await evalMeasured(args(whole), env);
    expect(run.status, run.stderr).toBe(0);
    expect(run.peak, 'peak resident memory').toBeLessThan(memoryBound);
    console.log(`${engine}: ${PREDICTIONS} hostile predictions, peak ${Math.round(run.peak / MB)} MB`);

    // Every row scored, each prediction by its text's kind.
    const lines = read(join(whole, 'predictions.jsonl')).map((l) => JSON.parse(l) as PredictionLine);
    expect(lines.map((l) => l.id)).toEqual(rows.map((r) => r.id));
    const kinds = new Set<string>();
    lines.forEach((l, i) => {
      if (i >= PREDICTIONS) {
        expect(l.outcome).toBe('missing');
        return;
      }
      const h = HOSTILE[chosen[i] as number] as Hostile;
      const want = h[engine];
      kinds.add(want);
      const got = l.outcome === 'rows' ? (l.correct ? 'right' : 'wrong') : l.outcome;
      expect(`${l.sql} => ${got}`).toBe(`${l.sql} => ${want}`);
      expect(l.message ?? '').not.toMatch(/\n/u);
      // The bounded memory's refusal, where a text's error is PGlite's alone.
      if (want === 'error' && h.state === undefined) expect(l.message).toMatch(/out of memory/u);
    });
    // Every kind the engine can give is among the predictions.
    const possible = new Set(HOSTILE.map((h) => h[engine]));
    expect([...kinds].sort()).toEqual([...possible].sort());
    const summary = JSON.parse(readFileSync(join(whole, 'summary.json'), 'utf8')) as EvalSummary;
    const count = (kind: string) => lines.filter((l) => l.outcome === kind).length;
    expect(summary.errors.by_kind).toEqual({
      refused: count('refused'),
      error: count('error'),
      timeout: count('timeout'),
      'over-cap': count('over-cap'),
      missing: count('missing'),
    });
    expect(summary.errors.total).toBe(rows.length);
    expect(summary.errors.invalid + count('rows')).toBe(rows.length);

    // Killed at a seeded moment, then resumed: the bytes of the uninterrupted run.
    const cut = join(tmp.dir, 'cut');
    const after =
      1 +
      ((hostileChoices(HOSTILE.length + 1, 7)[HOSTILE.length] as number) % Math.max(1, Math.floor(PREDICTIONS / 2)));
    const first = await evalKilled(args(cut), env, join(cut, 'predictions.jsonl'), after);
    expect(first.killed, first.stderr).toBe(true);
    expect(read(join(cut, 'predictions.jsonl')).length).toBeLessThan(rows.length);
    const resumed = await evalMeasured([...args(cut), '--resume'], env);
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/eval: resuming after \d+ of \d+ predictions/u);
    expect(resumed.peak, 'peak resident memory of the resumed run').toBeLessThan(memoryBound);
    expect(readFileSync(join(cut, 'predictions.jsonl'), 'utf8')).toBe(
      readFileSync(join(whole, 'predictions.jsonl'), 'utf8'),
    );
    expect(readFileSync(join(cut, 'summary.json'), 'utf8')).toBe(readFileSync(join(whole, 'summary.json'), 'utf8'));
  }, 3_600_000);
}

describe('hostile predictions through eval on PGlite', () => {
  hostileRun('pglite', async () => ({ db: [], env: { DATABASE_URL: undefined }, close: async () => {} }));
});

describeServer('hostile predictions through eval on a server', (serverUrl) => {
  hostileRun('server', async () => {
    const fresh = await createDatabase(serverUrl, 'hostile_eval_1000');
    return { db: ['--db', fresh.url], env: {}, close: fresh.drop };
  });
});
