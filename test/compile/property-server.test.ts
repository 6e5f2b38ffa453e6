import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../generator/database/database.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import { createDatabase, describeServer } from '../helpers/postgres.ts';
import { checkRandomQueries, PROPERTY_QUERIES, REQUIRED_CONSTRUCTS } from './property-harness.ts';

// The same property on a PostgreSQL server: what PGlite agrees on, a server must too (its
// own planner, window and CTE execution, collation). A twentieth of the PGlite draw per domain
// keeps the suite's time; EQUISQL_PROPERTY_QUERIES scales both.
const COUNT = Math.max(20, Math.ceil(PROPERTY_QUERIES / 20));

describeServer('random conceptual queries on a PostgreSQL server', (serverUrl) => {
  let db: Database;
  let drop: () => Promise<void>;
  const tmp = tempDir('property-server');
  beforeAll(async () => {
    const created = await createDatabase(serverUrl, 'property');
    drop = created.drop;
    db = await openDatabase({ kind: 'postgres', url: created.url });
  });
  afterAll(async () => {
    await db?.close();
    await drop?.();
    tmp.remove();
  });

  for (const domain of ['retail', 'social_media']) {
    it(
      `agree on all ten variants of ${domain} over three instances, windows, top-N per group and WITH included`,
      async () => {
        const covered = await checkRandomQueries(db, domain, COUNT, tmp.dir);
        expect([...covered].some((c) => c.startsWith('window:'))).toBe(true);
        // At the PGlite test's size (EQUISQL_PROPERTY_QUERIES=10000 gives 500), every construct.
        if (COUNT >= 500) expect(REQUIRED_CONSTRUCTS.filter((c) => !covered.has(c))).toEqual([]);
      },
      Math.max(600_000, COUNT * 2_500),
    );
  }
});
