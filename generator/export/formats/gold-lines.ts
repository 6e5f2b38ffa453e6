/**
 * The gold file BIRD's and Spider's evaluators read: one `SQL\tdb_id` a line, the SQL on one
 * line (`oneLineSql`), `db_id` the row's schema id (`<dataset>/<variant>`, the database the
 * dump loader makes for it). Line i is row i of the split's records.
 */
import { SqlParseError } from '../../common/errors.ts';
import type { ExportRecord } from '../../records/export-record.ts';
import { oneLineSql } from './one-line-sql.ts';

/** The database a row's SQL runs on, as the evaluators name it: the variant's schema id. */
export function dbId(r: ExportRecord): string {
  // Schema ids are dataset and variant names; a tab or a line break would split the line.
  if (/[\t\n\r]/u.test(r.schema_id))
    throw new SqlParseError(
      `export: row ${r.id}: schema id ${JSON.stringify(r.schema_id)} holds a tab or a line break`,
    );
  return r.schema_id;
}

/** A row's SQL on one line; a SqlParseError names the row when it cannot be. */
export function goldSql(r: ExportRecord): string {
  try {
    return oneLineSql(r.sql);
  } catch (error) {
    if (error instanceof SqlParseError)
      throw new SqlParseError(`export: row ${r.id} (${r.schema_id}): ${error.message}`, undefined, { cause: error });
    throw error;
  }
}

/**
 * The gold file's lines, one a row.
 *
 * @example
 * [...goldLines([row])]; // ["SELECT e.model_no FROM products AS e WHERE e.price > 410\tretail/full_sti\n"]
 */
export function* goldLines(rows: readonly ExportRecord[]): Generator<string> {
  for (const r of rows) yield `${goldSql(r)}\t${dbId(r)}\n`;
}
