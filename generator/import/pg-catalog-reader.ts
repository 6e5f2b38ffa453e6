import { LoadError } from '../common/errors.ts';
import type { Database, Row } from '../database/database.ts';
import {
  type Catalog,
  type CatalogCheck,
  type CatalogColumn,
  type CatalogForeignKey,
  type CatalogOther,
  type CatalogTable,
  type CatalogType,
  parseInList,
} from './catalog.ts';

/** What to read from a PostgreSQL database. */
export interface PgReadOptions {
  /** The schema to read (default `public`). */
  readonly schema?: string;
  /** Only these tables (and nothing they reference outside the list is followed). */
  readonly tables?: readonly string[];
}

const text = (value: unknown): string => (value === null || value === undefined ? '' : String(value));
const optionalText = (value: unknown): string | undefined =>
  value === null || value === undefined || value === '' ? undefined : String(value);
const list = (value: unknown): string[] =>
  value === null || value === undefined ? [] : (JSON.parse(String(value)) as string[]);

/**
 * Reads one schema's catalog from PostgreSQL. Every statement is a SELECT on the system
 * catalogs; the caller runs it inside a READ ONLY transaction (`readPostgresSource`), so
 * nothing in the source is created or changed.
 */
export async function readPgCatalog(db: Database, options: PgReadOptions = {}): Promise<Catalog> {
  const schema = options.schema ?? 'public';
  const [ns] = await db.query('SELECT oid::text AS oid FROM pg_namespace WHERE nspname = $1', [schema]);
  if (!ns) throw new LoadError(`${db.label}: no schema "${schema}" (give the one to read with --schema)`);
  const nsOid = text(ns['oid']);

  const classes = await db.query(
    `SELECT c.oid::text AS oid, c.relname AS name, c.relkind::text AS kind, c.relispartition::text AS partition,
            obj_description(c.oid, 'pg_class') AS comment
       FROM pg_class c WHERE c.relnamespace = $1::oid AND c.relkind IN ('r','p','v','m','S','f') ORDER BY c.relname`,
    [nsOid],
  );
  const wanted = options.tables ? new Set(options.tables) : undefined;
  if (wanted) {
    const known = new Set(classes.map((c) => text(c['name'])));
    const missing = [...wanted].filter((t) => !known.has(t));
    if (missing.length > 0)
      throw new LoadError(`${db.label}: no table ${missing.map((m) => `"${m}"`).join(', ')} in schema "${schema}"`);
  }
  const others: CatalogOther[] = [];
  const tableRows: Row[] = [];
  for (const c of classes) {
    const name = text(c['name']);
    const kind = text(c['kind']);
    if (kind === 'v' || kind === 'm')
      others.push({
        kind: 'view',
        name,
        note:
          kind === 'm'
            ? 'a materialized view: derived rows, not stored facts'
            : 'a view: derived rows, not stored facts',
      });
    else if (kind === 'S') others.push({ kind: 'sequence', name, note: 'a sequence: key numbering, not data' });
    else if (kind === 'f') others.push({ kind: 'table', name, note: 'a foreign table: its rows live elsewhere' });
    else if (text(c['partition']) === 'true') continue;
    else if (!wanted || wanted.has(name)) tableRows.push(c);
  }
  const oids = tableRows.map((c) => text(c['oid']));

  const columnRows = await db.query(
    `SELECT a.attrelid::text AS rel, a.attname AS name, format_type(a.atttypid, a.atttypmod) AS sql_type,
            t.typtype::text AS typtype, t.typname AS typname, (a.attnotnull)::text AS notnull,
            pg_get_expr(d.adbin, d.adrelid) AS def, a.attgenerated::text AS generated,
            col_description(a.attrelid, a.attnum) AS comment,
            CASE WHEN t.typtype = 'd' THEN format_type(t.typbasetype, t.typtypmod) END AS base_type,
            et.typtype::text AS elem_typtype, et.typname AS elem_typname
       FROM pg_attribute a
       JOIN pg_type t ON t.oid = a.atttypid
       LEFT JOIN pg_type et ON et.oid = t.typelem AND t.typcategory = 'A'
       LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
      WHERE a.attrelid = ANY($1::oid[]) AND a.attnum > 0 AND NOT a.attisdropped
      ORDER BY a.attrelid, a.attnum`,
    [`{${oids.join(',')}}`],
  );
  const constraintRows = await db.query(
    `SELECT c.conrelid::text AS rel, c.contype::text AS type, c.confrelid::regclass::text AS ref,
            (SELECT array_to_json(array_agg(a.attname ORDER BY k.i))::text FROM unnest(c.conkey) WITH ORDINALITY k(n, i)
               JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n) AS cols,
            (SELECT array_to_json(array_agg(a.attname ORDER BY k.i))::text FROM unnest(c.confkey) WITH ORDINALITY k(n, i)
               JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n) AS ref_cols,
            (SELECT relname FROM pg_class WHERE oid = c.confrelid) AS ref_name,
            (SELECT relnamespace::text FROM pg_class WHERE oid = c.confrelid) AS ref_ns,
            (SELECT relnamespace::regnamespace::text FROM pg_class WHERE oid = c.confrelid) AS ref_schema,
            pg_get_constraintdef(c.oid) AS def
       FROM pg_constraint c WHERE c.conrelid = ANY($1::oid[]) AND c.contype IN ('p','u','f','c')
      ORDER BY c.conrelid, c.contype, c.conname`,
    [`{${oids.join(',')}}`],
  );
  // Unique indexes that no constraint declares still make a column set a key.
  const indexRows = await db.query(
    `SELECT i.indrelid::text AS rel,
            (SELECT array_to_json(array_agg(a.attname ORDER BY k.i))::text FROM unnest(i.indkey) WITH ORDINALITY k(n, i)
               JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.n) AS cols
       FROM pg_index i
      WHERE i.indrelid = ANY($1::oid[]) AND i.indisunique AND NOT i.indisprimary AND i.indexprs IS NULL AND i.indpred IS NULL
        AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)`,
    [`{${oids.join(',')}}`],
  );
  const inheritRows = await db.query(
    `SELECT h.inhrelid::text AS child, p.relname AS parent, c.relname AS child_name, c.relispartition::text AS partition
       FROM pg_inherits h JOIN pg_class p ON p.oid = h.inhparent JOIN pg_class c ON c.oid = h.inhrelid
      WHERE h.inhparent = ANY($1::oid[]) OR h.inhrelid = ANY($1::oid[]) ORDER BY c.relname`,
    [`{${oids.join(',')}}`],
  );
  const countRows: number[] = [];
  for (const c of tableRows) {
    const [row] = await db.query(`SELECT count(*)::text AS n FROM ${qualified(schema, text(c['name']))}`);
    countRows.push(Number(text(row?.['n'])));
  }
  const enumRows = await db.query(
    `SELECT t.typname AS name, array_to_json(array_agg(e.enumlabel ORDER BY e.enumsortorder))::text AS labels
       FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid
      WHERE t.typnamespace = $1::oid GROUP BY t.typname ORDER BY t.typname`,
    [nsOid],
  );
  const functionRows = await db.query(
    `SELECT p.proname AS name, p.prokind::text AS kind FROM pg_proc p WHERE p.pronamespace = $1::oid ORDER BY p.proname`,
    [nsOid],
  );
  const triggerRows = await db.query(
    `SELECT t.tgname AS name, c.relname AS rel FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
      WHERE c.relnamespace = $1::oid AND NOT t.tgisinternal ORDER BY c.relname, t.tgname`,
    [nsOid],
  );

  // A partitioned table's foreign keys may be declared on each partition only (Pagila's
  // payment): a key every partition holds is the parent's.
  const partitionOids = inheritRows.filter((r) => text(r['partition']) === 'true').map((r) => text(r['child']));
  const partitionKeys =
    partitionOids.length === 0
      ? []
      : await db.query(
          `SELECT c.conrelid::text AS rel, (SELECT relname FROM pg_class WHERE oid = c.confrelid) AS ref_name,
            (SELECT relnamespace::text FROM pg_class WHERE oid = c.confrelid) AS ref_ns,
            (SELECT relnamespace::regnamespace::text FROM pg_class WHERE oid = c.confrelid) AS ref_schema,
            (SELECT array_to_json(array_agg(a.attname ORDER BY k.i))::text FROM unnest(c.conkey) WITH ORDINALITY k(n, i)
               JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n) AS cols,
            (SELECT array_to_json(array_agg(a.attname ORDER BY k.i))::text FROM unnest(c.confkey) WITH ORDINALITY k(n, i)
               JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n) AS ref_cols
       FROM pg_constraint c WHERE c.conrelid = ANY($1::oid[]) AND c.contype = 'f' ORDER BY c.conname`,
          [`{${partitionOids.join(',')}}`],
        );
  const enumNames = new Set(enumRows.map((e) => text(e['name'])));
  const tables: CatalogTable[] = tableRows.map((c, i) => {
    const oid = text(c['oid']);
    const columns: CatalogColumn[] = columnRows
      .filter((r) => text(r['rel']) === oid)
      .map((r) => pgColumn(r, enumNames));
    const cons = constraintRows.filter((r) => text(r['rel']) === oid);
    const primary = cons.find((r) => text(r['type']) === 'p');
    const checks: CatalogCheck[] = cons
      .filter((r) => text(r['type']) === 'c')
      .map((r) => {
        const expression = text(r['def']);
        const inList = parseInList(expression);
        return inList ? { expression, inList } : { expression };
      });
    const inheritsFrom = inheritRows
      .filter((r) => text(r['child']) === oid && text(r['partition']) !== 'true')
      .map((r) => text(r['parent']));
    const partitions = inheritRows
      .filter((r) => text(r['parent']) === text(c['name']) && text(r['partition']) === 'true')
      .map((r) => text(r['child_name']));
    const comment = optionalText(c['comment']);
    return {
      name: text(c['name']),
      columns,
      ...(primary ? { primaryKey: list(primary['cols']) } : {}),
      uniques: [
        ...cons.filter((r) => text(r['type']) === 'u').map((r) => list(r['cols'])),
        ...indexRows.filter((r) => text(r['rel']) === oid).map((r) => list(r['cols'])),
      ],
      foreignKeys: withPartitionKeys(
        cons
          .filter((r) => text(r['type']) === 'f')
          .map((r) => ({
            columns: list(r['cols']),
            table: referencedTable(r, nsOid),
            references: list(r['ref_cols']),
          })),
        inheritRows
          .filter((r) => text(r['parent']) === text(c['name']) && text(r['partition']) === 'true')
          .map((r) => partitionKeys.filter((k) => text(k['rel']) === text(r['child']))),
        nsOid,
      ),
      checks,
      inherits: inheritsFrom,
      partitions,
      ...(comment ? { comment } : {}),
      rowCount: countRows[i] ?? 0,
    };
  });
  for (const t of tables)
    for (const p of t.partitions)
      others.push({ kind: 'partition', name: p, note: `a partition of ${t.name}, folded into it` });
  for (const f of functionRows)
    others.push({
      kind: 'function',
      name: text(f['name']),
      note: text(f['kind']) === 'p' ? 'a procedure: code, not data' : 'a function: code, not data',
    });
  for (const t of triggerRows)
    others.push({
      kind: 'trigger',
      name: `${text(t['rel'])}.${text(t['name'])}`,
      note: 'a trigger: behaviour on write, not data',
    });
  return {
    engine: 'postgres',
    source: db.label,
    schema,
    tables,
    enums: enumRows.map((e) => ({ name: text(e['name']), values: list(e['labels']) })),
    others,
  };
}

function withPartitionKeys(own: CatalogForeignKey[], perPartition: Row[][], nsOid: string): CatalogForeignKey[] {
  const out = [...own];
  for (const k of perPartition.flat()) {
    const fk = { columns: list(k['cols']), table: referencedTable(k, nsOid), references: list(k['ref_cols']) };
    if (!out.some((o) => o.table === fk.table && o.columns.join() === fk.columns.join())) out.push(fk);
  }
  return out;
}

/**
 * The table a foreign key references: its bare name in the schema read, and qualified by its
 * own schema (`other.b`) elsewhere, so it never stands for a table of the same name here.
 */
function referencedTable(r: Row, nsOid: string): string {
  return text(r['ref_ns']) === nsOid ? text(r['ref_name']) : `${text(r['ref_schema'])}.${text(r['ref_name'])}`;
}

/** A table's name qualified by its schema, both quoted. */
export function qualified(schema: string, table: string): string {
  return `"${schema.replaceAll('"', '""')}"."${table.replaceAll('"', '""')}"`;
}

function pgColumn(r: Row, enumNames: ReadonlySet<string>): CatalogColumn {
  const sqlType = text(r['sql_type']);
  const typtype = text(r['typtype']);
  let type: CatalogType;
  if (typtype === 'e') type = { kind: 'enum', typeName: text(r['typname']) };
  // An array of an enum of a schema off the search path prints qualified (`sales.mood[]`).
  else if (text(r['elem_typtype']) === 'e')
    type = { kind: 'array', element: { kind: 'enum', typeName: text(r['elem_typname']) } };
  else if (typtype === 'd') type = pgType(text(r['base_type']), enumNames);
  else type = pgType(sqlType, enumNames);
  const def = optionalText(r['def']);
  const generated = text(r['generated']);
  const comment = optionalText(r['comment']);
  return {
    name: text(r['name']),
    sqlType,
    type,
    nullable: text(r['notnull']) !== 'true',
    ...(def !== undefined && generated !== 's' ? { default: def } : {}),
    ...(generated === 's' && def !== undefined ? { generated: def } : {}),
    ...(comment ? { comment } : {}),
  };
}

/**
 * The neutral type of a PostgreSQL type as `format_type` prints it.
 *
 * @example pgType('character varying(45)', new Set()) // { kind: 'text', length: 45 }
 * @example pgType('text[]', new Set())                // { kind: 'array', element: { kind: 'text' } }
 */
export function pgType(sqlType: string, enumNames: ReadonlySet<string>): CatalogType {
  if (sqlType.endsWith('[]')) return { kind: 'array', element: pgType(sqlType.slice(0, -2), enumNames) };
  const bare = sqlType.replace(/^"(.*)"$/u, '$1');
  if (enumNames.has(bare)) return { kind: 'enum', typeName: bare };
  const sized = /^(character varying|varchar|character|char|bpchar|numeric|decimal)(?:\((\d+)(?:,\s*(\d+))?\))?$/u.exec(
    sqlType,
  );
  if (sized) {
    const [, base, a, b] = sized;
    if (base === 'numeric' || base === 'decimal')
      return a === undefined ? { kind: 'numeric' } : { kind: 'numeric', precision: Number(a), scale: Number(b ?? 0) };
    if (base === 'character varying' || base === 'varchar')
      return a === undefined ? { kind: 'text' } : { kind: 'text', length: Number(a) };
    return { kind: 'char', length: a === undefined ? 1 : Number(a) };
  }
  switch (sqlType) {
    case 'smallint':
      return { kind: 'smallint' };
    case 'integer':
      return { kind: 'integer' };
    case 'bigint':
      return { kind: 'bigint' };
    case 'real':
      return { kind: 'real' };
    case 'double precision':
      return { kind: 'double' };
    case 'text':
    case 'citext':
    case 'name':
      return { kind: 'text' };
    case 'boolean':
      return { kind: 'boolean' };
    case 'date':
      return { kind: 'date' };
    case 'timestamp without time zone':
      return { kind: 'timestamp' };
    case 'timestamp with time zone':
      return { kind: 'timestamptz' };
    case 'uuid':
      return { kind: 'uuid' };
    case 'json':
    case 'jsonb':
      return { kind: 'json' };
    default:
      return { kind: 'opaque', typeName: sqlType };
  }
}
