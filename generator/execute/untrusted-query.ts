/**
 * The executor for untrusted SQL: text a user typed (`equisql run`), a suite's queries, a
 * model's back-translation or prediction — any SQL that is a string and not a `CompiledSql`.
 *
 * A text is run only after:
 * 1. the guard (`query-guard.ts`) passed it: PostgreSQL's own parser and our lexer, which
 *    must agree it is one SELECT over the variant's own tables, calling only listed functions;
 * 2. it is sent alone, by the extended protocol (`Database.readPaged`): one Parse of its text,
 *    which the server refuses to hold a second statement, after our setup statements, each
 *    its own Parse — `BEGIN READ ONLY`, `SET LOCAL ROLE equisql_reader`, the statement
 *    timeout, UTC and ISO dates, standard strings, the variant's search_path — all in one
 *    write, so the setup costs no round trip of its own;
 * 3. its rows are read in pages, with a row cap and a byte cap: past either, it is refused
 *    in one line and the rows past the cap are never fetched. The byte cap is kept by the
 *    server too (`boundedText`): the text runs inside our own query, which measures each row
 *    and the rows so far and fails before sending a row past the cap, so no reply can hold
 *    a value too long for this process to take in;
 * and the transaction is rolled back at the end (it only read).
 *
 * The API, for every caller of untrusted SQL (the evaluation among them):
 *
 *     const outcome = await runUntrusted(db, 'retail__full_cti', text, { timeoutMs: 10_000, maxRows: 10_000 });
 *     switch (outcome.kind) {
 *       case 'rows':     outcome.columns, outcome.rows (strings as PostgreSQL prints them, NULL as null)
 *       case 'refused':  the guard refused it (outcome.message says what, in one line)
 *       case 'error':    the database refused or failed it (outcome.sqlstate, outcome.message)
 *       case 'timeout':  it ran past timeoutMs
 *       case 'over-cap': its result has more than maxRows rows or maxBytes bytes (outcome.cap)
 *     }
 *
 * `createUntrustedExecutor` is the same over a pool of connections (several queries at once
 * on a server); `streamUntrusted` hands the rows over page by page instead of collecting
 * them (`equisql run`). The guard's verdict on a text is computed once per variant schema.
 * A fault of the run rather than of the query (a lost connection, a PGlite worker that died)
 * is thrown, not returned: it says nothing of the text.
 */
import { ExecutionError, LoadError, oneLine } from '../common/errors.ts';
import { quoteIdent } from '../common/sql-text.ts';
import type { Database, PagedEnd, TextResult } from '../database/database.ts';
import { grantReader, READER_ROLE, readerCanRead } from '../database/reader-role.ts';
import { loadPgParser, parsePostgres } from '../sql/pg-parser.ts';
import { guardQuery } from './query-guard.ts';

/** Caps that fit every gold answer the generator keeps, with room to spare. */
export const DEFAULT_CAPS = { maxRows: 1_000_000, maxBytes: 128 * 1024 * 1024 } as const;
/**
 * How far PostgreSQL's memory may grow in a PGlite that untrusted SQL runs on (`openPglite`'s
 * `maxMemoryMb`): a value of hundreds of MB fails there as "out of memory" rather than
 * taking the process past 1 GB (PGlite's own bound is 2 GB, which it keeps once reached).
 */
export const UNTRUSTED_PGLITE_MEMORY_MB = 256;
/** Rows fetched per page. */
const PAGE_ROWS = 2_000;
const DEFAULT_TIMEOUT_MS = 30_000;

export interface UntrustedOptions {
  /** The whole query's bound in milliseconds (default 30 s). */
  readonly timeoutMs?: number;
  /** More rows than this: `over-cap` (default `DEFAULT_CAPS.maxRows`). */
  readonly maxRows?: number;
  /** More bytes of rows than this, as the server sends them: `over-cap` (default `DEFAULT_CAPS.maxBytes`). */
  readonly maxBytes?: number;
}

/** How an untrusted query ended. Every `message` is one line naming the schema. */
export type UntrustedOutcome =
  | {
      readonly kind: 'rows';
      readonly columns: readonly string[];
      readonly rows: readonly (readonly (string | null)[])[];
      readonly bytes: number;
    }
  | { readonly kind: 'refused'; readonly message: string }
  | { readonly kind: 'error'; readonly message: string; readonly sqlstate?: string }
  | { readonly kind: 'timeout'; readonly message: string; readonly timeoutMs: number }
  | { readonly kind: 'over-cap'; readonly message: string; readonly cap: 'rows' | 'bytes'; readonly limit: number };

/** What `streamUntrusted` gives when the query did not run to its end: the outcome without rows. */
export type StreamOutcome =
  | Exclude<UntrustedOutcome, { kind: 'rows' }>
  | { readonly kind: 'rows'; readonly columns: readonly string[]; readonly rowCount: number; readonly bytes: number };

/** The types of a variant schema (the guard allows them by name), per set of its tables. */
const schemaTypes = new WeakMap<ReadonlySet<string>, ReadonlySet<string>>();

/** Per open database: the variant schemas made ready (reader grants checked) and their tables. */
const prepared = new WeakMap<Database, Map<string, Promise<ReadonlySet<string>>>>();

/**
 * The relations of `pgSchema` (the guard holds every table a query names to them), after
 * making sure the reader role can read them (a build made before the role existed has no
 * grants: they are given rather than the query refused). Once per database and schema.
 */
export function variantTables(db: Database, pgSchema: string): Promise<ReadonlySet<string>> {
  let schemas = prepared.get(db);
  if (!schemas) prepared.set(db, (schemas = new Map()));
  let tables = schemas.get(pgSchema);
  if (!tables) {
    tables = (async () => {
      if (!(await readerCanRead(db, pgSchema))) await grantOnce(db, pgSchema);
      const rows = await db.query(
        "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm', 'f')",
        [pgSchema],
      );
      const types = await db.query(
        'SELECT t.typname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace WHERE n.nspname = $1',
        [pgSchema],
      );
      const tables = new Set(rows.map((r) => String(r['relname'])));
      schemaTypes.set(tables, new Set(types.map((r) => String(r['typname']))));
      return tables;
    })();
    schemas.set(pgSchema, tables);
    tables.catch(() => schemas.delete(pgSchema));
  }
  return tables;
}

/** Grants in progress, per schema: connections of one pool that find a schema ungranted at once grant it one after another. */
const granting = new Map<string, Promise<void>>();

/**
 * `grantReader`, one at a time per schema in this process (GRANTs of one object from two
 * connections at once fail with "tuple concurrently updated"), and checked again before
 * granting, since the one before may have done it.
 */
function grantOnce(db: Database, pgSchema: string): Promise<void> {
  const previous = granting.get(pgSchema) ?? Promise.resolve();
  const next = previous
    .catch(() => {})
    .then(async () => {
      if (!(await readerCanRead(db, pgSchema))) await grantReader(db, pgSchema);
    });
  granting.set(pgSchema, next);
  void next
    .finally(() => {
      if (granting.get(pgSchema) === next) granting.delete(pgSchema);
    })
    .catch(() => {});
  return next;
}

/**
 * Verdicts of the guard per scope (a schema and its tables, the same for every connection of
 * a pool): text → refusal, or the statement's own text when it passed. Bounded: a scope's
 * map is emptied when full (a verdict forgotten is computed again, nothing worse).
 */
const verdicts = new Map<string, Map<string, Verdict>>();
type Verdict = { readonly refusal: string } | { readonly statement: string };
const scopeKeys = new WeakMap<ReadonlySet<string>, string>();
const VERDICTS_LIMIT = 20_000;

/** The guard's verdict on a text for a schema, computed once: the refusal's message, or the statement to run. */
function verdict(text: string, pgSchema: string, tables: ReadonlySet<string>): Verdict {
  let scope = scopeKeys.get(tables);
  const types = schemaTypes.get(tables);
  if (scope === undefined)
    scopeKeys.set(tables, (scope = JSON.stringify([pgSchema, [...tables].sort(), [...(types ?? [])].sort()])));
  let known = verdicts.get(scope);
  if (!known) verdicts.set(scope, (known = new Map()));
  const key = text;
  const seen = known.get(key);
  if (seen !== undefined) return seen;
  let result: Verdict;
  try {
    guardQuery(text, types === undefined ? { pgSchema, tables } : { pgSchema, tables, types });
    result = { statement: statementOf(text) };
  } catch (error) {
    if (!(error instanceof ExecutionError)) throw error;
    result = { refusal: error.message };
  }
  if (known.size >= VERDICTS_LIMIT) known.clear();
  known.set(key, result);
  return result;
}

/**
 * The one statement of a text the guard passed, as PostgreSQL's parser bounds it: without
 * the `;` that may end it and whatever comment follows, so it can be written inside a query
 * of ours. Offsets are bytes of UTF-8.
 */
function statementOf(text: string): string {
  const raw = parsePostgres(text).stmts[0];
  const bytes = Buffer.from(text, 'utf8');
  const from = raw?.stmt_location ?? 0;
  const to = raw?.stmt_len === undefined || raw.stmt_len === 0 ? bytes.length : from + raw.stmt_len;
  return bytes.subarray(from, to).toString('utf8');
}

/** What the server's error says when our bound around a query stopped it (`boundedText`). */
const OVER_BYTES = 'equisql: rows past the byte cap';

/**
 * The statement as it is sent: inside a query of ours that keeps the byte cap on the
 * server. Each row is measured as its text (every value as PostgreSQL prints it, which is
 * what it would send), and so are the rows before it; a row that takes the total past
 * `maxBytes` makes the query fail (a cast of our message to integer, which no planner can
 * fold, since it names the row) before it is sent. Without it, a value of hundreds of MB
 * (`repeat('x', 600000000)`) would reach this process whole before any cap could count it.
 *
 * The statement stays one subquery (`OFFSET 0` keeps PostgreSQL from merging our condition
 * into it, where it could run before the statement's own WHERE); a subquery with ORDER BY
 * is scanned in its order, and neither the window (no PARTITION, no ORDER) nor the filter
 * reorders rows. The row is named `equisql_r.*`, which no column of the statement can
 * shadow (a bare `equisql_r` would be its column of that name); what is measured is what is
 * sent. The statement ends on a line of its own, so a trailing `--` comment ends there. The guard read the statement alone: our text is not the model's to write.
 */
export function boundedText(statement: string, maxBytes: number): string {
  return [
    'SELECT (equisql_b.r).* FROM (',
    '  SELECT equisql_s.r, equisql_s.n, sum(equisql_s.n) OVER (ROWS UNBOUNDED PRECEDING) AS total FROM (',
    '    SELECT (equisql_r.*)::record AS r, octet_length((equisql_r.*)::text) AS n FROM (SELECT * FROM (',
    statement,
    '    ) AS equisql_q OFFSET 0) AS equisql_r OFFSET 0',
    '  ) AS equisql_s',
    ') AS equisql_b',
    `WHERE CASE WHEN equisql_b.total <= ${maxBytes} THEN true ELSE ('${OVER_BYTES} ' || equisql_b.total)::int IS NULL END`,
  ].join('\n');
}

/** Our statements before an untrusted query, each one statement (sent as its own Parse). */
function setupStatements(pgSchema: string, timeoutMs: number): string[] {
  return [
    'BEGIN READ ONLY',
    `SET LOCAL ROLE ${quoteIdent(READER_ROLE)}`,
    `SET LOCAL statement_timeout = ${timeoutMs}`,
    // The guard's lexer reads strings this way; set before the query's text is parsed.
    'SET LOCAL standard_conforming_strings = on',
    "SET LOCAL TimeZone = 'UTC'",
    "SET LOCAL DateStyle = 'ISO, YMD'",
    // The variant first, then the catalog: an unqualified name is the variant's table when it
    // has one (the guard allows no other); the session's temporary tables come last.
    `SET LOCAL search_path TO ${quoteIdent(pgSchema)}, pg_catalog, pg_temp`,
  ];
}

/**
 * SQLSTATEs that say the connection or server failed, not the query: faults of the run. Any
 * other error the server answers a query with is the query's, whatever its class: a query
 * that runs out of memory (53200), reaches an internal error (XX000) or an I/O error (58030)
 * did so by what it asked, and the server stays up to say so.
 */
const FAULT_STATES = /^(08|57P0[1-3]|53[13]00)/u;

/** The outcome a thrown error means, or undefined when it is a fault of the run (rethrown). */
function outcomeOf(error: unknown, pgSchema: string, s: Settled): UntrustedOutcome | undefined {
  const { timeoutMs, maxRows, maxBytes } = s;
  const code = (error as { code?: unknown } | undefined)?.code;
  const text = oneLine(error);
  if (
    (code === '57014' && /statement timeout/u.test(text)) ||
    (error instanceof ExecutionError && /^timed out/u.test(text))
  ) {
    return { kind: 'timeout', message: `schema ${pgSchema}: timed out after ${timeoutMs} ms`, timeoutMs };
  }
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/u.test(code)) {
    if (FAULT_STATES.test(code)) return undefined;
    if (code === '22P02' && text.includes(OVER_BYTES))
      return overCap({ kind: 'over-cap', cap: 'bytes' } as PagedEnd, pgSchema, maxRows, maxBytes);
    return { kind: 'error', message: `schema ${pgSchema}: ${text}`, sqlstate: code };
  }
  if (error instanceof ExecutionError) return { kind: 'error', message: `schema ${pgSchema}: ${text}` };
  return undefined;
}

function overCap(end: PagedEnd, pgSchema: string, maxRows: number, maxBytes: number): UntrustedOutcome {
  const cap = end.cap ?? 'rows';
  const limit = cap === 'rows' ? maxRows : maxBytes;
  const what =
    cap === 'rows'
      ? `more than ${maxRows.toLocaleString('en-US')} rows`
      : `more than ${maxBytes.toLocaleString('en-US')} bytes of rows`;
  return {
    kind: 'over-cap',
    message: `schema ${pgSchema}: refused: the result has ${what} (the cap; raise it to read more)`,
    cap,
    limit,
  };
}

interface Settled {
  readonly timeoutMs: number;
  readonly maxRows: number;
  readonly maxBytes: number;
}

function settle(options: UntrustedOptions): Settled {
  const positive = (n: number | undefined, fallback: number): number =>
    n === undefined || !Number.isFinite(n) ? fallback : Math.max(1, Math.floor(n));
  return {
    timeoutMs: positive(options.timeoutMs, DEFAULT_TIMEOUT_MS),
    maxRows: positive(options.maxRows, DEFAULT_CAPS.maxRows),
    maxBytes: positive(options.maxBytes, DEFAULT_CAPS.maxBytes),
  };
}

/** Guard, then read in pages; `onPage` streams, its absence collects. */
async function read(
  db: Database,
  pgSchema: string,
  text: string,
  s: Settled,
  onPage: ((page: TextResult) => void | Promise<void>) | undefined,
): Promise<{ outcome?: UntrustedOutcome; end?: PagedEnd }> {
  await loadPgParser();
  let tables: ReadonlySet<string>;
  try {
    tables = await variantTables(db, pgSchema);
  } catch (error) {
    throw new ExecutionError(`schema ${pgSchema}: ${oneLine(error)}`, { cause: error });
  }
  const checked = verdict(text, pgSchema, tables);
  if ('refusal' in checked) return { outcome: { kind: 'refused', message: checked.refusal } };
  try {
    const end = await db.readPaged({
      setup: setupStatements(pgSchema, s.timeoutMs),
      query: boundedText(checked.statement, s.maxBytes),
      pageRows: PAGE_ROWS,
      maxRows: s.maxRows,
      maxBytes: s.maxBytes,
      timeoutMs: s.timeoutMs,
      ...(onPage ? { onPage } : {}),
    });
    if (end.kind === 'over-cap') return { outcome: overCap(end, pgSchema, s.maxRows, s.maxBytes) };
    return { end };
  } catch (error) {
    const outcome = outcomeOf(error, pgSchema, s);
    if (outcome === undefined) {
      // PGlite runs this one query in its worker: a worker that stopped under it (the engine
      // aborted, or ran out of memory) stopped on what the query asked. The next request
      // reopens the database; a database that cannot reopen is the run's fault, thrown there.
      if (db.kind === 'pglite' && error instanceof LoadError && /^PGlite worker for .* stopped/u.test(error.message)) {
        return {
          outcome: {
            kind: 'error',
            message: `schema ${pgSchema}: the engine stopped while running the query (${oneLine(error)})`,
          },
        };
      }
      throw error;
    }
    return { outcome };
  }
}

/**
 * Runs one untrusted text read-only on a variant schema, with caps; see the module comment
 * for the outcomes. Never throws for anything the text did; throws for a fault of the run.
 *
 * @example
 * await runUntrusted(db, 'retail__full_cti', 'SELECT count(*) FROM customer');
 * // { kind: 'rows', columns: ['count'], rows: [['120']], bytes: 14 }
 * await runUntrusted(db, 'retail__full_cti', "SELECT 1 --\r; COMMIT; COPY (SELECT 1) TO PROGRAM 'id'");
 * // { kind: 'refused', message: 'schema retail__full_cti: refused: several statements (a ";" at character 14); only one SELECT is run' }
 */
export async function runUntrusted(
  db: Database,
  pgSchema: string,
  text: string,
  options: UntrustedOptions = {},
): Promise<UntrustedOutcome> {
  const { outcome, end } = await read(db, pgSchema, text, settle(options), undefined);
  if (outcome) return outcome;
  const done = end as PagedEnd;
  return { kind: 'rows', columns: done.columns, rows: done.rows, bytes: done.bytes };
}

/**
 * `runUntrusted`, handing the rows to `onPage` page by page as they come (a page's promise
 * is awaited before the next is fetched, so a slow reader slows the query, not memory). The
 * first call carries the columns even when there are no rows. A page handed over is within
 * the caps; a query that passes a cap ends `over-cap` after the pages before it.
 */
export async function streamUntrusted(
  db: Database,
  pgSchema: string,
  text: string,
  onPage: (page: TextResult) => void | Promise<void>,
  options: UntrustedOptions = {},
): Promise<StreamOutcome> {
  const { outcome, end } = await read(db, pgSchema, text, settle(options), onPage);
  if (outcome) return outcome as StreamOutcome;
  const done = end as PagedEnd;
  return { kind: 'rows', columns: done.columns, rowCount: done.rowCount, bytes: done.bytes };
}

/**
 * `runUntrusted` as the callers of a plain result want it: the rows, or an ExecutionError
 * whose message is the outcome's line.
 */
export async function queryUntrusted(
  db: Database,
  pgSchema: string,
  text: string,
  options: UntrustedOptions = {},
): Promise<TextResult> {
  const outcome = await runUntrusted(db, pgSchema, text, options);
  if (outcome.kind === 'rows') return { columns: outcome.columns, rows: outcome.rows };
  throw new ExecutionError(outcome.message);
}

/** `runUntrusted` over a pool of connections. */
export interface UntrustedExecutor {
  /** Runs a text on a free connection (waiting for one); options default to the executor's. */
  run(pgSchema: string, text: string, options?: UntrustedOptions): Promise<UntrustedOutcome>;
}

/**
 * An executor over `connections` (one PGlite connection, or several server connections, so
 * queries run at once), with default options for every run.
 *
 * @example
 * const executor = createUntrustedExecutor([db1, db2, db3, db4], { timeoutMs: 10_000 });
 * const outcomes = await Promise.all(predictions.map((p) => executor.run(p.pgSchema, p.sql)));
 */
export function createUntrustedExecutor(
  connections: readonly Database[],
  defaults: UntrustedOptions = {},
): UntrustedExecutor {
  if (connections.length === 0) throw new Error('createUntrustedExecutor: no connection');
  const free = [...connections];
  const waiting: ((db: Database) => void)[] = [];
  const acquire = (): Promise<Database> => {
    const db = free.pop();
    return db ? Promise.resolve(db) : new Promise((resolve) => waiting.push(resolve));
  };
  const release = (db: Database): void => {
    const next = waiting.shift();
    if (next) next(db);
    else free.push(db);
  };
  return {
    run: async (pgSchema, text, options) => {
      const db = await acquire();
      try {
        return await runUntrusted(db, pgSchema, text, { ...defaults, ...options });
      } finally {
        release(db);
      }
    },
  };
}
