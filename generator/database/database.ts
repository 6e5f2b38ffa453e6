import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError } from '../common/errors.ts';

/** Rows as plain objects; every value the driver returns, untouched. */
export type Row = Record<string, unknown>;

/**
 * The one interface over PGlite and a PostgreSQL server. Loading, read-back and query
 * execution all go through it, so every claim tested on one backend holds on the other.
 */
export interface Database {
  /** `pglite` (in-process) or `postgres` (a server through `pg`). */
  readonly kind: 'pglite' | 'postgres';
  /** A description safe to print: the directory, or the URL without its password. */
  readonly label: string;
  /** Runs one or more statements without parameters. */
  exec(sql: string): Promise<void>;
  /** Runs one statement and returns its rows. */
  query(sql: string, params?: readonly unknown[]): Promise<Row[]>;
  /**
   * Runs one statement and returns its rows as PostgreSQL prints each value (text output
   * format, NULL as null), in column order: the same strings from PGlite and a server.
   */
  queryText(sql: string, options?: QueryOptions): Promise<TextResult>;
  /**
   * Runs `batch.before`, then `batch.query`, then `batch.after` as one message of
   * PostgreSQL's simple query protocol (one round trip), and returns the rows of
   * `batch.query` as `queryText` does. The statements run in order and the first error skips
   * the rest, so a transaction `before` began is left open and aborted: the caller rolls
   * back. The text is concatenated, so the caller must have proved `query` to be one
   * statement (the executor's guard does); see `batchText`.
   */
  queryTextBatch(batch: TextBatch, options?: QueryOptions): Promise<TextResult>;
  /** Bulk-loads COPY text into a table: `copy` is the `COPY … FROM STDIN` statement. */
  copyIn(copy: string, data: string): Promise<void>;
  close(): Promise<void>;
}

export interface QueryOptions {
  /**
   * Stop the statement after this many milliseconds with an ExecutionError "timed out after
   * N ms". A server enforces `statement_timeout` itself; PGlite, which cannot (its timer
   * never fires inside single-threaded WebAssembly), stops its worker and reopens the data.
   */
  readonly timeoutMs?: number;
}

/** Statements around one query, sent together (`Database.queryTextBatch`). */
export interface TextBatch {
  readonly before: readonly string[];
  /** One statement, proved so by the caller; a trailing line comment is harmless (see `batchText`). */
  readonly query: string;
  readonly after: readonly string[];
}

/**
 * The text of a batch and the position of the query's result among the statements' results.
 * Each statement ends on a line of its own: a query that ends inside a `--` comment cannot
 * swallow the `;` and the statements after it. Semicolons the query ends with are dropped
 * (PostgreSQL would skip the empty statements anyway).
 *
 * @example
 * batchText({ before: ['BEGIN READ ONLY'], query: 'SELECT 1 -- one', after: ['COMMIT'] });
 * // { text: 'BEGIN READ ONLY\n;\nSELECT 1 -- one\n;\nCOMMIT\n;\n', index: 1 }
 */
export function batchText(batch: TextBatch): { readonly text: string; readonly index: number } {
  const query = batch.query.replace(/[\s;]+$/u, '');
  const text = [...batch.before, query, ...batch.after].map((s) => `${s}\n;\n`).join('');
  return { text, index: batch.before.length };
}

export interface TextResult {
  readonly columns: readonly string[];
  readonly rows: readonly (readonly (string | null)[])[];
}

/**
 * Where a database is: a PGlite directory (or memory) or a server URL. `mustExist` is for
 * readers: a PGlite directory that holds no database is refused instead of created empty.
 */
export type DatabaseTarget = { readonly kind: 'pglite'; readonly dir?: string; readonly mustExist?: boolean } | { readonly kind: 'postgres'; readonly url: string };

/** The entries without which a directory is no PGlite database (PGlite aborts on it). */
export const PGLITE_ESSENTIALS = ['PG_VERSION', 'global', 'base'] as const;

/** True if `dir` holds a whole PGlite database (as far as its top-level entries show). */
export function isPgliteDir(dir: string): boolean {
  return PGLITE_ESSENTIALS.every((entry) => existsSync(join(dir, entry)));
}

/** A URL with any password replaced, for messages and manifests. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    // Not a URL: hide anything between "//" or ":" and "@", where a password would be.
    return url.replace(/\/\/[^/@]*@/, '//***@');
  }
}

/** Opens a database. A server that cannot be reached gives a one-line LoadError. */
export async function openDatabase(target: DatabaseTarget): Promise<Database> {
  if (target.kind === 'pglite') {
    const { openPglite } = await import('./pglite-database.ts');
    return openPglite(target.dir, { mustExist: target.mustExist ?? false });
  }
  const { openPostgres } = await import('./postgres-database.ts');
  return openPostgres(target.url);
}

/** Turns `--db` / `DATABASE_URL` into a target; PGlite in `fallbackDir` otherwise. */
export function resolveTarget(db: string | undefined, fallbackDir: string | undefined): DatabaseTarget {
  if (db === undefined || db === '') return fallbackDir === undefined ? { kind: 'pglite' } : { kind: 'pglite', dir: fallbackDir };
  if (/^postgres(ql)?:\/\//.test(db)) return { kind: 'postgres', url: db };
  if (db.startsWith('pglite:')) {
    const dir = db.slice('pglite:'.length);
    // An empty directory used to mean an in-memory database, which no later command can read.
    if (dir === '') throw new ConfigError('--db: pglite: needs a directory (pglite:DIR)');
    return { kind: 'pglite', dir: resolve(dir) };
  }
  throw new ConfigError(`--db: expected postgres://… or pglite:DIR, got "${redactUrl(db)}"`);
}
