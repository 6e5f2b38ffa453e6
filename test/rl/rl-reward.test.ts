// @tier long
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runMain, REPO_ROOT } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import { PAPER_SOCIAL_MEDIA } from '../../generator/suites/paper-social-media.ts';
import { normalizeResult } from '../../generator/execute/run-query.ts';
import { pythonFloatText, sqliteValueText } from '../../generator/export/rl/answer-text.ts';
import type { ExportRecord } from '../../generator/records/export-record.ts';
import type { GroundTruth } from '../../generator/export/rl/ground-truth.ts';
import type { GroupRecord } from '../../generator/records/group-record.ts';

// The RL exports and their shipped reward on a tiny social_media run checked on SQLite too
// (the paper's questions, one ordered question, one whose answer repeats rows), on the SQLite
// files generate wrote. The reward's scores are checked against `equisql eval --engine sqlite`'s
// verdicts on the same SQL (a predictions file per kind of mistake and split), and eval's
// answer rules (`normalizeResult`) are applied here too, in TypeScript, as a second reading.
const tmp = tempDir('rl');
afterAll(() => tmp.remove());
const dir = join(tmp.dir, 'generated');
const PYTHON = process.env['EQUISQL_PYTHON'] ?? 'python3';
const python = (args: string[]): { status: number | null; stdout: string; stderr: string } =>
  spawnSync(PYTHON, args, { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
const hasPython = python(['-c', 'import sqlite3']).status === 0;
const hasPyarrow = hasPython && python(['-c', 'import pyarrow']).status === 0;
const hasTrl = hasPython && python(['-c', 'import trl, torch, datasets']).status === 0;
const ACCEPTANCE = process.env['EQUISQL_ACCEPTANCE'] === '1';
const lines = (path: string): Record<string, unknown>[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const attr = (alias: string, attribute: string) => ({ kind: 'attribute', alias, attribute });
const EXTRA = [
  {
    id: 'r01',
    query: {
      kind: 'select',
      from: { entity: 'Streamer', alias: 's' },
      select: [
        { name: 'username', expr: attr('s', 'username') },
        { name: 'avg_viewers', expr: attr('s', 'avg_viewers') },
      ],
      orderBy: [
        { expr: attr('s', 'avg_viewers'), direction: 'desc' },
        { expr: attr('s', 'id'), direction: 'asc' },
      ],
      limit: 4,
    },
    question: 'Which four streamers have the most average viewers, most first, ties by id?',
  },
  {
    id: 'r02',
    query: {
      kind: 'select',
      from: { entity: 'Streamer', alias: 's' },
      select: [{ name: 'platform', expr: attr('s', 'platform') }],
    },
    question: 'On which platform is each streamer?',
  },
];
const HOSTILE = [
  "ATTACH DATABASE '/tmp/equisql-rl-attached.sqlite' AS x",
  "SELECT load_extension('/tmp/nothing.so')",
  'PRAGMA writable_schema = 1',
  'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c',
  'SELECT randomblob(1000000000)',
  'SELECT 1; DELETE FROM streamer',
  'DELETE FROM streamer',
  'SELECT name, sql FROM sqlite_master',
  'CREATE TABLE t (x integer)',
  "VACUUM INTO '/tmp/equisql-rl-copy.sqlite'",
];

let rows: ExportRecord[];
let truths: Map<string, string>;
const digest = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');
let sqliteFiles: string[];
let before: Map<string, string>;

beforeAll(async () => {
  const suite = join(tmp.dir, 'suite.jsonl');
  writeFileSync(
    suite,
    [...PAPER_SOCIAL_MEDIA.map((q) => ({ id: q.id, query: q.query, question: q.question })), ...EXTRA]
      .map((q) => JSON.stringify(q))
      .join('\n') + '\n',
  );
  const generated = runCli(
    [
      'generate',
      '--dataset',
      'social_media',
      '--variants',
      'full_normalized,full_sti,full_cti,full_concrete',
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
    { env: { DATABASE_URL: undefined } },
  );
  // Some of the suite's questions fail generation's checks (exit 1: fewer groups than lines); none is lost to SQLite.
  expect([0, 1], generated.stderr).toContain(generated.status);
  expect(generated.stderr).toMatch(
    /SQLite: 0\.0% of candidates lost to engine disagreement, 0\.0% to dialect refusals/u,
  );
  sqliteFiles = ['sqlite', 'edge/sqlite'].flatMap((sub) => readdirSync(join(dir, sub)).map((f) => join(dir, sub, f)));
  expect(sqliteFiles).toHaveLength(8);
  const exported = runCli(['export', '--dir', dir, '--formats', 'jsonl,verl,trl-grpo,openrlhf'], {
    env: { DATABASE_URL: undefined },
  });
  expect(exported.status, exported.stderr).toBe(0);
  rows = ['train', 'validation', 'test'].flatMap((s) =>
    existsSync(join(dir, `data/${s}-00000-of-00001.jsonl`)) ? lines(join(dir, `data/${s}-00000-of-00001.jsonl`)) : [],
  ) as unknown as ExportRecord[];
  truths = new Map(
    ['train', 'validation', 'test'].flatMap((s) =>
      (existsSync(join(dir, `rl/trl-grpo/${s}.jsonl`)) ? lines(join(dir, `rl/trl-grpo/${s}.jsonl`)) : []).map(
        (l) => [String(l['id']), String(l['ground_truth'])] as const,
      ),
    ),
  );
  before = new Map(sqliteFiles.map((f) => [f, digest(f)]));
}, 300_000);

/** Eval's verdict on SQLite: the SQL's rows on each instance, normalized by `normalizeResult`, equal to the gold's. */
function evalVerdict(sql: string, gold: string, truth: GroundTruth): boolean {
  for (const instance of truth.instances) {
    const db = new Database(join(dir, instance.sqlite as string), { readonly: true });
    try {
      const run = (text: string): string => {
        const statement = db.prepare(text);
        statement.safeIntegers(true);
        statement.raw(true);
        return normalizeResult(
          { columns: [], rows: (statement.all() as unknown[][]).map((r) => r.map(sqliteValueText)) },
          truth.rules.ordered,
        ).hash;
      };
      let mine: string;
      try {
        mine = run(sql);
      } catch {
        return false;
      }
      if (mine !== run(gold)) return false;
    } finally {
      db.close();
    }
  }
  return true;
}

const verdictKey = (id: string, sql: string): string => `${id}\u0000${sql}`;

/**
 * `equisql eval --engine sqlite --predictions …` on every (row, SQL) pair: per split, the i-th
 * distinct SQL of each row goes in the i-th predictions file, and each file is scored once.
 */
async function evalVerdicts(pairs: readonly { id: string; sql: string }[]): Promise<Map<string, boolean>> {
  const splitOf = new Map(rows.map((r) => [r.id, r.split]));
  const sqlsOf = new Map<string, string[]>();
  for (const { id, sql } of pairs) {
    const sqls = sqlsOf.get(id) ?? [];
    if (!sqls.includes(sql)) sqlsOf.set(id, [...sqls, sql]);
  }
  const verdicts = new Map<string, boolean>();
  for (const split of ['train', 'validation', 'test']) {
    const ids = [...sqlsOf.keys()].filter((id) => splitOf.get(id) === split);
    const files = Math.max(0, ...ids.map((id) => (sqlsOf.get(id) as string[]).length));
    for (let i = 0; i < files; i++) {
      const given = ids.filter((id) => (sqlsOf.get(id) as string[])[i] !== undefined);
      const predictions = join(tmp.dir, `verdicts-${split}-${i}.jsonl`);
      writeFileSync(
        predictions,
        given.map((id) => JSON.stringify({ id, sql: (sqlsOf.get(id) as string[])[i] })).join('\n') + '\n',
      );
      const out = join(tmp.dir, `verdicts-${split}-${i}`);
      const run = await runMain(
        [
          'eval',
          '--dir',
          dir,
          '--split',
          split,
          '--engine',
          'sqlite',
          '--predictions',
          predictions,
          '--concurrency',
          '2',
          '--out',
          out,
          '--quiet',
        ],
        { env: { DATABASE_URL: undefined } },
      );
      expect(run.status, run.stderr).toBe(0);
      for (const line of lines(join(out, 'predictions.jsonl'))) {
        const id = String(line['id']);
        const sql = (sqlsOf.get(id) as string[])[i];
        if (sql !== undefined) verdicts.set(verdictKey(id, sql), line['correct'] === true);
      }
    }
  }
  return verdicts;
}

describe('the RL exports', () => {
  it('writes the rows each framework reads, with the ground truth on every instance', () => {
    const verl = runCli(['check', '--dir', dir]);
    expect(verl.status, verl.stdout + verl.stderr).toBe(0);
    const trl = lines(join(dir, 'rl/trl-grpo/train.jsonl'));
    const openrlhf = lines(join(dir, 'rl/openrlhf/train.jsonl'));
    expect(trl.length).toBe(openrlhf.length);
    expect(Object.keys(openrlhf[0] as object)).toEqual(['prompt', 'label']);
    const first = trl[0] as { prompt: { role: string; content: string }[]; ground_truth: string };
    expect(first.prompt.map((m) => m.role)).toEqual(['system', 'user']);
    expect(first.prompt[1]?.content).toMatch(/^Database schema:\n\nCREATE TABLE/u);
    const truth = JSON.parse(first.ground_truth) as GroundTruth;
    expect(truth.instances.map((i) => [i.name, i.sqlite])).toEqual([
      ['main', `sqlite/${truth.variant}.sqlite`],
      ['edge', `edge/sqlite/${truth.variant}.sqlite`],
    ]);
    expect(truth.rules).toEqual({ ordered: expect.any(Boolean), duplicates: 'count', arrays: 'set', instances: 'all' });
    expect(openrlhf[0]?.['label']).toBe(first.ground_truth);
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as {
      export: { rl: { dialect: string; left_out: number } };
    };
    expect(manifest.export.rl).toMatchObject({ dialect: 'SQLite', left_out: 0 });
  });

  it('prints reals as Python does', () => {
    if (!hasPython) return;
    const values = [3, 0.1 + 0.2, 1e16, 1.5e-5, 0.0001, -2.5, 123456789.125, 1e22, 5e-324, -0];
    const printed = python([
      '-c',
      `print("\\n".join(repr(float(x)) for x in [${values.map((v) => `'${Object.is(v, -0) ? '-0' : String(v)}'`).join(',')}]))`,
    ])
      .stdout.trim()
      .split('\n');
    expect(values.map(pythonFloatText)).toEqual(printed);
  });

  it.skipIf(!hasPython)(
    'scores 2,000 predictions as equisql eval does, and the hostile ones leave every file unchanged at 0',
    async () => {
      const byGroup = new Map<string, ExportRecord[]>();
      for (const r of rows) byGroup.set(r.group_id, [...(byGroup.get(r.group_id) ?? []), r]);
      const wrap = [
        (s: string) => s,
        (s: string) => `\`\`\`sql\n${s}\n\`\`\``,
        (s: string) =>
          `<think>Which tables hold it?\n\`\`\`sql\nSELECT 1\n\`\`\`</think>\nHere it is:\n\`\`\`sql\n${s};\n\`\`\``,
        (s: string) => `<answer>${s}</answer>`,
      ];
      const cases: {
        completion: string;
        ground_truth: string;
        expected: number;
        kind: string;
        id?: string;
        sql?: string;
      }[] = [];
      const kinds = new Map<string, number[]>();
      let round = 0;
      while (cases.length < 2000) {
        for (const r of rows) {
          const truthText = truths.get(r.id) as string;
          const truth = JSON.parse(truthText) as GroundTruth;
          const other = (byGroup.get(r.group_id) ?? []).find((o) => o.variant !== r.variant && o.sql !== r.sql);
          const main = truth.instances[0]?.rows?.length ?? 0;
          const sqls: [string, string | null][] = [
            ['gold', r.sql],
            ['other-variant-gold', other?.sql ?? null],
            ['reversed-order', `SELECT * FROM (${r.sql}) AS t ORDER BY 1 ${round % 2 === 0 ? 'ASC' : 'DESC'}`],
            ['dropped-duplicate', `SELECT DISTINCT * FROM (${r.sql}) AS t`],
            [
              'extra-duplicate',
              `SELECT * FROM (${r.sql}) AS t UNION ALL SELECT * FROM (SELECT * FROM (${r.sql}) AS t2 LIMIT 1)`,
            ],
            ['main-only', `SELECT * FROM (${r.sql}) AS t LIMIT ${main}`],
            ['wrong', 'SELECT 1'],
          ];
          for (const [kind, sql] of sqls) {
            if (sql === null) continue;
            const expected = evalVerdict(sql, r.sql, truth) ? 1 : 0;
            cases.push({
              completion: (wrap[round % wrap.length] as (s: string) => string)(sql),
              ground_truth: truthText,
              expected,
              kind,
              id: r.id,
              sql,
            });
          }
          cases.push({
            completion: ['', '```sql\n```', '<think>I cannot tell', 'I do not know.'][round % 4] as string,
            ground_truth: truthText,
            expected: 0,
            kind: 'empty',
          });
          cases.push({
            completion: HOSTILE[(round + cases.length) % HOSTILE.length] as string,
            ground_truth: truthText,
            expected: 0,
            kind: 'hostile',
          });
        }
        round++;
      }
      const chosen = cases.slice(0, 2000);
      // Each SQL's verdict from `equisql eval --engine sqlite` itself: the same verdict as the rules above, for every case.
      const verdicts = await evalVerdicts(
        chosen.filter((c) => c.id !== undefined).map((c) => ({ id: c.id as string, sql: c.sql as string })),
      );
      const disagree = chosen.filter(
        (c) => c.id !== undefined && verdicts.get(verdictKey(c.id, c.sql as string)) !== (c.expected === 1),
      );
      expect(
        disagree
          .slice(0, 3)
          .map(
            (c) =>
              `${c.kind}: ${String(c.sql).slice(0, 120)}: eval ${String(verdicts.get(verdictKey(c.id as string, c.sql as string)))}, rules ${c.expected}`,
          ),
      ).toEqual([]);
      for (const c of chosen)
        kinds.set(c.kind, [...(kinds.get(c.kind) ?? [0, 0]).map((n, i) => n + (i === c.expected ? 1 : 0))]);
      // Every kind of verdict is present: each mistake is a mistake somewhere, and right somewhere else where the rules allow it.
      expect(kinds.get('gold')).toEqual([0, expect.any(Number)]);
      for (const kind of ['other-variant-gold', 'reversed-order', 'dropped-duplicate', 'main-only'])
        expect(kinds.get(kind)?.[0], kind).toBeGreaterThan(0);
      expect(kinds.get('reversed-order')?.[1]).toBeGreaterThan(0);
      const file = join(tmp.dir, 'cases.jsonl');
      writeFileSync(
        file,
        chosen.map((c) => JSON.stringify({ completion: c.completion, ground_truth: c.ground_truth })).join('\n') + '\n',
      );
      const run = python([join(REPO_ROOT, 'test/rl/score_cases.py'), dir, file]);
      expect(run.status, run.stderr).toBe(0);
      const { results } = JSON.parse(run.stdout) as { results: { score: number; outcome: string }[] };
      const wrong = chosen.map((c, i) => ({ ...c, got: results[i] })).filter((c) => c.got?.score !== c.expected);
      expect(
        wrong
          .slice(0, 3)
          .map((c) => `${c.kind}: ${c.completion.slice(0, 120)} → ${JSON.stringify(c.got)}, expected ${c.expected}`),
      ).toEqual([]);
      const hostile = chosen
        .map((c, i) => ({ kind: c.kind, outcome: results[i]?.outcome }))
        .filter((c) => c.kind === 'hostile');
      expect(new Set(hostile.map((h) => h.outcome))).toEqual(new Set(['refused', 'timeout']));
      for (const f of sqliteFiles) expect(digest(f), f).toBe(before.get(f));
      expect(existsSync('/tmp/equisql-rl-copy.sqlite')).toBe(false);
    },
    120_000,
  );

  it.skipIf(!hasPython)(
    "scores 1 for every row's gold SQLite SQL, the SQL generate proved on the files the ground truth names",
    () => {
      const groups = new Map(
        lines(join(dir, 'groups/social_media.jsonl')).map((g) => [String(g['group_id']), g as unknown as GroupRecord]),
      );
      const cases = rows.map((r) => {
        const truth = JSON.parse(truths.get(r.id) as string) as GroundTruth;
        for (const instance of truth.instances)
          expect(existsSync(join(dir, instance.sqlite as string)), instance.sqlite as string).toBe(true);
        return {
          completion: `\`\`\`sql\n${groups.get(r.group_id)?.variants[r.variant]?.sqlite_sql as string}\n\`\`\``,
          ground_truth: truths.get(r.id) as string,
        };
      });
      expect(cases.length).toBe(rows.length);
      const file = join(tmp.dir, 'gold.jsonl');
      writeFileSync(file, cases.map((c) => JSON.stringify(c)).join('\n') + '\n');
      const run = python([join(REPO_ROOT, 'test/rl/score_cases.py'), dir, file]);
      expect(run.status, run.stderr).toBe(0);
      const { results } = JSON.parse(run.stdout) as { results: { score: number; outcome: string }[] };
      expect(results.filter((r) => r.score !== 1)).toEqual([]);
    },
    120_000,
  );

  it.skipIf(!hasPyarrow)(
    'is called as verl calls a custom reward function, on the Parquet as verl reads it (EQUISQL_PYTHON with pyarrow)',
    () => {
      const run = python([join(REPO_ROOT, 'test/rl/verl_harness.py'), dir, 'train']);
      expect(run.status, run.stderr).toBe(0);
      const out = JSON.parse(run.stdout) as {
        rows: number;
        gold: number[];
        empty: number[];
        batch: number[];
        roles: string[];
        ability: string;
        style: string;
      };
      expect(out.rows).toBeGreaterThan(0);
      expect(out.gold).toEqual(Array(out.rows).fill(1));
      expect(out.batch).toEqual(Array(out.rows).fill(1));
      expect(out.empty).toEqual(Array(out.rows).fill(0));
      expect([out.roles, out.ability, out.style]).toEqual([['system', 'user'], 'text-to-sql', 'rule']);
    },
    60_000,
  );

  it('refuses, in one line and before writing, an RL export of a run checked on SQLite whose SQLite file is gone', () => {
    const file = join(dir, 'edge/sqlite/full_cti.sqlite');
    const manifest = readFileSync(join(dir, 'manifest.json'));
    renameSync(file, `${file}.away`);
    try {
      const run = runCli(['export', '--dir', dir, '--formats', 'jsonl,trl-grpo'], { env: { DATABASE_URL: undefined } });
      expect(run.status).not.toBe(0);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr).toMatch(/edge\/sqlite\/full_cti\.sqlite: missing, and the run was checked on SQLite/u);
      expect(readFileSync(join(dir, 'manifest.json')).equals(manifest)).toBe(true);
    } finally {
      renameSync(`${file}.away`, file);
    }
  });

  // About 1.5 minutes on CPU: acceptance tier (EQUISQL_ACCEPTANCE=1), and EQUISQL_PYTHON with trl, torch and datasets.
  it.skipIf(!ACCEPTANCE || !hasTrl)(
    'trains 5 GRPO steps with TRL on the trl-grpo export and the shipped reward, rewards in [0, 1]',
    () => {
      const run = python([join(REPO_ROOT, 'test/rl/trl_grpo.py'), dir, join(tmp.dir, 'trl-out')]);
      expect(run.status, run.stderr.slice(-2000)).toBe(0);
      const out = JSON.parse(run.stdout.trim().split('\n').pop() as string) as { steps: number; rewards: number[] };
      expect(out.steps).toBe(5);
      expect(out.rewards.length).toBe(5);
      for (const r of out.rewards) expect(r >= 0 && r <= 1, String(r)).toBe(true);
    },
    600_000,
  );
});
