/**
 * How a variant's tables are stored in SQLite: a type for every column a preset makes, and
 * each shredded cell (PostgreSQL's text input form) as the SQLite value that holds it.
 *
 * | conceptual type | SQLite column | value |
 * |---|---|---|
 * | id, integer, bigint | `INTEGER` | the integer |
 * | numeric(p,s) | `REAL` | the number (read back with its `s` digits); REAL, so dividing two never truncates |
 * | text, enum | `TEXT` | the text |
 * | boolean | `BOOLEAN` | 1 or 0 |
 * | date | `DATE` | `2024-03-05` |
 * | timestamptz | `TIMESTAMP` | `2024-03-05 07:08:09`, UTC (the text SQLite's date functions read) |
 * | a set (array or JSONB) | `TEXT` | a JSON array: integers as numbers, booleans as true/false, the rest as strings |
 *
 * Keys, unique constraints and foreign keys are declared as in PostgreSQL; the CHECK
 * constraints are PostgreSQL expressions and are not (the read-back proof checks the data).
 */
import { quoteIdent } from '../common/sql-text.ts';
import { ShredError } from '../common/errors.ts';
import type { Column, RelationalSchema, Table } from '../variants/relational-schema.ts';
import { arrayElements } from '../execute/array-text.ts';
import type { Cell } from './shred-rows.ts';

export type SqliteValue = number | bigint | string | null;

/** The SQLite type a column is declared with. */
export function sqliteColumnType(column: Column): string {
  if (column.role.kind === 'nested') return 'TEXT';
  switch (column.valueType.kind) {
    case 'id':
    case 'integer':
    case 'bigint':
      return 'INTEGER';
    case 'numeric':
      return 'REAL';
    case 'boolean':
      return 'BOOLEAN';
    case 'date':
      return 'DATE';
    case 'timestamptz':
    case 'timestamp':
      return 'TIMESTAMP';
    default:
      return 'TEXT';
  }
}

const cols = (names: readonly string[]): string => names.map(quoteIdent).join(', ');

/** Significant digits a REAL holds exactly (an IEEE double holds 15 of any decimal). */
export const REAL_DIGITS = 15;

/**
 * Why SQLite cannot hold a variant with PostgreSQL's meaning, or undefined when it can: a
 * numeric of more than 15 digits would be rounded in a REAL, so its answers could differ
 * from PostgreSQL's where nothing is wrong. Such a variant is built for PostgreSQL only.
 *
 * @example
 * sqliteRefusal(schema) // 'orders.total numeric(20,2): a REAL holds 15 significant digits'
 */
export function sqliteRefusal(schema: RelationalSchema): string | undefined {
  for (const table of schema.tables) {
    for (const column of table.columns) {
      const type = column.valueType;
      if (type.kind === 'numeric' && type.precision > REAL_DIGITS)
        return `${table.name}.${column.name} numeric(${type.precision},${type.scale}): a REAL holds ${REAL_DIGITS} significant digits`;
    }
  }
  return undefined;
}

/** `CREATE TABLE` with columns, keys, unique constraints and foreign keys, as SQLite declares them. */
export function renderSqliteTable(table: Table): string {
  const lines = table.columns.map(
    (c) => `    ${quoteIdent(c.name)} ${sqliteColumnType(c)}${c.nullable ? '' : ' NOT NULL'}`,
  );
  lines.push(`    PRIMARY KEY (${cols(table.primaryKey)})`);
  for (const u of table.uniques) lines.push(`    UNIQUE (${cols(u)})`);
  for (const fk of table.foreignKeys)
    lines.push(`    FOREIGN KEY (${cols(fk.columns)}) REFERENCES ${quoteIdent(fk.table)} (${cols(fk.references)})`);
  return `CREATE TABLE ${quoteIdent(table.name)} (\n${lines.join(',\n')}\n);\n`;
}

/** The whole SQLite DDL of a variant: tables, then indexes on the join columns. */
export function renderSqliteSchema(schema: RelationalSchema): string {
  const out = schema.tables.map(renderSqliteTable);
  for (const t of schema.tables) {
    for (const ix of t.indexes)
      out.push(`CREATE INDEX ${quoteIdent(`${t.name}_${ix.join('_')}_idx`)} ON ${quoteIdent(t.name)} (${cols(ix)});\n`);
  }
  return out.join('\n');
}

/** One shredded cell as the SQLite value that stores it. */
export function sqliteValue(cell: Cell, column: Column, where: string): SqliteValue {
  if (cell === null) return null;
  const role = column.role;
  if (role.kind === 'nested') {
    if (role.encoding === 'jsonb') return cell;
    const elements = arrayElements(cell);
    if (!elements) throw new ShredError(`${where}: column ${column.name}: not an array: ${cell.slice(0, 80)}`);
    return JSON.stringify(elements.map((e) => jsonElement(unquote(e), column)));
  }
  switch (column.valueType.kind) {
    case 'id':
    case 'integer':
      return Number(cell);
    case 'bigint':
      return BigInt(cell);
    case 'numeric':
      return Number(cell);
    case 'boolean':
      return cell === 't' || cell === 'true' ? 1 : 0;
    case 'timestamptz':
      if (!/\+00$/u.test(cell))
        throw new ShredError(`${where}: column ${column.name}: a timestamp not in UTC: ${cell}`);
      return cell.slice(0, -3);
    default:
      return cell;
  }
}

/** An element of PostgreSQL's array text, without its quotes and escapes. */
function unquote(e: string): string {
  return e.startsWith('"') ? e.slice(1, -1).replace(/\\(.)/gu, '$1') : e;
}

function jsonElement(text: string, column: Column): unknown {
  switch (column.valueType.kind) {
    case 'integer':
    case 'bigint':
    case 'id':
      return Number(text);
    case 'boolean':
      return text === 't' || text === 'true';
    case 'timestamptz':
      // Stored as the scalar column stores it: UTC without the offset, so one literal finds both.
      return text.endsWith('+00') ? text.slice(0, -3) : text;
    default:
      return text;
  }
}

/**
 * A stored SQLite value back in the text form PostgreSQL's read-back gives (`readVariant`'s
 * rows): numbers with their scale, booleans as t/f, timestamps with `+00`, and a set as a
 * JSON array of element texts (array encoding) or the JSON itself (JSONB encoding).
 */
export function postgresText(value: unknown, column: Column): string | null {
  if (value === null || value === undefined) return null;
  const role = column.role;
  if (role.kind === 'nested') {
    if (role.encoding === 'jsonb') return String(value);
    const elements = JSON.parse(String(value)) as unknown[];
    const stamp = column.valueType.kind === 'timestamptz';
    return JSON.stringify(elements.map((e) => (e === null ? null : stamp ? `${String(e)}+00` : String(e))));
  }
  const type = column.valueType;
  switch (type.kind) {
    case 'numeric':
      return Number(value).toFixed(type.scale);
    case 'boolean':
      return Number(value) === 1 ? 't' : 'f';
    case 'timestamptz':
      return `${String(value)}+00`;
    case 'timestamp':
      return String(value).replace(/\.0+$/u, '');
    default:
      return String(value);
  }
}
