import { LoadError, oneLine } from '../common/errors.ts';
import { quoteIdent } from '../common/sql-text.ts';
import type { Database } from '../database/database.ts';
import type { RelationalSchema } from '../variants/relational-schema.ts';
import { copyStatement, renderConstraints, renderCreateTables, SESSION_SETTINGS } from '../shred/ddl-writer.ts';
import { copyText, shredTable, type ShredContext } from '../shred/shred-rows.ts';

/** One table's data as COPY text, shredded once and used for both the dump and the load. */
export interface TableData {
  readonly table: string;
  readonly copy: string;
  readonly text: string;
  readonly rows: number;
}

/** Shreds the instance into every table of a variant. */
export function shredVariant(context: ShredContext, schema: RelationalSchema): TableData[] {
  return schema.tables.map((table) => {
    const { text, rows } = copyText(shredTable(context, schema, table));
    return { table: table.name, copy: copyStatement(table), text, rows };
  });
}

/**
 * The dump of a variant: settings, tables, data as `COPY … FROM stdin` blocks, then keys,
 * checks and indexes. Loads with `psql -v ON_ERROR_STOP=1 -f` into any schema.
 */
export function renderDump(schema: RelationalSchema, data: readonly TableData[], header: string): string {
  const parts = [`${header}\n${SESSION_SETTINGS}\n\n${renderCreateTables(schema)}`];
  for (const d of data) parts.push(`\n${d.copy};\n${d.text}\\.\n`);
  parts.push(`\n${renderConstraints(schema)}`);
  return parts.join('');
}

/**
 * Loads a variant into its own PostgreSQL schema, replacing what was there, in one
 * transaction: tables, COPY of every table, then constraints (which also checks the data
 * against every key, foreign key and CHECK).
 */
export async function loadVariant(
  db: Database,
  pgSchema: string,
  schema: RelationalSchema,
  data: readonly TableData[],
): Promise<void> {
  const s = quoteIdent(pgSchema);
  let step = 'creating the schema';
  try {
    await db.exec('BEGIN');
    await db.exec(
      `DROP SCHEMA IF EXISTS ${s} CASCADE; CREATE SCHEMA ${s}; SET LOCAL search_path TO ${s};\n${SESSION_SETTINGS}\n${renderCreateTables(schema)}`,
    );
    for (const d of data) {
      step = `copying into ${d.table}`;
      if (d.rows > 0) await db.copyIn(d.copy, d.text);
    }
    step = 'adding keys, checks and indexes';
    await db.exec(renderConstraints(schema));
    await db.exec('COMMIT');
  } catch (error) {
    await db.exec('ROLLBACK').catch(() => {});
    throw new LoadError(
      `variant ${schema.variant.name} (${db.label}, schema ${pgSchema}): ${step}: ${oneLine(error)}`,
      { cause: error },
    );
  }
}
