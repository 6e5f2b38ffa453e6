// The worker thread that owns a PGlite instance (see pglite-database.ts). Plain JavaScript
// on purpose: Node starts it directly, with no TypeScript loader to register, whether the
// parent runs under tsx (the CLI) or vitest.
//
// Messages in:  { id, op: 'exec' | 'query' | 'queryText' | 'queryTextBatch' | 'pageStart' | 'pageNext' | 'pageEnd' | 'copyIn' | 'close', sql, params, data, setup, rows }
// Messages out: { id, ok: true, value } or { id, ok: false, error: { message, code } };
// id 0 answers the opening of the database.
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite, protocol } from '@electric-sql/pglite';

/** @param {unknown} error */
function describe(error) {
  const e = /** @type {{ message?: unknown, code?: unknown, errno?: unknown }} */ (error ?? {});
  return {
    message: typeof e.message === 'string' ? e.message : typeof e.errno === 'number' ? '' : String(error),
    code: typeof e.code === 'string' ? e.code : undefined,
    // Emscripten's file system errors carry only a WASI errno (51 is ENOSPC).
    errno: typeof e.errno === 'number' ? e.errno : undefined,
  };
}

// PGlite gives PostgreSQL a WebAssembly memory that may grow to 2 GB and never shrinks.
// With `maxMemoryBytes`, every memory made in this thread may grow only that far: a query
// that asks for more (a value of hundreds of MB) fails with PostgreSQL's own "out of memory"
// (53200) instead of taking the whole process past its bound.
const bound = /** @type {{ maxMemoryBytes?: unknown }} */ (workerData).maxMemoryBytes;
if (typeof bound === 'number' && Number.isFinite(bound) && bound > 0) {
  const pages = Math.max(1, Math.floor(bound / 65536));
  const Native = WebAssembly.Memory;
  class BoundedMemory extends Native {
    /** @param {WebAssembly.MemoryDescriptor} descriptor */
    constructor(descriptor) {
      super({
        ...descriptor,
        initial: Math.min(descriptor.initial, pages),
        maximum: Math.min(descriptor.maximum ?? pages, pages),
      });
    }
  }
  WebAssembly.Memory = BoundedMemory;
}

// A bounded PostgreSQL also keeps its shared buffers small (PGlite's default is 128 MB, more than
// half the bound), so the memory under the bound is the query's.
const BOUNDED_OPTIONS = {
  startParams: [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'],
};

const port = /** @type {import('node:worker_threads').MessagePort} */ (parentPort);
/** @type {PGlite} */
let db;
try {
  db = await PGlite.create(
    workerData.dir,
    typeof bound === 'number' && Number.isFinite(bound) && bound > 0 ? BOUNDED_OPTIONS : {},
  );
  // The executor's guard reads strings this way; a database default could differ.
  await db.exec('SET standard_conforming_strings = on');
} catch (error) {
  port.postMessage({ id: 0, ok: false, error: describe(error) });
  process.exit(1);
}

// PGlite parses values by type; mapping every type it knows to the identity keeps the
// text output format, which is what a server sends.
/** @param {string} value */
const identity = (value) => value;
const rawParsers = Object.fromEntries(Object.keys(/** @type {any} */ (db).parsers).map((oid) => [oid, identity]));

/**
 * Sends extended-protocol messages and answers with what came back, as plain objects: the
 * pages of an untrusted read (pglite-database.ts drives them; each statement is its own
 * Parse, so PostgreSQL refuses a text holding two). Nothing is synced to the file system: a
 * read writes nothing.
 * @param {Uint8Array[]} parts
 */
async function wire(parts) {
  const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    bytes.set(p, at);
    at += p.length;
  }
  const { messages } = await db.execProtocol(bytes, { throwOnError: false, syncToFs: false });
  return messages.map((/** @type {any} */ msg) => {
    switch (msg.name) {
      case 'dataRow':
        return { name: msg.name, length: msg.length, fields: msg.fields };
      case 'rowDescription':
        return { name: msg.name, columns: msg.fields.map((/** @type {{ name: string }} */ f) => f.name) };
      case 'error':
        return { name: msg.name, message: msg.message, code: msg.code };
      default:
        return { name: msg.name };
    }
  });
}

/**
 * A read whose rows ended (or that failed) is rolled back here and then, saving the caller a
 * round trip for it; one whose page ended with more rows to come stays open for the next.
 * @param {{ name: string }[]} messages
 */
async function endUnlessSuspended(messages) {
  if (messages.some((msg) => msg.name === 'portalSuspended') && !messages.some((msg) => msg.name === 'error'))
    return messages;
  await wire([...statement('ROLLBACK'), protocol.serialize.sync()]);
  return [...messages, { name: 'ended' }];
}

/** @param {string} text */
const statement = (text) => [
  protocol.serialize.parse({ text }),
  protocol.serialize.bind({}),
  protocol.serialize.execute({}),
];

/** @param {{ op: string, sql: string, params?: unknown[], data?: string, setup?: string[], rows?: number }} m */
async function run(m) {
  switch (m.op) {
    case 'exec':
      await db.exec(m.sql);
      return undefined;
    case 'query':
      return (await db.query(m.sql, m.params)).rows;
    case 'queryText': {
      const result = await db.query(m.sql, [], { rowMode: 'array', parsers: rawParsers });
      return { columns: result.fields.map((f) => f.name), rows: result.rows };
    }
    case 'queryTextBatch': {
      // `exec` runs several statements through the simple protocol, one result per statement.
      const results = await db.exec(m.sql, { rowMode: 'array', parsers: rawParsers });
      return results.map((r) => ({ columns: r.fields.map((f) => f.name), rows: r.rows }));
    }
    case 'pageStart':
      // Our setup statements, then the query: Parse, Bind, Describe, the first page.
      return endUnlessSuspended(
        await wire([
          ...(m.setup ?? []).flatMap(statement),
          protocol.serialize.parse({ text: m.sql }),
          protocol.serialize.bind({}),
          protocol.serialize.describe({ type: 'P' }),
          protocol.serialize.execute({ rows: m.rows }),
          protocol.serialize.sync(),
        ]),
      );
    case 'pageNext':
      return endUnlessSuspended(await wire([protocol.serialize.execute({ rows: m.rows }), protocol.serialize.sync()]));
    case 'pageEnd':
      return wire([...statement('ROLLBACK'), protocol.serialize.sync()]);
    case 'copyIn': {
      // PGlite reads COPY input from a virtual file the blob option provides.
      const statement = m.sql.replace(/FROM\s+STDIN\s*$/i, "FROM '/dev/blob'");
      await db.query(statement, [], { blob: new Blob([m.data ?? '']) });
      return undefined;
    }
    case 'close':
      await db.close();
      return undefined;
    default:
      throw new Error(`unknown operation ${m.op}`);
  }
}

port.on('message', async (/** @type {{ id: number, op: string, sql: string }} */ m) => {
  try {
    port.postMessage({ id: m.id, ok: true, value: await run(m) });
  } catch (error) {
    port.postMessage({ id: m.id, ok: false, error: describe(error) });
  }
});
port.postMessage({ id: 0, ok: true });
