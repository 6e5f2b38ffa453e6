import type { Row } from '../database/database.ts';
import {
  type CatalogProfile,
  type CatalogTable,
  type CatalogType,
  type ColumnProfile,
  DISCRIMINATOR_NAME,
  type DiscriminatorProfile,
  POOL_LIMIT,
} from './catalog.ts';
import { concreteCandidates, keyRegistry, referenceCandidates } from './rules/concrete-tables.ts';

/** Runs one read-only SELECT on the source and returns its rows. */
export type SourceQuery = (sql: string) => Promise<Row[]>;

const ORDERED = new Set<CatalogType['kind']>([
  'smallint',
  'integer',
  'bigint',
  'numeric',
  'real',
  'double',
  'date',
  'timestamp',
  'timestamptz',
]);
const COMPARABLE = new Set<CatalogType['kind']>([...ORDERED, 'text', 'char', 'enum', 'uuid', 'boolean']);

/** Columns profiled per query: four aggregates each stay under both engines' caps. */
const PROFILE_SLICE = 250;

const quote = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/**
 * Reads from the rows what the model's hints say: null counts, distinct counts, ranges and,
 * for columns with few distinct values, every value with its count. Two queries per table
 * (one of aggregates, one listing values of the few-valued columns), plain SQL that
 * PostgreSQL and SQLite both run; `from` names the table as the engine wants it.
 */
export async function profileTable(
  run: SourceQuery,
  table: CatalogTable,
  from: string,
  engine: 'postgres' | 'sqlite',
): Promise<Map<string, ColumnProfile>> {
  const out = new Map<string, ColumnProfile>();
  const asText = (expr: string): string => (engine === 'postgres' ? `(${expr})::text` : `CAST(${expr} AS TEXT)`);
  // A wide table's aggregates are read in slices: SQLite allows 2,000 result columns, PostgreSQL 1,664.
  const totals: Row = {};
  for (let start = 0; start === 0 || start < table.columns.length; start += PROFILE_SLICE) {
    const parts: string[] = ['count(*) AS "n"'];
    table.columns.slice(start, start + PROFILE_SLICE).forEach((c, k) => {
      const i = start + k;
      const col = quote(c.name);
      parts.push(`count(${col}) AS "c${i}"`);
      if (COMPARABLE.has(c.type.kind)) parts.push(`count(DISTINCT ${col}) AS "d${i}"`);
      if (ORDERED.has(c.type.kind))
        parts.push(`${asText(`min(${col})`)} AS "lo${i}"`, `${asText(`max(${col})`)} AS "hi${i}"`);
    });
    const [slice] = await run(`SELECT ${parts.join(', ')} FROM ${from}`);
    Object.assign(totals, slice);
  }
  const rows = Number(totals?.['n'] ?? 0);
  const few: number[] = [];
  table.columns.forEach((c, i) => {
    const nonNull = Number(totals?.[`c${i}`] ?? 0);
    const distinctRaw = totals?.[`d${i}`];
    const distinct = distinctRaw === undefined ? nonNull : Number(distinctRaw);
    const lo = totals?.[`lo${i}`];
    const hi = totals?.[`hi${i}`];
    out.set(c.name, {
      rows,
      nulls: rows - nonNull,
      distinct,
      ...(lo !== undefined && lo !== null ? { min: String(lo) } : {}),
      ...(hi !== undefined && hi !== null ? { max: String(hi) } : {}),
    });
    if (distinctRaw !== undefined && distinct > 0 && distinct <= POOL_LIMIT) few.push(i);
  });
  for (const c of table.columns) {
    if (c.type.kind !== 'json') continue;
    const elements = await jsonArrayElements(run, from, quote(c.name), engine);
    if (elements) out.set(c.name, { ...(out.get(c.name) as ColumnProfile), jsonArrayOf: elements });
  }
  for (const i of few) {
    const c = table.columns[i];
    if (!c) continue;
    const col = quote(c.name);
    const values = await run(
      `SELECT ${asText(col)} AS "v", count(*) AS "n" FROM ${from} WHERE ${col} IS NOT NULL GROUP BY ${col} ORDER BY 2 DESC, 1`,
    );
    const profile = out.get(c.name) as ColumnProfile;
    out.set(c.name, { ...profile, values: values.map((v) => ({ value: String(v['v']), count: Number(v['n']) })) });
  }
  return out;
}

/** Profiles of every table, keyed by table name. */
export async function profileTables(
  run: SourceQuery,
  tables: readonly CatalogTable[],
  from: (table: string) => string,
  engine: 'postgres' | 'sqlite',
): Promise<CatalogProfile> {
  const out = new Map<string, ReadonlyMap<string, ColumnProfile>>();
  for (const t of tables) out.set(t.name, await profileTable(run, t, from(t.name), engine));
  return out;
}

/**
 * For each column that may be a discriminator (a required text or enum column with a
 * discriminator's name and 2 to 12 values), the non-NULL count of every other column per
 * value: what single-table inheritance leaves in the rows.
 */
export async function profileDiscriminators(
  run: SourceQuery,
  tables: readonly CatalogTable[],
  profile: CatalogProfile,
  from: (table: string) => string,
): Promise<Map<string, DiscriminatorProfile[]>> {
  const out = new Map<string, DiscriminatorProfile[]>();
  for (const t of tables) {
    const found: DiscriminatorProfile[] = [];
    for (const c of t.columns) {
      const p = profile.get(t.name)?.get(c.name);
      if (
        c.nullable ||
        !DISCRIMINATOR_NAME.test(c.name) ||
        !['text', 'char', 'enum'].includes(c.type.kind) ||
        !p?.values ||
        p.values.length < 2 ||
        p.values.length > 12
      )
        continue;
      const others = t.columns.filter((o) => o.name !== c.name);
      if (others.length === 0) continue;
      const cast = (expr: string): string => `CAST(${expr} AS TEXT)`;
      const rows = await run(
        `SELECT ${cast(quote(c.name))} AS "v", count(*) AS "n", ${others.map((o, i) => `count(${quote(o.name)}) AS "c${i}"`).join(', ')} FROM ${from(t.name)} GROUP BY ${quote(c.name)}`,
      );
      const byValue = new Map<string, { rows: number; nonNull: Map<string, number> }>();
      for (const r of rows)
        byValue.set(String(r['v']), {
          rows: Number(r['n']),
          nonNull: new Map(others.map((o, i) => [o.name, Number(r[`c${i}`])])),
        });
      found.push({ column: c.name, byValue });
    }
    if (found.length > 0) out.set(t.name, found);
  }
  return out;
}

/**
 * The one JSON type of the elements of a JSON column whose every non-NULL value is an array
 * (how a set of values is stored as JSON), or undefined.
 */
async function jsonArrayElements(
  run: SourceQuery,
  from: string,
  col: string,
  engine: 'postgres' | 'sqlite',
): Promise<ColumnProfile['jsonArrayOf']> {
  const typeOf = engine === 'postgres' ? (x: string) => `jsonb_typeof(${x}::jsonb)` : (x: string) => `json_type(${x})`;
  const [notArrays] = await run(
    `SELECT count(*) AS "n" FROM ${from} WHERE ${col} IS NOT NULL AND ${typeOf(col)} <> 'array'`,
  );
  if (Number(notArrays?.['n'] ?? 1) > 0) return undefined;
  const kinds =
    engine === 'postgres'
      ? await run(
          `SELECT DISTINCT CASE WHEN jsonb_typeof(e) = 'number' AND e::text ~ '^-?[0-9]+$' THEN 'integer' ELSE jsonb_typeof(e) END AS "k" FROM ${from}, jsonb_array_elements(${col}::jsonb) AS e`,
        )
      : await run(
          `SELECT DISTINCT CASE j.type WHEN 'text' THEN 'string' WHEN 'real' THEN 'number' WHEN 'true' THEN 'boolean' WHEN 'false' THEN 'boolean' ELSE j.type END AS "k" FROM ${from}, json_each(${col}) AS j`,
        );
  const found = new Set(kinds.map((k) => String(k['k'])));
  if (found.has('integer') && found.has('number')) found.delete('integer');
  if (found.size !== 1) return undefined;
  const [kind] = [...found];
  return kind === 'string' || kind === 'integer' || kind === 'number' || kind === 'boolean' ? kind : undefined;
}

/**
 * For each foreign key from one table to another that has a possible discriminator, the
 * discriminator values of the rows it references, each referenced row counted once: which subtype a child
 * table's or a subclass table's rows belong to, when the parent keeps its subtypes in one
 * table. Keyed by `referencesKey(table, fk columns)`.
 */
export async function profileReferencedValues(
  run: SourceQuery,
  tables: readonly CatalogTable[],
  discriminators: ReadonlyMap<string, readonly DiscriminatorProfile[]>,
  from: (table: string) => string,
): Promise<Map<string, ReferencedValues[]>> {
  const out = new Map<string, ReferencedValues[]>();
  for (const t of tables) {
    for (const fk of t.foreignKeys) {
      const found = discriminators.get(fk.table);
      if (fk.table === t.name || !found || fk.columns.length !== fk.references.length) continue;
      // Each referenced row once: a child table names its owner once per value.
      const keys = `SELECT DISTINCT ${fk.columns.map(quote).join(', ')} FROM ${from(t.name)}`;
      const on = fk.columns.map((c, i) => `p.${quote(fk.references[i] as string)} = c.${quote(c)}`).join(' AND ');
      const per: ReferencedValues[] = [];
      for (const d of found) {
        const rows = await run(
          `SELECT CAST(p.${quote(d.column)} AS TEXT) AS "v", count(*) AS "n" FROM (${keys}) AS c JOIN ${from(fk.table)} AS p ON ${on} GROUP BY p.${quote(d.column)}`,
        );
        per.push({ column: d.column, values: new Map(rows.map((r) => [String(r['v']), Number(r['n'])])) });
      }
      out.set(referencesKey(t.name, fk.columns), per);
    }
  }
  return out;
}

/** The discriminator values of the rows one foreign key references, by discriminator column. */
export interface ReferencedValues {
  readonly column: string;
  readonly values: ReadonlyMap<string, number>;
}

export const referencesKey = (table: string, columns: readonly string[]): string =>
  `${table}\u0000${columns.join(',')}`;

/**
 * For each foreign key into a table with required boolean columns (which may be class
 * flags), the number of distinct rows it references and, per boolean, how many of them have
 * it set. Keyed by `referencesKey(table, fk columns)`.
 */
export async function profileReferencedFlags(
  run: SourceQuery,
  tables: readonly CatalogTable[],
  from: (table: string) => string,
): Promise<Map<string, ReferencedFlags>> {
  const out = new Map<string, ReferencedFlags>();
  const byName = new Map(tables.map((t) => [t.name, t]));
  for (const t of tables) {
    for (const fk of t.foreignKeys) {
      const flags = byName.get(fk.table)?.columns.filter((c) => c.type.kind === 'boolean' && !c.nullable) ?? [];
      if (fk.table === t.name || flags.length === 0 || fk.columns.length !== fk.references.length) continue;
      const keys = `SELECT DISTINCT ${fk.columns.map(quote).join(', ')} FROM ${from(t.name)}`;
      const on = fk.columns.map((c, i) => `p.${quote(fk.references[i] as string)} = c.${quote(c)}`).join(' AND ');
      const [row] = await run(
        `SELECT count(*) AS "n", ${flags.map((f, i) => `count(CASE WHEN p.${quote(f.name)} THEN 1 END) AS "f${i}"`).join(', ')} FROM (${keys}) AS c JOIN ${from(fk.table)} AS p ON ${on}`,
      );
      out.set(referencesKey(t.name, fk.columns), {
        rows: Number(row?.['n'] ?? 0),
        set: new Map(flags.map((f, i) => [f.name, Number(row?.[`f${i}`] ?? 0)])),
      });
    }
  }
  return out;
}

/** The distinct rows one foreign key references, and how many of them have each boolean set. */
export interface ReferencedFlags {
  readonly rows: number;
  readonly set: ReadonlyMap<string, number>;
}

/**
 * What the rows say of tables that may be concrete tables of one hierarchy: the groups of
 * tables sharing columns (`sameColumnGroups`) whose keys never meet, and, per integer column
 * named like a reference with no foreign key, its distinct values and how
 * many of them are keys of each table of those groups.
 */
export interface ConcreteProfile {
  readonly groups: readonly (readonly string[])[];
  /** By table, then column. */
  readonly references: ReadonlyMap<string, ReadonlyMap<string, ReferenceHits>>;
  /** Per grouped table whose key references a registry, the one kind the registry gives its rows. */
  readonly kinds?: ReadonlyMap<string, string>;
}

/** A reference column's distinct values, and how many of them each grouped table holds as keys. */
export interface ReferenceHits {
  readonly distinct: number;
  readonly found: ReadonlyMap<string, number>;
}

/** Profiles `concreteCandidates`: one query per group for its keys, one per reference column. */
export async function profileConcreteTables(
  run: SourceQuery,
  tables: readonly CatalogTable[],
  from: (table: string) => string,
): Promise<ConcreteProfile> {
  const byName = new Map(tables.map((t) => [t.name, t]));
  const keyOf = (t: string): string => byName.get(t)?.primaryKey?.[0] as string;
  const groups: string[][] = [];
  for (const group of concreteCandidates(tables)) {
    const union = group.map((t) => `SELECT ${quote(keyOf(t))} AS k FROM ${from(t)}`).join(' UNION ALL ');
    const [row] = await run(`SELECT count(*) AS "n", count(DISTINCT k) AS "d" FROM (${union}) AS u`);
    if (Number(row?.['n'] ?? 0) === Number(row?.['d'] ?? -1)) groups.push(group);
  }
  const references = new Map<string, Map<string, ReferenceHits>>();
  const kinds = new Map<string, string>();
  if (groups.length === 0) return { groups, references, kinds };
  const grouped = groups.flat();
  for (const g of grouped) {
    const registry = keyRegistry(byName.get(g) as CatalogTable, byName);
    if (!registry) continue;
    const rows = await run(
      `SELECT DISTINCT r.${quote(registry.column)} AS "v" FROM ${from(g)} AS t JOIN ${from(registry.table)} AS r ON r.${quote(registry.key)} = t.${quote(keyOf(g))}`,
    );
    if (rows.length === 1) kinds.set(g, String(rows[0]?.['v']));
  }
  for (const t of tables) {
    for (const c of referenceCandidates(t, byName)) {
      // A concrete table's own key names its own class.
      if (grouped.includes(t.name) && c === t.primaryKey?.[0]) continue;
      const col = quote(c);
      const hits = grouped.map(
        (g, i) =>
          `count(DISTINCT CASE WHEN ${col} IN (SELECT ${quote(keyOf(g))} FROM ${from(g)}) THEN ${col} END) AS "h${i}"`,
      );
      const [row] = await run(`SELECT count(DISTINCT ${col}) AS "d", ${hits.join(', ')} FROM ${from(t.name)}`);
      const columns = references.get(t.name) ?? new Map<string, ReferenceHits>();
      references.set(t.name, columns);
      columns.set(c, {
        distinct: Number(row?.['d'] ?? 0),
        found: new Map(grouped.map((g, i) => [g, Number(row?.[`h${i}`] ?? 0)])),
      });
    }
  }
  return { groups, references, kinds };
}
