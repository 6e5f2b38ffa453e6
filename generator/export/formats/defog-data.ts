/**
 * The export's databases as sql-eval reads its own: a Python package `defog_data` under
 * `evaluators/defog/`, in the shape of defog's `defog-data` (`metadata.dbs`, `supplementary.
 * columns_join`). sql-eval's runner looks every question's `db_name` up in that package (its
 * table list for the alias hint, its glossary, and, when the questions file gives no
 * `table_metadata_string`, its columns for the prompt), so on `db_id`s it does not know it
 * stops with a `KeyError`. With `PYTHONPATH=DIR/evaluators/defog` this package stands in
 * for defog's own, and the runner runs unchanged on the export (docs/evaluators.md).
 *
 * The metadata is the variant's relational schema: each table's columns in order, with the
 * column's type and a description that names its key and its reference; the joinable
 * columns are the foreign keys. Names are written as SQL must write them (`"user"`): sql-eval
 * pastes them into the prompt's DDL as they are, and an unquoted `user` there would read as
 * PostgreSQL's `current_user`.
 */
import { quoteIdent } from '../../common/sql-text.ts';
import type { RelationalSchema } from '../../variants/relational-schema.ts';
import { EVALUATOR_DIR, type EvaluatorFile } from './evaluator-file.ts';

/** The package's folder, relative to the export. */
export const DEFOG_DATA_DIR = `${EVALUATOR_DIR}/defog/defog_data`;

/** One column as defog-data lists it. */
export interface DefogColumn {
  readonly column_name: string;
  readonly data_type: string;
  readonly column_description: string;
}

/** One database as `defog_data.metadata.dbs` holds it. */
export interface DefogDatabase {
  readonly table_metadata: Readonly<Record<string, readonly DefogColumn[]>>;
  readonly glossary: string;
}

/** A join as the package's JSON holds it: the two tables, then the column pairs (`table.column`). */
export type DefogJoin = readonly [string, string, readonly (readonly [string, string])[]];

/**
 * The metadata of one variant: every table, its columns in the DDL's order.
 *
 * @example
 * defogDatabase(schema).table_metadata.streamer[0];
 * // { column_name: 'id', data_type: 'integer', column_description: 'primary key, references creator_account(id)' }
 */
export function defogDatabase(schema: RelationalSchema): DefogDatabase {
  const tables: Record<string, DefogColumn[]> = {};
  for (const t of schema.tables) {
    tables[quoteIdent(t.name)] = t.columns.map((c) => {
      const notes: string[] = [];
      if (t.primaryKey.includes(c.name))
        notes.push(t.primaryKey.length === 1 ? 'primary key' : 'part of the primary key');
      for (const fk of t.foreignKeys) {
        const at = fk.columns.indexOf(c.name);
        if (at >= 0) notes.push(`references ${quoteIdent(fk.table)}(${quoteIdent(fk.references[at] as string)})`);
      }
      if (!c.nullable && !t.primaryKey.includes(c.name)) notes.push('not null');
      return { column_name: quoteIdent(c.name), data_type: c.sqlType, column_description: notes.join(', ') };
    });
  }
  return { table_metadata: tables, glossary: '' };
}

/** The joinable columns of one variant: a pair per foreign-key column, grouped by the two tables (a table's several references to one table share its entry). */
export function defogJoins(schema: RelationalSchema): DefogJoin[] {
  const byPair = new Map<string, [string, string, (readonly [string, string])[]]>();
  for (const t of schema.tables)
    for (const fk of t.foreignKeys) {
      const [from, to] = [quoteIdent(t.name), quoteIdent(fk.table)];
      const key = `${from}\u0000${to}`;
      const entry = byPair.get(key) ?? [from, to, []];
      byPair.set(key, entry);
      fk.columns.forEach((c, i) => {
        entry[2].push([`${from}.${quoteIdent(c)}`, `${to}.${quoteIdent(fk.references[i] as string)}`]);
      });
    }
  return [...byPair.values()];
}

const INIT_PY = `"""The databases of an equisql export, in the shape sql-eval reads defog-data in.

Put the folder that holds this package first on PYTHONPATH to run sql-eval on the export.
"""
`;

const METADATA_PY = `"""dbs: db_id -> {"table_metadata": {table: [column, ...]}, "glossary": str}."""
import json
import pathlib

dbs = json.loads(pathlib.Path(__file__).with_name("metadata.json").read_text(encoding="utf-8"))
`;

const SUPPLEMENTARY_PY = `"""columns_join: db_id -> {(table, table): [("table.column", "table.column"), ...]}."""
import json
import pathlib

_joins = json.loads(pathlib.Path(__file__).with_name("columns_join.json").read_text(encoding="utf-8"))
columns_join = {
    db: {(a, b): [tuple(pair) for pair in pairs] for a, b, pairs in joins}
    for db, joins in _joins.items()
}
`;

/**
 * The package's files for the databases `schemas` (db_id → its relational schema), in db_id
 * order so that the same export writes the same bytes.
 */
export function defogDataFiles(schemas: ReadonlyMap<string, RelationalSchema>): EvaluatorFile[] {
  const ids = [...schemas.keys()].sort();
  const metadata = Object.fromEntries(ids.map((id) => [id, defogDatabase(schemas.get(id) as RelationalSchema)]));
  const joins = Object.fromEntries(ids.map((id) => [id, defogJoins(schemas.get(id) as RelationalSchema)]));
  const file = (name: string, text: string, count: number): EvaluatorFile => ({
    rel: `${DEFOG_DATA_DIR}/${name}`,
    lines: [text],
    count,
  });
  return [
    file('__init__.py', INIT_PY, 1),
    file('metadata.py', METADATA_PY, 1),
    file('supplementary.py', SUPPLEMENTARY_PY, 1),
    file('metadata.json', `${JSON.stringify(metadata, null, 1)}\n`, ids.length),
    file('columns_join.json', `${JSON.stringify(joins)}\n`, ids.length),
  ];
}
