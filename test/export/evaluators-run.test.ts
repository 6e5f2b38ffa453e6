// @tier long
// The SQLite layout of `equisql export --formats sqlite`, and BIRD's and Spider's evaluators run
// unchanged on it. The layout's own checks need nothing but the project. The evaluators are
// found through EQUISQL_BIRD_EVAL (the folder of BIRD's evaluation.py), EQUISQL_BIRD_MINIDEV_EVAL
// (the folder of BIRD mini-dev's evaluation_ex.py) and EQUISQL_SPIDER_EVAL (a checkout of
// Spider's test-suite-sql-eval), run by EQUISQL_PYTHON (a Python with their
// packages; default python3); without them their blocks are skipped, naming what is missing.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMain } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import type { ExportRecord } from '../../generator/records/export-record.ts';
import type { GroupRecord } from '../../generator/records/group-record.ts';
import { oneLineSql } from '../../generator/export/formats/one-line-sql.ts';
import { sqliteRows, type SqliteSource } from '../../generator/export/formats/sqlite-files.ts';
import type { SpiderTables } from '../../generator/export/formats/spider-tables.ts';

const tmp = tempDir('evaluators-run');
afterAll(() => tmp.remove());
const noServer = { DATABASE_URL: undefined };
const dir = join(tmp.dir, 'run');
const layout = join(dir, 'evaluators/sqlite');
const SPLITS = ['train', 'validation', 'test'] as const;
const LEVELS = ['simple', 'moderate', 'challenging'] as const;

interface Item {
  readonly question_id: number;
  readonly db_id: string;
  readonly SQL: string;
  readonly difficulty: string;
  readonly id: string;
}

const read = (path: string): string => readFileSync(path, 'utf8');
const rowsOf = (split: string): ExportRecord[] =>
  read(join(dir, `data/${split}-00000-of-00001.jsonl`))
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as ExportRecord);
const itemsOf = (split: string): Item[] => JSON.parse(read(join(layout, `${split}.json`))) as Item[];
const goldOf = (split: string): [string, string][] =>
  read(join(layout, `${split}_gold.sql`))
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => l.split('\t') as [string, string]);
const spiderItemsOf = (split: string): Item[] => JSON.parse(read(join(layout, `spider/${split}.json`))) as Item[];
const spiderGoldOf = (split: string): [string, string][] =>
  read(join(layout, `spider/${split}_gold.sql`))
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => l.split('\t') as [string, string]);
const groups = (): Map<string, GroupRecord> => {
  const out = new Map<string, GroupRecord>();
  for (const line of read(join(dir, 'groups/social_media.jsonl')).split('\n'))
    if (line !== '') out.set((JSON.parse(line) as GroupRecord).group_id, JSON.parse(line) as GroupRecord);
  return out;
};

/** The prediction every 5th item (i % 5 == 4) gets instead of its gold: no gold answer is this one row. */
const WRONG = "SELECT 'not an answer' AS x";
const wrongAt = (i: number): boolean => i % 5 === 4;

let evals = 0;
/** equisql's own verdict on one prediction: right on both instances, on the main one, on the edge-case one. */
interface Verdict {
  readonly correct: boolean;
  readonly main: boolean;
  readonly edge: boolean;
}
/** equisql's own verdicts on SQLite predictions for a split, in the items' order. */
async function equisqlVerdicts(split: string, sqlOf: (item: Item, i: number) => string): Promise<Verdict[]> {
  evals++;
  const items = itemsOf(split);
  const file = join(tmp.dir, `predictions-${evals}.jsonl`);
  writeFileSync(file, items.map((it, i) => `${JSON.stringify({ id: it.id, sql: sqlOf(it, i) })}\n`).join(''));
  const out = join(tmp.dir, `eval-${evals}`);
  const run = await runMain(
    ['eval', '--dir', dir, '--split', split, '--engine', 'sqlite', '--predictions', file, '--out', out],
    { env: noServer },
  );
  expect(run.status, run.stderr).toBe(0);
  const byId = new Map(
    read(join(out, 'predictions.jsonl'))
      .split('\n')
      .filter((l) => l !== '')
      .map(
        (l) => JSON.parse(l) as { id: string; correct: boolean; correct_main: boolean; correct_edge: boolean | null },
      )
      .map((p) => [p.id, { correct: p.correct, main: p.correct_main, edge: p.correct_edge === true }] as const),
  );
  expect(byId.size).toBe(items.length);
  return items.map((it) => byId.get(it.id) as Verdict);
}

/** Every prediction written `SELECT DISTINCT * FROM (gold)`: wrong wherever the gold answer has duplicate rows. */
const distinctOf = (sql: string): string => `SELECT DISTINCT * FROM (${sql})`;

beforeAll(async () => {
  const gen = await runMain(
    [
      'generate',
      '--dataset',
      'social_media',
      '--variants',
      'full_normalized,full_sti',
      '--scale',
      'tiny',
      '--engines',
      'postgres,sqlite',
      '--groups',
      '30',
      '--out',
      dir,
    ],
    { env: noServer },
  );
  expect(gen.status, gen.stderr).toBe(0);
  const run = await runMain(['export', '--dir', dir, '--formats', 'jsonl,sqlite'], { env: noServer });
  expect(run.status, run.stderr).toBe(0);
}, 300_000);

describe('the SQLite layout (export --formats sqlite)', () => {
  it('item i and gold line i are the held row, its SQLite SQL on one line and its db_id', () => {
    const byId = groups();
    let held = 0;
    for (const split of SPLITS) {
      const rows = rowsOf(split);
      const items = itemsOf(split);
      const gold = goldOf(split);
      expect(gold.length).toBe(items.length);
      // This run's SQLite holds both variants: every row is there, in the records' order.
      expect(items.map((it) => it.id)).toEqual(rows.map((r) => r.id));
      items.forEach((it, i) => {
        const r = rows[i] as ExportRecord;
        const sqlite = byId.get(r.group_id)?.variants[r.variant]?.sqlite_sql as string;
        expect(sqlite).toBeDefined();
        expect(it.question_id).toBe(i);
        expect(it.db_id).toBe(r.schema_id);
        expect(it.SQL).toBe(oneLineSql(sqlite));
        expect(gold[i]).toEqual([oneLineSql(sqlite), r.schema_id]);
      });
      // The JSON Lines file holds the same items, one a line.
      expect(
        read(join(layout, `${split}.jsonl`))
          .split('\n')
          .filter((l) => l !== '')
          .map((l) => JSON.parse(l)),
      ).toEqual(items);
      held += items.length;
    }
    const manifest = JSON.parse(read(join(dir, 'manifest.json')));
    expect(held).toBe(manifest.export.counts.rows);
    expect(manifest.export.evaluators).toEqual({ formats: ['sqlite'], left_out: { sqlite: 0 } });
  });

  it("puts each variant's main and edge SQLite files at database/<db_id>/<db_id>.sqlite and .edge.sqlite, listed in the manifest, not in the Hub's list", () => {
    const manifest = JSON.parse(read(join(dir, 'manifest.json')));
    const databases = Object.keys(manifest.export.files)
      .filter((f) => f.includes('/database/'))
      .sort();
    expect(databases).toEqual(
      ['full_normalized', 'full_sti'].flatMap((v) => [
        `evaluators/sqlite/database/social_media/${v}/social_media/${v}.edge.sqlite`,
        `evaluators/sqlite/database/social_media/${v}/social_media/${v}.sqlite`,
      ]),
    );
    for (const rel of databases) {
      const variant = rel.split('/')[4] as string;
      const source = join(dir, rel.endsWith('.edge.sqlite') ? 'edge/sqlite' : 'sqlite', `${variant}.sqlite`);
      expect(readFileSync(join(dir, rel)).equals(readFileSync(source)), rel).toBe(true);
      expect(manifest.export.files[rel].sha256).toBe(createHash('sha256').update(readFileSync(source)).digest('hex'));
    }
    expect(read(join(dir, 'hub-files.txt'))).not.toMatch(/\.sqlite$/mu);
    expect(read(join(dir, 'hub-files.txt'))).toMatch(/^evaluators\/sqlite\/test_gold\.sql$/mu);
  });

  it("every gold line runs on both of its databases, and equisql eval scores the layout's SQL 100% on both instances", async () => {
    for (const split of SPLITS) {
      for (const [sql, db] of goldOf(split)) {
        for (const file of [`${db}.sqlite`, `${db}.edge.sqlite`]) {
          const conn = new Database(join(layout, 'database', db, file), { readonly: true });
          try {
            expect(() => conn.prepare(sql).all(), `${file}: ${sql}`).not.toThrow();
          } finally {
            conn.close();
          }
        }
      }
      const verdicts = await equisqlVerdicts(split, (it) => it.SQL);
      expect(
        verdicts.every((v) => v.correct && v.main && v.edge),
        split,
      ).toBe(true);
    }
  }, 120_000);

  it("spider/: the held rows Spider's grammar reads, in order, their SQL without output names, and equisql eval scores that SQL 100% on both instances", async () => {
    let total = 0;
    for (const split of SPLITS) {
      const items = itemsOf(split);
      const spiderItems = spiderItemsOf(split);
      const gold = spiderGoldOf(split);
      expect(gold).toEqual(spiderItems.map((it) => [it.SQL, it.db_id]));
      const at = new Map(items.map((it, i) => [it.id, i]));
      // A subsequence of the held items, numbered from 0 in its own file.
      const places = spiderItems.map((it) => at.get(it.id) as number);
      expect(places.every((p, i) => p !== undefined && (i === 0 || p > (places[i - 1] as number)))).toBe(true);
      spiderItems.forEach((it, i) => {
        const whole = items[places[i] as number] as Item;
        expect(it).toEqual({ ...whole, question_id: i, SQL: it.SQL });
        // Only output names were taken out: every AS left names a table's alias, and the text
        // is the held SQL's with some ` AS name`s cut out of it.
        const tables = new Set(
          (JSON.parse(read(join(layout, 'tables.json'))) as SpiderTables[]).flatMap((e) => e.table_names_original),
        );
        for (const m of it.SQL.matchAll(/(\S+)\s+AS\s+\w+/giu)) expect(tables.has(m[1] as string), it.SQL).toBe(true);
        let rest = whole.SQL;
        for (const m of whole.SQL.matchAll(/\s+AS\s+\w+/giu)) if (!it.SQL.includes(m[0])) rest = rest.replace(m[0], '');
        expect(it.SQL).toBe(rest);
      });
      const spiderSql = new Map(spiderItems.map((it) => [it.id, it.SQL]));
      const verdicts = await equisqlVerdicts(split, (it) => spiderSql.get(it.id) ?? it.SQL);
      items.forEach((it, i) => {
        const v = verdicts[i] as Verdict;
        expect(v.correct && v.main && v.edge, `${it.id}: ${spiderSql.get(it.id)}`).toBe(true);
      });
      total += spiderItems.length;
      const manifest = JSON.parse(read(join(dir, 'manifest.json')));
      expect(manifest.export.files[`evaluators/sqlite/spider/${split}_gold.sql`].rows).toBe(gold.length);
    }
    expect(total).toBeGreaterThan(0);
  }, 120_000);

  it("tables.json: each database of the layout as Spider's schema file lists it, read back against its SQLite file", () => {
    const entries = JSON.parse(read(join(layout, 'tables.json'))) as SpiderTables[];
    expect(entries.map((e) => e.db_id)).toEqual(['social_media/full_normalized', 'social_media/full_sti']);
    for (const e of entries) {
      const conn = new Database(join(layout, 'database', e.db_id, `${e.db_id}.sqlite`), { readonly: true });
      try {
        const tables = conn.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
        expect(e.table_names_original).toEqual(tables);
        expect(e.column_names_original[0]).toEqual([-1, '*']);
        const columns = tables.flatMap((t, i) =>
          (conn.prepare('SELECT name FROM pragma_table_info(?)').pluck().all(t) as string[]).map((c) => [i, c]),
        );
        expect(e.column_names_original.slice(1)).toEqual(columns);
        expect(e.column_types.length).toBe(e.column_names_original.length);
        // Every foreign key joins: the pair's columns hold matching values on the main instance.
        expect(e.foreign_keys.length).toBeGreaterThan(0);
        for (const [from, to] of e.foreign_keys) {
          const [ft, fc] = e.column_names_original[from] as [number, string];
          const [tt, tc] = e.column_names_original[to] as [number, string];
          const [fromTable, toTable] = [e.table_names_original[ft], e.table_names_original[tt]];
          const orphans = conn
            .prepare(
              `SELECT count(*) FROM "${fromTable}" AS f WHERE f."${fc}" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "${toTable}" AS t WHERE t."${tc}" = f."${fc}")`,
            )
            .pluck()
            .get();
          expect(orphans, `${fromTable}.${fc} → ${toTable}.${tc}`).toBe(0);
        }
        // The primary keys: exactly the columns SQLite marks as key columns, by number.
        const marked = tables.flatMap((t, i) =>
          (conn.prepare('SELECT name, pk FROM pragma_table_info(?)').all(t) as { name: string; pk: number }[])
            .filter((c) => c.pk > 0)
            .map((c) => JSON.stringify([i, c.name])),
        );
        expect(e.primary_keys.map((n) => JSON.stringify(e.column_names_original[n])).sort()).toEqual(marked.sort());
        // Names as words, and types in Spider's five, by what the columns hold.
        expect(e.table_names).toEqual(e.table_names_original.map((t) => t.replaceAll('_', ' ')));
        expect(e.column_names.slice(1)).toEqual(
          e.column_names_original.slice(1).map(([i, c]) => [i, c.replaceAll('_', ' ')]),
        );
        const typeOf = (table: string, column: string): string =>
          e.column_types[
            e.column_names_original.findIndex(([i, c]) => e.table_names_original[i] === table && c === column)
          ] as string;
        const [people, content] = e.db_id.endsWith('full_sti') ? ['accounts', 'content_items'] : ['account', 'content'];
        expect([typeOf(people, 'id'), typeOf(people, 'username'), typeOf(people, 'created_at')]).toEqual([
          'number',
          'text',
          'time',
        ]);
        expect(typeOf(content, 'title')).toBe('text');
      } finally {
        conn.close();
      }
    }
  });

  it('leaves out a row whose variant SQLite does not hold, or whose SQLite SQL has a line break inside a literal', () => {
    const base = rowsOf('train')[0] as ExportRecord;
    const rows = ['held', 'unheld', 'literal'].map((id) => ({ ...base, id, variant: id }) as ExportRecord);
    const sql: Record<string, string | undefined> = {
      held: 'SELECT t.name\n  FROM tag AS t',
      unheld: undefined,
      literal: "SELECT 'a\nb' AS x",
    };
    const source: SqliteSource = {
      sqlOf: (r) => sql[r.variant],
      fileOf: () => '/nowhere.sqlite',
      spiderSchemaOf: () => new Map(),
    };
    const held = sqliteRows(rows, source);
    expect(held.leftOut).toBe(2);
    expect(held.rows.map((r) => [r.id, r.sql])).toEqual([['held', 'SELECT t.name FROM tag AS t']]);
    // A variant without a SQLite file is left out as well.
    expect(sqliteRows(rows, { ...source, fileOf: () => undefined }).rows).toEqual([]);
  });

  it('an export without sqlite removes the layout, databases and all', async () => {
    expect((await runMain(['export', '--dir', dir, '--formats', 'jsonl,bird'], { env: noServer })).status).toBe(0);
    expect(existsSync(layout)).toBe(false);
    // And back: the layout is written again whole.
    expect((await runMain(['export', '--dir', dir, '--formats', 'jsonl,sqlite'], { env: noServer })).status).toBe(0);
    expect(existsSync(join(layout, 'database/social_media/full_sti/social_media/full_sti.edge.sqlite'))).toBe(true);
    expect(existsSync(join(dir, 'evaluators/bird'))).toBe(false);
  });
});

// ---- The evaluators themselves ------------------------------------------------------------

const PYTHON = process.env['EQUISQL_PYTHON'] || 'python3';
const BIRD = process.env['EQUISQL_BIRD_EVAL'];
const MINIDEV = process.env['EQUISQL_BIRD_MINIDEV_EVAL'];
const SPIDER = process.env['EQUISQL_SPIDER_EVAL'];

/** Why a Python check fails, or undefined when it passes. */
function pythonFails(code: string, cwd: string): string | undefined {
  const run = spawnSync(PYTHON, ['-c', code], { cwd, encoding: 'utf8' });
  if (run.error) return `EQUISQL_PYTHON=${PYTHON} does not run (${run.error.message})`;
  return run.status === 0 ? undefined : `EQUISQL_PYTHON=${PYTHON}: ${run.stderr.trim().split('\n').at(-1)}`;
}

const birdMissing = ((): string | undefined => {
  if (!BIRD)
    return "set EQUISQL_BIRD_EVAL to the folder of BIRD's evaluation.py, and EQUISQL_PYTHON to a Python with func_timeout";
  if (!existsSync(join(BIRD, 'evaluation.py'))) return `EQUISQL_BIRD_EVAL=${BIRD} holds no evaluation.py`;
  return pythonFails('import func_timeout', BIRD);
})();

const minidevMissing = ((): string | undefined => {
  if (!MINIDEV)
    return "set EQUISQL_BIRD_MINIDEV_EVAL to the folder of BIRD mini-dev's evaluation_ex.py, and EQUISQL_PYTHON to a Python with func_timeout, psycopg2 and pymysql";
  if (!existsSync(join(MINIDEV, 'evaluation_ex.py')))
    return `EQUISQL_BIRD_MINIDEV_EVAL=${MINIDEV} holds no evaluation_ex.py`;
  return pythonFails('import func_timeout, evaluation_utils', MINIDEV);
})();

/** Whether a split has all three of BIRD's levels (its evaluators divide by each one's count). */
const complete = (split: string): boolean => LEVELS.every((l) => itemsOf(split).some((it) => it.difficulty === l));

const spiderMissing = ((): string | undefined => {
  if (!SPIDER)
    return 'set EQUISQL_SPIDER_EVAL to a checkout of test-suite-sql-eval, and EQUISQL_PYTHON to a Python with nltk (and its punkt_tab data) and sqlparse';
  if (!existsSync(join(SPIDER, 'evaluation.py'))) return `EQUISQL_SPIDER_EVAL=${SPIDER} holds no evaluation.py`;
  return pythonFails(
    'import process_sql, exec_eval\nfrom nltk import word_tokenize\nword_tokenize("SELECT a FROM b")',
    SPIDER,
  );
})();

/** A float printed by an evaluator, matched to the one count out of `n` it stands for. */
function countOf(printed: number, n: number, scale: number, decimals: number): number {
  const k = Math.round((printed / scale) * n);
  expect(Math.abs((k / n) * scale - printed)).toBeLessThanOrEqual(0.5 * 10 ** -decimals + 1e-9);
  return k;
}

describe.skipIf(birdMissing !== undefined)(
  `BIRD's evaluation.py on the layout${birdMissing ? ` (skipped: ${birdMissing})` : ''}`,
  () => {
    /** Runs BIRD's documented command line on a split with the given predictions; its total accuracy and count. */
    function bird(
      split: string,
      sqls: readonly string[],
    ): { status: number; total: number; count: number; stderr: string } {
      const predDir = join(
        tmp.dir,
        `bird-${split}-${createHash('sha256').update(sqls.join('\n')).digest('hex').slice(0, 8)}/`,
      );
      mkdirSync(predDir, { recursive: true });
      const items = itemsOf(split);
      writeFileSync(
        join(predDir, `predict_${split}.json`),
        JSON.stringify(
          Object.fromEntries(sqls.map((s, i) => [String(i), `${s}\t----- bird -----\t${(items[i] as Item).db_id}`])),
        ),
      );
      const run = spawnSync(
        PYTHON,
        [
          '-u',
          join(BIRD as string, 'evaluation.py'),
          '--predicted_sql_path',
          predDir,
          '--ground_truth_path',
          `${layout}/`,
          '--data_mode',
          split,
          '--db_root_path',
          `${layout}/database/`,
          '--diff_json_path',
          join(layout, `${split}.json`),
          '--num_cpus',
          '1',
        ],
        {
          cwd: BIRD,
          encoding: 'utf8',
        },
      );
      const acc = run.stdout.split('\n').find((l) => l.startsWith('accuracy'));
      const counts = run.stdout.split('\n').find((l) => l.startsWith('count'));
      const last = (line: string | undefined): number => Number(line?.trim().split(/\s+/u).at(-1) ?? Number.NaN);
      return { status: run.status ?? -1, total: last(acc), count: last(counts), stderr: run.stderr };
    }

    it('scores the gold 100% on every split that has all three of its levels, and stops on a split that lacks one', () => {
      const scored = SPLITS.filter(complete);
      expect(scored.length).toBeGreaterThan(0);
      for (const split of SPLITS) {
        const result = bird(
          split,
          itemsOf(split).map((it) => it.SQL),
        );
        if (complete(split)) {
          expect(result.status, result.stderr).toBe(0);
          expect(result.count).toBe(itemsOf(split).length);
          expect(result.total, split).toBe(100);
        } else {
          expect(result.status).not.toBe(0);
          expect(result.stderr).toMatch(/ZeroDivisionError/u);
        }
      }
    }, 300_000);

    it('scores predictions wrong at every 5th item as the hand count says, as equisql eval does', async () => {
      for (const split of SPLITS.filter(complete)) {
        const items = itemsOf(split);
        const sqls = items.map((it, i) => (wrongAt(i) ? WRONG : it.SQL));
        const hand = items.filter((_, i) => !wrongAt(i)).length;
        const result = bird(split, sqls);
        expect(result.status, result.stderr).toBe(0);
        expect(countOf(result.total, items.length, 100, 2), split).toBe(hand);
        const verdicts = await equisqlVerdicts(split, (_, i) => sqls[i] as string);
        expect(verdicts.filter((v) => v.correct).length).toBe(hand);
      }
    }, 300_000);

    it('accepts every prediction wrong only in its duplicate rows (it compares sets) or only on the edge-case instance (it reads the main one), which equisql eval counts wrong', async () => {
      const split = SPLITS.filter(complete)[0] as string;
      const items = itemsOf(split);
      const sqls = items.map((it) => distinctOf(it.SQL));
      const result = bird(split, sqls);
      expect(result.status, result.stderr).toBe(0);
      expect(result.total).toBe(100);
      const verdicts = await equisqlVerdicts(split, (_, i) => sqls[i] as string);
      // The run has answers with duplicate rows on the main instance, and answers with them on the edge-case one only.
      expect(verdicts.filter((v) => !v.main).length).toBeGreaterThan(0);
      expect(verdicts.filter((v) => v.main && !v.edge).length).toBeGreaterThan(0);
    }, 300_000);
  },
);

describe.skipIf(minidevMissing !== undefined)(
  `BIRD mini-dev's evaluation_ex.py (SQLite) on the layout${minidevMissing ? ` (skipped: ${minidevMissing})` : ''}`,
  () => {
    /** Runs mini-dev's documented command line (SQLite) on a split; its total EX and count. */
    function minidev(
      split: string,
      sqls: readonly string[],
    ): { status: number; total: number; count: number; stderr: string } {
      const pred = join(
        tmp.dir,
        `minidev-${split}-${createHash('sha256').update(sqls.join('\n')).digest('hex').slice(0, 8)}.json`,
      );
      const items = itemsOf(split);
      writeFileSync(
        pred,
        JSON.stringify(
          Object.fromEntries(sqls.map((s, i) => [String(i), `${s}\t----- bird -----\t${(items[i] as Item).db_id}`])),
        ),
      );
      const run = spawnSync(
        PYTHON,
        [
          '-u',
          join(MINIDEV as string, 'evaluation_ex.py'),
          '--db_root_path',
          `${layout}/database/`,
          '--predicted_sql_path',
          pred,
          '--ground_truth_path',
          join(layout, `${split}_gold.sql`),
          '--diff_json_path',
          join(layout, `${split}.jsonl`),
          '--sql_dialect',
          'SQLite',
          '--output_log_path',
          `${pred}.log`,
          '--num_cpus',
          '1',
        ],
        { cwd: MINIDEV, encoding: 'utf8' },
      );
      const last = (prefix: string): number =>
        Number(
          run.stdout
            .split('\n')
            .find((l) => l.startsWith(prefix))
            ?.trim()
            .split(/\s+/u)
            .at(-1) ?? Number.NaN,
        );
      return { status: run.status ?? -1, total: last('EX '), count: last('count'), stderr: run.stderr };
    }

    it('scores the gold 100% on every split with all three levels, and predictions wrong at every 5th item as the hand count says', () => {
      const scored = SPLITS.filter(complete);
      expect(scored.length).toBeGreaterThan(0);
      for (const split of scored) {
        const items = itemsOf(split);
        const gold = minidev(
          split,
          items.map((it) => it.SQL),
        );
        expect(gold.status, gold.stderr).toBe(0);
        expect(gold.count).toBe(items.length);
        expect(gold.total, split).toBe(100);
        const wrong = minidev(
          split,
          items.map((it, i) => (wrongAt(i) ? WRONG : it.SQL)),
        );
        expect(wrong.status, wrong.stderr).toBe(0);
        expect(countOf(wrong.total, items.length, 100, 2), split).toBe(items.filter((_, i) => !wrongAt(i)).length);
      }
    }, 300_000);
  },
);

/** The lines of a gold file that Spider's own parser (process_sql.get_sql) reads, by index. */
function spiderReadable(gold: string): number[] {
  const code = [
    'import os, sys',
    'from process_sql import get_schema, Schema, get_sql',
    'for i, line in enumerate(open(sys.argv[2]).read().splitlines()):',
    "    sql, db = line.split('\\t')",
    '    try:',
    "        get_sql(Schema(get_schema(os.path.join(sys.argv[1], db, db + '.sqlite'))), sql)",
    '        print(i)',
    '    except Exception:',
    '        pass',
  ].join('\n');
  const run = spawnSync(PYTHON, ['-c', code, join(layout, 'database'), gold], { cwd: SPIDER, encoding: 'utf8' });
  expect(run.status, run.stderr).toBe(0);
  return run.stdout
    .split('\n')
    .filter((l) => l !== '')
    .map(Number);
}

describe.skipIf(spiderMissing !== undefined)(
  `Spider's test-suite evaluation.py on the layout${spiderMissing ? ` (skipped: ${spiderMissing})` : ''}`,
  () => {
    /** Runs Spider's documented command line; its execution accuracy over all levels. */
    function spider(
      gold: string,
      sqls: readonly string[],
      flags: readonly string[] = [],
      etype: 'exec' | 'all' = 'exec',
    ): { status: number; all: number; match: number; stderr: string } {
      const pred = join(
        tmp.dir,
        `spider-${createHash('sha256')
          .update(gold + sqls.join('\n'))
          .digest('hex')
          .slice(0, 8)}.txt`,
      );
      writeFileSync(pred, sqls.map((s) => `${s}\n`).join(''));
      const run = spawnSync(
        PYTHON,
        [
          join(SPIDER as string, 'evaluation.py'),
          '--gold',
          gold,
          '--pred',
          pred,
          '--db',
          join(layout, 'database'),
          '--etype',
          etype,
          ...flags,
        ],
        { cwd: SPIDER, encoding: 'utf8' },
      );
      const lines = run.stdout.split('\n');
      const after = (title: string): number => {
        const at = lines.findIndex((l) => l.includes(title));
        return at < 0 ? Number.NaN : Number(lines[at + 1]?.trim().split(/\s+/u).at(-1));
      };
      return {
        status: run.status ?? -1,
        all: after('EXECUTION ACCURACY'),
        match: after('EXACT MATCHING ACCURACY'),
        stderr: run.stderr,
      };
    }
    it('stops at the first line of the whole gold file its grammar does not read, which is why the layout has spider/', () => {
      const whole = spider(
        join(layout, 'train_gold.sql'),
        goldOf('train').map(([s]) => s),
      );
      expect(whole.status).not.toBe(0);
      expect(whole.stderr).toMatch(/AssertionError|KeyError/u);
      // On the whole file its parser reads fewer lines than spider/ holds: the output names cost the most.
      const readable = SPLITS.map((split) => spiderReadable(join(layout, `${split}_gold.sql`)).length);
      const held = SPLITS.map((split) => spiderGoldOf(split).length);
      expect(readable.reduce((a, b) => a + b, 0)).toBeLessThan(held.reduce((a, b) => a + b, 0));
    }, 300_000);

    it('reads every line of spider/<split>_gold.sql, and scores the gold 100% on every split', () => {
      let read = 0;
      for (const split of SPLITS) {
        const path = join(layout, `spider/${split}_gold.sql`);
        const lines = spiderGoldOf(split);
        expect(spiderReadable(path)).toEqual(lines.map((_, i) => i));
        read += lines.length;
        if (lines.length === 0) continue;
        const result = spider(
          path,
          lines.map(([s]) => s),
          ['--keep_distinct'],
        );
        expect(result.status, result.stderr).toBe(0);
        expect(result.all, split).toBe(1);
      }
      expect(read).toBeGreaterThan(0);
    }, 300_000);

    it('with tables.json as --table, --etype all also scores exact-set match: 1.000 for the gold', () => {
      const split = 'train';
      const path = join(layout, `spider/${split}_gold.sql`);
      const lines = spiderGoldOf(split);
      const result = spider(
        path,
        lines.map(([s]) => s),
        ['--table', join(layout, 'tables.json'), '--keep_distinct'],
        'all',
      );
      expect(result.status, result.stderr).toBe(0);
      expect(result.all).toBe(1);
      expect(result.match).toBe(1);
    }, 300_000);

    it('scores predictions wrong at every 5th line as the hand count says', () => {
      for (const split of SPLITS) {
        const lines = spiderGoldOf(split);
        if (lines.length === 0) continue;
        const sqls = lines.map(([s], i) => (wrongAt(i) ? WRONG : s));
        const result = spider(join(layout, `spider/${split}_gold.sql`), sqls, ['--keep_distinct']);
        expect(result.status, result.stderr).toBe(0);
        expect(countOf(result.all, lines.length, 1, 3), split).toBe(lines.filter((_, i) => !wrongAt(i)).length);
      }
    }, 300_000);

    it('drops DISTINCT before comparing, so accepts predictions wrong only in duplicate rows; with --keep_distinct it counts them wrong as equisql eval does', async () => {
      // Over every split: at least one line has an answer with duplicate rows.
      let duplicates = 0;
      for (const split of SPLITS) {
        const path = join(layout, `spider/${split}_gold.sql`);
        const lines = spiderGoldOf(split);
        if (lines.length === 0) continue;
        const sqls = lines.map(([s]) => distinctOf(s));
        expect(spider(path, sqls).all).toBe(1);
        const ids = new Set(spiderItemsOf(split).map((it) => it.id));
        const verdicts = await equisqlVerdicts(split, (it) => distinctOf(it.SQL));
        const right = itemsOf(split).filter((it, i) => ids.has(it.id) && (verdicts[i] as Verdict).correct).length;
        duplicates += lines.length - right;
        const kept = spider(path, sqls, ['--keep_distinct']);
        expect(kept.status, kept.stderr).toBe(0);
        expect(countOf(kept.all, lines.length, 1, 3), split).toBe(right);
      }
      expect(duplicates).toBeGreaterThan(0);
    }, 300_000);
  },
);
