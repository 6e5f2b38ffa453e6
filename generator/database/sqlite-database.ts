import Database from 'better-sqlite3';
import { ExecutionError, oneLine } from '../common/errors.ts';
import type { CompiledSql } from '../compile/compiled-sql.ts';
import type { TextResult } from './database.ts';

/**
 * A variant's SQLite file, opened read-only for the compiler's own SQL. Statements are
 * prepared once per text; `stmt.readonly` must hold (SQLite's own parse says the statement
 * writes nothing) before anything runs.
 */
export class SqliteFile {
  readonly path: string;
  private readonly db: Database.Database;
  private readonly statements = new Map<string, Database.Statement>();

  constructor(path: string) {
    this.path = path;
    this.db = new Database(path, { readonly: true, fileMustExist: true });
  }

  /**
   * Runs compiled SQL and returns its rows as text (numbers as SQLite prints them, NULL as
   * null), in the shape PostgreSQL's results take. The statement is kept for the next run of
   * the same text unless `keep` is false.
   */
  run(sql: CompiledSql, options: { readonly keep?: boolean } = {}): TextResult {
    let stmt = this.statements.get(sql.text);
    try {
      if (!stmt) {
        stmt = this.db.prepare(sql.text);
        if (!stmt.reader || !stmt.readonly) throw new Error('not a read-only query');
        // A text run once (generation's, each new) is not kept: a long run would hold them all.
        if (options.keep !== false) this.statements.set(sql.text, stmt);
      }
      const columns = stmt.columns().map((c) => c.name);
      const rows = (stmt.raw(true).all() as unknown[][]).map((row) => row.map(sqliteText));
      return { columns, rows };
    } catch (error) {
      throw new ExecutionError(`SQLite ${this.path}: ${oneLine(error)}`, { cause: error });
    }
  }

  close(): void {
    this.db.close();
  }
}

/** A SQLite value as text: integers and reals as SQLite's own text conversion gives them. */
export function sqliteText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number')
    return Number.isInteger(value) && !Number.isSafeInteger(value) ? BigInt(value).toString() : String(value);
  if (Buffer.isBuffer(value)) return `\\x${value.toString('hex')}`;
  return String(value);
}
