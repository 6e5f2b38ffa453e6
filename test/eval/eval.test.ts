// @tier long
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runCliAsync, REPO_ROOT } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import { startSqlModelServer, type SqlModelServer } from '../helpers/sql-model-server.ts';
import { PAPER_SOCIAL_MEDIA } from '../../generator/suites/paper-social-media.ts';
import { openDatabase } from '../../generator/database/database.ts';
import { readEvalInputs, type EvalInputs } from '../../generator/eval/eval-inputs.ts';
import { evalMessages, promptHash } from '../../generator/eval/eval-prompt.ts';
import type { EvalSummary, PredictionLine } from '../../generator/eval/eval-summary.ts';
import type { ExportRecord } from '../../generator/records/export-record.ts';
import type { GroupRecord } from '../../generator/records/group-record.ts';

// A model with known mistakes, played by a chat-completions server on 127.0.0.1, scored by
// `equisql eval` on the paper's social_media questions (and one ordered question) over four
// variants, every group in the test split. Each metric is checked against a count made here
// from what the model was made to do.
const tmp = tempDir('eval');
afterAll(() => tmp.remove());
const noServer = { DATABASE_URL: undefined };
const VARIANTS = ['full_normalized', 'full_sti', 'full_cti', 'full_concrete'];
const dir = join(tmp.dir, 'generated');
const lines = (path: string): string[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '');
const predictionsOf = (evalDir: string): PredictionLine[] =>
  lines(join(evalDir, 'predictions.jsonl')).map((l) => JSON.parse(l) as PredictionLine);
const summaryOf = (evalDir: string): EvalSummary =>
  JSON.parse(readFileSync(join(evalDir, 'summary.json'), 'utf8')) as EvalSummary;

/** A streamer top three, ordered: the one question here whose order is part of the answer. */
const ORDERED_QUESTION = {
  id: 't01',
  query: {
    kind: 'select',
    from: { entity: 'Streamer', alias: 's' },
    select: [
      { name: 'username', expr: { kind: 'attribute', alias: 's', attribute: 'username' } },
      { name: 'avg_viewers', expr: { kind: 'attribute', alias: 's', attribute: 'avg_viewers' } },
    ],
    orderBy: [
      { expr: { kind: 'attribute', alias: 's', attribute: 'avg_viewers' }, direction: 'desc' },
      { expr: { kind: 'attribute', alias: 's', attribute: 'id' }, direction: 'asc' },
    ],
    limit: 3,
  },
  question:
    'Which three streamers have the most average viewers? Give their usernames and average viewers, most first; ties by id.',
};

/**
 * What the model was made to answer, per cell: the gold (`gold`), a wrong answer shared by
 * the cells of one kind of mistake (`inner`, `reversed`, `limited`), or invalid SQL (null).
 */
type Label = 'gold' | 'inner' | 'reversed' | 'limited' | null;

let inputs: EvalInputs;
let rows: readonly ExportRecord[];
let suiteOf: Map<string, string>;
const sqlOf = new Map<string, string>();
const labelOf = new Map<string, Label>();
let fingerprint: (db: Awaited<ReturnType<typeof openDatabase>>) => Promise<string>;
let before: string;

/** The model's SQL for a row and what it amounts to. */
function modelAnswer(row: ExportRecord): { sql: string; label: Label } {
  const suite = suiteOf.get(row.group_id);
  // An inner join where a LEFT join is needed, on the class-table variants: creators without content vanish.
  if (suite === 'q02' && (row.variant === 'full_cti' || row.variant === 'full_normalized'))
    return { sql: row.sql.replaceAll('LEFT JOIN', 'JOIN'), label: 'inner' };
  // The right rows in the wrong order, on two variants.
  if (suite === 't01' && (row.variant === 'full_sti' || row.variant === 'full_concrete'))
    return {
      sql: `SELECT t.username, t.avg_viewers FROM (${row.sql}) AS t ORDER BY t.avg_viewers, t.username DESC`,
      label: 'reversed',
    };
  // Invalid SQL on one variant: a column that does not exist.
  if (suite === 'q06' && row.variant === 'full_sti')
    return { sql: 'SELECT s.id AS subscriber_id, s.no_such_column FROM accounts AS s', label: null };
  // Right on the main instance (13 rows) by luck, wrong on the edge one (15 rows).
  if (suite === 'q13' && row.variant === 'full_normalized') return { sql: `${row.sql}\nLIMIT 13`, label: 'limited' };
  return { sql: row.sql, label: 'gold' };
}

beforeAll(async () => {
  const suite = join(tmp.dir, 'suite.jsonl');
  writeFileSync(
    suite,
    [...PAPER_SOCIAL_MEDIA.map((q) => ({ id: q.id, query: q.query, question: q.question })), ORDERED_QUESTION]
      .map((q) => JSON.stringify(q))
      .join('\n') + '\n',
  );
  const generated = runCli(
    [
      'generate',
      '--dataset',
      'social_media',
      '--variants',
      VARIANTS.join(','),
      '--scale',
      'tiny',
      '--from-suite',
      suite,
      '--variants-per-question',
      'all',
      '--out',
      dir,
    ],
    { env: noServer },
  );
  // Some of the paper's questions are refused on the tiny instance (exit 1: fewer groups than asked); nine stay.
  expect(generated.stderr).toMatch(/9 groups from/);
  const exported = runCli(['export', '--dir', dir, '--ratios', 'test=1'], { env: noServer });
  expect(exported.status, exported.stderr).toBe(0);
  inputs = readEvalInputs(dir, 'test');
  rows = inputs.rows;
  const groups = lines(join(dir, 'groups/social_media.jsonl')).map((l) => JSON.parse(l) as GroupRecord);
  suiteOf = new Map(groups.map((g) => [g.group_id, g.source?.suite_id ?? '']));
  expect([...suiteOf.values()].sort()).toEqual(expect.arrayContaining(['q02', 'q06', 'q13', 't01']));
  for (const row of rows) {
    const { sql, label } = modelAnswer(row);
    sqlOf.set(row.id, sql);
    labelOf.set(row.id, label);
  }

  // The facts that make each mistake a mistake, read from the data (on both instances).
  const q13 = groups.find((g) => g.source?.suite_id === 'q13') as GroupRecord;
  expect(q13.verified_on.map((v) => v.row_count)).toEqual([13, 15]);
  const db = await openDatabase({ kind: 'pglite', dir: join(dir, 'pglite'), mustExist: true });
  try {
    for (const prefix of ['social_media__', 'social_media__edge__']) {
      const lonely = await db.query(
        `SELECT count(*)::int AS n FROM ${prefix}full_cti.creator_account c WHERE NOT EXISTS (SELECT 1 FROM ${prefix}full_cti.content p WHERE p.producer_id = c.id)`,
      );
      expect(lonely[0]?.['n'], `${prefix}: a creator without content`).toBeGreaterThan(0);
      const top = await db.query(
        `SELECT avg_viewers FROM ${prefix}full_concrete.streamers ORDER BY avg_viewers DESC, id LIMIT 3`,
      );
      expect(top[0]?.['avg_viewers'], `${prefix}: the top three are not all level`).not.toEqual(
        top[2]?.['avg_viewers'],
      );
    }
    fingerprint = async (d) => {
      const tables = await d.query(
        "SELECT table_schema AS s, table_name AS t FROM information_schema.tables WHERE table_schema LIKE 'social_media%' ORDER BY 1, 2",
      );
      const parts: string[] = [];
      for (const t of tables) {
        const r = await d.query(
          `SELECT count(*)::int AS n, md5(coalesce(string_agg(x::text, ',' ORDER BY x::text), '')) AS h FROM "${t['s']}"."${t['t']}" AS x`,
        );
        parts.push(`${t['s']}.${t['t']}:${r[0]?.['n']}:${r[0]?.['h']}`);
      }
      const roles = await d.query('SELECT rolname FROM pg_roles ORDER BY 1');
      return JSON.stringify({ parts, roles });
    };
    before = await fingerprint(db);
  } finally {
    await db.close();
  }
}, 300_000);

/** The replies the server gives: each row's prompt hash to the model's SQL. */
function replies(): Map<string, string> {
  const out = new Map<string, string>();
  for (const row of rows) {
    const v = inputs.variants.find((x) => x.name === row.variant);
    out.set(promptHash(evalMessages(v?.ddl as string, row)), sqlOf.get(row.id) as string);
  }
  return out;
}

function evalArgs(out: string, ...source: string[]): string[] {
  return ['eval', '--dir', dir, '--split', 'test', ...source, '--out', out];
}

describe('equisql eval on a model with known mistakes', () => {
  let server: SqlModelServer;
  const endpointDir = join(tmp.dir, 'eval-endpoint');
  beforeAll(async () => {
    server = await startSqlModelServer(replies());
  });
  afterAll(async () => {
    await server.close();
  });

  it('scores every (question, variant) and every metric equals the count made by hand', async () => {
    const run = await runCliAsync(
      evalArgs(endpointDir, '--model', 'local-model', '--base-url', server.url, '--concurrency', '4'),
      { env: noServer },
    );
    expect(run.status, run.stderr).toBe(0);
    expect(server.received.length).toBe(rows.length);
    const predicted = predictionsOf(endpointDir);
    // One line per row, in the export's order, with the prompt the server was sent.
    expect(predicted.map((l) => l.id)).toEqual(rows.map((r) => r.id));
    expect(new Set(predicted.map((l) => l.prompt_hash))).toEqual(new Set(server.received));
    for (const l of predicted) {
      const label = labelOf.get(l.id);
      expect(l.sql).toBe(sqlOf.get(l.id));
      expect(l.outcome, `${l.variant} ${l.sql}`).toBe(label === null ? 'error' : 'rows');
      expect(l.correct).toBe(label === 'gold');
      expect(l.correct_main).toBe(label === 'gold' || label === 'limited');
      expect(l.correct_edge).toBe(label === 'gold');
    }

    const s = summaryOf(endpointDir);
    const d = s.datasets[0] as EvalSummary['datasets'][number];
    expect(s.datasets.length).toBe(1);
    expect(d.variants).toEqual(VARIANTS);
    const questions = [...new Set(rows.map((r) => r.question_id))];
    // A group's questions: three natural ones and the suite line's own.
    const perGroup = 4;
    expect(questions.length).toBe(9 * perGroup);
    const Q = questions.length;

    // EX per variant, written out: each mistake costs the five questions of its group.
    expect(d.ex_by_variant.map((v) => [v.variant, v.correct, v.total])).toEqual([
      ['full_normalized', Q - 2 * perGroup, Q], // the inner join, the LIMIT right only on main
      ['full_sti', Q - 2 * perGroup, Q], // the order, the invalid SQL
      ['full_cti', Q - perGroup, Q], // the inner join
      ['full_concrete', Q - perGroup, Q], // the order
    ]);
    const normalized = d.ex_by_variant[0];
    expect([normalized?.correct_main, normalized?.correct_edge, normalized?.main_only]).toEqual([
      Q - perGroup,
      Q - 2 * perGroup,
      perGroup,
    ]);
    expect(d.ex_by_variant[1]?.errors.by_kind).toEqual({
      refused: 0,
      error: perGroup,
      timeout: 0,
      'over-cap': 0,
      missing: 0,
    });
    expect(d.ex_by_variant[1]?.rate).toBeCloseTo((Q - 2 * perGroup) / Q, 12);
    const ex = 4 * Q - 6 * perGroup;
    expect(s.ex).toEqual({ correct: ex, total: 4 * Q, rate: ex / (4 * Q) });
    // Robust: right on all four variants — every question but the four groups' twenty.
    expect(d.robust).toEqual({ correct: Q - 4 * perGroup, total: Q, rate: (Q - 4 * perGroup) / Q });
    expect(s.robust.correct).toBe(Q - 4 * perGroup);
    expect(s.errors.invalid).toBe(perGroup);

    // PSS, written out: agreement needs both valid and the same answer (two wrong answers of one kind agree).
    expect(d.pss.variants).toEqual(VARIANTS);
    const p = perGroup;
    expect(d.pss.matrix).toEqual([
      [Q, Q - 4 * p, Q - p, Q - 3 * p],
      [Q - 4 * p, Q - p, Q - 3 * p, Q - p],
      [Q - p, Q - 3 * p, Q, Q - 2 * p],
      [Q - 3 * p, Q - p, Q - 2 * p, Q],
    ]);
    expect(d.pss.n).toEqual([Q, Q, Q, Q]);

    // The same counts from the labels, cell by cell, and QAS/QDS/QMS per question.
    const label = (q: string, v: string): Label =>
      labelOf.get((rows.find((r) => r.question_id === q && r.variant === v) as ExportRecord).id) as Label;
    for (const [i, vi] of VARIANTS.entries()) {
      for (const [j, vj] of VARIANTS.entries()) {
        const expected =
          i === j
            ? questions.filter((q) => label(q, vi) !== null).length
            : questions.filter((q) => label(q, vi) !== null && label(q, vi) === label(q, vj)).length;
        expect(d.pss.matrix[i]?.[j], `PSS(${vi}, ${vj})`).toBe(expected);
      }
    }
    for (const q of d.questions) {
      let qas = 0;
      let qds = 0;
      let qms = 0;
      for (let i = 0; i < 4; i++) {
        for (let j = i + 1; j < 4; j++) {
          const a = label(q.question_id, VARIANTS[i] as string);
          const b = label(q.question_id, VARIANTS[j] as string);
          if (a === null || b === null) qms++;
          else if (a === b) qas++;
          else qds++;
        }
      }
      expect([q.qas, q.qds, q.qms], q.question).toEqual([qas, qds, qms]);
      expect(q.qas + q.qds + q.qms).toBe(q.pairs);
      expect(q.pairs).toBe(6);
      expect(q.robust).toBe(VARIANTS.every((v) => label(q.question_id, v) === 'gold'));
    }
    // Per group: the inner join and the order agree on 2 pairs of 6, the invalid SQL misses 3, the LIMIT differs on 3.
    const bySuite = (id: string) =>
      d.questions.filter((q) => suiteOf.get(q.group_id) === id).map((q) => [q.qas, q.qds, q.qms]);
    expect(bySuite('q02')).toEqual(Array(perGroup).fill([2, 4, 0]));
    expect(bySuite('t01')).toEqual(Array(perGroup).fill([2, 4, 0]));
    expect(bySuite('q06')).toEqual(Array(perGroup).fill([3, 0, 3]));
    expect(bySuite('q13')).toEqual(Array(perGroup).fill([3, 3, 0]));
    expect(d.agreement).toEqual({
      qas: (Q - 4 * perGroup) * 6 + perGroup * (2 + 2 + 3 + 3),
      qds: perGroup * (4 + 4 + 3),
      qms: perGroup * 3,
      pairs: Q * 6,
    });

    // EX per style and difficulty, from the rows.
    for (const [key, table] of [
      ['style', d.ex_by_style],
      ['difficulty', d.ex_by_difficulty],
    ] as const) {
      const mine = new Map<string, [number, number]>();
      for (const r of rows) {
        const k = r[key];
        const c = mine.get(k) ?? [0, 0];
        mine.set(k, [c[0] + (labelOf.get(r.id) === 'gold' ? 1 : 0), c[1] + 1]);
      }
      expect(Object.fromEntries(Object.entries(table).map(([k, a]) => [k, [a.correct, a.total]]))).toEqual(
        Object.fromEntries([...mine].sort()),
      );
    }

    // Structure: the gold's own SQL matches the gold structure; a question's four variants differ in SQL.
    const untouched = d.questions.find((q) => suiteOf.get(q.group_id) === 'q08');
    expect(untouched?.structure.gold).toBe(1);
    expect(untouched?.structure.parsed).toBe(4);
    const run2 = JSON.parse(readFileSync(join(endpointDir, 'run.json'), 'utf8'));
    expect(run2).toMatchObject({
      label: 'local-model',
      source: { kind: 'endpoint', model: 'local-model' },
      calls: rows.length,
      cache_hits: 0,
    });
    expect(run2.tokens.prompt).toBeGreaterThan(0);
  }, 300_000);

  it('gives the same predictions.jsonl and summary.json from a predictions file with the same SQL', async () => {
    const file = join(tmp.dir, 'model.jsonl');
    writeFileSync(
      file,
      [...rows]
        .reverse()
        .map((r) => JSON.stringify({ id: r.id, sql: sqlOf.get(r.id) }))
        .join('\n') + '\n',
    );
    const out = join(tmp.dir, 'eval-file');
    const run = await runCliAsync(evalArgs(out, '--predictions', file), { env: noServer });
    expect(run.status, run.stderr).toBe(0);
    expect(readFileSync(join(out, 'predictions.jsonl'))).toEqual(readFileSync(join(endpointDir, 'predictions.jsonl')));
    expect(readFileSync(join(out, 'summary.json'))).toEqual(readFileSync(join(endpointDir, 'summary.json')));
    expect(JSON.parse(readFileSync(join(out, 'run.json'), 'utf8')).source).toEqual({ kind: 'predictions', file });
  }, 300_000);

  it('stops cleanly when the token budget is spent, and --resume completes the same bytes', async () => {
    const out = join(tmp.dir, 'eval-budget');
    const args = evalArgs(out, '--model', 'local-model', '--base-url', server.url, '--concurrency', '1');
    const stopped = await runCliAsync([...args, '--budget', '20000'], { env: noServer });
    expect(stopped.status, stopped.stderr).toBe(0);
    const at = new RegExp(
      `the token budget \\(20000\\) is spent; stopped after (\\d+) of ${rows.length} predictions \\(rerun with --resume to continue\\)`,
      'u',
    ).exec(stopped.stderr);
    expect(at, stopped.stderr).not.toBeNull();
    expect(Number(at?.[1])).toBeGreaterThan(0);
    expect(Number(at?.[1])).toBeLessThan(rows.length);
    expect(lines(join(out, 'predictions.jsonl'))).toHaveLength(Number(at?.[1]));
    expect(existsSync(join(out, 'summary.json'))).toBe(false);
    const resumed = await runCliAsync([...args, '--resume'], { env: noServer });
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(readFileSync(join(out, 'predictions.jsonl'))).toEqual(readFileSync(join(endpointDir, 'predictions.jsonl')));
    expect(readFileSync(join(out, 'summary.json'))).toEqual(readFileSync(join(endpointDir, 'summary.json')));
  }, 300_000);

  it('continues a run killed with kill -9 under --resume, to the bytes of an uninterrupted run', async () => {
    const slow = await startSqlModelServer(replies(), 15);
    const out = join(tmp.dir, 'eval-killed');
    const args = evalArgs(out, '--model', 'local-model', '--base-url', slow.url, '--concurrency', '2');
    try {
      await new Promise<void>((done, fail) => {
        const env = { ...process.env };
        delete env['DATABASE_URL'];
        const child = spawn(process.execPath, [join(REPO_ROOT, 'bin/equisql.js'), ...args], {
          cwd: REPO_ROOT,
          env,
          stdio: 'ignore',
        });
        const file = join(out, 'predictions.jsonl');
        const poll = setInterval(() => {
          if (existsSync(file) && lines(file).length >= 40) {
            clearInterval(poll);
            child.kill('SIGKILL');
          }
        }, 5);
        child.on('exit', (code, signal) => {
          clearInterval(poll);
          if (signal === 'SIGKILL') done();
          else fail(new Error(`the run ended (${code}) before it was killed`));
        });
      });
      const partial = lines(join(out, 'predictions.jsonl')).length;
      expect(partial).toBeLessThan(rows.length);
      expect(existsSync(join(out, 'summary.json'))).toBe(false);
      // Without --resume, what is there is not overwritten.
      const refused = await runCliAsync(args, { env: noServer });
      expect(refused.status).toBe(2);
      expect(refused.stderr).toMatch(/already holds predictions\.jsonl; --resume continues/);
      const resumed = await runCliAsync([...args, '--resume'], { env: noServer });
      expect(resumed.status, resumed.stderr).toBe(0);
      expect(resumed.stderr).toMatch(new RegExp(`resuming after \\d+ of ${rows.length}`, 'u'));
      expect(readFileSync(join(out, 'predictions.jsonl'))).toEqual(
        readFileSync(join(endpointDir, 'predictions.jsonl')),
      );
      expect(readFileSync(join(out, 'summary.json'))).toEqual(readFileSync(join(endpointDir, 'summary.json')));
      // Only the rows without a line were asked again (a reply the killed run got came from the cache).
      const again = JSON.parse(readFileSync(join(out, 'run.json'), 'utf8'));
      expect(again.calls + again.cache_hits).toBe(rows.length - partial);
    } finally {
      await slow.close();
    }
  }, 300_000);
});

describe('equisql eval on bad input', () => {
  it('refuses each in one line naming what and where (exit 2), and writes nothing', () => {
    const out = join(tmp.dir, 'eval-bad');
    const bad = join(tmp.dir, 'bad.jsonl');
    writeFileSync(bad, `${JSON.stringify({ id: rows[0]?.id, sql: 'SELECT 1' })}\n{"id": 7}\n`);
    const twice = join(tmp.dir, 'twice.jsonl');
    writeFileSync(
      twice,
      `${JSON.stringify({ id: rows[0]?.id, sql: 'SELECT 1' })}\n${JSON.stringify({ id: rows[0]?.id, sql: 'SELECT 2' })}\n`,
    );
    const cases: [string[], RegExp][] = [
      [evalArgs(out), /give exactly one of --model M, --model gold and --predictions/],
      [evalArgs(out, '--model', 'gold', '--predictions', bad), /give exactly one of/],
      [evalArgs(out, '--predictions', bad), /bad\.jsonl:2: expected \{"id": "…", "sql": "…"\}/],
      [evalArgs(out, '--predictions', twice), /twice\.jsonl:2: id [0-9a-f]+ is given twice/],
      [
        evalArgs(out, '--model', 'gold', '--variants', 'full_sti,no_such_variant'),
        /--variants: no variant "no_such_variant" in .* \(built: full_normalized, full_sti, full_cti, full_concrete\)/,
      ],
      [
        evalArgs(out, '--model', 'gold').map((a) => (a === 'test' ? 'train' : a)),
        /--split: .*data has no train split \(present: test\)/,
      ],
      [[...evalArgs(out, '--model', 'gold'), '--context', 'er'], /--context: expected ddl or ddl\+er/],
      [evalArgs(out, '--model', 'm'), /--model: needs an endpoint/],
    ];
    for (const [args, message] of cases) {
      const run = runCli(args, { env: { ...noServer, OPENAI_BASE_URL: undefined } });
      expect(run.status, args.join(' ')).toBe(2);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr).toMatch(message);
    }
    expect(existsSync(join(out, 'predictions.jsonl'))).toBe(false);
  }, 300_000);
});

describe('equisql eval --model gold', () => {
  it('scores 100% on every variant, and every pair of variants agrees on every question', () => {
    const out = join(tmp.dir, 'eval-gold');
    const run = runCli(evalArgs(out, '--model', 'gold'), { env: noServer });
    expect(run.status, run.stderr).toBe(0);
    const s = summaryOf(out);
    const d = s.datasets[0] as EvalSummary['datasets'][number];
    for (const v of d.ex_by_variant)
      expect([v.variant, v.rate, v.correct_main, v.correct_edge]).toEqual([v.variant, 1, v.total, v.total]);
    expect(s.robust.rate).toBe(1);
    const Q = new Set(rows.map((r) => r.question_id)).size;
    expect(d.pss.matrix).toEqual(VARIANTS.map(() => VARIANTS.map(() => Q)));
    expect(d.agreement).toEqual({ qas: 6 * Q, qds: 0, qms: 0, pairs: 6 * Q });
    expect(d.structure.gold).toBe(1);
    // The report is drawn from these files at the end (its page is checked in a browser by the report's own test).
    expect(readFileSync(join(out, 'report.html'), 'utf8')).toMatch(/<svg|heatmap/u);
    expect(existsSync(join(out, 'heatmap-gold-social_media.svg'))).toBe(true);
    const page = join(tmp.dir, 'compare.html');
    const compared = runCli(['eval', '--compare', out, join(tmp.dir, 'eval-endpoint'), '--out', page], {
      env: noServer,
    });
    expect(compared.status, compared.stderr).toBe(0);
    const html = readFileSync(page, 'utf8');
    expect(html).toContain('gold');
    expect(html).toContain('local-model');
  }, 300_000);
});

describe('hostile predictions', () => {
  const PROBES = [
    "SELECT --\r'a\\' AS x; COMMIT; DROP SCHEMA social_media__full_sti CASCADE; SELECT '",
    'SELECT rolname, rolpassword FROM ONLY pg_authid',
    "SELECT 'pg_authid'::regclass",
    'SELECT localtimestamp',
    'SELECT pg_sleep(30)',
    "UPDATE accounts SET username = 'x'",
    'WITH gone AS (DELETE FROM accounts RETURNING id) SELECT id FROM gone',
    'SELECT 1; CREATE ROLE intruder SUPERUSER',
    "COPY (SELECT 1) TO PROGRAM 'touch /tmp/equisql-eval-probe'",
  ];

  it('refuses them, scores them invalid, and leaves the build database as it was', async () => {
    const sti = rows.filter((r) => r.variant === 'full_sti').slice(0, PROBES.length);
    const hostile = new Map(sti.map((r, i) => [r.id, PROBES[i] as string]));
    const file = join(tmp.dir, 'hostile.jsonl');
    writeFileSync(
      file,
      rows.map((r) => JSON.stringify({ id: r.id, sql: hostile.get(r.id) ?? r.sql })).join('\n') + '\n',
    );
    const out = join(tmp.dir, 'eval-hostile');
    const run = runCli([...evalArgs(out, '--predictions', file), '--timeout', '2'], { env: noServer });
    expect(run.status, run.stderr).toBe(0);
    const byId = new Map(predictionsOf(out).map((l) => [l.id, l]));
    for (const [id, probe] of hostile) {
      const l = byId.get(id) as PredictionLine;
      expect(l.outcome, `${JSON.stringify(probe)}: ${l.message}`).toBe('refused');
      expect(l.correct).toBe(false);
      expect(l.message).toMatch(/^schema social_media__full_sti: refused/);
    }
    const s = summaryOf(out);
    expect(s.errors.by_kind.refused).toBe(PROBES.length);
    expect(s.ex.correct).toBe(rows.length - PROBES.length);
    expect(existsSync('/tmp/equisql-eval-probe')).toBe(false);
    const db = await openDatabase({ kind: 'pglite', dir: join(dir, 'pglite'), mustExist: true });
    try {
      expect(await fingerprint(db)).toBe(before);
    } finally {
      await db.close();
    }
  }, 300_000);
});
