/**
 * The gold answers an RL export precomputes: each variant's gold SQL run once on the
 * variant's SQLite file of each instance, read-only, its rows printed as the reward prints
 * them (`answer-text.ts`). Only the compiler's own SQL runs here; a model's SQL is the
 * reward's to run, under its guard.
 */
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { ExecutionError } from '../../common/errors.ts';
import { sqliteValueText } from './answer-text.ts';

export type AnswerRows = readonly (readonly (string | null)[])[];

/** Opens SQLite files read-only, once each, and runs gold SQL on them. */
export interface SqliteGold {
  /** The rows of `sql` on the file at `path`, as text; an ExecutionError names the file when SQLite refuses it. */
  rows(path: string, sql: string): AnswerRows;
  close(): void;
}

/**
 * @example
 * const gold = openSqliteGold();
 * gold.rows('output/social_media/sqlite/full_cti.sqlite', 'SELECT c.id FROM creator_account AS c'); // [['3'], ['7'], …]
 */
export function openSqliteGold(): SqliteGold {
  const open = new Map<string, Database.Database>();
  return {
    rows(path, sql) {
      let db = open.get(path);
      if (!db) {
        if (!existsSync(path)) throw new ExecutionError(`${path}: no such SQLite file`);
        db = new Database(path, { readonly: true, fileMustExist: true });
        open.set(path, db);
      }
      try {
        const statement = db.prepare(sql);
        statement.safeIntegers(true);
        statement.raw(true);
        return (statement.all() as unknown[][]).map((row) => row.map(sqliteValueText));
      } catch (error) {
        throw new ExecutionError(`${path}: the gold SQL fails on SQLite: ${(error as Error).message.split('\n')[0]}`, {
          cause: error,
        });
      }
    },
    close() {
      for (const db of open.values()) db.close();
      open.clear();
    },
  };
}
