// @tier long
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../generator/database/database.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import { checkRandomQueries, PROPERTY_QUERIES, REQUIRED_CONSTRUCTS } from './property-harness.ts';

let db: Database;
const tmp = tempDir('property');
beforeAll(async () => {
  db = await openDatabase({ kind: 'pglite' });
});
afterAll(async () => {
  await db?.close();
  tmp.remove();
});

it('random conceptual queries agree on all ten variants of social_media over three instances', async () => {
  const covered = await checkRandomQueries(db, 'social_media', Math.ceil(PROPERTY_QUERIES / 2), tmp.dir);
  // The draw must have exercised every construct of the IR, or agreement proves little.
  expect(REQUIRED_CONSTRUCTS.filter((c) => !covered.has(c))).toEqual([]);
}, 600_000);
