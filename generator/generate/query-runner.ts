/**
 * Runs generated SQL through the guarded executor over a small pool of connections: one
 * PGlite connection, or K server connections so a group's queries run concurrently. It
 * measures the wall time spent waiting on the database, so the manifest can report how
 * much of a run is the database and how much is our own code.
 */
import type { Database, TextResult } from '../database/database.ts';
import { ExecutionError, oneLine } from '../common/errors.ts';
import { runReadOnly } from '../execute/run-query.ts';
import { quoteIdent } from '../common/sql-text.ts';
import { reject } from './group-record.ts';

export interface QueryRunner {
  /** Runs one read-only query in a schema; a failure becomes a `timeout` or `execution-error` rejection. */
  run(pgSchema: string, sql: string): Promise<TextResult>;
  /**
   * The planner's total cost estimate of a query in a schema (EXPLAIN without ANALYZE: the
   * query is planned, never run), in a read-only transaction of its own.
   */
  cost(pgSchema: string, sql: string): Promise<number>;
  /** Runs all tasks, at most one per connection at a time; results in task order. */
  all<T>(tasks: readonly (() => Promise<T>)[]): Promise<T[]>;
  /** Seconds of wall time during which at least one query was running. */
  dbSeconds(): number;
}

export function createQueryRunner(connections: readonly Database[], timeoutMs: number): QueryRunner {
  if (connections.length === 0) throw new Error('createQueryRunner: no connection');
  const free = [...connections];
  const waiting: ((db: Database) => void)[] = [];
  let active = 0;
  let since = 0;
  let total = 0;
  const acquire = (): Promise<Database> => {
    const db = free.pop();
    return db ? Promise.resolve(db) : new Promise((resolve) => waiting.push(resolve));
  };
  const release = (db: Database): void => {
    const next = waiting.shift();
    if (next) next(db);
    else free.push(db);
  };
  const run = async (pgSchema: string, sql: string): Promise<TextResult> => {
    const db = await acquire();
    if (active++ === 0) since = performance.now();
    try {
      return await runReadOnly(db, pgSchema, sql, { timeoutMs });
    } catch (error) {
      const text = oneLine(error);
      if (/statement timeout|canceling statement|timed? ?out/iu.test(text)) reject('timeout', text);
      if (error instanceof ExecutionError) reject('execution-error', text);
      throw error;
    } finally {
      if (--active === 0) total += performance.now() - since;
      release(db);
    }
  };
  const cost = async (pgSchema: string, sql: string): Promise<number> => {
    const db = await acquire();
    if (active++ === 0) since = performance.now();
    try {
      await db.exec(`BEGIN; SET TRANSACTION READ ONLY; SET LOCAL search_path TO ${quoteIdent(pgSchema)}`);
      try {
        const result = await db.queryText(`EXPLAIN (FORMAT JSON) ${sql}`);
        const plan = JSON.parse(result.rows[0]?.[0] ?? '[]') as { Plan?: { 'Total Cost'?: number } }[];
        return plan[0]?.Plan?.['Total Cost'] ?? 0;
      } finally {
        await db.exec('ROLLBACK').catch(() => {});
      }
    } catch (error) {
      return reject('execution-error', `EXPLAIN in ${pgSchema}: ${oneLine(error)}`);
    } finally {
      if (--active === 0) total += performance.now() - since;
      release(db);
    }
  };
  return {
    run,
    cost,
    all: (tasks) => Promise.all(tasks.map((t) => t())),
    dbSeconds: () => total / 1000,
  };
}
