// @tier long
import { cpSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, REPO_ROOT } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import { describeServer } from '../helpers/postgres.ts';
import { DEFOG_COLUMNS, defogFiles, defogMisreads } from '../../generator/export/formats/defog-files.ts';
import { birdFiles } from '../../generator/export/formats/bird-files.ts';
import type { ExportRecord } from '../../generator/records/export-record.ts';
import { loadPgParser, parsePostgres } from '../../generator/sql/pg-parser.ts';
import { openPostgres } from '../../generator/database/postgres-database.ts';
import { runUntrusted } from '../../generator/execute/untrusted-query.ts';
import { normalizeResult } from '../../generator/execute/run-query.ts';
import { quoteIdent } from '../../generator/common/sql-text.ts';

const tmp = tempDir('evaluator-formats');
afterAll(() => tmp.remove());
const noServer = { DATABASE_URL: undefined };
const base = join(tmp.dir, 'generated');
/** The default export of the build: the rows every evaluator file is checked against. */
const plain = join(tmp.dir, 'plain');
/** The same build exported with --formats bird,defog,spider only. */
const evaluated = join(tmp.dir, 'evaluated');
const SPLITS = ['train', 'validation', 'test'] as const;
const BIRD_LEVEL: Record<string, string> = {
  easy: 'simple',
  medium: 'moderate',
  hard: 'challenging',
  extra: 'challenging',
};

const read = (path: string): string => readFileSync(path, 'utf8');
const manifestOf = (dir: string) => JSON.parse(read(join(dir, 'manifest.json')));
const rowsOf = (split: string): ExportRecord[] =>
  read(join(plain, `data/${split}-00000-of-00001.jsonl`))
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as ExportRecord);
/** Lines of a gold file, each split at its tabs. */
const goldOf = (path: string): string[][] => {
  const text = read(path);
  expect(text.endsWith('\n')).toBe(true);
  return text
    .slice(0, -1)
    .split('\n')
    .map((l) => l.split('\t'));
};

/** A CSV file as Python's csv module reads it: the header and the records. */
function pythonCsv(path: string): { header: string[]; records: Record<string, string>[] } {
  const script =
    'import csv, json, sys\nwith open(sys.argv[1], newline="", encoding="utf-8") as f:\n    r = csv.reader(f)\n    rows = list(r)\nprint(json.dumps({"header": rows[0], "records": [dict(zip(rows[0], x)) for x in rows[1:]], "widths": sorted(set(len(x) for x in rows))}))';
  const run = spawnSync('python3', ['-c', script, path], { encoding: 'utf8' });
  expect(run.status, run.stderr).toBe(0);
  const parsed = JSON.parse(run.stdout) as { header: string[]; records: Record<string, string>[]; widths: number[] };
  // Every record has exactly the header's fields: no comma or line break broke one apart.
  expect(parsed.widths).toEqual([parsed.header.length]);
  return parsed;
}

/** A parse tree without the byte offsets, which whitespace moves: what PostgreSQL understood. */
function meaning(sql: string): unknown {
  return JSON.parse(JSON.stringify(parsePostgres(sql).stmts.map((s) => s.stmt)), (k, v) =>
    k === 'location' ? undefined : v,
  );
}

/** Every file under `dir` (relative paths), but the database and the lock. */
function filesUnder(dir: string, sub = ''): string[] {
  return readdirSync(join(dir, sub)).flatMap((name) => {
    const rel = sub === '' ? name : `${sub}/${name}`;
    if (['pglite', 'edge', '.equisql.lock'].includes(rel)) return [];
    return statSync(join(dir, rel)).isDirectory() ? filesUnder(dir, rel) : [rel];
  });
}

beforeAll(async () => {
  await loadPgParser();
  const gen = runCli(['generate', '--dataset', 'retail', '--scale', 'tiny', '--groups', '12', '--out', base], {
    env: noServer,
  });
  expect(gen.status, gen.stderr).toBe(0);
  cpSync(base, plain, { recursive: true });
  cpSync(base, evaluated, { recursive: true });
  expect(runCli(['export', '--dir', plain], { env: noServer }).status).toBe(0);
  const run = runCli(['export', '--dir', evaluated, '--formats', 'bird,defog,spider'], { env: noServer });
  expect(run.status, run.stderr).toBe(0);
}, 300_000);

describe('evaluator formats read back', () => {
  it('exports every split and nothing but the evaluator files when only they are asked for', () => {
    const m = manifestOf(evaluated);
    expect(m.export.formats).toEqual(['bird', 'defog', 'spider']);
    const splits = Object.keys(m.export.splits);
    expect(splits.length).toBe(3);
    expect(Object.keys(m.export.files).sort()).toEqual(
      [
        ...splits.flatMap((s) => [
          `evaluators/bird/${s}.json`,
          `evaluators/bird/${s}_gold.sql`,
          `evaluators/defog/${s}.csv`,
          `evaluators/spider/${s}_gold.sql`,
        ]),
        ...['__init__.py', 'metadata.py', 'supplementary.py', 'metadata.json', 'columns_join.json'].map(
          (f) => `evaluators/defog/defog_data/${f}`,
        ),
        'record.schema.json',
        '.gitattributes',
      ].sort(),
    );
    for (const [rel, entry] of Object.entries(m.export.files) as [string, { sha256: string }][]) {
      expect(
        createHash('sha256')
          .update(readFileSync(join(evaluated, rel)))
          .digest('hex'),
        rel,
      ).toBe(entry.sha256);
    }
    expect(readdirSync(join(evaluated, 'data'))).toEqual([]);
    const all = SPLITS.flatMap((split) => rowsOf(split));
    expect(m.export.evaluators).toEqual({
      formats: ['bird', 'defog', 'spider'],
      left_out: { defog: all.filter((r) => r.sql.includes(';') || /\{[\s\S]*\}/u.test(r.sql)).length },
    });
    // Both exports drew the same rows.
    expect(m.export.splits).toEqual(manifestOf(plain).export.splits);
  });

  it("BIRD's <split>.json: item i is row i, every field", () => {
    let items = 0;
    for (const split of SPLITS) {
      const rows = rowsOf(split);
      const bird = JSON.parse(read(join(evaluated, `evaluators/bird/${split}.json`))) as Record<string, unknown>[];
      expect(bird.length).toBe(rows.length);
      bird.forEach((item, i) => {
        const r = rows[i] as ExportRecord;
        expect(Object.keys(item)).toEqual(['question_id', 'db_id', 'question', 'evidence', 'SQL', 'difficulty', 'id']);
        expect(item).toEqual({
          question_id: i,
          db_id: r.schema_id,
          question: r.question,
          evidence: r.evidence,
          SQL: r.sql,
          difficulty: BIRD_LEVEL[r.difficulty],
          id: r.id,
        });
      });
      items += bird.length;
    }
    expect(items).toBe(manifestOf(plain).export.counts.rows);
  });

  it('the gold files: line i is row i as SQL<TAB>db_id, one line each, the same statement to PostgreSQL', () => {
    let multiLine = 0;
    for (const split of SPLITS) {
      const rows = rowsOf(split);
      const birdGold = read(join(evaluated, `evaluators/bird/${split}_gold.sql`));
      // Spider's gold file is the same text under its own name.
      expect(read(join(evaluated, `evaluators/spider/${split}_gold.sql`))).toBe(birdGold);
      const lines = goldOf(join(evaluated, `evaluators/bird/${split}_gold.sql`));
      expect(lines.length).toBe(rows.length);
      lines.forEach((fields, i) => {
        const r = rows[i] as ExportRecord;
        expect(fields.length).toBe(2);
        const [sql, db] = fields as [string, string];
        expect(db).toBe(r.schema_id);
        // BIRD's reader strips the line before splitting it: nothing to strip.
        expect(sql).toBe(sql.trim());
        expect(sql.replace(/\s+/gu, ' ')).toBe(r.sql.replace(/\s+/gu, ' ').trim());
        expect(meaning(sql)).toEqual(meaning(r.sql));
        if (r.sql.includes('\n')) multiLine++;
      });
    }
    // The compiler writes SQL on several lines: the one-line form was needed.
    expect(multiLine).toBeGreaterThan(0);
  });

  it("defog's <split>.csv read by Python's csv module: the header, and every field of every row", () => {
    for (const split of SPLITS) {
      const rows = rowsOf(split);
      const { header, records } = pythonCsv(join(evaluated, `evaluators/defog/${split}.csv`));
      expect(header).toEqual(['db_name', 'db_type', 'query_category', 'query', 'question', 'instructions', 'id']);
      const kept = rows.filter((r) => !r.sql.includes(';') && !/\{[\s\S]*\}/u.test(r.sql));
      expect(records.length).toBe(kept.length);
      records.forEach((rec, i) => {
        const r = kept[i] as ExportRecord;
        expect(rec).toEqual({
          db_name: r.schema_id,
          db_type: 'postgres',
          query_category: r.difficulty,
          query: r.sql,
          question: r.question,
          instructions: r.evidence,
          id: r.id,
        });
      });
      expect(manifestOf(evaluated).export.files[`evaluators/defog/${split}.csv`].rows).toBe(kept.length);
    }
  });

  it("defog's defog_data package, imported by Python: every db_id with the tables and columns of its DDL, joins on its foreign keys", () => {
    const script = [
      'import json, sys',
      'sys.path.insert(0, sys.argv[1])',
      'from defog_data.metadata import dbs',
      'from defog_data.supplementary import columns_join',
      'print(json.dumps({"dbs": dbs, "joins": {db: [[list(k), [list(p) for p in v]] for k, v in j.items()] for db, j in columns_join.items()}}))',
    ].join('\n');
    const run = spawnSync('python3', ['-c', script, join(evaluated, 'evaluators/defog')], { encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    const { dbs, joins } = JSON.parse(run.stdout) as {
      dbs: Record<
        string,
        { table_metadata: Record<string, { column_name: string; data_type: string }[]>; glossary: string }
      >;
      joins: Record<string, [[string, string], [string, string][]][]>;
    };
    const schemas = manifestOf(evaluated).export.schemas as Record<string, { ddl: string }>;
    expect(Object.keys(dbs).sort()).toEqual(Object.keys(schemas).sort());
    for (const [id, { ddl }] of Object.entries(schemas)) {
      const text = read(join(evaluated, ddl));
      // The DDL's tables, each with its column lines in order (a constraint line is no column).
      const tables = [...text.matchAll(/^CREATE TABLE (\S+) \(\n([\s\S]*?)\n\);/gmu)].map(([, name, body]) => [
        name,
        (body as string)
          .split('\n')
          .map((l) => l.trim().replace(/,$/u, ''))
          .filter((l) => !/^(PRIMARY|UNIQUE|CHECK|FOREIGN|CONSTRAINT)\b/u.test(l)),
      ]);
      const db = dbs[id] as (typeof dbs)[string];
      const listed = Object.entries(db.table_metadata);
      expect(listed.map(([t, cols]) => [t, cols.map((c) => c.column_name)])).toEqual(
        tables.map(([t, lines]) => [t, (lines as string[]).map((l) => l.split(/\s+/u)[0])]),
      );
      // Each column's type is the one its DDL line gives after the name.
      listed.forEach(([t, cols], i) =>
        cols.forEach((c, j) => {
          const line = (tables[i]?.[1] as string[])[j] as string;
          expect(line.startsWith(`${c.column_name} ${c.data_type}`), `${id}: ${t}: ${line}`).toBe(true);
        }),
      );
      expect(db.glossary).toBe('');
      const columns = new Set(
        Object.entries(db.table_metadata).flatMap(([t, cols]) => cols.map((c) => `${t}.${c.column_name}`)),
      );
      // The joins are exactly the DDL's foreign keys, column by column.
      const references = [
        ...text.matchAll(/ALTER TABLE (\S+) ADD FOREIGN KEY \(([^)]*)\) REFERENCES (\S+) \(([^)]*)\)/gu),
      ].flatMap(([, from, cols, to, refs]) => {
        const r = (refs as string).split(', ');
        return (cols as string).split(', ').map((c, k) => `${from}.${c} = ${to}.${r[k]}`);
      });
      expect(references.length).toBeGreaterThan(0);
      const pairs: string[] = [];
      for (const [[from, to], list] of joins[id] ?? []) {
        for (const [a, b] of list) {
          expect(a.startsWith(`${from}.`) && b.startsWith(`${to}.`)).toBe(true);
          expect(columns.has(a) && columns.has(b), `${id}: ${a} = ${b}`).toBe(true);
          pairs.push(`${a} = ${b}`);
        }
      }
      expect(pairs.sort()).toEqual(references.sort());
    }
    expect(manifestOf(evaluated).export.files['evaluators/defog/defog_data/metadata.json'].rows).toBe(
      Object.keys(schemas).length,
    );
  });

  it('refuses --formats sqlite in one line, exit 2, for a run not checked on SQLite', () => {
    const run = runCli(['export', '--dir', join(tmp.dir, 'plain'), '--formats', 'jsonl,sqlite'], { env: noServer });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(
      /^equisql export: --formats sqlite: .+ was not checked on SQLite; generate it with --engines postgres,sqlite\n$/u,
    );
  });

  it('an export without --formats is byte for byte the default export, and drops the evaluator files of an earlier one', () => {
    const again = join(tmp.dir, 'again');
    cpSync(evaluated, again, { recursive: true });
    expect(runCli(['export', '--dir', again], { env: noServer }).status).toBe(0);
    expect(existsSync(join(again, 'evaluators'))).toBe(false);
    const files = filesUnder(plain).sort();
    expect(filesUnder(again).sort()).toEqual(files);
    for (const rel of files) expect(read(join(again, rel)), rel).toBe(read(join(plain, rel)));
    // And the build's own export (generate's last stage) is that same default.
    for (const rel of files.filter((f) => f.startsWith('data/') || f.startsWith('finetune/')))
      expect(read(join(base, rel)), rel).toBe(read(join(plain, rel)));
  });
});

/** A record with the given text fields, the rest of a real row. */
function record(fields: Partial<ExportRecord>): ExportRecord {
  return { ...rowsOf('train')[0], ...fields } as ExportRecord;
}

describe('hostile text in the evaluator files', () => {
  it('quotes commas, quotes and line breaks so Python reads every field back, and leaves out SQL that sql-eval reads as other queries', () => {
    const rows = [
      record({
        id: 'a',
        question: 'Which products, "on sale", cost\nless than 10?',
        evidence: 'price is in dollars,\r\n"sale" means discount > 0',
        sql: 'SELECT p.name\nFROM products AS p\nWHERE p.note = \'a,"b"\'',
      }),
      record({ id: 'b', question: ' leading and trailing space ', evidence: '', sql: "SELECT 'x;y' AS s" }),
      record({
        id: 'c',
        question: 'tags',
        evidence: '',
        sql: "SELECT p.name FROM products AS p WHERE p.tags @> '{sale}'",
      }),
      record({ id: 'd', question: 'plain', evidence: 'none', sql: 'SELECT 1 AS one' }),
    ];
    const { files, leftOut } = defogFiles('train', rows);
    expect(leftOut).toBe(2);
    expect(rows.map((r) => defogMisreads(r.sql))).toEqual([false, true, true, false]);
    const path = join(tmp.dir, 'hostile.csv');
    const file = files[0] as { lines: Iterable<string> };
    writeFileSync(path, [...file.lines].join(''));
    const { header, records } = pythonCsv(path);
    expect(header).toEqual([...DEFOG_COLUMNS]);
    expect(records.map((r) => [r['id'], r['question'], r['instructions'], r['query']])).toEqual(
      ([rows[0], rows[3]] as ExportRecord[]).map((r) => [r.id, r.question, r.evidence, r.sql]),
    );
    // The BIRD file is JSON: it holds any text as it is.
    const bird = birdFiles('train', rows);
    expect(
      JSON.parse([...(bird[0] as { lines: Iterable<string> }).lines].join('')).map(
        (i: { question: string }) => i.question,
      ),
    ).toEqual(rows.map((r) => r.question));
  });
});

describe('the dump loader refuses bad input in one line, exit 2, before it connects', () => {
  // A server nobody listens on: every refusal must come before any connection.
  const loader = (args: string[], env: Record<string, string | undefined>) => {
    const merged: Record<string, string | undefined> = { ...process.env, ...env };
    for (const [k, v] of Object.entries(merged)) if (v === undefined) delete merged[k];
    return spawnSync(process.execPath, [join(REPO_ROOT, 'bin/run-ts.js'), 'scripts/load-dumps.ts', ...args], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      env: merged as NodeJS.ProcessEnv,
    });
  };
  const nowhere = { DATABASE_URL: 'postgres://nobody@127.0.0.1:9/none' };
  it.each([
    [
      'a name PostgreSQL would cut',
      () => ['--dir', evaluated, '--prefix', 'p'.repeat(50)],
      nowhere,
      /^load-dumps: database name "p{50}retail\/\w+" is longer than 63 bytes \(PostgreSQL would cut it\); use a shorter --prefix\n$/u,
    ],
    ['no directory', () => [], nowhere, /^load-dumps: --dir DIR is required \(an export or a build directory\)\n$/u],
    [
      'a directory that is no export',
      () => ['--dir', tmp.dir],
      nowhere,
      /^load-dumps: .+: neither an export \(manifest.json with an export section\) nor a build \(build.json\)\n$/u,
    ],
    [
      'no server',
      () => ['--dir', evaluated],
      { DATABASE_URL: undefined },
      /^load-dumps: no server: give --url postgres:\/\/… or set DATABASE_URL\n$/u,
    ],
    ['an unknown flag', () => ['--dir', evaluated, '--prefx', 'x'], nowhere, /^load-dumps: Unknown option '--prefx'/u],
  ])('%s', (_what, args, env, message) => {
    const run = loader(args(), env);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stdout).toBe('');
  });
});

describeServer('the dump loader on a real server', (serverUrl) => {
  const prefix = `wtformats_test_${process.pid}_`;
  const admin = () => new pg.Client({ connectionString: serverUrl });
  const databases = async (): Promise<string[]> => {
    const c = admin();
    await c.connect();
    try {
      return (
        await c.query('SELECT datname FROM pg_database WHERE starts_with(datname, $1) ORDER BY datname', [prefix])
      ).rows.map((r) => String(r.datname));
    } finally {
      await c.end();
    }
  };
  const load = () =>
    spawnSync(
      process.execPath,
      [join(REPO_ROOT, 'bin/run-ts.js'), 'scripts/load-dumps.ts', '--dir', evaluated, '--prefix', prefix],
      { cwd: REPO_ROOT, encoding: 'utf8', env: { ...process.env, DATABASE_URL: serverUrl } },
    );

  afterAll(async () => {
    const c = admin();
    await c.connect();
    try {
      for (const name of await databases()) await c.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
    } finally {
      await c.end();
    }
  });

  it("creates a database for every db_id, and every gold line runs on its database with the record's answer", async () => {
    const run = load();
    expect(run.status, run.stderr).toBe(0);
    const ids = Object.keys(manifestOf(evaluated).export.schemas).sort();
    expect(ids.length).toBe(10);
    expect(
      run.stdout
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => l.split('\t')),
    ).toEqual(ids.map((id) => [id, `${prefix}${id}`]));
    expect(await databases()).toEqual(ids.map((id) => `${prefix}${id}`).sort());

    const open = new Map<string, Awaited<ReturnType<typeof openPostgres>>>();
    try {
      for (const id of ids) {
        const url = new URL(serverUrl);
        // node-postgres reads the path with decodeURI, which leaves %2F as it is: the schema id's slash goes in raw.
        url.pathname = `/${encodeURIComponent(`${prefix}${id}`).replaceAll('%2F', '/')}`;
        open.set(id, await openPostgres(url.toString()));
      }
      let checked = 0;
      for (const split of SPLITS) {
        const rows = rowsOf(split);
        const gold = goldOf(join(evaluated, `evaluators/spider/${split}_gold.sql`));
        for (let i = 0; i < gold.length; i++) {
          const [sql, db] = gold[i] as [string, string];
          const r = rows[i] as ExportRecord;
          const outcome = await runUntrusted(open.get(db) as Awaited<ReturnType<typeof openPostgres>>, 'public', sql);
          expect(outcome.kind, `${db}: ${sql}: ${'message' in outcome ? outcome.message : ''}`).toBe('rows');
          if (outcome.kind !== 'rows') continue;
          expect(outcome.rows.length).toBeGreaterThan(0);
          expect(outcome.rows.length).toBe(r.row_count);
          expect(
            normalizeResult({ columns: outcome.columns, rows: outcome.rows }, r.ordered).hash,
            `${db}: ${sql}`,
          ).toBe(r.result_hash);
          checked++;
        }
      }
      expect(checked).toBe(manifestOf(plain).export.counts.rows);
    } finally {
      for (const db of open.values()) await db.close();
    }
  }, 120_000);

  it('is idempotent: a second run finds every database up to date; one that lost its mark is loaded again', async () => {
    const again = load();
    expect(again.status, again.stderr).toBe(0);
    const ids = Object.keys(manifestOf(evaluated).export.schemas);
    expect(again.stderr.split('\n').filter((l) => l.endsWith(': up to date')).length).toBe(ids.length);
    // A database whose load stopped half-way has no mark: it is dropped and loaded whole.
    const victim = `${prefix}${ids[0]}`;
    const c = admin();
    await c.connect();
    await c.query(`COMMENT ON DATABASE ${quoteIdent(victim)} IS NULL`);
    await c.end();
    const third = load();
    expect(third.status, third.stderr).toBe(0);
    expect(third.stderr).toContain(`load-dumps: ${victim}: loaded`);
    expect(third.stderr.split('\n').filter((l) => l.endsWith(': up to date')).length).toBe(ids.length - 1);
    expect(await databases()).toEqual(ids.map((id) => `${prefix}${id}`).sort());
  }, 120_000);
});
