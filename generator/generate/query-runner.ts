/**
 * Runs generated SQL (the compiler's `CompiledSql`, on the executor's batched path) over a small pool of connections: one
 * PGlite connection, or K server connections so a group's queries run concurrently. It
 * measures the wall time spent waiting on the database, so the manifest can report how
 * much of a run is the database and how much is our own code. A query or cost estimate asked
 * again in the same schema is answered from what the database said the first time
 * (`result-memo.ts`): a run reads fixed data.
 */
import type { Database, TextResult } from '../database/database.ts';
import { ExecutionError, RunFaultError, oneLine } from '../common/errors.ts';
import { isConnectionFault } from '../database/connection-fault.ts';
import { explainCost, guardAhead, runReadOnly, runReadOnlyMany, type GuardedQuery } from '../execute/run-query.ts';
import { isCompiledSql, type CompiledSql } from '../compile/compiled-sql.ts';
import { reject } from '../records/group-record.ts';
import { queryKey, ResultMemo, resultValues } from './result-memo.ts';

export interface QueryRunner {
  /** Runs one read-only query in a schema; a failure becomes a `timeout` or `execution-error` rejection. */
  run(pgSchema: string, sql: CompiledSql): Promise<TextResult>;
  /**
   * The planner's total cost estimate of a query in a schema (EXPLAIN without ANALYZE: the
   * query is planned, never run), through the guarded executor (`explainCost`).
   */
  cost(pgSchema: string, sql: CompiledSql): Promise<number>;
  /**
   * Runs queries split into one contiguous share per connection, each share as one
   * `runReadOnlyMany` (one round trip on a server). Gives every result when all ran;
   * otherwise the results before the earliest failing query in list order, and that failure
   * as a `timeout` or `execution-error` rejection. Each share runs up to its own first
   * failure, so which failure is the earliest does not depend on the timing.
   */
  runMany(queries: readonly GuardedQuery[]): Promise<ManyRun>;
  /**
   * Runs tasks in order, at most one per connection at a time; results in task order. Once a
   * task fails no further task starts, the ones running are awaited, and the error of the
   * failed task that comes first in task order is thrown: a rejected candidate wastes no more
   * queries, leaves nothing running behind it, and is rejected for the same reason whatever
   * the timing.
   */
  all<T>(tasks: readonly (() => Promise<T>)[]): Promise<T[]>;
  /**
   * How many candidates generation should decide ahead of the one it commits: on a server,
   * whose queries run beside our code, two per connection (candidates a difficulty quota
   * turns away cost no query, so one per connection leaves the pool idle while they are
   * decided); none on PGlite, which runs on our own thread and gains nothing from overlap.
   */
  readonly lookahead: number;
  /**
   * Seconds of wall time during which at least one query was running. The guard reads each
   * text before its query is timed: reading SQL is our own work, not the database's.
   */
  dbSeconds(): number;
  /**
   * Round trips to the database so far: one per query and cost estimate, one per share of
   * `runMany` on a server (the one-at-a-time rerun of a failed share not counted).
   */
  roundTrips(): number;
  /**
   * The answer `run` got for this query in this schema, when it is still kept (`result-memo.ts`);
   * never asks the database.
   */
  kept(pgSchema: string, sql: CompiledSql): TextResult | undefined;
  /**
   * Queries and cost estimates answered without the database so far: asked before in the
   * same schema, their answer was kept, or was still coming.
   */
  remembered(): number;
  /** The connections in use now: a lost one is replaced by its reopening (close these at the end). */
  connections(): readonly Database[];
}

/** How a runner gets over a lost connection. */
export interface RunnerOptions {
  /**
   * Opens a fresh connection in place of a lost one (a server restarted, a backend
   * terminated). Without it the same connection is tried again, as PGlite's worker reopens
   * itself after it died.
   */
  readonly reopen?: () => Promise<Database>;
  /** Reopening attempts per lost connection before the run stops (default 5, 0.25 s doubling to 4 s apart). */
  readonly reconnectAttempts?: number;
}

/** Times one operation is retried on a reopened connection before the run stops. */
const RETRIES_PER_OPERATION = 3;

/** What `QueryRunner.runMany` got. */
export interface ManyRun {
  /** Result i of query i; those at and after `failure.index` may be missing. */
  readonly results: readonly (TextResult | undefined)[];
  readonly failure?: { readonly index: number; readonly error: unknown };
}

/** The rejection a failed query means: a timeout, an execution error, or (a bug) the error itself. */
function rejectionOf(error: unknown): unknown {
  const text = oneLine(error);
  try {
    if (/statement timeout|canceling statement|timed? ?out/iu.test(text)) reject('timeout', text);
    if (error instanceof ExecutionError) reject('execution-error', text);
    return error;
  } catch (rejection) {
    return rejection;
  }
}

/**
 * A runner over `connections` (one for PGlite, K for a server) with a statement timeout of
 * `timeoutMs` on every query.
 *
 * @example
 * const runner = createQueryRunner([db1, db2], 20_000);
 * await runner.runMany([{ pgSchema: 'retail__full_sti', sql: 'SELECT 1' }, …]);  // two round trips, one per connection
 */
export function createQueryRunner(
  connections: readonly Database[],
  timeoutMs: number,
  options: RunnerOptions = {},
): QueryRunner {
  if (connections.length === 0) throw new Error('createQueryRunner: no connection');
  const pool = [...connections];
  const free = [...connections];
  const attempts = options.reconnectAttempts ?? 5;
  /** A fresh connection for a lost one (the same one where nothing can reopen it), or a RunFaultError. */
  const replace = async (lost: Database, fault: unknown): Promise<Database> => {
    let last: unknown = fault;
    for (let attempt = 0; attempt < attempts; attempt++) {
      await new Promise((done) => setTimeout(done, Math.min(4000, 250 * 2 ** attempt)));
      if (!options.reopen) {
        // PGlite reopens its worker on the next request: see that it answers.
        try {
          await lost.query('SELECT 1');
          return lost;
        } catch (error) {
          last = error;
          continue;
        }
      }
      try {
        const fresh = await options.reopen();
        pool[pool.indexOf(lost)] = fresh;
        // A client whose socket died may never say it closed: do not wait on it for long.
        await Promise.race([lost.close().catch(() => {}), new Promise((done) => setTimeout(done, 2000).unref())]);
        return fresh;
      } catch (error) {
        last = error;
      }
    }
    throw new RunFaultError(
      `lost the connection to ${lost.label} and could not reopen it (${attempts} attempts): ${oneLine(last)}; nothing was recorded for the candidate at hand, so --resume continues once the database is back`,
      { cause: last },
    );
  };
  /**
   * Runs `fn` on a free connection. A lost connection is a fault of the run, never of the
   * query: the connection is reopened and `fn` runs again (a read-only query gives the same
   * answer), a bounded number of times. `faultOf` finds a fault in an outcome that is not thrown.
   */
  const withConnection = async <T>(
    fn: (db: Database) => Promise<T>,
    faultOf: (value: T) => unknown = () => undefined,
  ): Promise<T> => {
    let db = await acquire();
    try {
      for (let tries = 0; ; tries++) {
        let fault: unknown;
        try {
          const value = await fn(db);
          fault = faultOf(value);
          if (fault === undefined) return value;
        } catch (error) {
          if (!isConnectionFault(error)) throw error;
          fault = error;
        }
        if (tries >= RETRIES_PER_OPERATION)
          throw new RunFaultError(
            `the connection to ${db.label} was lost ${tries + 1} times running one query: ${oneLine(fault)}`,
            { cause: fault },
          );
        db = await replace(db, fault);
      }
    } finally {
      release(db);
    }
  };
  const waiting: ((db: Database) => void)[] = [];
  let active = 0;
  let since = 0;
  let total = 0;
  let trips = 0;
  const acquire = (): Promise<Database> => {
    const db = free.pop();
    return db ? Promise.resolve(db) : new Promise((resolve) => waiting.push(resolve));
  };
  const release = (db: Database): void => {
    const next = waiting.shift();
    if (next) next(db);
    else free.push(db);
  };
  // What the database answered, asked again: the run reads fixed data (`result-memo.ts`).
  const results = new ResultMemo<TextResult>(resultValues);
  const costs = new ResultMemo<number>(() => 1);
  const coming = new Map<string, Promise<TextResult | number>>();
  let remembered = 0;
  /** The kept or coming answer of a compiled query, else `ask`'s, kept once it comes. */
  const once = <T extends TextResult | number>(
    memo: ResultMemo<T>,
    kind: string,
    pgSchema: string,
    sql: CompiledSql,
    ask: () => Promise<T>,
  ): Promise<T> => {
    // Only the compiler's own values are answered from memory: anything else goes to `ask`, whose guard refuses it.
    if (!isCompiledSql(sql)) return ask();
    const key = queryKey(pgSchema, sql.text);
    const kept = memo.get(key);
    if (kept !== undefined) {
      remembered += 1;
      return Promise.resolve(kept);
    }
    const pending = coming.get(kind + key) as Promise<T> | undefined;
    if (pending) {
      remembered += 1;
      return pending;
    }
    const asked = ask()
      .then((value) => {
        memo.set(key, value);
        return value;
      })
      .finally(() => coming.delete(kind + key));
    coming.set(kind + key, asked);
    return asked;
  };
  const run = (pgSchema: string, sql: CompiledSql): Promise<TextResult> =>
    once(results, 'run ', pgSchema, sql, () => runOnce(pgSchema, sql));
  const runOnce = async (pgSchema: string, sql: CompiledSql): Promise<TextResult> => {
    guardAhead([{ pgSchema, sql }]);
    return withConnection(async (db) => {
      if (active++ === 0) since = performance.now();
      trips += 1;
      try {
        return await runReadOnly(db, pgSchema, sql, { timeoutMs });
      } catch (error) {
        throw isConnectionFault(error) ? error : rejectionOf(error);
      } finally {
        if (--active === 0) total += performance.now() - since;
      }
    });
  };
  const runShare = async (share: readonly GuardedQuery[]) => {
    guardAhead(share);
    return withConnection(
      async (db) => {
        if (active++ === 0) since = performance.now();
        try {
          const outcome = await runReadOnlyMany(db, share, { timeoutMs });
          // One round trip for the share on a server; one per query run on PGlite.
          trips += db.kind === 'pglite' ? outcome.results.length + (outcome.failure ? 1 : 0) : 1;
          return outcome;
        } finally {
          if (--active === 0) total += performance.now() - since;
        }
      },
      (outcome) => (outcome.failure && isConnectionFault(outcome.failure.error) ? outcome.failure.error : undefined),
    );
  };
  const runMany = async (queries: readonly GuardedQuery[]): Promise<ManyRun> => {
    const size = Math.ceil(queries.length / connections.length);
    const starts: number[] = [];
    for (let start = 0; start < queries.length; start += size) starts.push(start);
    const outcomes = await Promise.all(starts.map((start) => runShare(queries.slice(start, start + size))));
    const results: (TextResult | undefined)[] = new Array<TextResult | undefined>(queries.length);
    let failure: ManyRun['failure'];
    outcomes.forEach((outcome, k) => {
      const start = starts[k] as number;
      outcome.results.forEach((r, i) => (results[start + i] = r));
      if (outcome.failure && failure === undefined)
        failure = { index: start + outcome.failure.index, error: rejectionOf(outcome.failure.error) };
    });
    return { results, ...(failure ? { failure } : {}) };
  };
  const cost = (pgSchema: string, sql: CompiledSql): Promise<number> =>
    once(costs, 'cost ', pgSchema, sql, () => costOnce(pgSchema, sql));
  const costOnce = async (pgSchema: string, sql: CompiledSql): Promise<number> => {
    guardAhead([{ pgSchema, sql }]);
    return withConnection(async (db) => {
      if (active++ === 0) since = performance.now();
      trips += 1;
      try {
        // Our own compiled SQL, yet through the same guard, role and timeout as every query:
        // one path to the database is one path to trust, and it costs one round trip.
        return await explainCost(db, pgSchema, sql, { timeoutMs });
      } catch (error) {
        if (isConnectionFault(error)) throw error;
        return reject('execution-error', `EXPLAIN in ${pgSchema}: ${oneLine(error)}`);
      } finally {
        if (--active === 0) total += performance.now() - since;
      }
    });
  };
  return {
    run,
    runMany,
    cost,
    all: (tasks) => runInOrder(tasks, connections.length),
    lookahead: connections[0]?.kind === 'pglite' ? 0 : 2 * connections.length,
    dbSeconds: () => total / 1000,
    roundTrips: () => trips,
    kept: (pgSchema, sql) => {
      const answer = isCompiledSql(sql) ? results.get(queryKey(pgSchema, sql.text)) : undefined;
      if (answer !== undefined) remembered += 1;
      return answer;
    },
    remembered: () => remembered,
    connections: () => pool,
  };
}

/**
 * Runs tasks with at most `width` at a time, started in task order; stops starting tasks at
 * the first failure and throws the failure of the lowest task index once the running ones
 * have settled. Every task below that index has started (they start in order), so that
 * index does not depend on which query happened to finish first.
 */
async function runInOrder<T>(tasks: readonly (() => Promise<T>)[], width: number): Promise<T[]> {
  const results: T[] = new Array<T>(tasks.length);
  const failures = new Map<number, unknown>();
  let next = 0;
  const lane = async (): Promise<void> => {
    while (failures.size === 0 && next < tasks.length) {
      const i = next++;
      try {
        results[i] = await (tasks[i] as () => Promise<T>)();
      } catch (error) {
        failures.set(i, error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(width, tasks.length)) }, lane));
  if (failures.size > 0) throw failures.get(Math.min(...failures.keys()));
  return results;
}
