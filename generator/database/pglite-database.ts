import { Worker } from 'node:worker_threads';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExecutionError, LoadError } from '../common/errors.ts';
import { collectAfterManyRows, rowsDropped } from '../common/garbage.ts';
import {
  batchText,
  PageCounter,
  pickResults,
  PGLITE_ESSENTIALS,
  type Database,
  type PagedEnd,
  type PagedRead,
  type QueryOptions,
  type Row,
  type TextResult,
} from './database.ts';

type Request = {
  readonly op:
    | 'exec'
    | 'query'
    | 'queryText'
    | 'queryTextBatch'
    | 'pageStart'
    | 'pageNext'
    | 'pageEnd'
    | 'copyIn'
    | 'close';
  readonly sql?: string;
  readonly params?: readonly unknown[];
  readonly data?: string;
  readonly setup?: readonly string[];
  readonly rows?: number;
};
type ReplyError = { readonly message: string; readonly code?: string; readonly errno?: number };
type Reply = { readonly id: number; readonly ok: boolean; readonly value?: unknown; readonly error?: ReplyError };

// Emscripten's file system reports WASI errno numbers, often with no message at all.
const WASI_ERRNO: Record<number, string> = {
  2: 'EACCES',
  6: 'EAGAIN',
  8: 'EBADF',
  20: 'EEXIST',
  28: 'EINVAL',
  29: 'EIO',
  44: 'ENOENT',
  48: 'ENOMEM',
  51: 'ENOSPC',
  54: 'ENOTDIR',
  63: 'EPERM',
  69: 'EROFS',
  75: 'EDQUOT',
};

const MEANING: Record<string, string> = {
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EROFS: 'read-only file system',
  EACCES: 'permission denied',
};

/** A one-line reason from whatever PGlite or the file system threw (never "undefined"). */
function reason(error: unknown): string {
  const e = error as { message?: unknown; code?: unknown; errno?: unknown } | undefined;
  const code =
    typeof e?.code === 'string'
      ? e.code
      : typeof e?.errno === 'number'
        ? (WASI_ERRNO[e.errno] ?? `errno ${e.errno}`)
        : undefined;
  const message =
    typeof e?.message === 'string' && e.message !== '' && e.message !== 'undefined'
      ? e.message.split('\n')[0]
      : undefined;
  if (message && code && !message.includes(code)) return `${code}: ${message}`;
  if (message) return message;
  return code ? `${code}${code in MEANING ? ` (${MEANING[code]})` : ''}` : String(error);
}

/** An error from inside PGlite, with its SQLSTATE where PGlite gave one. */
class PgliteError extends Error {
  readonly code: string | undefined;
  constructor(message: string, code: string | undefined) {
    super(message);
    this.code = code;
  }
}

const WORKER = new URL('./pglite-worker.js', import.meta.url);

/** How long opening a PGlite directory may take: far more than a whole one ever needs. */
export const PGLITE_OPEN_TIMEOUT_MS = 120_000;

/**
 * PGlite in its own worker thread. PostgreSQL in single-threaded WebAssembly never sees its
 * statement_timeout fire, so a timeout is kept here instead: a query that overruns ends the
 * worker, and a fresh one reopens the same data directory, as after a crash (committed data
 * is in the WAL; the query that overran only read). Requests go one at a time, so a
 * query's clock starts when it is sent, not while it waits behind another.
 */
class PgliteWorker {
  private worker: Worker | undefined;
  private opening: Promise<Worker> | undefined;
  private pending: { id: number; resolve: (value: unknown) => void; reject: (error: Error) => void } | undefined;
  private nextId = 1;
  private queue: Promise<unknown> = Promise.resolve();
  /** The end of the last worker ended for overrunning. */
  private ending: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly dir: string,
    private readonly label: string,
    private readonly openTimeoutMs: number = PGLITE_OPEN_TIMEOUT_MS,
    private readonly maxMemoryBytes?: number,
  ) {}

  /** Starts a worker on the data directory; resolves once PGlite has opened it. */
  open(): Promise<Worker> {
    // After a worker ended for overrunning has stopped: its memory (up to the bound) is given
    // back before the next one grows its own.
    this.opening ??= this.ending.then(() => this.start());
    return this.opening;
  }

  private start(): Promise<Worker> {
    return new Promise<Worker>((resolve, reject) => {
      const worker = new Worker(WORKER, { workerData: { dir: this.dir, maxMemoryBytes: this.maxMemoryBytes } });
      const onError = (error: Error): void => fail(error);
      const onExit = (code: number): void => fail(new Error(`worker exited with code ${code}`));
      // A damaged catalog can keep PGlite's start-up spinning for good: give up and say so.
      const timer = setTimeout(
        () =>
          fail(
            new Error(
              `it did not open within ${this.openTimeoutMs / 1000} s (a damaged data directory? rebuild it with equisql build)`,
            ),
          ),
        this.openTimeoutMs,
      );
      const detach = (): void => {
        clearTimeout(timer);
        worker.off('error', onError);
        worker.off('exit', onExit);
      };
      const fail = (error: Error | ReplyError): void => {
        detach();
        this.opening = undefined;
        void worker.terminate();
        reject(new LoadError(`cannot open PGlite database in ${this.label}: ${reason(error)}`, { cause: error }));
      };
      worker.on('error', onError);
      worker.on('exit', onExit);
      worker.once('message', (reply: Reply) => {
        if (!reply.ok) return fail(reply.error ?? new Error('unknown error'));
        detach();
        worker.on('message', (r: Reply) => this.settle(r));
        worker.on('error', (error) => this.lost(worker, error));
        worker.on('exit', (code) => this.lost(worker, new Error(`worker exited with code ${code}`)));
        // An idle worker must not keep the process alive; `request` refs it while it works.
        worker.unref();
        this.worker = worker;
        resolve(worker);
      });
    });
  }

  private settle(reply: Reply): void {
    const pending = this.pending;
    if (!pending || pending.id !== reply.id) return;
    this.pending = undefined;
    this.worker?.unref();
    if (reply.ok) pending.resolve(reply.value);
    else pending.reject(new PgliteError(reply.error?.message ?? 'unknown error', reply.error?.code));
  }

  /** A worker that died on its own: fail what it was doing; the next request reopens. */
  private lost(worker: Worker, error: Error): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    this.opening = undefined;
    const pending = this.pending;
    this.pending = undefined;
    pending?.reject(new LoadError(`PGlite worker for ${this.label} stopped: ${error.message}`, { cause: error }));
  }

  /** Runs `fn` after every request before it has settled. */
  private serialize<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.queue.then(fn, fn);
    this.queue = result.catch(() => {});
    return result;
  }

  /** One request to `worker`; with `timeoutMs`, ends the worker when it overruns. */
  private request(worker: Worker, request: Request, timeoutMs?: number): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      let timer: NodeJS.Timeout | undefined;
      this.pending = {
        id,
        resolve: (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => {
          if (this.pending?.id !== id) return;
          this.pending = undefined;
          this.worker = undefined;
          this.opening = undefined;
          this.ending = worker.terminate().catch(() => {});
          // Reopen now, so the next request waits less; a failure surfaces there.
          this.open().catch(() => {});
          reject(new ExecutionError(`timed out after ${timeoutMs} ms`));
        }, timeoutMs);
      }
      worker.ref();
      worker.postMessage({ id, ...request });
    });
  }

  /**
   * Ends the worker after the requests before it, so the memory its PostgreSQL grew to is given
   * back (WebAssembly memory never shrinks); the next request opens a fresh one.
   */
  recycle(): Promise<void> {
    return this.serialize(async () => {
      const worker = this.worker;
      if (!worker) return;
      this.worker = undefined;
      this.opening = undefined;
      this.ending = worker.terminate().catch(() => {});
      await this.ending;
    });
  }

  /** Sends one request after those before it, reopening the worker if it was ended. */
  send(request: Request, timeoutMs?: number): Promise<unknown> {
    return this.serialize(async () => this.request(await this.open(), request, timeoutMs));
  }

  /** Closes PGlite cleanly (a checkpoint, not a crash), then ends the worker. */
  close(): Promise<void> {
    return this.serialize(async () => {
      if (!this.worker && !this.opening) return;
      const worker = await this.open();
      try {
        await this.request(worker, { op: 'close' });
      } finally {
        this.worker = undefined;
        this.opening = undefined;
        await worker.terminate();
      }
    });
  }
}

/** A backend message as the worker hands it over (`pglite-worker.js`, `wire`). */
type WireMessage =
  | { readonly name: 'dataRow'; readonly length: number; readonly fields: (string | null)[] }
  | { readonly name: 'rowDescription'; readonly columns: string[] }
  | { readonly name: 'error'; readonly message: string; readonly code?: string }
  | {
      readonly name:
        | 'commandComplete'
        | 'portalSuspended'
        | 'readyForQuery'
        | 'parseComplete'
        | 'bindComplete'
        | 'noData'
        | 'emptyQuery'
        | 'notice';
    }
  /** The worker rolled the read back already (its rows ended, or it failed). */
  | { readonly name: 'ended' };

/**
 * `Database.readPaged` on PGlite: the worker sends each round's messages through PGlite's
 * extended protocol (`execProtocol`, never `exec`) and hands back what came; this side counts
 * the rows against the caps and asks for the next page. Each round is bounded by what is
 * left of the timeout (an overrun ends the worker, as for any query).
 */
async function pgliteReadPaged(worker: PgliteWorker, read: PagedRead): Promise<PagedEnd> {
  // The rows of reads before this one are dropped by now (a read to its timeout moves many).
  collectAfterManyRows();
  const counter = new PageCounter(read);
  try {
    return await readPages(worker, read, counter);
  } finally {
    rowsDropped(counter.rowCount);
  }
}

async function readPages(worker: PgliteWorker, read: PagedRead, counter: PageCounter): Promise<PagedEnd> {
  const started = performance.now();
  const left = (): number => Math.max(1, read.timeoutMs - (performance.now() - started));
  let setupLeft = read.setup.length;
  let failure: { message: string; code?: string } | undefined;
  let state = 'complete' as 'suspended' | 'complete';
  let ended = false;
  const take = (messages: readonly WireMessage[]): void => {
    state = 'complete';
    for (const m of messages) {
      if (m.name === 'rowDescription') counter.columns = m.columns;
      else if (m.name === 'dataRow') counter.add(m.fields, m.length);
      else if (m.name === 'portalSuspended') state = 'suspended';
      else if (m.name === 'commandComplete' && setupLeft > 0) setupLeft -= 1;
      else if (m.name === 'error') failure ??= m;
      else if (m.name === 'emptyQuery') failure ??= { message: 'empty query' };
      else if (m.name === 'ended') ended = true;
    }
  };
  try {
    take(
      (await worker.send(
        { op: 'pageStart', setup: read.setup, sql: read.query, rows: counter.nextPageRows() },
        left(),
      )) as WireMessage[],
    );
    while (!failure && !counter.over && state === 'suspended') {
      await counter.flush();
      if (performance.now() - started > read.timeoutMs) {
        // Out of time between pages: the worker is alive, with the read's transaction open.
        await worker.send({ op: 'pageEnd' }).catch(() => {});
        ended = true;
        throw new ExecutionError(`timed out after ${read.timeoutMs} ms`);
      }
      take((await worker.send({ op: 'pageNext', rows: counter.nextPageRows() }, left())) as WireMessage[]);
    }
    if (!failure && !counter.over) await counter.flush();
  } catch (error) {
    // A worker ended for overrunning took its transaction with it; otherwise roll back.
    if (!ended && !(error instanceof ExecutionError && /^timed out/u.test(error.message)))
      await worker.send({ op: 'pageEnd' }).catch(() => {});
    throw error;
  }
  if (!ended) await worker.send({ op: 'pageEnd' });
  // A query that ran PostgreSQL out of memory grew the worker's memory to its bound for good:
  // a fresh worker gives it back before the next query.
  if (failure?.code === '53200') await worker.recycle();
  if (failure) throw new PgliteError(failure.message, failure.code);
  return counter.end();
}

/**
 * PGlite persisted in a directory, or in a temporary directory removed on close when no
 * directory is given (a worker that is ended and reopened must find the data again).
 * PGlite runs in a worker thread, so `queryText(sql, { timeoutMs })` really stops a query
 * that overruns.
 *
 * With `maxMemoryMb`, PostgreSQL's memory in the worker may grow only that far (PGlite's own
 * bound is 2 GB, and its memory never shrinks): a query that asks for more fails with
 * "out of memory" (53200), and the database answers the next one. For untrusted SQL.
 *
 * @example
 * const db = await openPglite('output/retail/pglite');
 * await db.queryText('SELECT count(*) FROM generate_series(1, 300000000)', { timeoutMs: 1000 });
 * // ExecutionError: timed out after 1000 ms; db still answers the next query
 */
export async function openPglite(
  dir?: string,
  options: { readonly mustExist?: boolean; readonly openTimeoutMs?: number; readonly maxMemoryMb?: number } = {},
): Promise<Database> {
  if (dir) {
    // A directory that exists but is not a whole database is refused by name (PGlite itself
    // only says "Aborted()"); with `mustExist`, so is one that does not exist or is empty,
    // instead of creating an empty one.
    const present = existsSync(dir) && readdirSync(dir).length > 0;
    if (present) {
      const missing = PGLITE_ESSENTIALS.filter((entry) => !existsSync(`${dir}/${entry}`));
      if (missing.length > 0)
        throw new LoadError(
          `${dir} is not a whole PGlite database (no ${missing.join(', ')}); rebuild it with equisql build`,
        );
    } else if (options.mustExist) {
      throw new LoadError(`no PGlite database in ${dir}; build into it first`);
    } else {
      try {
        mkdirSync(dir, { recursive: true });
      } catch (error) {
        throw new LoadError(`cannot create PGlite directory ${dir}: ${reason(error)}`, { cause: error });
      }
    }
  }
  const temporary = dir ? undefined : mkdtempSync(join(tmpdir(), 'equisql-pglite-'));
  const dataDir = dir ?? (temporary as string);
  const label = dir ?? 'memory';
  const worker = new PgliteWorker(
    dataDir,
    label,
    options.openTimeoutMs,
    options.maxMemoryMb === undefined ? undefined : options.maxMemoryMb * 1024 * 1024,
  );
  try {
    await worker.open();
  } catch (error) {
    if (temporary) rmSync(temporary, { recursive: true, force: true });
    throw error;
  }
  return {
    kind: 'pglite',
    label: dir ? `pglite:${dir}` : 'pglite:memory',
    exec: async (sql) => {
      await worker.send({ op: 'exec', sql });
    },
    query: async (sql, params) => (await worker.send({ op: 'query', sql, params: params ?? [] })) as Row[],
    queryText: async (sql, options?: QueryOptions) =>
      (await worker.send({ op: 'queryText', sql }, options?.timeoutMs)) as TextResult,
    queryTextBatch: async (batch, options?: QueryOptions) => {
      // One message to the worker and one `exec` inside it: the statements around a query
      // cost neither a message each nor a pass through PGlite's query machinery each. The
      // timeout is the whole message's: PGlite cannot say which statement is running.
      const all = (await worker.send(
        { op: 'queryTextBatch', sql: batchText(batch) },
        options?.timeoutMs,
      )) as TextResult[];
      return pickResults(all, batch);
    },
    readPaged: (read) => pgliteReadPaged(worker, read),
    // Loading is never subject to a timeout: ending the worker mid-write is a crash the
    // data directory would have to recover from.
    copyIn: async (copy, data) => {
      await worker.send({ op: 'copyIn', sql: copy, data });
    },
    close: async () => {
      try {
        await worker.close();
      } finally {
        if (temporary) rmSync(temporary, { recursive: true, force: true });
      }
    },
  };
}
