/**
 * A user's database read into an E/R model in one call: the catalog and rows of SOURCE (a
 * `postgres://` URL or a SQLite file, read as `equisql import` reads them) drafted into a
 * validated model. It is the importer a corpus passes to `resolveCorpus` for its database
 * entries; the draft's report is `equisql import`'s to print.
 */
import type { Domain } from '../er-model/er-model.ts';
import { draftModel } from './draft-model.ts';
import { readSource } from './read-source.ts';

/**
 * @example
 * (await importModel('../shared/databases/chinook/Chinook_Sqlite.sqlite')).name; // 'chinook_sqlite'
 */
export async function importModel(source: string): Promise<Domain> {
  return draftModel(await readSource(source)).domain;
}
