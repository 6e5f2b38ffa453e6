import Database from 'better-sqlite3';
import type { ErIndex } from '../er-model/er-index.ts';
import { quoteIdent } from '../common/sql-text.ts';
import type { ConceptualInstance } from '../instance/conceptual-instance.ts';
import type { RelationalSchema } from '../variants/relational-schema.ts';
import { postgresText } from '../shred/sqlite-storage.ts';
import { readVariantRows, type VariantContents } from './read-instance.ts';

/**
 * Reads a variant's SQLite file back (opened read-only) and reconstructs the conceptual
 * instance from every row, through the same reconstruction as PostgreSQL's read-back: the
 * file is information-preserving when the instance read equals the instance built.
 *
 * @example
 * instanceHash(await readSqliteInstance('out/retail/sqlite/full_cti.sqlite', schema, index)) === manifest.instance_hash
 */
export async function readSqliteVariant(
  path: string,
  schema: RelationalSchema,
  index: ErIndex,
): Promise<VariantContents> {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return await readVariantRows(schema, index, async (table) => {
      const select = table.columns.map((c) => quoteIdent(c.name)).join(', ');
      const rows = db
        .prepare(
          `SELECT ${select} FROM ${quoteIdent(table.name)} ORDER BY ${table.primaryKey.map(quoteIdent).join(', ')}`,
        )
        .raw()
        .all() as unknown[][];
      return rows.map((row) => table.columns.map((c, i) => postgresText(row[i], c)));
    });
  } finally {
    db.close();
  }
}

export async function readSqliteInstance(
  path: string,
  schema: RelationalSchema,
  index: ErIndex,
): Promise<ConceptualInstance> {
  return (await readSqliteVariant(path, schema, index)).instance;
}
