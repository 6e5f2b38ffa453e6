// @tier long
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMain } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import { PAPER_SOCIAL_MEDIA } from '../../generator/suites/paper-social-media.ts';
import { evalMessages, promptHash } from '../../generator/eval/eval-prompt.ts';
import type { EvalRun, EvalSummary, PredictionLine } from '../../generator/eval/eval-summary.ts';
import { sqliteDdl } from '../../generator/eval/sqlite-eval-inputs.ts';
import { openDatabase } from '../../generator/database/database.ts';
import { neutralResult } from '../../generator/execute/engine-neutral.ts';
import { normalizeResult } from '../../generator/execute/run-query.ts';
import { createSqliteExecutor } from '../../generator/execute/untrusted-sqlite.ts';
import type { ExportRecord } from '../../generator/records/export-record.ts';

// `equisql eval --engine sqlite` on a tiny social_media run (the paper's questions, two
// variants) generated with `--engines postgres,sqlite`: both instances' SQLite files and each
// record's proven SQLite SQL are the run's own.
// The gold scores 100% on SQLite, a known-wrong prediction 0 on its row, and hostile
// predictions are each refused or bounded with their kind, the files' bytes unchanged.
const tmp = tempDir('eval-sqlite');
afterAll(() => tmp.remove());
const noServer = { DATABASE_URL: undefined };
const VARIANTS = ['full_normalized', 'full_sti'];
const dir = join(tmp.dir, 'generated');
const lines = (path: string): string[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '');
const predictionsOf = (evalDir: string): PredictionLine[] =>
  lines(join(evalDir, 'predictions.jsonl')).map((l) => JSON.parse(l) as PredictionLine);
const summaryOf = (evalDir: string): EvalSummary =>
  JSON.parse(readFileSync(join(evalDir, 'summary.json'), 'utf8')) as EvalSummary;
const digest = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

let rows: ExportRecord[];
let files: string[];
/** Every SQLite file's sha256 before any evaluation. */
let before: Map<string, string>;

function writePredictions(name: string, sqlOf: (row: ExportRecord, i: number) => string | null): string {
  const path = join(tmp.dir, `${name}.jsonl`);
  writeFileSync(path, rows.map((r, i) => JSON.stringify({ id: r.id, sql: sqlOf(r, i) })).join('\n') + '\n');
  return path;
}

const evalArgs = (out: string, ...rest: string[]): string[] => [
  'eval',
  '--dir',
  dir,
  '--split',
  'test',
  '--engine',
  'sqlite',
  '--concurrency',
  '2',
  ...rest,
  '--out',
  join(tmp.dir, out),
];

beforeAll(async () => {
  const suite = join(tmp.dir, 'suite.jsonl');
  writeFileSync(
    suite,
    PAPER_SOCIAL_MEDIA.map((q) => JSON.stringify({ id: q.id, query: q.query, question: q.question })).join('\n') + '\n',
  );
  const generated = await runMain(
    [
      'generate',
      '--dataset',
      'social_media',
      '--variants',
      VARIANTS.join(','),
      '--scale',
      'tiny',
      '--engines',
      'postgres,sqlite',
      '--from-suite',
      suite,
      '--variants-per-question',
      'all',
      '--out',
      dir,
    ],
    { env: noServer },
  );
  // Exit 1 says fewer groups than the suite's queries (some are refused on the tiny instance).
  expect(generated.stderr).toMatch(/groups from/);
  files = VARIANTS.flatMap((v) => [join(dir, 'sqlite', `${v}.sqlite`), join(dir, 'edge', 'sqlite', `${v}.sqlite`)]);
  expect(files.every((f) => existsSync(f))).toBe(true);
  const exported = await runMain(['export', '--dir', dir, '--ratios', 'test=1', '--formats', 'jsonl'], {
    env: noServer,
  });
  expect(exported.status, exported.stderr).toBe(0);
  rows = lines(join(dir, 'data/test-00000-of-00001.jsonl')).map((l) => JSON.parse(l) as ExportRecord);
  expect(rows.length).toBeGreaterThan(6);
  before = new Map(files.map((f) => [f, digest(f)]));
}, 300_000);

describe('eval --engine sqlite', () => {
  it("scores the gold 100% on the SQLite files, asks in SQLite's words with the file's own schema, and says the engine", async () => {
    const gold = await runMain(evalArgs('gold', '--model', 'gold'), { env: noServer });
    expect(gold.status, gold.stderr).toBe(0);
    const summary = summaryOf(join(tmp.dir, 'gold'));
    expect(summary.engine).toBe('sqlite');
    expect(summary.ex).toMatchObject({ correct: rows.length, total: rows.length, rate: 1 });
    const run = JSON.parse(readFileSync(join(tmp.dir, 'gold', 'run.json'), 'utf8')) as EvalRun;
    expect(run.engine).toBe('sqlite');
    const scored = predictionsOf(join(tmp.dir, 'gold'));
    expect(scored.every((l) => l.engine === 'sqlite' && l.outcome === 'rows' && l.correct)).toBe(true);
    // The prompt of each line: the paper's, about a SQLite database, on the file's CREATE statements.
    for (const [i, line] of scored.entries()) {
      const row = rows[i] as ExportRecord;
      const messages = evalMessages(sqliteDdl(join(dir, 'sqlite', `${row.variant}.sqlite`)), row, undefined, 'sqlite');
      expect(line.prompt_hash).toBe(promptHash(messages));
    }
    const asked = evalMessages(
      sqliteDdl(join(dir, 'sqlite', 'full_sti.sqlite')),
      rows[0] as ExportRecord,
      undefined,
      'sqlite',
    );
    expect(asked[0]?.content).toMatch(/a schema for a SQLite database/u);
    expect(asked[0]?.content).toMatch(/SQLite dialect/u);
    expect(asked[0]?.content).not.toMatch(/PostgreSQL/u);
    expect(asked[1]?.content).toMatch(/^The database schema is:\n\nCREATE TABLE /u);
    expect(asked[1]?.content).not.toMatch(/SET search_path|CREATE SCHEMA/u);
    // Each SQLite gold answer is the recorded PostgreSQL one, read across the engines'
    // printing (`neutralResult`: 12.50 and 12.5, t and 1), on the main instance.
    const db = await openDatabase({ kind: 'pglite', dir: join(dir, 'pglite'), mustExist: true });
    const files = createSqliteExecutor(dir);
    try {
      for (const row of rows) {
        await db.exec(`SET search_path TO social_media__${row.variant}`);
        const onPostgres = await db.queryText(row.sql);
        expect(normalizeResult(onPostgres, row.ordered).hash, row.id).toBe(row.result_hash);
        const onSqlite = await files.run(`sqlite/${row.variant}.sqlite`, row.sql);
        if (onSqlite.kind !== 'rows') throw new Error(`${row.id}: ${onSqlite.message}`);
        expect(neutralResult(onSqlite, row.ordered).hash, row.id).toBe(neutralResult(onPostgres, row.ordered).hash);
      }
    } finally {
      await files.close();
      await db.close();
    }
    // The page says the engine too.
    expect(readFileSync(join(tmp.dir, 'gold', 'report.html'), 'utf8')).toMatch(/engine SQLite/u);
  }, 120_000);

  it('scores the gold SQL given as predictions 100%, and a known-wrong prediction 0 on its row only', async () => {
    const wrongAt = rows.findIndex((r) => r.variant === 'full_normalized');
    const wrong = writePredictions('wrong', (r, i) =>
      i === wrongAt ? `SELECT * FROM (${r.sql.replace(/;\s*$/u, '')}) AS t LIMIT 0` : r.sql,
    );
    const right = writePredictions('right', (r) => r.sql);
    const a = await runMain(evalArgs('right', '--predictions', right), { env: noServer });
    expect(a.status, a.stderr).toBe(0);
    expect(summaryOf(join(tmp.dir, 'right')).ex.rate).toBe(1);
    const b = await runMain(evalArgs('wrong', '--predictions', wrong), { env: noServer });
    expect(b.status, b.stderr).toBe(0);
    const scored = predictionsOf(join(tmp.dir, 'wrong'));
    // The gold of that row has rows on the main instance, so none is wrong there.
    expect((rows[wrongAt] as ExportRecord).row_count).toBeGreaterThan(0);
    expect(scored[wrongAt]).toMatchObject({
      outcome: 'rows',
      correct_main: false,
      correct: false,
      answers: { instance: 'main', schema: 'sqlite/full_normalized.sqlite', predicted: { count: 0 } },
    });
    expect(scored.filter((l) => !l.correct).map((l) => l.id)).toEqual([(rows[wrongAt] as ExportRecord).id]);
    expect(summaryOf(join(tmp.dir, 'wrong')).ex.correct).toBe(rows.length - 1);
  }, 120_000);

  /** Hostile texts and the kind each must be scored as (a 3 s timeout). */
  const HOSTILE: readonly (readonly [string, string])[] = [
    ["ATTACH DATABASE '/tmp/equisql-eval-sqlite-attached.sqlite' AS x", 'refused'],
    ["SELECT load_extension('x')", 'refused'],
    ['PRAGMA writable_schema = 1', 'refused'],
    ['WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c', 'timeout'],
    ['SELECT randomblob(1000000000)', 'refused'],
    ['SELECT zeroblob(1000000000)', 'refused'],
    ['SELECT 1; DELETE FROM streamer', 'refused'],
    ["VACUUM INTO '/tmp/equisql-eval-sqlite-copy.sqlite'", 'refused'],
    ['CREATE TABLE t (x integer)', 'refused'],
    ['INSERT INTO streamer (id) VALUES (1000000)', 'refused'],
    ['SELECT 1 /* only a comment */; DROP TABLE streamer', 'refused'],
    ["SELECT 1 -- a comment to the line's end\n; DELETE FROM streamer", 'refused'],
    ['WITH x AS (SELECT 1) DELETE FROM streamer', 'refused'],
    ["SELECT printf('%.900000000c', 'x')", 'refused'],
    ["SELECT date('now')", 'refused'],
    ['SELECT no_such_column FROM streamer', 'error'],
    // 20,000 rows of 10 kB: past the 128 MB byte cap, read no further than it.
    [
      "SELECT printf('%.10000c', 'x') FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 20000) SELECT x FROM c)",
      'over-cap',
    ],
    ['SELECT name, sql FROM sqlite_master', 'rows'],
  ];

  it("refuses or bounds every hostile prediction by its kind, and leaves every file's bytes unchanged", async () => {
    expect(rows.length).toBeGreaterThanOrEqual(HOSTILE.length / 2);
    // Each hostile text on at least one row; the rows past the list get them again in turn.
    const textOf = new Map(rows.map((r, i) => [r.id, HOSTILE[i % HOSTILE.length] as readonly [string, string]]));
    const extra = writePredictions('hostile', (r) => (textOf.get(r.id) as readonly [string, string])[0]);
    const done = await runMain(evalArgs('hostile', '--predictions', extra, '--timeout', '3'), { env: noServer });
    expect(done.status, done.stderr).toBe(0);
    const scored = predictionsOf(join(tmp.dir, 'hostile'));
    for (const line of scored) {
      const [text, kind] = textOf.get(line.id) as readonly [string, string];
      expect([text, line.outcome], line.message ?? '').toEqual([text, kind]);
      expect(line.correct).toBe(false);
      if (kind !== 'rows') expect(line.message).toMatch(new RegExp(`^(edge/)?sqlite/${line.variant}\\.sqlite: `, 'u'));
    }
    // Texts past the first rows may not have reached every hostile one; these must have.
    const seen = new Set(scored.map((l) => (textOf.get(l.id) as readonly [string, string])[0]));
    for (const [text] of HOSTILE.slice(0, rows.length)) expect(seen.has(text)).toBe(true);
    expect(existsSync('/tmp/equisql-eval-sqlite-attached.sqlite')).toBe(false);
    expect(existsSync('/tmp/equisql-eval-sqlite-copy.sqlite')).toBe(false);
    for (const f of files) expect(digest(f), f).toBe(before.get(f));
    // Still one table of streamers, none added, on every file.
    for (const f of files) {
      const db = new Database(f, { readonly: true });
      try {
        expect(db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 't'").get()).toEqual({ n: 0 });
      } finally {
        db.close();
      }
    }
    const summary = summaryOf(join(tmp.dir, 'hostile'));
    expect(summary.ex.correct).toBe(0);
    for (const kind of ['refused', 'error', 'timeout', 'over-cap'] as const) {
      const expected = scored.filter((l) => (textOf.get(l.id) as readonly [string, string])[1] === kind).length;
      expect(expected, kind).toBeGreaterThan(0);
      expect(summary.errors.by_kind[kind], kind).toBe(expected);
    }
  }, 180_000);

  it('resumes a cut run to the same bytes, and refuses to resume a run of the other engine', async () => {
    const whole = readFileSync(join(tmp.dir, 'gold', 'predictions.jsonl'), 'utf8');
    const cut = join(tmp.dir, 'gold-cut');
    const first = await runMain(evalArgs('gold-cut', '--model', 'gold'), { env: noServer });
    expect(first.status, first.stderr).toBe(0);
    const text = readFileSync(join(cut, 'predictions.jsonl'), 'utf8');
    expect(text).toBe(whole);
    // Killed after five lines and part of a sixth.
    const kept = text.split('\n').slice(0, 5).join('\n') + '\n{"id":"';
    writeFileSync(join(cut, 'predictions.jsonl'), kept);
    rmSync(join(cut, 'summary.json'));
    const resumed = await runMain([...evalArgs('gold-cut', '--model', 'gold'), '--resume'], { env: noServer });
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/resuming after 5 of/u);
    expect(readFileSync(join(cut, 'predictions.jsonl'), 'utf8')).toBe(whole);
    const onPostgres = await runMain(
      ['eval', '--dir', dir, '--split', 'test', '--model', 'gold', '--out', cut, '--resume'],
      { env: noServer },
    );
    expect(onPostgres.status).not.toBe(0);
    expect(onPostgres.stderr).toMatch(
      /--resume: .* holds another evaluation \(its engine was "sqlite", now "postgres"\)/u,
    );
  }, 120_000);

  it('refuses in one line naming the missing file, before anything is scored or written', async () => {
    const file = join(dir, 'edge', 'sqlite', 'full_sti.sqlite');
    renameSync(file, `${file}.away`);
    try {
      const out = join(tmp.dir, 'missing');
      const run = await runMain(evalArgs('missing', '--model', 'gold'), { env: noServer });
      expect(run.status).not.toBe(0);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr).toContain(`--engine sqlite: ${file} is missing`);
      expect(existsSync(join(out, 'predictions.jsonl'))).toBe(false);
    } finally {
      renameSync(`${file}.away`, file);
    }
    const bad = await runMain(
      evalArgs('bad-engine', '--model', 'gold').map((a) => (a === 'sqlite' ? 'mysql' : a)),
      { env: noServer },
    );
    expect(bad.stderr.trim()).toBe('equisql eval: --engine: expected postgres or sqlite, got "mysql"');
    expect(readdirSync(tmp.dir)).not.toContain('bad-engine');
  }, 60_000);
  it('runs from a Hub folder that carries the edge-case instance (export --hub-dir --with-edge): the gold is right on both instances there', async () => {
    const hub = join(tmp.dir, 'hub-edge');
    const laid = await runMain(['export', '--dir', dir, '--hub-dir', hub, '--with-edge'], { env: noServer });
    expect(laid.status, laid.stderr).toBe(0);
    expect(laid.stderr).toMatch(/with the edge-case instance and the SQLite files/u);
    // The run's own database and the stage inputs stay behind; the SQLite files come as they are.
    expect(existsSync(join(hub, 'pglite'))).toBe(false);
    expect(existsSync(join(hub, 'questions'))).toBe(false);
    expect(existsSync(join(hub, 'edge', 'build.json'))).toBe(true);
    for (const f of files) expect(digest(join(hub, relative(dir, f))), f).toBe(before.get(f));
    expect(readFileSync(join(hub, '.gitattributes'), 'utf8')).toContain('*.sqlite filter=lfs');
    const checked = await runMain(['check', '--dir', hub], { env: noServer });
    expect(checked.status, checked.stderr).toBe(0);

    const out = join(tmp.dir, 'hub-gold');
    const scored = await runMain(
      ['eval', '--dir', hub, '--split', 'test', '--engine', 'sqlite', '--model', 'gold', '--out', out],
      { env: noServer },
    );
    expect(scored.status, scored.stderr).toBe(0);
    expect(summaryOf(out).ex).toMatchObject({ correct: rows.length, total: rows.length, rate: 1 });
    const lines = predictionsOf(out);
    expect(lines).toHaveLength(rows.length);
    // Scored on the edge-case instance too, from the folder's own files.
    expect(lines.every((l) => l.correct_main && l.correct_edge && l.edge_result_hash !== null)).toBe(true);

    // A Hub folder without it has no database: eval says which file, in one line.
    const plain = join(tmp.dir, 'hub-plain');
    expect((await runMain(['export', '--dir', dir, '--hub-dir', plain], { env: noServer })).status).toBe(0);
    const refused = await runMain(
      [
        'eval',
        '--dir',
        plain,
        '--split',
        'test',
        '--engine',
        'sqlite',
        '--model',
        'gold',
        '--out',
        join(tmp.dir, 'hub-plain-eval'),
      ],
      { env: noServer },
    );
    expect(refused.status).toBe(2);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(/--engine sqlite: .*sqlite\/full_normalized\.sqlite is missing/u);
  }, 120_000);

  it('refuses --with-edge without --hub-dir, and on a directory without an edge-case instance, in one line before copying', async () => {
    const alone = await runMain(['export', '--dir', dir, '--with-edge'], { env: noServer });
    expect(alone.status).toBe(2);
    expect(alone.stderr.trim()).toBe(
      'equisql export: --with-edge: only with --hub-dir OUT (it adds the edge-case instance to the Hub folder)',
    );
    const edge = join(dir, 'edge', 'build.json');
    renameSync(edge, `${edge}.away`);
    try {
      const hub = join(tmp.dir, 'hub-no-edge');
      const run = await runMain(['export', '--dir', dir, '--hub-dir', hub, '--with-edge'], { env: noServer });
      expect(run.status).toBe(2);
      expect(run.stderr.trim()).toBe(
        `equisql export: --with-edge: ${dir} has no edge-case instance (no edge/build.json); equisql generate builds one`,
      );
      expect(existsSync(hub)).toBe(false);
    } finally {
      renameSync(`${edge}.away`, edge);
    }
  }, 60_000);
});
