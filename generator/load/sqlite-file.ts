import { existsSync, renameSync, rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { LoadError, oneLine } from '../common/errors.ts';
import { quoteIdent } from '../common/sql-text.ts';
import type { RelationalSchema } from '../variants/relational-schema.ts';
import { shredTable, type ShredContext } from '../shred/shred-rows.ts';
import { renderSqliteSchema, sqliteValue } from '../shred/sqlite-storage.ts';
import { makeDirectory } from '../common/make-directory.ts';
import { dirname } from 'node:path';

/**
 * Writes a variant's SQLite database to `path`: the tables of `renderSqliteSchema`, filled
 * with the same shredded rows the PostgreSQL load copies, in one transaction. The file is
 * written beside its place and renamed in, so a failed write leaves no half file; it is
 * written with a rollback journal (no `-wal` file beside it) so one file is the database.
 *
 * @example
 * writeSqliteVariant(context, schema, 'out/retail/sqlite/full_cti.sqlite')  // 4 812 rows
 */
export function writeSqliteVariant(context: ShredContext, schema: RelationalSchema, path: string): number {
  const temp = `${path}.partial`;
  rmSync(temp, { force: true });
  makeDirectory(dirname(path));
  const db = new Database(temp);
  let step = 'creating the tables';
  let rows = 0;
  try {
    db.pragma('journal_mode = DELETE');
    // Rows go in table by table; the keys are checked once all are in.
    db.pragma('foreign_keys = OFF');
    db.exec(renderSqliteSchema(schema));
    db.transaction(() => {
      for (const table of schema.tables) {
        step = `inserting into ${table.name}`;
        const insert = db.prepare(
          `INSERT INTO ${quoteIdent(table.name)} (${table.columns.map((c) => quoteIdent(c.name)).join(', ')}) VALUES (${table.columns.map(() => '?').join(', ')})`,
        );
        const where = `variant ${schema.variant.name}, table ${table.name}`;
        for (const row of shredTable(context, schema, table)) {
          insert.run(row.map((cell, i) => sqliteValue(cell, table.columns[i]!, where)));
          rows++;
        }
      }
    })();
    step = 'checking foreign keys';
    const broken = db.pragma('foreign_key_check') as unknown[];
    if (broken.length > 0) throw new Error(`${broken.length} rows break a foreign key: ${JSON.stringify(broken[0])}`);
    db.close();
  } catch (error) {
    if (db.open) db.close();
    rmSync(temp, { force: true });
    throw new LoadError(`variant ${schema.variant.name} (SQLite ${path}): ${step}: ${oneLine(error)}`, {
      cause: error,
    });
  }
  if (existsSync(path)) rmSync(path);
  renameSync(temp, path);
  return rows;
}
