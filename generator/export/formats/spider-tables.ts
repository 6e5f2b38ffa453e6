/**
 * `evaluators/sqlite/tables.json`: the SQLite layout's databases in Spider's schema file
 * format, the `--table` file of Spider's evaluator (its exact-set match reads the foreign keys
 * from it) and the schema file most text-to-SQL training code reads beside `train.json`.
 * Each entry is read off the database file the layout ships, so it says what the evaluator
 * will find there: tables in the file's order, columns numbered from 1 after Spider's
 * `[-1, "*"]`, a type of Spider's five, primary keys and foreign keys by column number.
 */
import Database from 'better-sqlite3';
import { EVALUATOR_DIR } from './evaluator-file.ts';

/** Where the layout's `tables.json` goes, relative to the export. */
export const SPIDER_TABLES_FILE = `${EVALUATOR_DIR}/sqlite/tables.json`;

/** One database as Spider's `tables.json` lists it. */
export interface SpiderTables {
  readonly db_id: string;
  readonly table_names_original: readonly string[];
  /** The names as words: lower case, `_` as a space. */
  readonly table_names: readonly string[];
  /** `[table index, column name]`, the first `[-1, "*"]`. */
  readonly column_names_original: readonly (readonly [number, string])[];
  readonly column_names: readonly (readonly [number, string])[];
  readonly column_types: readonly ('text' | 'number' | 'time' | 'boolean' | 'others')[];
  /** The column numbers of every table's primary key, a key of several columns giving each (as Spider's own file does). */
  readonly primary_keys: readonly number[];
  /** `[column, referenced column]` by number, a pair for each column of each foreign key. */
  readonly foreign_keys: readonly (readonly [number, number])[];
}

/** Spider's type for a SQLite declared type. */
export function spiderType(declared: string): SpiderTables['column_types'][number] {
  const t = declared.toUpperCase();
  if (/BOOL/u.test(t)) return 'boolean';
  if (/DATE|TIME/u.test(t)) return 'time';
  if (/INT|REAL|NUM|DEC|FLOA|DOUB/u.test(t)) return 'number';
  if (/CHAR|TEXT|CLOB/u.test(t)) return 'text';
  return 'others';
}

const words = (name: string): string => name.toLowerCase().replaceAll('_', ' ');

interface ColumnInfo {
  readonly name: string;
  readonly type: string;
  readonly pk: number;
}

interface ForeignKeyInfo {
  readonly id: number;
  readonly table: string;
  readonly from: string;
  readonly to: string | null;
}

/**
 * The `tables.json` entry of one SQLite file.
 *
 * @example
 * spiderTables('social_media/full_sti', 'sqlite/full_sti.sqlite').table_names_original; // ['accounts', 'content_items', …]
 */
export function spiderTables(dbId: string, file: string): SpiderTables {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'")
      .pluck()
      .all() as string[];
    const columns: [number, string][] = [[-1, '*']];
    const types: SpiderTables['column_types'][number][] = ['text'];
    const number = new Map<string, number>();
    const primaryKeys: number[] = [];
    tables.forEach((table, t) => {
      const info = db.prepare('SELECT name, type, pk FROM pragma_table_info(?)').all(table) as ColumnInfo[];
      const key: [number, number][] = [];
      for (const c of info) {
        number.set(`${table}\u0000${c.name}`, columns.length);
        if (c.pk > 0) key.push([c.pk, columns.length]);
        columns.push([t, c.name]);
        types.push(spiderType(c.type));
      }
      primaryKeys.push(...key.sort((a, b) => a[0] - b[0]).map(([, n]) => n));
    });
    const foreignKeys: [number, number][] = [];
    for (const table of tables) {
      const fks = db
        .prepare('SELECT id, "table", "from", "to" FROM pragma_foreign_key_list(?)')
        .all(table) as ForeignKeyInfo[];
      for (const fk of fks) {
        const from = number.get(`${table}\u0000${fk.from}`);
        const to = fk.to === null ? undefined : number.get(`${fk.table}\u0000${fk.to}`);
        if (from !== undefined && to !== undefined) foreignKeys.push([from, to]);
      }
    }
    return {
      db_id: dbId,
      table_names_original: tables,
      table_names: tables.map(words),
      column_names_original: columns,
      column_names: columns.map(([t, c]) => [t, t < 0 ? c : words(c)] as const),
      column_types: types,
      primary_keys: primaryKeys,
      foreign_keys: foreignKeys,
    };
  } finally {
    db.close();
  }
}
