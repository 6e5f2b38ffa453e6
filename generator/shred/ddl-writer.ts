import { quoteIdent, quoteLiteral } from '../common/sql-text.ts';
import type { OpaqueColumn } from '../er-model/er-model.ts';
import type { RelationalSchema, Table } from '../variants/relational-schema.ts';

const cols = (names: readonly string[]): string => names.map(quoteIdent).join(', ');

/** Session settings every dump and load runs under, so values read and print the same. */
export const SESSION_SETTINGS = [
  "SET client_encoding = 'UTF8';",
  'SET standard_conforming_strings = on;',
  "SET TimeZone = 'UTC';",
  "SET DateStyle = 'ISO, YMD';",
].join('\n');

/**
 * `CREATE TABLE` statements with columns and NULL-ness only. Keys, checks and indexes come
 * after the data (see `renderConstraints`), as a dump loads fastest that way.
 * Names are unqualified: the caller's search_path decides the schema.
 */
export function renderCreateTables(schema: RelationalSchema): string {
  const types = (schema.enumTypes ?? []).map(
    (t) => `CREATE TYPE ${t.name} AS ENUM (${t.values.map(quoteLiteral).join(', ')});\n`,
  );
  return [...types, ...schema.tables.map(renderCreateTable)].join('\n');
}

export function renderCreateTable(table: Table): string {
  const lines = table.columns.map((c) => `    ${quoteIdent(c.name)} ${c.sqlType}${c.nullable ? '' : ' NOT NULL'}`);
  for (const o of table.opaque ?? []) lines.push(`    ${quoteIdent(o.column)} ${opaqueDefinition(o)}`);
  return `CREATE TABLE ${quoteIdent(table.name)} (\n${lines.join(',\n')}\n);\n`;
}

/**
 * An opaque column as the source declares it. Nothing writes it, so a required one without
 * a default of its own (Pagila's `film.fulltext`, filled by a trigger there) starts empty.
 */
function opaqueDefinition(o: OpaqueColumn): string {
  if (o.generated !== undefined) return `${o.sqlType} GENERATED ALWAYS AS (${o.generated}) STORED`;
  const fill = o.default ?? (o.nullable ? undefined : `''`);
  return `${o.sqlType}${fill !== undefined ? ` DEFAULT ${fill}` : ''}${o.nullable ? '' : ' NOT NULL'}`;
}

/** Primary keys, unique and check constraints, then foreign keys, then indexes. */
export function renderConstraints(schema: RelationalSchema): string {
  const out: string[] = [];
  for (const t of schema.tables) {
    const name = quoteIdent(t.name);
    out.push(`ALTER TABLE ${name} ADD PRIMARY KEY (${cols(t.primaryKey)});`);
    for (const u of t.uniques) out.push(`ALTER TABLE ${name} ADD UNIQUE (${cols(u)});`);
    for (const c of t.checks) out.push(`ALTER TABLE ${name} ADD CHECK (${c});`);
  }
  for (const t of schema.tables) {
    for (const fk of t.foreignKeys) {
      out.push(
        `ALTER TABLE ${quoteIdent(t.name)} ADD FOREIGN KEY (${cols(fk.columns)}) REFERENCES ${quoteIdent(fk.table)} (${cols(fk.references)});`,
      );
    }
  }
  for (const t of schema.tables) {
    for (const ix of t.indexes) out.push(`CREATE INDEX ON ${quoteIdent(t.name)} (${cols(ix)});`);
  }
  return `${out.join('\n')}\n`;
}

/** The whole DDL of a variant, as written to `schemas/<variant>.sql`. */
export function renderSchemaFile(schema: RelationalSchema, header: string): string {
  return `${header}\n${SESSION_SETTINGS}\n\n${renderCreateTables(schema)}\n${renderConstraints(schema)}`;
}

/** The `COPY … FROM stdin` line for a table's data. */
export function copyStatement(table: Table, source = 'stdin'): string {
  return `COPY ${quoteIdent(table.name)} (${cols(table.columns.map((c) => c.name))}) FROM ${source}`;
}
