// The three test tiers and the sizes that move between them. `npm test` is the default tier:
// unit and PGlite tests at small sizes, server blocks skipped. `npm run test:server` sets
// EQUISQL_TIER=server and runs the blocks that need DATABASE_URL. `npm run test:acceptance`
// sets EQUISQL_ACCEPTANCE=1: every size declared with `sized` takes its acceptance figure,
// and the server blocks run too. vitest.config.ts picks each tier's files from the same rules.

/** EQUISQL_ACCEPTANCE=1: the acceptance sizes. */
export const ACCEPTANCE = process.env['EQUISQL_ACCEPTANCE'] === '1';

/** Whether the blocks that need a PostgreSQL server belong to this run. */
export const SERVER_TIER = ACCEPTANCE || process.env['EQUISQL_TIER'] === 'server';

/**
 * A test's size: `variable` when it is set (a whole number), else the acceptance figure under
 * EQUISQL_ACCEPTANCE=1, else the small figure of the default tier. A file that calls it runs
 * in the acceptance tier.
 */
export function sized(variable: string, small: number, acceptance: number): number {
  const given = process.env[variable];
  if (given !== undefined && given !== '') {
    const n = Number(given);
    if (!Number.isInteger(n) || n < 0) throw new Error(`${variable}: expected a whole number, got "${given}"`);
    return n;
  }
  return ACCEPTANCE ? acceptance : small;
}
