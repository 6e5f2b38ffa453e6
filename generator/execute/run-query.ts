import { ExecutionError, oneLine } from '../common/errors.ts';
import { quoteIdent } from '../common/sql-text.ts';
import { sha256 } from '../common/hash.ts';
import type { Database, TextResult } from '../database/database.ts';
import { READER_ROLE } from '../database/reader-role.ts';
import { isCompiledSql, type CompiledSql } from '../compile/compiled-sql.ts';
import { guardCompiled } from './query-guard.ts';
import { queryUntrusted, variantTables } from './untrusted-query.ts';
import { sortedArrayText } from './array-text.ts';

export interface RunOptions {
  /** Statement timeout in milliseconds (default 30 s). */
  readonly timeoutMs?: number;
}

/**
 * Fails the batch unless the session reads strings as the guard's lexer does. The server
 * splits a simple-protocol message into statements before running any of them, so a
 * `SET standard_conforming_strings` in the same message comes too late to matter; with the
 * setting off, a backslash before a quote (`'a\' …`) ends a string later than the lexer
 * thinks. This statement runs first, and its error skips every statement after it. (Both
 * backends turn the setting on when they connect; this is the proof per batch, and it costs
 * no round trip.)
 */
const STRINGS_AS_GUARDED =
  "SELECT CASE WHEN current_setting('standard_conforming_strings') = 'on' THEN 0 ELSE ('standard_conforming_strings is ' || current_setting('standard_conforming_strings') || ', so the query is not run')::int END";

/** Compiled texts the lexer passed (bounded): generation runs each on several schemas. */
const passed = new Set<string>();
const PASSED_LIMIT = 20_000;

/** The lexer's check of a compiled text (`guardCompiled`), once per text. */
function guard(sql: CompiledSql, pgSchema: string): void {
  if (!isCompiledSql(sql))
    throw new ExecutionError(`schema ${pgSchema}: refused: the batched path runs only the compiler's own SQL`);
  if (passed.has(sql.text)) return;
  guardCompiled(sql.text, pgSchema);
  if (passed.size >= PASSED_LIMIT) passed.clear();
  passed.add(sql.text);
}

/**
 * Guards texts ahead of running them, so that the run itself finds them passed (callers that
 * time the database use it to keep the guard's reading out of that time). A text the guard
 * refuses is left for the run to refuse, with the run's own report of it.
 */
export function guardAhead(queries: readonly GuardedQuery[]): void {
  for (const q of queries) {
    try {
      guard(q.sql, q.pgSchema);
    } catch (error) {
      if (!(error instanceof ExecutionError)) throw error;
      return;
    }
  }
}

/** The statements that open a compiled query's transaction (see `runGuarded`); the search_path follows per query. */
function transactionStart(timeout: number): string[] {
  return [
    'BEGIN READ ONLY',
    STRINGS_AS_GUARDED,
    `SET LOCAL ROLE ${quoteIdent(READER_ROLE)}`,
    `SET LOCAL statement_timeout = ${timeout}`,
    "SET LOCAL TimeZone = 'UTC'",
    "SET LOCAL DateStyle = 'ISO, YMD'",
  ];
}

async function readerFor(db: Database, pgSchema: string): Promise<void> {
  try {
    await variantTables(db, pgSchema);
  } catch (error) {
    throw new ExecutionError(`schema ${pgSchema}: ${oneLine(error)}`, { cause: error });
  }
}

/**
 * Runs compiled statements inside one read-only transaction, as one round trip: the
 * transaction's start, each query after its `SET LOCAL search_path`, and the end go as one
 * simple-protocol message (`Database.queryTextBatch`). That is safe only for the compiler's
 * own SQL (`CompiledSql`): it printed each text as one statement, and the lexer checked
 * that (`guardCompiled`); `batchText` puts each statement on its own line. No string reaches
 * this function: untrusted text goes by the extended protocol (`untrusted-query.ts`).
 * `schemaOfError` names the schema in a message.
 */
async function runGuarded(
  db: Database,
  queries: readonly GuardedQuery[],
  after: string,
  timeout: number,
  schemaOfError: string,
  explain = false,
): Promise<TextResult[]> {
  const statements = transactionStart(timeout);
  const results: number[] = [];
  for (const q of queries) {
    if (!isCompiledSql(q.sql))
      throw new ExecutionError(`schema ${q.pgSchema}: refused: the batched path runs only the compiler's own SQL`);
    statements.push(`SET LOCAL search_path TO ${quoteIdent(q.pgSchema)}`);
    results.push(statements.push(explain ? `EXPLAIN (FORMAT JSON) ${q.sql.text}` : q.sql.text) - 1);
  }
  statements.push(after);
  try {
    return await db.queryTextBatch({ statements, results }, { timeoutMs: timeout });
  } catch (error) {
    // An error skips the rest of the batch and leaves its transaction open and aborted, so
    // roll back. A database that stopped the query itself (PGlite ends its worker) has ended
    // the session and its transaction with it: waiting for a ROLLBACK would wait for the reopen.
    if (!(error instanceof ExecutionError)) await db.exec('ROLLBACK').catch(() => {});
    // SQLSTATE 57014: the server cancelled the statement at statement_timeout.
    const timedOut = (error as { code?: unknown }).code === '57014' && /statement timeout/u.test(oneLine(error));
    throw new ExecutionError(
      `schema ${schemaOfError}: ${timedOut ? `timed out after ${timeout} ms` : oneLine(error)}`,
      { cause: error },
    );
  }
}

/**
 * Runs one query read-only in a variant's schema, in its own READ ONLY transaction as the
 * reader role (which can only read the variant schemas), with a statement timeout, the
 * variant's search_path, and UTC/ISO settings so values print the same on every backend.
 * Every setting is `SET LOCAL`, so nothing outlives the transaction.
 *
 * Which path depends on what `sql` is. The compiler's own SQL (`CompiledSql`, from
 * `compileSql`) is checked by the lexer and sent with its transaction's start and end as one
 * message: one round trip. A string is untrusted, whoever passes it: it goes through the full
 * guard (PostgreSQL's parser and the lexer) and is sent alone by the extended protocol, its
 * rows read in pages under the default caps (`untrusted-query.ts`; use `runUntrusted` there
 * for typed outcomes and caps of your own).
 *
 * A refusal or failure is an ExecutionError naming the schema; a timeout says "timed out
 * after N ms"; after either the connection holds no open transaction.
 *
 * @example
 * await runReadOnly(db, 'retail__full_sti', compileSql(index, schema, query));  // { columns: ['count'], rows: [['42']] }
 * await runReadOnly(db, 'retail__full_sti', "COPY users TO '/tmp/x'");
 * // ExecutionError: schema retail__full_sti: refused: only one SELECT is run, not COPY
 */
export async function runReadOnly(
  db: Database,
  pgSchema: string,
  sql: CompiledSql | string,
  options: RunOptions = {},
): Promise<TextResult> {
  const timeout = Math.max(1, Math.floor(options.timeoutMs ?? 30_000));
  if (typeof sql === 'string') return queryUntrusted(db, pgSchema, sql, { timeoutMs: timeout });
  guard(sql, pgSchema);
  await readerFor(db, pgSchema);
  return (await runGuarded(db, [{ pgSchema, sql }], 'COMMIT', timeout, pgSchema))[0] as TextResult;
}

/** One query of `runReadOnlyMany`: the compiler's SQL and the variant schema it runs in. */
export interface GuardedQuery {
  readonly pgSchema: string;
  readonly sql: CompiledSql;
}

/** What `runReadOnlyMany` got: the results before the first failure, and that failure. */
export interface ManyOutcome {
  /** Results of the queries before `failure.index` (all of them when nothing failed). */
  readonly results: readonly TextResult[];
  readonly failure?: { readonly index: number; readonly error: ExecutionError };
}

/**
 * Runs several compiled queries as `runReadOnly` would, one after another, and stops at the
 * first that is refused or fails. On a server they share one read-only transaction and one
 * round trip (each under its own statement timeout and search_path); when that batch fails,
 * they are run again one at a time to find which failed and with what message, so the
 * outcome is the same as one `runReadOnly` each. On PGlite they are run one at a time
 * anyway: its timeout is a whole message's, and a message there costs no network round trip.
 *
 * @example
 * await runReadOnlyMany(db, [{ pgSchema: 'retail__full_sti', sql: compileSql(…) }, { pgSchema: 'retail__full_cti', sql: compileSql(…) }]);
 * // { results: [{ columns: ['n'], rows: [['1']] }, …] }
 */
export async function runReadOnlyMany(
  db: Database,
  queries: readonly GuardedQuery[],
  options: RunOptions = {},
): Promise<ManyOutcome> {
  const timeout = Math.max(1, Math.floor(options.timeoutMs ?? 30_000));
  let refused: { index: number; error: ExecutionError } | undefined;
  for (const [index, q] of queries.entries()) {
    try {
      guard(q.sql, q.pgSchema);
    } catch (error) {
      if (!(error instanceof ExecutionError)) throw error;
      refused = { index, error };
      break;
    }
  }
  const runnable = refused ? queries.slice(0, refused.index) : queries;
  const oneByOne = async (): Promise<ManyOutcome> => {
    const results: TextResult[] = [];
    for (const [index, q] of runnable.entries()) {
      try {
        // Guarded above already.
        await readerFor(db, q.pgSchema);
        results.push((await runGuarded(db, [q], 'COMMIT', timeout, q.pgSchema))[0] as TextResult);
      } catch (error) {
        if (!(error instanceof ExecutionError)) throw error;
        return { results, failure: { index, error } };
      }
    }
    return { results, ...(refused ? { failure: refused } : {}) };
  };
  if (db.kind === 'pglite' || runnable.length <= 1) return oneByOne();
  try {
    for (const schema of new Set(runnable.map((q) => q.pgSchema))) await readerFor(db, schema);
    const results = await runGuarded(db, runnable, 'COMMIT', timeout, runnable.map((q) => q.pgSchema).join(', '));
    return { results, ...(refused ? { failure: refused } : {}) };
  } catch (error) {
    if (!(error instanceof ExecutionError)) throw error;
    return oneByOne();
  }
}

/**
 * The planner's total cost estimate of a compiled query (`EXPLAIN (FORMAT JSON)`, without
 * ANALYZE: planned, never run), under the same lexer check, role, settings and single round
 * trip as `runReadOnly`; the transaction is rolled back.
 *
 * @example
 * await explainCost(db, 'retail__full_sti', compileSql(index, schema, query));  // 2412.5
 */
export async function explainCost(
  db: Database,
  pgSchema: string,
  sql: CompiledSql,
  options: RunOptions = {},
): Promise<number> {
  const timeout = Math.max(1, Math.floor(options.timeoutMs ?? 30_000));
  guard(sql, pgSchema);
  await readerFor(db, pgSchema);
  const result = (await runGuarded(db, [{ pgSchema, sql }], 'ROLLBACK', timeout, pgSchema, true))[0] as TextResult;
  let plan: { Plan?: { 'Total Cost'?: number } }[];
  try {
    plan = JSON.parse(result.rows[0]?.[0] ?? '[]') as typeof plan;
  } catch (error) {
    throw new ExecutionError(`schema ${pgSchema}: EXPLAIN gave no JSON plan: ${oneLine(error)}`, { cause: error });
  }
  return plan[0]?.Plan?.['Total Cost'] ?? 0;
}

/** A result as the comparison sees it: rows of strings (NULL as null), and its hash. */
export interface NormalizedResult {
  readonly rows: readonly (readonly (string | null)[])[];
  readonly hash: string;
  readonly ordered: boolean;
}

/** Whether a value could be an array's text form (`{…}`): the only values normalization changes. */
const isArrayText = (v: string | null): boolean => v !== null && v.charCodeAt(0) === 123;

function compareRows(a: readonly (string | null)[], b: readonly (string | null)[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i] ?? null;
    const y = b[i] ?? null;
    if (x === y) continue;
    if (x === null) return -1;
    if (y === null) return 1;
    return x < y ? -1 : 1;
  }
  return 0;
}

/**
 * Normalizes as the paper does: rows as tuples, values as PostgreSQL prints them, rows
 * sorted unless their order is part of the answer; then hashes the rows (not the column
 * names, which a variant does not change anyway). An array value is a set, shown as an
 * array: its elements are compared sorted (`sortedArrayText`), as their order is not part
 * of any answer.
 */
export function normalizeResult(result: TextResult, ordered: boolean): NormalizedResult {
  // Most rows hold no array: they are kept as they are, without a copy.
  const sets = result.rows.map((row) =>
    row.some(isArrayText) ? row.map((v) => (v === null ? v : sortedArrayText(v))) : row,
  );
  const rows = ordered ? sets : sets.sort(compareRows);
  return { rows, hash: sha256(JSON.stringify(rows)), ordered };
}

export interface GroupComparison {
  readonly agree: boolean;
  /** The hash most variants share (ties: the first variant's). */
  readonly hash: string;
  readonly rowCount: number;
  /** Variants whose result differs from the majority, with a few rows only they have or lack. */
  readonly differing: readonly {
    readonly variant: string;
    readonly hash: string;
    readonly rowCount: number;
    readonly sample: readonly string[];
  }[];
}

/** Compares one query's results across variants. */
export function compareResults(results: ReadonlyMap<string, NormalizedResult>): GroupComparison {
  const counts = new Map<string, number>();
  for (const r of results.values()) counts.set(r.hash, (counts.get(r.hash) ?? 0) + 1);
  const first = results.values().next().value as NormalizedResult | undefined;
  let majority = first?.hash ?? '';
  for (const [hash, n] of counts) if (n > (counts.get(majority) ?? 0)) majority = hash;
  const reference = [...results.values()].find((r) => r.hash === majority);
  const key = (row: readonly (string | null)[]): string => JSON.stringify(row);
  const differing = [...results]
    .filter(([, r]) => r.hash !== majority)
    .map(([variant, r]) => {
      const mine = new Set(r.rows.map(key));
      const theirs = new Set(reference?.rows.map(key) ?? []);
      const sample = [
        ...[...mine]
          .filter((k) => !theirs.has(k))
          .slice(0, 3)
          .map((k) => `+ ${k}`),
        ...[...theirs]
          .filter((k) => !mine.has(k))
          .slice(0, 3)
          .map((k) => `- ${k}`),
      ];
      if (sample.length === 0) sample.push('same rows in another order');
      return { variant, hash: r.hash, rowCount: r.rows.length, sample };
    });
  return { agree: differing.length === 0, hash: majority, rowCount: reference?.rows.length ?? 0, differing };
}
