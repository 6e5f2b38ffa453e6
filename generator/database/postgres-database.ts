import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { LoadError } from '../common/errors.ts';
import { batchText, pickResults, redactUrl, type Database, type Row } from './database.ts';
import { readPaged } from './postgres-paged-read.ts';

// Read every value as PostgreSQL prints it; callers cast in SQL where they want text.
const types = {
  getTypeParser: (() => (value: string) => value) as unknown as typeof pg.types.getTypeParser,
};

/** One connection to a PostgreSQL server. */
export async function openPostgres(url: string): Promise<Database> {
  const label = redactUrl(url);
  let client: pg.Client;
  try {
    new URL(url);
    client = new pg.Client({ connectionString: url, types });
    await client.connect();
    // The executor's guard reads strings this way; a database or role default could differ.
    await client.query('SET standard_conforming_strings = on');
  } catch (error) {
    throw new LoadError(`cannot connect to ${label}: ${(error as Error).message}`, { cause: error });
  }
  // A connection that dies between queries is reported by the next query, not as a crash.
  client.on('error', () => {});
  return {
    kind: 'postgres',
    label,
    exec: async (sql) => {
      await client.query(sql);
    },
    query: async (sql, params) => (await client.query<Row>(sql, params as unknown[] | undefined)).rows,
    queryText: async (sql) => {
      // The extended protocol takes exactly one statement, as PGlite's query does: text
      // that smuggles a COMMIT and a write after a SELECT is refused, not run.
      const result = await client.query<(string | null)[]>({
        text: sql,
        rowMode: 'array',
        queryMode: 'extended',
      } as pg.QueryArrayConfig);
      return { columns: result.fields.map((f) => f.name), rows: result.rows };
    },
    queryTextBatch: async (batch) => {
      // Without parameters pg sends the simple protocol, which runs several statements in
      // one round trip and answers with one result per statement.
      const reply = (await client.query<(string | null)[]>({
        text: batchText(batch),
        rowMode: 'array',
      } as pg.QueryArrayConfig)) as unknown;
      const all = (Array.isArray(reply) ? reply : [reply]) as pg.QueryArrayResult<(string | null)[]>[];
      return pickResults(all, batch).map((r) => ({ columns: r.fields.map((f) => f.name), rows: r.rows }));
    },
    readPaged: (read) => readPaged(client, read),
    copyIn: async (copy, data) => {
      const stream = client.query(copyFrom(copy));
      await pipeline(Readable.from([data]), stream);
    },
    close: async () => {
      await client.end();
    },
  };
}
