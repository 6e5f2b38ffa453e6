import pg from 'pg';
import { describe, it } from 'vitest';
import { SERVER_TIER } from './tiers.ts';

/** The server the suite may use: DATABASE_URL, as `.ci/run` exports it. */
export const SERVER_URL = process.env['DATABASE_URL'];
const IN_CI = Boolean(process.env['CI']);

/**
 * `describe` for tests that need the PostgreSQL server. They belong to the server tier
 * (`npm run test:server`, and the acceptance tier): `npm test` skips them, with or without
 * DATABASE_URL. In their tier they are skipped without DATABASE_URL on a developer's machine,
 * but under CI the block fails instead, so a CI run without its server cannot pass by skipping.
 * The block's name ends in `[server]`, which is how the server tier picks these blocks alone.
 */
export function describeServer(name: string, body: (url: string) => void): void {
  const tagged = `${name} [server]`;
  if (!SERVER_TIER) {
    // Skipped on purpose: the default tier is the unit and PGlite tiers; the server tier runs these.
    describe.skip(`${tagged} (npm run test:server runs it)`, () => body(''));
  } else if (SERVER_URL) {
    describe(tagged, () => body(SERVER_URL));
  } else if (IN_CI) {
    describe(tagged, () => {
      it('has a PostgreSQL server', () => {
        throw new Error('CI is set but DATABASE_URL is not: the server tests cannot run');
      });
    });
  } else {
    // Skipped on purpose: a developer without a server still runs the PGlite half of every
    // claim; CI (above) never gets here.
    describe.skip(`${tagged} (set DATABASE_URL to run)`, () => body(''));
  }
}

/** Creates a fresh, uniquely named database on the server and returns its URL. */
export async function createDatabase(
  serverUrl: string,
  label: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `equisql_${label}_${process.pid}_${Math.floor(performance.now())}`
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, '_');
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
