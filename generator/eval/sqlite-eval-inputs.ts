/**
 * What an evaluation on SQLite reads besides the export: each variant's SQLite file of the
 * main instance (`sqlite/<variant>.sqlite`) and, when the build has an edge instance, of the
 * edge one (`edge/sqlite/<variant>.sqlite`); the schema the prompt shows, as SQLite holds it
 * (the file's own CREATE statements); and each group's gold as SQLite runs it (the group
 * record's SQLite SQL where it carries one, else its SQL, which SQLite runs when it uses
 * nothing PostgreSQL alone has).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ConfigError, oneLine } from '../common/errors.ts';
import type { ExportRecord } from '../records/export-record.ts';
import { groupsPath, readJsonLines } from '../records/groups-file.ts';
import type { GroupRecord } from '../records/group-record.ts';
import type { EvalInputs, EvalVariant } from './eval-inputs.ts';

/** The SQLite file of a variant, relative to the generated directory. */
export function sqliteFileOf(variant: string, instance: 'main' | 'edge'): string {
  return `${instance === 'edge' ? 'edge/' : ''}sqlite/${variant}.sqlite`;
}

/**
 * The schema a SQLite file holds, as its CREATE statements (tables, then views), in the
 * order they were made: what a model asked for SQLite's SQL is shown. Read from
 * `sqlite_master` of the file opened read-only; the build's own file, not a model's text.
 *
 * @example
 * sqliteDdl('output/social_media/sqlite/full_cti.sqlite');
 * // 'CREATE TABLE "account" ("id" INTEGER PRIMARY KEY, …);\n\nCREATE TABLE …;'
 */
export function sqliteDdl(path: string): string {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const rows = db
      .prepare(
        "SELECT sql FROM sqlite_master WHERE type IN ('table', 'view') AND sql IS NOT NULL AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY CASE type WHEN 'table' THEN 0 ELSE 1 END, rowid",
      )
      .all() as { sql: string }[];
    return rows.map((r) => `${r.sql.trim()};`).join('\n\n');
  } finally {
    db.close();
  }
}

/** The SQLite text of a group's gold on a variant (see the module comment). */
function sqliteSqlOf(group: GroupRecord | undefined, row: ExportRecord): string {
  const answer = group?.variants[row.variant] as
    | { sql: string; sqlite_sql?: string; dialects?: { sqlite?: { sql?: string } } }
    | undefined;
  return answer?.sqlite_sql ?? answer?.dialects?.sqlite?.sql ?? row.sql;
}

/** The inputs on SQLite, and each row's gold SQL as SQLite runs it. */
export interface SqliteEvalInputs {
  readonly inputs: EvalInputs;
  readonly sqliteSql: (row: ExportRecord) => string;
}

/**
 * The evaluation inputs with each variant on its SQLite files: `mainSchema` and `edgeSchema`
 * name the files (relative to the directory, as the executor and the prediction lines take
 * them) and `ddl` is the file's own schema. A file the build should have and has not is a
 * one-line ConfigError naming it, before any model is asked anything.
 *
 * @example
 * const { inputs, sqliteSql } = sqliteEvalInputs(readEvalInputs(dir, 'test'));
 * inputs.variants[0].mainSchema; // 'sqlite/full_normalized.sqlite'
 */
export function sqliteEvalInputs(inputs: EvalInputs): SqliteEvalInputs {
  const variants = inputs.variants.map((v): EvalVariant => {
    const main = sqliteFileOf(v.name, 'main');
    const edge = v.edgeSchema === undefined ? undefined : sqliteFileOf(v.name, 'edge');
    for (const file of [main, ...(edge === undefined ? [] : [edge])]) {
      if (!existsSync(join(inputs.dir, file)))
        throw new ConfigError(
          `--engine sqlite: ${join(inputs.dir, file)} is missing (build with equisql build --engines postgres,sqlite)`,
        );
    }
    let ddl: string;
    try {
      ddl = sqliteDdl(join(inputs.dir, main));
    } catch (error) {
      throw new ConfigError(`--engine sqlite: ${join(inputs.dir, main)}: ${oneLine(error)}`, { cause: error });
    }
    return { ...v, ddl, trainingDdl: undefined, mainSchema: main, edgeSchema: edge };
  });
  const path = groupsPath(inputs.dir, inputs.dataset);
  const groups = new Map<string, GroupRecord>();
  if (existsSync(path)) for (const g of readJsonLines<GroupRecord>(path, false)) groups.set(g.group_id, g);
  return { inputs: { ...inputs, variants }, sqliteSql: (row) => sqliteSqlOf(groups.get(row.group_id), row) };
}
