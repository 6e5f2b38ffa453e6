// @tier long
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, it } from 'vitest';
import { openDatabase, type Database } from '../../generator/database/database.ts';
import { draftModel } from '../../generator/import/draft-model.ts';
import { readDatabaseSource, readSource } from '../../generator/import/read-source.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import { sized } from '../helpers/tiers.ts';
import { checkRandomQueries } from './property-harness.ts';

const CHINOOK = resolve(import.meta.dirname, '../../../shared/databases/chinook/Chinook_Sqlite.sqlite');
/** Random queries per imported model: 150, 600 in the acceptance tier. */
const QUERIES = sized('EQUISQL_NATIVE_QUERIES', 150, 600);

let db: Database;
const tmp = tempDir('property-native');
beforeAll(async () => {
  db = await openDatabase({ kind: 'pglite' });
});
afterAll(async () => {
  await db?.close();
  tmp.remove();
});

// The native variant compiles against the source's own names (quoted, mixed case, keys
// named per table, a timestamp without zone); every preset of the same model must agree.
it.skipIf(!existsSync(CHINOOK))(
  'random conceptual queries agree on the native variant of Chinook and on every preset',
  async () => {
    const { domain } = draftModel(await readSource(CHINOOK), { name: 'chinook' });
    await checkRandomQueries(db, 'chinook', QUERIES, tmp.dir, {
      domain,
      variants: 'native,full_sti,full_cti,full_normalized',
    });
  },
  600_000,
);

// The enum type's values are listed out of alphabetical order: its column is read as text on
// the native variant, so it sorts and compares as the presets' text does.
it('random conceptual queries agree on the native variant of a schema of odd names, an enum type and a child table', async () => {
  await db.exec(`CREATE SCHEMA odd;
    SET search_path TO odd;
    CREATE TYPE "mood kind" AS ENUM ('tense', 'calm');
    CREATE TABLE "select" ("the id" integer PRIMARY KEY, "na""me" varchar(30) NOT NULL, "order" smallint, mood "mood kind", tags text[]);
    CREATE TABLE "my table" (id bigint PRIMARY KEY, "select id" integer NOT NULL REFERENCES "select", "when" date, price numeric(6,2));
    CREATE TABLE "my table tags" ("my table id" bigint REFERENCES "my table", tag text, PRIMARY KEY ("my table id", tag));
    INSERT INTO "select" VALUES (1, 'a', 1, 'calm', '{x,y}'), (2, 'b', 2, 'tense', NULL), (3, 'c', NULL, NULL, '{}');
    INSERT INTO "my table" VALUES (10, 1, '2024-01-02', 3.50), (11, 2, NULL, 12.00), (12, 1, '2024-03-04', NULL);
    INSERT INTO "my table tags" VALUES (10, 'p'), (10, 'q'), (11, 'p');
    RESET search_path;`);
  const { domain } = draftModel(await readDatabaseSource(db, { schema: 'odd' }), { name: 'odd' });
  await checkRandomQueries(db, 'odd', QUERIES, tmp.dir, { domain, variants: 'native,full_sti,full_cti' });
}, 600_000);
