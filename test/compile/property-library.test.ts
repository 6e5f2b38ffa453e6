// @tier long
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase, type Database } from '../../generator/database/database.ts';
import { parseDomainJson } from '../../generator/er-model/domain-json.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import { REPO_ROOT } from '../helpers/run-cli.ts';
import { checkRandomQueries } from './property-harness.ts';

let db: Database;
const tmp = tempDir('property-library');
beforeAll(async () => {
  db = await openDatabase({ kind: 'pglite' });
});
afterAll(async () => {
  await db?.close();
  tmp.remove();
});

// What the reference domains lack: an overlapping hierarchy (class flags), a one-to-one
// and a self relationship, relationship attributes; over the presets and random variants.
it('random conceptual queries agree on every variant of a domain with overlapping classes and relationship attributes', async () => {
  const domain = parseDomainJson(
    readFileSync(join(REPO_ROOT, 'test/fixtures/er-model/valid/library.json'), 'utf8'),
    'library.json',
  );
  const covered = await checkRandomQueries(db, 'library', 150, tmp.dir, { domain, variants: 'all,random:2' });
  const wanted = ['linkAttribute', 'isA', 'classOf', 'contains', 'elements:left', 'join:left:reverse'];
  expect(wanted.filter((c) => !covered.has(c))).toEqual([]);
}, 600_000);
