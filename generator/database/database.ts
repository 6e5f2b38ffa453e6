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
   * Runs `batch.statements` in order as one message of PostgreSQL's simple query protocol
   * (one round trip) and returns the rows of the statements `batch.results` names, as
   * `queryText` does. The first error skips every statement after it, so a transaction the
   * batch began is left open and aborted: the caller rolls back. The text is concatenated,
   * so the caller must have proved each statement to be one (the executor's guard does); see
   * `batchText`.
   */
  queryTextBatch(batch: TextBatch, options?: QueryOptions): Promise<TextResult[]>;
  /**
   * Runs one untrusted statement by the extended protocol and reads its rows in pages
   * (`PagedRead`): each of our own statements before it (the transaction's start and its
   * settings) is its own Parse/Bind/Execute, and so is the query — a Parse of its text alone,
   * which the server refuses to hold more than one statement — all sent together with one
   * Sync; the rows come `pageRows` at a time from the query's portal until they end or a cap
   * is passed. The transaction is rolled back at the end, whatever happened (the query only
   * read). A database error is thrown as the driver gives it (with its SQLSTATE `code`);
   * running past `timeoutMs` throws an ExecutionError "timed out after N ms".
   */
  readPaged(read: PagedRead): Promise<PagedEnd>;
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

/** Statements sent together (`Database.queryTextBatch`). */
export interface TextBatch {
  /** Each one statement, proved so by the caller; a trailing line comment is harmless (see `batchText`). */
  readonly statements: readonly string[];
  /** Positions in `statements` whose rows are returned, in this order. */
  readonly results: readonly number[];
}

/**
 * The text of a batch. Each statement ends on a line of its own: a statement that ends
 * inside a `--` comment cannot swallow the `;` and the statements after it. Semicolons a
 * statement ends with are dropped, so statement i gives result i (PostgreSQL skips empty
 * statements without a result).
 *
 * @example
 * batchText({ statements: ['BEGIN READ ONLY', 'SELECT 1 -- one;', 'COMMIT'], results: [1] });
 * // 'BEGIN READ ONLY\n;\nSELECT 1 -- one\n;\nCOMMIT\n;\n'
 */
export function batchText(batch: TextBatch): string {
  return batch.statements.map((s) => `${s.replace(/[\s;]+$/u, '')}\n;\n`).join('');
}

/** The results a batch asked for, out of one result per statement. */
export function pickResults<R>(all: readonly R[], batch: TextBatch): R[] {
  return batch.results.map((i) => {
    const r = all[i];
    if (r === undefined)
      throw new Error(`a batch of ${batch.statements.length} statements gave ${all.length} results, none at ${i}`);
    return r;
  });
}

/** One untrusted statement read in pages (`Database.readPaged`). */
export interface PagedRead {
  /** Our own statements before the query, each one statement: `BEGIN READ ONLY`, `SET LOCAL …`. */
  readonly setup: readonly string[];
  /** The untrusted text, parsed alone. */
  readonly query: string;
  /** Rows per page (one Execute with this row count). */
  readonly pageRows: number;
  /** More rows than this end the read as `over-cap` (the rows past it are never fetched). */
  readonly maxRows: number;
  /** More bytes of rows than this (as the server sends them) end the read as `over-cap`. */
  readonly maxBytes: number;
  /** The whole read's bound in milliseconds, over all its pages. */
  readonly timeoutMs: number;
  /**
   * Called with each page as it comes (the caller may write it out and wait for the output
   * to drain); without it, the rows are collected into `PagedEnd.rows`. No page past a cap
   * is given.
   */
  readonly onPage?: (page: TextResult) => void | Promise<void>;
}

/** How a `PagedRead` ended, when it was not an error. */
export interface PagedEnd {
  /** `complete`: every row was read; `over-cap`: a cap was passed, and the read stopped there. */
  readonly kind: 'complete' | 'over-cap';
  /** With `over-cap`: which cap. */
  readonly cap?: 'rows' | 'bytes';
  readonly columns: readonly string[];
  /** The rows read, when no `onPage` was given and the read completed; otherwise empty. */
  readonly rows: readonly (readonly (string | null)[])[];
  /** Rows read (within the caps). */
  readonly rowCount: number;
  /** Bytes of the rows read, as the server sent them (its DataRow messages). */
  readonly bytes: number;
}

/**
 * Keeps the count of a `PagedRead`'s rows and bytes against its caps, and its rows when they
 * are collected: one implementation of the caps for both backends.
 */
export class PageCounter {
  columns: readonly string[] = [];
  rowCount = 0;
  bytes = 0;
  over: 'rows' | 'bytes' | undefined;
  /** The page being read. */
  page: (readonly (string | null)[])[] = [];
  /** Every row, when collected. */
  readonly all: (readonly (string | null)[])[] = [];

  constructor(private readonly read: PagedRead) {}

  /** A row as it arrives (`size`: its DataRow message's length). Rows past a cap are dropped. */
  add(row: readonly (string | null)[], size: number): void {
    if (this.over) return;
    if (this.rowCount + 1 > this.read.maxRows) {
      this.over = 'rows';
      return;
    }
    if (this.bytes + size > this.read.maxBytes) {
      this.over = 'bytes';
      return;
    }
    this.rowCount += 1;
    this.bytes += size;
    this.page.push(row);
  }

  /** How many rows the next Execute should ask for: a page, and never more than one past the row cap. */
  nextPageRows(): number {
    return Math.max(1, Math.min(this.read.pageRows, this.read.maxRows + 1 - this.rowCount));
  }

  /** Hands the page read so far to `onPage` (or keeps it), and starts the next. */
  async flush(): Promise<void> {
    const rows = this.page;
    this.page = [];
    if (this.read.onPage) {
      if (rows.length > 0 || this.rowCount === 0) await this.read.onPage({ columns: this.columns, rows });
    } else {
      for (const row of rows) this.all.push(row);
    }
  }

  end(): PagedEnd {
    const base = { columns: this.columns, rowCount: this.rowCount, bytes: this.bytes };
    if (this.over) return { kind: 'over-cap', cap: this.over, rows: [], ...base };
    return { kind: 'complete', rows: this.all, ...base };
  }
}

export interface TextResult {
  readonly columns: readonly string[];
  readonly rows: readonly (readonly (string | null)[])[];
}

/**
 * Where a database is: a PGlite directory (or memory) or a server URL. `mustExist` is for
 * readers: a PGlite directory that holds no database is refused instead of created empty.
 * `maxMemoryMb` bounds PGlite's memory (`openPglite`): set where untrusted SQL runs on it.
 */
export type DatabaseTarget =
  | { readonly kind: 'pglite'; readonly dir?: string; readonly mustExist?: boolean; readonly maxMemoryMb?: number }
  | { readonly kind: 'postgres'; readonly url: string };

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
    return openPglite(target.dir, {
      mustExist: target.mustExist ?? false,
      ...(target.maxMemoryMb === undefined ? {} : { maxMemoryMb: target.maxMemoryMb }),
    });
  }
  const { openPostgres } = await import('./postgres-database.ts');
  return openPostgres(target.url);
}

/** Turns `--db` / `DATABASE_URL` into a target; PGlite in `fallbackDir` otherwise. */
export function resolveTarget(db: string | undefined, fallbackDir: string | undefined): DatabaseTarget {
  if (db === undefined || db === '')
    return fallbackDir === undefined ? { kind: 'pglite' } : { kind: 'pglite', dir: fallbackDir };
  if (/^postgres(ql)?:\/\//.test(db)) return { kind: 'postgres', url: db };
  if (db.startsWith('pglite:')) {
    const dir = db.slice('pglite:'.length);
    // An empty directory used to mean an in-memory database, which no later command can read.
    if (dir === '') throw new ConfigError('--db: pglite: needs a directory (pglite:DIR)');
    return { kind: 'pglite', dir: resolve(dir) };
  }
  throw new ConfigError(`--db: expected postgres://… or pglite:DIR, got "${redactUrl(db)}"`);
}
