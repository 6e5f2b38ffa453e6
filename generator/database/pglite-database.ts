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
  return {
    kind: 'pglite',
    label: dir ? `pglite:${dir}` : 'pglite:memory',
    exec: async (sql) => {
      await db.exec(sql);
    },
    query: async (sql, params) => (await db.query<Row>(sql, params as unknown[] | undefined)).rows,
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
