import pg from 'pg';
import { describe, it } from 'vitest';

/** The server the suite may use: DATABASE_URL, as `.ci/run` exports it. */
export const SERVER_URL = process.env['DATABASE_URL'];
const IN_CI = Boolean(process.env['CI']);

/**
 * `describe` for tests that need the PostgreSQL server. Without DATABASE_URL they are
 * skipped on a developer's machine, but under CI the block fails instead, so a CI run
 * without its server cannot pass by skipping.
 */
export function describeServer(name: string, body: (url: string) => void): void {
  if (SERVER_URL) {
    describe(name, () => body(SERVER_URL));
  } else if (IN_CI) {
    describe(name, () => {
      it('has a PostgreSQL server', () => {
        throw new Error('CI is set but DATABASE_URL is not: the server tests cannot run');
      });
    });
  } else {
    // Skipped on purpose: a developer without a server still runs the PGlite half of every
    // claim; CI (above) never gets here.
    describe.skip(`${name} (set DATABASE_URL to run)`, () => body(''));
  }
}

/** Creates a fresh, uniquely named database on the server and returns its URL. */
export async function createDatabase(serverUrl: string, label: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `equisql_${label}_${process.pid}_${Math.floor(performance.now())}`.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: serverUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}
