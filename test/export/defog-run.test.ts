// defog sql-eval's runner (main.py of defog-ai/sql-eval), run unchanged by the command line of
// docs/evaluators.md on an export: its questions CSV, the export's `defog_data` package on
// PYTHONPATH in place of defog's own, the databases the dump loader made on DATABASE_URL's
// server, and a model server on 127.0.0.1 that this test runs (`-g api --api_type openai`). It
// is found through EQUISQL_DEFOG_EVAL (a checkout of sql-eval), run by EQUISQL_PYTHON (a Python
// with its packages: pandas, sqlalchemy, psycopg2, sqlparse, tqdm, requests, openai,
// func_timeout, sqlglot); without them the block is skipped, naming what is missing.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { spawn, spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import { describeServer } from '../helpers/postgres.ts';
import { quoteIdent } from '../../generator/common/sql-text.ts';

const PYTHON = process.env['EQUISQL_PYTHON'] || 'python3';
const DEFOG = process.env['EQUISQL_DEFOG_EVAL'];
const SPLITS = ['train', 'validation', 'test'] as const;
/** What the model answers where it is told to be wrong: no gold answer is this one row. */
const WRONG = "SELECT 'not an answer' AS x";

const defogMissing = ((): string | undefined => {
  if (!DEFOG)
    return "set EQUISQL_DEFOG_EVAL to a checkout of sql-eval, and EQUISQL_PYTHON to a Python with sql-eval's packages";
  if (!existsSync(join(DEFOG, 'main.py'))) return `EQUISQL_DEFOG_EVAL=${DEFOG} holds no main.py`;
  const run = spawnSync(PYTHON, ['-c', 'import runners.api_runner'], { cwd: DEFOG, encoding: 'utf8' });
  if (run.error) return `EQUISQL_PYTHON=${PYTHON} does not run (${run.error.message})`;
  return run.status === 0 ? undefined : `EQUISQL_PYTHON=${PYTHON}: ${run.stderr.trim().split('\n').at(-1)}`;
})();

/** A CSV file as Python's csv module reads it, a dict a record. */
function pythonCsv(path: string): Record<string, string>[] {
  const script =
    'import csv, json, sys\nwith open(sys.argv[1], newline="", encoding="utf-8") as f:\n    print(json.dumps(list(csv.DictReader(f))))';
  const run = spawnSync('python3', ['-c', script, path], { encoding: 'utf8', maxBuffer: 1 << 28 });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as Record<string, string>[];
}

/** A database's tables and their columns, as one comparable text: `table(col,col);…`, sorted. */
const signature = (tables: [string, string[]][]): string =>
  tables
    .map(([t, cols]) => `${t}(${cols.join(',')})`)
    .sort()
    .join(';');

/** The tables and columns of the schema sql-eval put in a prompt (its `to_prompt_schema` form). */
function promptTables(prompt: string): [string, string[]][] {
  return [...prompt.matchAll(/CREATE TABLE (\S+) \(\n([\s\S]*?)\n\);/gu)].map((m) => [
    m[1] as string,
    (m[2] as string).split('\n').map((line) => line.trim().split(/\s+/u)[0] as string),
  ]);
}

describeServer('defog sql-eval', (serverUrl) => {
  describe.skipIf(defogMissing !== undefined)(
    `main.py on the export${defogMissing ? ` (skipped: ${defogMissing})` : ''}`,
    () => {
      const tmp = tempDir('defog-run');
      const dir = join(tmp.dir, 'run');
      let ids: string[] = [];
      /** db_id → its signature, from the export's defog_data package. */
      const signatures = new Map<string, string>();
      /** The records of each split's CSV, in file order. */
      const csv = new Map<string, Record<string, string>[]>();
      /** What the model answers for a record of the CSV: its gold SQL unless a test says otherwise. */
      let answer = (row: Record<string, string>): string => row['query'] as string;
      const asked: string[] = [];
      /** Prompts whose question and schema matched no record of the export. */
      let unknown = 0;
      let model: Server;
      let port = 0;

      const admin = () => new pg.Client({ connectionString: serverUrl });
      const dropAll = async (): Promise<void> => {
        const c = admin();
        await c.connect();
        try {
          for (const id of ids) await c.query(`DROP DATABASE IF EXISTS ${quoteIdent(id)} WITH (FORCE)`);
        } finally {
          await c.end();
        }
      };

      beforeAll(async () => {
        const gen = runCli(
          [
            ...['generate', '--dataset', 'social_media', '--variants', 'full_normalized,full_sti'],
            ...['--scale', 'tiny', '--groups', '30', '--out', dir],
          ],
          { env: { DATABASE_URL: undefined } },
        );
        expect(gen.status, gen.stderr).toBe(0);
        const exp = runCli(['export', '--dir', dir, '--formats', 'jsonl,defog'], { env: { DATABASE_URL: undefined } });
        expect(exp.status, exp.stderr).toBe(0);
        const metadata = JSON.parse(
          readFileSync(join(dir, 'evaluators/defog/defog_data/metadata.json'), 'utf8'),
        ) as Record<string, { table_metadata: Record<string, { column_name: string }[]> }>;
        ids = Object.keys(metadata);
        for (const [id, db] of Object.entries(metadata))
          signatures.set(
            id,
            signature(Object.entries(db.table_metadata).map(([t, cols]) => [t, cols.map((c) => c.column_name)])),
          );
        for (const split of SPLITS) csv.set(split, pythonCsv(join(dir, `evaluators/defog/${split}.csv`)));
        // The databases under the names sql-eval connects to: db_id itself, no prefix.
        const load = spawnSync(
          process.execPath,
          [join(REPO_ROOT, 'bin/run-ts.js'), 'scripts/load-dumps.ts', '--dir', dir],
          {
            cwd: REPO_ROOT,
            encoding: 'utf8',
            env: { ...process.env, DATABASE_URL: serverUrl },
          },
        );
        expect(load.status, load.stderr).toBe(0);

        // The model: it reads the question and the schema off sql-eval's prompt and answers the
        // gold SQL of that record, or WRONG for the ids in `wrong`.
        const byKey = new Map<string, Record<string, string>>();
        for (const rows of csv.values())
          for (const r of rows) byKey.set(`${r['question']}\u0000${signatures.get(r['db_name'] as string)}`, r);
        model = createServer((req, res) => {
          let body = '';
          req.on('data', (chunk: Buffer) => {
            body += chunk.toString('utf8');
          });
          req.on('end', () => {
            const messages = (JSON.parse(body) as { messages: { role: string; content: string }[] }).messages;
            const prompt = messages.map((m) => m.content).join('\n');
            asked.push(prompt);
            const question = /answers the question `([\s\S]*?)`\.\n/u.exec(prompt)?.[1] ?? '';
            const row = byKey.get(`${question}\u0000${signature(promptTables(prompt))}`);
            if (row === undefined) unknown++;
            const sql = row === undefined ? WRONG : answer(row);
            res.setHeader('content-type', 'application/json');
            res.end(JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: sql } }] }));
          });
        });
        await new Promise<void>((resolve) => model.listen(0, '127.0.0.1', resolve));
        port = (model.address() as AddressInfo).port;
      }, 300_000);

      afterAll(async () => {
        await new Promise<void>((resolve) => (model ? model.close(() => resolve()) : resolve()));
        await dropAll();
        tmp.remove();
      });

      /** Runs the documented command line on a split; sql-eval's result row by record id. */
      async function defog(split: string, label: string): Promise<Map<string, Record<string, string>>> {
        const url = new URL(serverUrl);
        const out = join(tmp.dir, `results-${label}`, `${split}.csv`);
        const args = [
          'main.py',
          ...['-db', 'postgres', '-q', join(dir, `evaluators/defog/${split}.csv`), '-o', out],
          ...['-g', 'api', '--api_type', 'openai', '--api_url', `http://127.0.0.1:${port}/v1/chat/completions`],
          ...['-m', 'gold', '-f', 'prompts/prompt_openai.json', '-p', '1'],
        ];
        const env = {
          ...process.env,
          PYTHONPATH: join(dir, 'evaluators/defog'),
          DBHOST: url.hostname,
          DBPORT: url.port || '5432',
          DBUSER: decodeURIComponent(url.username) || 'postgres',
          DBPASSWORD: decodeURIComponent(url.password),
        };
        // Asynchronously: the model server answers on this process's event loop.
        const status = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
          const child = spawn(PYTHON, args, { cwd: DEFOG, env });
          let stderr = '';
          child.stderr.on('data', (chunk: Buffer) => {
            stderr += chunk.toString('utf8');
          });
          child.stdout.resume();
          child.on('close', (code) => resolve({ code, stderr }));
        });
        expect(status.code, status.stderr.slice(-2000)).toBe(0);
        return new Map(pythonCsv(out).map((r) => [r['id'] as string, r]));
      }

      it('scores the gold 100% on every split, every question asked with its own database', async () => {
        answer = (row) => row['query'] as string;
        for (const split of SPLITS) {
          const rows = csv.get(split) as Record<string, string>[];
          const before = asked.length;
          const results = await defog(split, 'gold');
          expect(asked.length - before).toBe(rows.length);
          expect([...results.keys()].sort()).toEqual(rows.map((r) => r['id']).sort());
          const failed = [...results.values()].filter((r) => r['correct'] !== '1');
          expect(failed.map((r) => `${r['db_name']}: ${r['error_msg']}: ${r['generated_query']}`)).toEqual([]);
        }
        // Each prompt named one of the export's databases, whole, and one of its questions.
        expect(unknown).toBe(0);
      }, 600_000);

      it('scores predictions wrong at every 5th record as the hand count says', async () => {
        const split = 'train';
        const rows = csv.get(split) as Record<string, string>[];
        const wrong = new Set(rows.filter((_, i) => i % 5 === 4).map((r) => r['id'] as string));
        answer = (row) => (wrong.has(row['id'] as string) ? WRONG : (row['query'] as string));
        const results = await defog(split, 'wrong');
        for (const [id, r] of results) expect(r['correct'], `${id}: ${r['error_msg']}`).toBe(wrong.has(id) ? '0' : '1');
        expect([...results.values()].filter((r) => r['correct'] === '1').length).toBe(rows.length - wrong.size);
      }, 600_000);

      it('accepts every prediction written SELECT DISTINCT * FROM (gold): it drops duplicate rows and sorts before comparing, where equisql eval counts the lost duplicates and the lost order wrong', async () => {
        const split = 'train';
        const distinct = (sql: string): string => `SELECT DISTINCT * FROM (${sql}) AS d`;
        answer = (row) => distinct(row['query'] as string);
        const results = await defog(split, 'distinct');
        // equisql eval's verdicts on the same predictions, every record of the split.
        const records = readFileSync(join(dir, `data/${split}-00000-of-00001.jsonl`), 'utf8')
          .split('\n')
          .filter((l) => l !== '')
          .map((l) => JSON.parse(l) as { id: string; sql: string });
        const file = join(tmp.dir, 'distinct.jsonl');
        writeFileSync(file, records.map((r) => `${JSON.stringify({ id: r.id, sql: distinct(r.sql) })}\n`).join(''));
        const out = join(tmp.dir, 'distinct-eval');
        const run = runCli(['eval', '--dir', dir, '--split', split, '--predictions', file, '--out', out], {
          env: { DATABASE_URL: undefined },
        });
        expect(run.status, run.stderr).toBe(0);
        const correct = new Map(
          readFileSync(join(out, 'predictions.jsonl'), 'utf8')
            .split('\n')
            .filter((l) => l !== '')
            .map((l) => JSON.parse(l) as { id: string; correct: boolean })
            .map((p) => [p.id, p.correct]),
        );
        const wrongHere = [...results.keys()].filter((id) => correct.get(id) === false);
        expect(wrongHere.length).toBeGreaterThan(0);
        // sql-eval accepts every one of them (and every prediction equisql eval counts right).
        for (const [id, r] of results) expect(r['correct'], `${id}: ${r['error_msg']}`).toBe('1');
        console.log(
          `defog: ${results.size} predictions written SELECT DISTINCT * FROM (gold): sql-eval accepted ${results.size}; equisql eval counts ${wrongHere.length} of them wrong`,
        );
      }, 600_000);
    },
  );
});
