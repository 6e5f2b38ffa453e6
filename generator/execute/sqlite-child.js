// The child process that runs untrusted SQL on SQLite files for `untrusted-sqlite.ts`. Plain
// JavaScript on purpose: Node starts it directly, with no TypeScript loader, whether the
// parent runs under tsx (the CLI) or vitest. A process and not a worker thread: SQLite runs a
// statement in native code that a terminated worker does not leave (a recursive CTE without
// end would run on), and better-sqlite3 exposes neither sqlite3_interrupt nor the progress
// handler; a process ends when it is killed, and its memory with it.
//
// Messages in:  { id, path, sql, maxRows, maxBytes }, one at a time.
// Messages out: { id: 0, ready: true } once; then per request
//   { id, kind: 'rows', columns, rows, bytes }   values as better-sqlite3 reads them (INTEGER as bigint)
//   { id, kind: 'refused', message }             SQLite's own reading refused it
//   { id, kind: 'error', message, code }         SQLite failed it
//   { id, kind: 'over-cap', cap }                more rows or bytes than the caps
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';

// A parent killed outright (kill -9) cannot kill this process, and while SQLite runs a query
// without end this thread cannot see the parent go: a watcher thread can, and ends the
// process when its parent is gone.
const watcher = new Worker(
  "const { workerData } = require('node:worker_threads'); setInterval(() => { if (process.ppid !== workerData) process.kill(process.pid, 'SIGKILL'); }, 250);",
  { eval: true, workerData: process.ppid },
);
watcher.unref();

/** @type {Map<string, import('better-sqlite3').Database>} */
const open = new Map();

/** @param {string} path */
function database(path) {
  let db = open.get(path);
  if (!db) {
    // Read-only, and the file must be there: nothing is created. query_only refuses any write
    // the connection might still be asked; better-sqlite3 opens with SQLITE_DBCONFIG_DEFENSIVE
    // (no writable_schema, no shadow-table writes) and never enables load_extension() in SQL.
    db = new Database(path, { readonly: true, fileMustExist: true });
    db.pragma('query_only = ON');
    open.set(path, db);
  }
  return db;
}

/** Bytes of a value as text, as the parent will print it (a bound, not an exact count). @param {unknown} v */
function size(v) {
  if (v === null || v === undefined) return 0;
  if (typeof v === 'string') return Buffer.byteLength(v, 'utf8');
  if (typeof v === 'bigint') return v.toString().length;
  if (typeof v === 'number') return 24;
  if (v instanceof Uint8Array) return 2 + 2 * v.length;
  return String(v).length;
}

/** @param {{ id: number, path: string, sql: string, maxRows: number, maxBytes: number }} m */
function run(m) {
  let stmt;
  try {
    stmt = database(m.path).prepare(m.sql);
  } catch (error) {
    const e = /** @type {{ message?: string, code?: string }} */ (error);
    // better-sqlite3 refuses a text that holds a second statement.
    if (error instanceof RangeError) return { id: m.id, kind: 'refused', message: `SQLite: ${e.message}` };
    return { id: m.id, kind: 'error', message: String(e.message ?? error), code: e.code };
  }
  // SQLite's own judgement of the statement: it returns rows and writes nothing.
  if (!stmt.reader)
    return {
      id: m.id,
      kind: 'refused',
      message: 'SQLite reads a statement that returns no rows; only one SELECT is run',
    };
  if (!stmt.readonly)
    return { id: m.id, kind: 'refused', message: 'SQLite reads a statement that writes; only one SELECT is run' };
  try {
    stmt.safeIntegers(true);
    stmt.raw(true);
    const columns = stmt.columns().map((c) => c.name);
    const rows = [];
    let bytes = 0;
    for (const row of stmt.iterate()) {
      if (rows.length >= m.maxRows) return { id: m.id, kind: 'over-cap', cap: 'rows' };
      for (const v of /** @type {unknown[]} */ (row)) bytes += size(v) + 1;
      if (bytes > m.maxBytes) return { id: m.id, kind: 'over-cap', cap: 'bytes' };
      rows.push(row);
    }
    return { id: m.id, kind: 'rows', columns, rows, bytes };
  } catch (error) {
    const e = /** @type {{ message?: string, code?: string }} */ (error);
    return { id: m.id, kind: 'error', message: String(e.message ?? error), code: e.code };
  }
}

process.on('message', (m) => {
  const reply = run(/** @type {{ id: number, path: string, sql: string, maxRows: number, maxBytes: number }} */ (m));
  process.send?.(reply);
});
process.on('disconnect', () => process.exit(0));
process.send?.({ id: 0, ready: true });
