import { PGlite } from '@electric-sql/pglite';
import { mkdirSync } from 'node:fs';
import { LoadError } from '../common/errors.ts';
import type { Database, Row } from './database.ts';

/** PGlite in memory (no dir) or persisted in a directory. */
export async function openPglite(dir?: string): Promise<Database> {
  if (dir) mkdirSync(dir, { recursive: true });
  let db: PGlite;
  try {
    db = await PGlite.create(dir);
  } catch (error) {
    throw new LoadError(`cannot open PGlite database in ${dir ?? 'memory'}: ${(error as Error).message}`, { cause: error });
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
