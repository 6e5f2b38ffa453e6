/**
 * `Database.readPaged` on a server: one untrusted statement by the extended protocol, read
 * in pages, as a custom query of `pg` (the Submittable interface pg-cursor uses), so that
 * our setup statements, the query's Parse/Bind/Describe/Execute and its pages go out without
 * waiting on each other.
 *
 * The flow: our setup statements (each Parse/Bind/Execute) and the query's Parse, Bind,
 * Describe and first Execute go in one write, ended by a Flush; each PortalSuspended (a full
 * page) is answered by the next Execute, until the query's CommandComplete or a cap; then a
 * ROLLBACK and a Sync end the transaction. An error makes the server skip every message up
 * to a Sync, so one is sent then, and the caller rolls the aborted transaction back.
 */
import type pg from 'pg';
import { ExecutionError } from '../common/errors.ts';
import { PageCounter, type PagedEnd, type PagedRead } from './database.ts';

/** The parts of pg's Connection the read writes to. */
interface Wire {
  readonly stream?: { cork?: () => void; uncork?: () => void };
  parse(opts: { text: string }): void;
  bind(opts: object): void;
  describe(opts: { type: 'P' }): void;
  execute(opts: { rows?: number }): void;
  flush(): void;
  sync(): void;
}

type Row = (string | null)[];

/** Runs `write` with the socket corked, so its messages leave as one write. */
function corked(wire: Wire, write: () => void): void {
  wire.stream?.cork?.();
  try {
    write();
  } finally {
    wire.stream?.uncork?.();
  }
}

class PagedQuery {
  private readonly counter: PageCounter;
  /** CommandCompletes still to come from the setup statements before the query's own. */
  private setupLeft: number;
  private phase: 'query' | 'ending' | 'done' = 'query';
  private synced = false;
  private wire: Wire | undefined;
  private readonly started = performance.now();
  private timedOut = false;
  /** One-shot reads: the query's CommandComplete was seen (the next is the ROLLBACK's). */
  private queryDone = false;

  constructor(
    private readonly read: PagedRead,
    private readonly resolve: (end: PagedEnd) => void,
    private readonly reject: (error: unknown) => void,
  ) {
    this.counter = new PageCounter(read);
    this.setupLeft = read.setup.length;
  }

  submit(connection: Wire): void {
    this.wire = connection;
    // One write for all of it, not a packet per message.
    corked(connection, () => this.writeStart(connection));
  }

  private writeStart(connection: Wire): void {
    for (const statement of this.read.setup) {
      connection.parse({ text: statement });
      connection.bind({});
      connection.execute({});
    }
    connection.parse({ text: this.read.query });
    connection.bind({});
    connection.describe({ type: 'P' });
    if (this.oneShot) {
      // Collected rows: one Execute for up to one row past the cap, and the end right behind
      // it, so a query costs one round trip. Rows past the byte cap are counted, not kept.
      connection.execute({ rows: this.read.maxRows + 1 });
      this.phase = 'ending';
      this.writeEnd(connection);
    } else {
      connection.execute({ rows: this.counter.nextPageRows() });
      connection.flush();
    }
  }

  /** Without `onPage` the rows are collected: no page boundary to wait on (see writeStart). */
  private get oneShot(): boolean {
    return this.read.onPage === undefined;
  }

  private writeEnd(wire: Wire): void {
    wire.parse({ text: 'ROLLBACK' });
    wire.bind({});
    wire.execute({});
    wire.sync();
    this.synced = true;
  }

  handleRowDescription(msg: { fields: { name: string }[] }): void {
    this.counter.columns = msg.fields.map((f) => f.name);
  }

  handleDataRow(msg: { fields: Row; length: number }): void {
    this.counter.add(msg.fields, msg.length);
  }

  handlePortalSuspended(): void {
    // One-shot: more than maxRows + 1 rows; the row past the cap was already counted over it.
    if (this.oneShot) return;
    void this.nextPage();
  }

  private async nextPage(): Promise<void> {
    try {
      if (!this.counter.over) await this.counter.flush();
    } catch (error) {
      this.end(error);
      return;
    }
    if (performance.now() - this.started > this.read.timeoutMs) this.timedOut = true;
    if (this.counter.over || this.timedOut) {
      this.end();
      return;
    }
    const wire = this.wire as Wire;
    corked(wire, () => {
      wire.execute({ rows: this.counter.nextPageRows() });
      wire.flush();
    });
  }

  handleCommandComplete(): void {
    if (this.setupLeft > 0) {
      this.setupLeft -= 1;
      return;
    }
    if (this.oneShot) {
      // The query's own end; the ROLLBACK's comes next, then ReadyForQuery settles.
      if (this.queryDone) return;
      this.queryDone = true;
      void this.counter.flush();
      return;
    }
    if (this.phase !== 'query') return;
    void (async () => {
      try {
        if (!this.counter.over) await this.counter.flush();
        this.end();
      } catch (error) {
        this.end(error);
      }
    })();
  }

  private failure: unknown;

  /** Ends the transaction (ROLLBACK and a Sync); settles when the server is ready again. */
  private end(failure?: unknown): void {
    if (this.phase !== 'query') return;
    this.phase = 'ending';
    this.failure = failure;
    const wire = this.wire as Wire;
    corked(wire, () => this.writeEnd(wire));
  }

  handleEmptyQuery(): void {
    this.handleError(new ExecutionError('empty query'));
  }

  handleError(error: unknown): void {
    if (this.phase === 'done') return;
    this.phase = 'done';
    // The server skips everything up to a Sync after an error; without one it would wait.
    if (!this.synced) this.wire?.sync();
    this.synced = true;
    this.reject(error);
  }

  handleReadyForQuery(): void {
    if (this.phase === 'done') return;
    this.phase = 'done';
    if (this.failure !== undefined) this.reject(this.failure);
    else if (this.timedOut) this.reject(new ExecutionError(`timed out after ${this.read.timeoutMs} ms`));
    else this.resolve(this.counter.end());
  }

  handleCopyInResponse(): void {
    this.handleError(new ExecutionError('the query asked to copy data in'));
  }

  handleCopyData(): void {}
}

/**
 * Runs `read` on `client` (see the module comment). After an error the transaction is
 * aborted, not ended: this rolls it back before rethrowing, so the connection is clean.
 */
export async function readPaged(client: pg.Client, read: PagedRead): Promise<PagedEnd> {
  try {
    return await new Promise<PagedEnd>((resolve, reject) => {
      client.query(new PagedQuery(read, resolve, reject) as unknown as pg.Submittable);
    });
  } catch (error) {
    // A lost connection cannot roll back; its transaction ended with it.
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}
