import { PGlite } from '@electric-sql/pglite';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { LoadError } from '../common/errors.ts';
import { PGLITE_ESSENTIALS, type Database, type Row } from './database.ts';

// Emscripten's file system reports WASI errno numbers, often with no message at all.
const WASI_ERRNO: Record<number, string> = { 2: 'EACCES', 6: 'EAGAIN', 8: 'EBADF', 20: 'EEXIST', 28: 'EINVAL', 29: 'EIO', 44: 'ENOENT', 48: 'ENOMEM', 51: 'ENOSPC', 54: 'ENOTDIR', 63: 'EPERM', 69: 'EROFS', 75: 'EDQUOT' };

const MEANING: Record<string, string> = { ENOSPC: 'no space left on device', EDQUOT: 'disk quota exceeded', EROFS: 'read-only file system', EACCES: 'permission denied' };

/** A one-line reason from whatever PGlite or the file system threw (never "undefined"). */
function reason(error: unknown): string {
  const e = error as { message?: unknown; code?: unknown; errno?: unknown } | undefined;
  const code = typeof e?.code === 'string' ? e.code : typeof e?.errno === 'number' ? (WASI_ERRNO[e.errno] ?? `errno ${e.errno}`) : undefined;
  const message = typeof e?.message === 'string' && e.message !== '' && e.message !== 'undefined' ? e.message.split('\n')[0] : undefined;
  if (message && code && !message.includes(code)) return `${code}: ${message}`;
  if (message) return message;
  return code ? `${code}${code in MEANING ? ` (${MEANING[code]})` : ''}` : String(error);
}

/**
 * PGlite in memory (no dir) or persisted in a directory. A directory that exists but is not
 * a whole database is refused by name (PGlite itself only says "Aborted()"); with
 * `mustExist`, so is one that does not exist or is empty, instead of creating an empty one.
 */
export async function openPglite(dir?: string, options: { readonly mustExist?: boolean } = {}): Promise<Database> {
  if (dir) {
    const present = existsSync(dir) && readdirSync(dir).length > 0;
    if (present) {
      const missing = PGLITE_ESSENTIALS.filter((entry) => !existsSync(`${dir}/${entry}`));
      if (missing.length > 0) throw new LoadError(`${dir} is not a whole PGlite database (no ${missing.join(', ')}); rebuild it with equisql build`);
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
  let db: PGlite;
  try {
    db = await PGlite.create(dir);
  } catch (error) {
    throw new LoadError(`cannot open PGlite database in ${dir ?? 'memory'}: ${reason(error)}`, { cause: error });
  }
  // PGlite parses values by type; mapping every type it knows to the identity keeps the
  // text output format, which is what a server sends.
  const identity = (value: string): string => value;
  const rawParsers = Object.fromEntries(Object.keys((db as unknown as { parsers: Record<string, unknown> }).parsers).map((oid) => [oid, identity]));
  return {
    kind: 'pglite',
    label: dir ? `pglite:${dir}` : 'pglite:memory',
    exec: async (sql) => {
      await db.exec(sql);
    },
    query: async (sql, params) => (await db.query<Row>(sql, params as unknown[] | undefined)).rows,
    queryText: async (sql) => {
      const result = await db.query<unknown[]>(sql, [], { rowMode: 'array', parsers: rawParsers });
      return { columns: result.fields.map((f) => f.name), rows: result.rows as (string | null)[][] };
    },
    copyIn: async (copy, data) => {
      // PGlite reads COPY input from a virtual file the blob option provides.
      const statement = copy.replace(/FROM\s+STDIN\s*$/i, "FROM '/dev/blob'");
      await db.query(statement, [], { blob: new Blob([data]) });
    },
    close: async () => {
      await db.close();
    },
  };
}
