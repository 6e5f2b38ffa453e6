/**
 * The executor for untrusted SQL on a variant's SQLite file: the verdicts of the PostgreSQL
 * executor (`untrusted-query.ts`), so an evaluation on either engine reads alike, under the
 * same line. A text runs only after:
 * 1. our lexer passed it (`sqlite-guard.ts`): one SELECT, no write, ATTACH, PRAGMA or
 *    transaction word, no denied function (`load_extension`, `randomblob`, `zeroblob`, …),
 *    no clock, bounded `printf` widths;
 * 2. SQLite's own prepare, in a child process (`sqlite-child.js`), found one statement (a
 *    second is refused by better-sqlite3) that returns rows and writes nothing
 *    (`stmt.reader`, `stmt.readonly`);
 * on a connection opened read-only on a file that must exist, with `query_only` set and
 * SQLite's defensive mode on. Its rows are read one at a time under a row cap and a byte cap,
 * and past either it stops. Past the time cap the child is killed (SIGKILL: SQLite's native
 * loop stops only with its process) and the next text starts a fresh one. A child that dies
 * under a text (out of memory) gives that text an error verdict.
 *
 * Every file's size, modification time and inode are taken before its first text and
 * checked after each: a file that changed is a fault of the run (thrown), never a verdict.
 *
 *     const executor = createSqliteExecutor('output/social_media', { timeoutMs: 10_000 });
 *     await executor.run('sqlite/full_cti.sqlite', 'SELECT count(*) FROM streamer');
 *     // { kind: 'rows', columns: ['count(*)'], rows: [['12']], bytes: 3 }
 *     await executor.run('sqlite/full_cti.sqlite', "ATTACH 'x.db' AS x");
 *     // { kind: 'refused', message: 'sqlite/full_cti.sqlite: refused: ATTACH at character 1; only one SELECT (or WITH … SELECT) is run' }
 *     await executor.close();
 */
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ExecutionError, oneLine, RunFaultError } from '../common/errors.ts';
import { sqliteValueText } from '../export/rl/answer-text.ts';
import { guardSqlite } from './sqlite-guard.ts';
import {
  DEFAULT_CAPS,
  type UntrustedExecutor,
  type UntrustedOptions,
  type UntrustedOutcome,
} from './untrusted-query.ts';

const CHILD = fileURLToPath(new URL('./sqlite-child.js', import.meta.url));
const DEFAULT_TIMEOUT_MS = 30_000;
/** How long a child may take to start and say it is ready. */
const START_TIMEOUT_MS = 60_000;
/** The child's JavaScript heap: the rows under the byte cap, and a value SQLite hands over whole. */
const CHILD_HEAP_MB = 1024;

type ChildReply =
  | {
      readonly id: number;
      readonly kind: 'rows';
      readonly columns: string[];
      readonly rows: unknown[][];
      readonly bytes: number;
    }
  | { readonly id: number; readonly kind: 'refused'; readonly message: string }
  | { readonly id: number; readonly kind: 'error'; readonly message: string; readonly code?: string }
  | { readonly id: number; readonly kind: 'over-cap'; readonly cap: 'rows' | 'bytes' };

/** The end of one request: the child's reply, or how the child went. */
type Ended = ChildReply | { readonly kind: 'timeout' } | { readonly kind: 'died'; readonly how: string };

/** One child process, restarted after it is killed or dies; one request at a time. */
class SqliteChild {
  private child: ChildProcess | undefined;
  private starting: Promise<ChildProcess> | undefined;
  private nextId = 1;
  private pending: { id: number; child: ChildProcess; done: (e: Ended) => void } | undefined;

  private start(): Promise<ChildProcess> {
    if (this.child) return Promise.resolve(this.child);
    if (this.starting) return this.starting;
    const started = new Promise<ChildProcess>((resolveStart, rejectStart) => {
      // The child's arguments are ours alone: no loader of the parent's (tsx, vitest) applies.
      const child = fork(CHILD, [], {
        execArgv: [`--max-old-space-size=${CHILD_HEAP_MB}`],
        serialization: 'advanced',
        stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      });
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        rejectStart(new ExecutionError(`the SQLite child process did not start within ${START_TIMEOUT_MS / 1000} s`));
      }, START_TIMEOUT_MS);
      child.once('error', (error) => {
        clearTimeout(timer);
        rejectStart(
          new ExecutionError(`the SQLite child process could not start: ${oneLine(error)}`, { cause: error }),
        );
      });
      child.on('message', (m: ChildReply | { id: 0; ready: true }) => {
        if ('ready' in m) {
          clearTimeout(timer);
          if (this.starting === started) this.child = child;
          resolveStart(child);
          return;
        }
        if (this.pending?.child === child && this.pending.id === m.id) this.pending.done(m);
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        this.forget(child);
        rejectStart(
          new ExecutionError(`the SQLite child process stopped before it was ready (${signal ?? `exit ${code}`})`),
        );
        if (this.pending?.child === child) this.pending.done({ kind: 'died', how: signal ?? `exit ${code}` });
      });
    });
    this.starting = started;
    started.catch(() => this.forget(undefined));
    return started;
  }

  /** Drops `child` (or a start that failed): the next request starts a fresh process. */
  private forget(child: ChildProcess | undefined): void {
    if (child === undefined || this.child === child) {
      this.child = undefined;
      this.starting = undefined;
    }
  }

  /** Runs one request; past `timeoutMs` the child is killed and `timeout` returned. */
  async request(path: string, sql: string, maxRows: number, maxBytes: number, timeoutMs: number): Promise<Ended> {
    const child = await this.start();
    const id = this.nextId++;
    return new Promise<Ended>((done) => {
      const timer = setTimeout(() => {
        finish({ kind: 'timeout' });
        this.forget(child);
        child.kill('SIGKILL');
      }, timeoutMs);
      const finish = (e: Ended): void => {
        if (this.pending?.id !== id) return;
        clearTimeout(timer);
        this.pending = undefined;
        done(e);
      };
      this.pending = { id, child, done: finish };
      child.send({ id, path, sql, maxRows, maxBytes }, (error) => {
        if (error) finish({ kind: 'died', how: oneLine(error) });
      });
    });
  }

  async close(): Promise<void> {
    const child = this.child ?? (this.starting ? await this.starting.catch(() => undefined) : undefined);
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((done) => {
      child.once('exit', () => done());
      child.kill('SIGKILL');
    });
  }
}

/** `UntrustedExecutor` over SQLite files; `run`'s first argument is a file, relative to the executor's root. */
export interface SqliteExecutor extends UntrustedExecutor {
  /** Ends the child processes. */
  close(): Promise<void>;
}

export interface SqliteExecutorOptions extends UntrustedOptions {
  /** Child processes, so texts run at once (default 1, at most the machine's parallelism). */
  readonly processes?: number;
}

/** What a file was when first read: a change after is a fault. */
interface Fingerprint {
  readonly size: number;
  readonly mtimeMs: number;
  readonly ino: number;
}

function fingerprint(path: string): Fingerprint {
  const s = statSync(path);
  return { size: s.size, mtimeMs: s.mtimeMs, ino: s.ino };
}

function settle(o: UntrustedOptions): { timeoutMs: number; maxRows: number; maxBytes: number } {
  const positive = (n: number | undefined, fallback: number): number =>
    n === undefined || !Number.isFinite(n) ? fallback : Math.max(1, Math.floor(n));
  return {
    timeoutMs: positive(o.timeoutMs, DEFAULT_TIMEOUT_MS),
    maxRows: positive(o.maxRows, DEFAULT_CAPS.maxRows),
    maxBytes: positive(o.maxBytes, DEFAULT_CAPS.maxBytes),
  };
}

/** A value the child sent as the reward prints it; a blob crosses the process boundary as a Uint8Array. */
function valueText(v: unknown): string | null {
  return sqliteValueText(
    v instanceof Uint8Array && !Buffer.isBuffer(v) ? Buffer.from(v.buffer, v.byteOffset, v.byteLength) : v,
  );
}

/**
 * An executor for untrusted SQL on the SQLite files under `root` (a generated directory), with
 * default options for every run. Never throws for anything a text did; throws for a fault of
 * the run (a file missing or changed, a child that cannot start).
 *
 * @example
 * const executor = createSqliteExecutor(dir, { timeoutMs: 5_000, maxRows: 10_000 });
 * const outcome = await executor.run('edge/sqlite/full_sti.sqlite', 'SELECT 1; DELETE FROM streamer');
 * outcome.kind; // 'refused'
 */
export function createSqliteExecutor(root: string, defaults: SqliteExecutorOptions = {}): SqliteExecutor {
  const count = Math.max(1, Math.min(defaults.processes ?? 1, availableParallelism()));
  const children = Array.from({ length: count }, () => new SqliteChild());
  const free = [...children];
  const waiting: ((c: SqliteChild) => void)[] = [];
  const acquire = (): Promise<SqliteChild> => {
    const c = free.pop();
    return c ? Promise.resolve(c) : new Promise((r) => waiting.push(r));
  };
  const release = (c: SqliteChild): void => {
    const next = waiting.shift();
    if (next) next(c);
    else free.push(c);
  };
  const seen = new Map<string, Fingerprint>();
  const unchanged = (file: string, path: string): void => {
    const before = seen.get(path);
    let now: Fingerprint;
    try {
      now = fingerprint(path);
    } catch (error) {
      throw new RunFaultError(`${file}: the SQLite file cannot be read (${oneLine(error)})`, { cause: error });
    }
    if (!before) seen.set(path, now);
    else if (before.size !== now.size || before.mtimeMs !== now.mtimeMs || before.ino !== now.ino) {
      throw new RunFaultError(
        `${file}: the SQLite file changed while queries ran on it (size ${before.size} → ${now.size}); nothing more is scored on it`,
      );
    }
  };
  return {
    run: async (file, text, options) => {
      const s = settle({ ...defaults, ...options });
      const path = resolve(root, file);
      if (!existsSync(path)) throw new RunFaultError(`${file}: no such SQLite file under ${root}`);
      unchanged(file, path);
      try {
        guardSqlite(text, file);
      } catch (error) {
        if (error instanceof ExecutionError) return { kind: 'refused', message: error.message };
        throw error;
      }
      const child = await acquire();
      let ended: Ended;
      try {
        ended = await child.request(path, text, s.maxRows, s.maxBytes, s.timeoutMs);
      } finally {
        release(child);
      }
      unchanged(file, path);
      return outcomeOf(ended, file, s);
    },
    close: async () => {
      await Promise.all(children.map((c) => c.close()));
    },
  };
}

function outcomeOf(
  ended: Ended,
  file: string,
  s: { timeoutMs: number; maxRows: number; maxBytes: number },
): UntrustedOutcome {
  switch (ended.kind) {
    case 'rows':
      return {
        kind: 'rows',
        columns: ended.columns,
        rows: ended.rows.map((row) => row.map(valueText)),
        bytes: ended.bytes,
      };
    case 'refused':
      return { kind: 'refused', message: `${file}: refused: ${oneLine(ended.message)}` };
    case 'error':
      return { kind: 'error', message: `${file}: ${oneLine(ended.message)}` };
    case 'timeout':
      return { kind: 'timeout', message: `${file}: timed out after ${s.timeoutMs} ms`, timeoutMs: s.timeoutMs };
    case 'over-cap': {
      const what =
        ended.cap === 'rows'
          ? `more than ${s.maxRows.toLocaleString('en-US')} rows`
          : `more than ${s.maxBytes.toLocaleString('en-US')} bytes of rows`;
      return {
        kind: 'over-cap',
        message: `${file}: refused: the result has ${what} (the cap; raise it to read more)`,
        cap: ended.cap,
        limit: ended.cap === 'rows' ? s.maxRows : s.maxBytes,
      };
    }
    case 'died':
      return { kind: 'error', message: `${file}: the engine stopped while running the query (${ended.how})` };
  }
}
