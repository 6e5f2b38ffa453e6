/**
 * The SQLite layout BIRD's evaluator (`evaluation.py`) and Spider's test-suite evaluator
 * read, for a run checked on SQLite (`generate --engines postgres,sqlite`), under
 * `evaluators/sqlite/`:
 *
 * - `<split>.json` and `<split>_gold.sql`: BIRD's questions and gold files (as under
 *   `evaluators/bird/`; `<split>.jsonl` holds the same items a line each, for BIRD mini-dev), with each row's SQLite SQL (`variants.<v>.sqlite_sql`, which the run
 *   kept only because SQLite answered as PostgreSQL did) in place of its PostgreSQL. Spider's
 *   `--gold` reads the same gold file.
 * - `database/<db_id>/<db_id>.sqlite`: the variant's SQLite file (main instance), where both
 *   evaluators look for `db_id` under their database root; with `db_id` `<dataset>/<variant>`
 *   that is `database/<dataset>/<variant>/<dataset>/<variant>.sqlite`.
 * - `database/<db_id>/<db_id>.edge.sqlite`: the edge-case instance beside it. Spider's
 *   test-suite evaluator runs each query on every `.sqlite` file of that folder (its test
 *   suite), so it checks both instances, as equisql does; BIRD's reads the main one only.
 *
 * A row is left out when its variant is one SQLite cannot hold (no `sqlite_sql`), or when
 * its SQLite SQL cannot be put on one line without PostgreSQL's escapes, which SQLite does
 * not read. Item i of `<split>.json` and line i of `<split>_gold.sql` are the same record.
 */
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { ConfigError } from '../../common/errors.ts';
import type { GroupRecord } from '../../records/group-record.ts';
import type { ExportRecord } from '../../records/export-record.ts';
import type { SplitName } from '../split-assign.ts';
import { birdFiles, birdItem } from './bird-files.ts';
import { EVALUATOR_DIR, type EvaluatorFile } from './evaluator-file.ts';
import { dbId } from './gold-lines.ts';
import { oneLineSql } from './one-line-sql.ts';
import { type SpiderSchema, spiderForm } from './spider-grammar.ts';

/** The folder under `evaluators/`. */
export const SQLITE_FOLDER = 'sqlite';

/** The folder under it of the rows Spider's evaluator reads. */
export const SPIDER_FOLDER = 'spider';

/** The folder of the database copies (left out of the Hub's list, as every database is). */
export const SQLITE_DATABASE_DIR = `${EVALUATOR_DIR}/${SQLITE_FOLDER}/database/`;

/** Where the evaluators find a database: `database/<db_id>/<db_id>.sqlite` (`.edge.sqlite` for the edge instance). */
export function sqliteDatabaseRel(schemaId: string, instance: 'main' | 'edge'): string {
  return `${SQLITE_DATABASE_DIR}${schemaId}/${schemaId}${instance === 'main' ? '' : '.edge'}.sqlite`;
}

/** What the SQLite layout is made from: the run's groups and its SQLite files. */
export interface SqliteSource {
  /** The row's SQLite SQL, or undefined when SQLite does not hold its variant. */
  readonly sqlOf: (r: ExportRecord) => string | undefined;
  /** The variant's SQLite file of an instance, absolute; undefined when the run has none. */
  readonly fileOf: (variant: string, instance: 'main' | 'edge') => string | undefined;
  /** The tables and columns of the variant's main SQLite file, as Spider's evaluator reads them. */
  readonly spiderSchemaOf: (variant: string) => SpiderSchema;
}

/**
 * The tables of a SQLite file with their columns, lower-cased, as Spider's `get_schema` lists
 * them: it asks `PRAGMA table_info(<name>)` with the name pasted in unquoted, so a table named
 * like a keyword (`order`) stops it for every query on the file. Such a file gets an empty
 * schema, on which `spiderForm` reads no query.
 */
export function readSpiderSchema(file: string): SpiderSchema {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]).map(
      (t) => t.toLowerCase(),
    );
    const schema = new Map<string, ReadonlySet<string>>();
    for (const t of tables) {
      let columns: string[];
      try {
        columns = db
          .prepare(`PRAGMA table_info(${t})`)
          .pluck(false)
          .all()
          .map((c) => String((c as { name: string }).name));
      } catch {
        return new Map();
      }
      schema.set(t, new Set(columns.map((c) => c.toLowerCase())));
    }
    return schema;
  } finally {
    db.close();
  }
}

/**
 * The SQLite source of a generated directory. A run not checked on SQLite has no SQLite SQL:
 * a one-line ConfigError says how to make one.
 */
export function sqliteSource(
  dir: string,
  groups: readonly GroupRecord[],
  settings: Readonly<Record<string, unknown>> | undefined,
): SqliteSource {
  const engines = settings?.['engines'];
  if (!(Array.isArray(engines) && engines.includes('sqlite'))) {
    throw new ConfigError(
      `export: --formats sqlite: ${dir} was not checked on SQLite; generate it with --engines postgres,sqlite`,
    );
  }
  const byId = new Map(groups.map((g) => [g.group_id, g]));
  const fileOf = (variant: string, instance: 'main' | 'edge'): string | undefined => {
    const file = join(dir, instance === 'main' ? '' : 'edge', 'sqlite', `${variant}.sqlite`);
    return existsSync(file) ? file : undefined;
  };
  const schemas = new Map<string, SpiderSchema>();
  return {
    sqlOf: (r) => byId.get(r.group_id)?.variants[r.variant]?.sqlite_sql,
    fileOf,
    spiderSchemaOf: (variant) => {
      let schema = schemas.get(variant);
      if (schema === undefined) {
        const file = fileOf(variant, 'main');
        schema = file === undefined ? new Map() : readSpiderSchema(file);
        schemas.set(variant, schema);
      }
      return schema;
    },
  };
}

/** A row's SQLite SQL on one line, or undefined when it has none or one line would need PostgreSQL's escapes. */
function oneLineSqlite(sql: string | undefined): string | undefined {
  if (sql === undefined) return undefined;
  try {
    const line = oneLineSql(sql);
    // oneLineSql writes E'…' or U&"…" for a line break inside a literal: PostgreSQL's, not SQLite's.
    return /\bE'|U&"/u.test(line) && !/\bE'|U&"/u.test(sql) ? undefined : line;
  } catch {
    return undefined;
  }
}

/** The rows of a split that the SQLite layout holds (their `sql` the SQLite SQL), and how many it left out. */
export function sqliteRows(
  rows: readonly ExportRecord[],
  source: SqliteSource,
): { rows: ExportRecord[]; leftOut: number } {
  const kept: ExportRecord[] = [];
  for (const r of rows) {
    const sql = oneLineSqlite(source.sqlOf(r));
    if (sql !== undefined && source.fileOf(r.variant, 'main') !== undefined) kept.push({ ...r, sql });
  }
  return { rows: kept, leftOut: rows.length - kept.length };
}

function* itemLines(rows: readonly ExportRecord[]): Generator<string> {
  for (let i = 0; i < rows.length; i++) yield `${JSON.stringify(birdItem(rows[i] as ExportRecord, i))}\n`;
}

/** The rows Spider's evaluator can read, their `sql` in the form it reads (`spiderForm`). */
export function spiderRows(rows: readonly ExportRecord[], source: SqliteSource): ExportRecord[] {
  return rows.flatMap((r) => {
    const sql = spiderForm(r.sql, source.spiderSchemaOf(r.variant));
    return sql === undefined ? [] : [{ ...r, sql }];
  });
}

/**
 * The files of one split under `evaluators/sqlite/`: BIRD's questions and gold file, the
 * questions again as JSON Lines (`<split>.jsonl`, one item a line, as BIRD mini-dev's
 * evaluator reads its `--diff_json_path`), and under `spider/` the same two files for the
 * rows Spider's evaluator can read (`rows`: the held rows; `spider`: how many of them that is).
 */
export function sqliteFiles(
  split: SplitName,
  rows: readonly ExportRecord[],
  source: SqliteSource,
): { files: EvaluatorFile[]; leftOut: number; rows: ExportRecord[]; spider: number } {
  const held = sqliteRows(rows, source);
  const lines: EvaluatorFile = {
    rel: `${EVALUATOR_DIR}/${SQLITE_FOLDER}/${split}.jsonl`,
    lines: { [Symbol.iterator]: () => itemLines(held.rows) },
    count: held.rows.length,
  };
  const spider = spiderRows(held.rows, source);
  return {
    files: [
      ...birdFiles(split, held.rows, SQLITE_FOLDER),
      lines,
      ...birdFiles(split, spider, `${SQLITE_FOLDER}/${SPIDER_FOLDER}`),
    ],
    leftOut: held.leftOut,
    rows: held.rows,
    spider: spider.length,
  };
}

/** The database files a set of rows needs: relative path → the run's SQLite file and the `db_id`. */
export function sqliteDatabases(
  rows: Iterable<ExportRecord>,
  source: SqliteSource,
): Map<string, { readonly file: string; readonly dbId: string }> {
  const out = new Map<string, { readonly file: string; readonly dbId: string }>();
  for (const r of rows) {
    const id = dbId(r);
    for (const instance of ['main', 'edge'] as const) {
      const file = source.fileOf(r.variant, instance);
      if (file !== undefined) out.set(sqliteDatabaseRel(id, instance), { file, dbId: id });
    }
  }
  return out;
}
