import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../generator/database/database.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import { createDatabase, describeServer } from '../helpers/postgres.ts';
import { checkRandomQueries, REQUIRED_CONSTRUCTS } from './property-harness.ts';

// The property test on the PostgreSQL server, not only PGlite: the analytic constructs
// (dates, casts, text functions) are where two engines could print or compute differently.
// Fewer queries than the PGlite run, enough that every construct is drawn.
const QUERIES = Number(process.env['EQUISQL_PROPERTY_SERVER_QUERIES'] ?? 300);

describeServer('random conceptual queries on the server', (serverUrl) => {
  let db: Database;
  let drop: () => Promise<void>;
  const tmp = tempDir('property-server');
  beforeAll(async () => {
    const fresh = await createDatabase(serverUrl, 'property');
    drop = fresh.drop;
    db = await openDatabase({ kind: 'postgres', url: fresh.url });
  });
  afterAll(async () => {
    await db?.close();
    await drop?.();
    tmp.remove();
  });
  it.each(['retail', 'social_media'])('%s: agree on all ten variants over three instances, every construct drawn', async (domainName) => {
    const covered = await checkRandomQueries(db, domainName, QUERIES, tmp.dir);
    expect(REQUIRED_CONSTRUCTS.filter((c) => !covered.has(c))).toEqual([]);
  }, 1_800_000);
});
