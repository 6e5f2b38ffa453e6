/**
 * A database's schema as the importer sees it, whichever engine it came from: tables,
 * columns, keys, constraints, enum types, and what the importer notes but does not model
 * (views, functions, triggers). The PostgreSQL and SQLite readers fill it; the inference
 * rules read only this, so every rule holds for both engines.
 */

/** A column's type, normalized across engines. `sqlType` keeps the source's own spelling. */
export type CatalogType =
  | { readonly kind: 'smallint' }
  | { readonly kind: 'integer' }
  | { readonly kind: 'bigint' }
  | { readonly kind: 'numeric'; readonly precision?: number; readonly scale?: number }
  | { readonly kind: 'real' }
  | { readonly kind: 'double' }
  | { readonly kind: 'text'; readonly length?: number }
  | { readonly kind: 'char'; readonly length: number }
  | { readonly kind: 'boolean' }
  | { readonly kind: 'date' }
  | { readonly kind: 'timestamp' }
  | { readonly kind: 'timestamptz' }
  | { readonly kind: 'uuid' }
  | { readonly kind: 'json' }
  | { readonly kind: 'enum'; readonly typeName: string }
  | { readonly kind: 'array'; readonly element: CatalogType }
  /** Kept in the DDL, never asked about: bytea, tsvector, a domain over something odd. */
  | { readonly kind: 'opaque'; readonly typeName: string };

export interface CatalogColumn {
  readonly name: string;
  /** The type as the source spells it: `character varying(45)`, `text[]`, `mpaa_rating`, `NVARCHAR(120)`. */
  readonly sqlType: string;
  readonly type: CatalogType;
  readonly nullable: boolean;
  /** The default expression, as the source prints it. */
  readonly default?: string;
  /** A generated (computed) column's expression: never an attribute, its value is derived. */
  readonly generated?: string;
  readonly comment?: string;
}

export interface CatalogForeignKey {
  readonly columns: readonly string[];
  readonly table: string;
  readonly references: readonly string[];
  /** Read from the rows, with no constraint in the source: every value is a key of `table` (see `rules/concrete-tables.ts`). */
  readonly inferred?: boolean;
}

/**
 * A table read as one of a hierarchy's concrete tables (see `rules/concrete-tables.ts`): the
 * class table whose columns it copies down, the rows of its class and every class under it,
 * and, for a class the import adds, that it has no table in the source (an abstract class).
 */
export interface ConcreteReading {
  readonly parent?: string;
  readonly rows: number;
  readonly abstract?: boolean;
  /** Of a hierarchy's root: the registry table of every object, its kind column, and the kind of each concrete table's rows. */
  readonly registry?: {
    readonly table: string;
    readonly column: string;
    readonly kinds: Readonly<Record<string, string>>;
  };
  /** This table is a hierarchy's registry: read with its root, not as an entity. */
  readonly isRegistry?: boolean;
}

/** A CHECK constraint; `inList` when it says `column IN (…)` (or `= ANY (ARRAY[…])`). */
export interface CatalogCheck {
  readonly expression: string;
  readonly inList?: { readonly column: string; readonly values: readonly string[] };
}

export interface CatalogTable {
  readonly name: string;
  readonly columns: readonly CatalogColumn[];
  /** Absent when the table has none. */
  readonly primaryKey?: readonly string[];
  /** Unique constraints and unique indexes, composite ones too (the primary key excluded). */
  readonly uniques: readonly (readonly string[])[];
  readonly foreignKeys: readonly CatalogForeignKey[];
  readonly checks: readonly CatalogCheck[];
  /** PostgreSQL `INHERITS` parents. */
  readonly inherits: readonly string[];
  /** A partitioned table's partitions, folded into it (their rows are its rows). */
  readonly partitions: readonly string[];
  readonly comment?: string;
  readonly rowCount: number;
  readonly concrete?: ConcreteReading;
}

export interface CatalogEnum {
  readonly name: string;
  readonly values: readonly string[];
}

/** What the importer notes and leaves out, with its kind, for the report. */
export interface CatalogOther {
  readonly kind: 'view' | 'function' | 'trigger' | 'sequence' | 'partition' | 'table';
  readonly name: string;
  /** Why it is not in the model, when the reader already knows. */
  readonly note?: string;
}

export interface Catalog {
  readonly engine: 'postgres' | 'sqlite';
  /** The source as it is safe to print: a URL without its password, or a file path. */
  readonly source: string;
  /** The PostgreSQL schema read (`main` for SQLite). */
  readonly schema: string;
  readonly tables: readonly CatalogTable[];
  readonly enums: readonly CatalogEnum[];
  readonly others: readonly CatalogOther[];
}

/** What one column's values look like, read from the rows (see `profileColumns`). */
export interface ColumnProfile {
  readonly rows: number;
  readonly nulls: number;
  readonly distinct: number;
  /** Smallest and largest value, as text, for numbers, dates and timestamps. */
  readonly min?: string;
  readonly max?: string;
  /** Every distinct value with its count, when there are few (see `POOL_LIMIT`). */
  readonly values?: readonly { readonly value: string; readonly count: number }[];
  /** Of a JSON column whose every value is an array: the JSON type of the elements, when they share one. */
  readonly jsonArrayOf?: 'string' | 'integer' | 'number' | 'boolean';
}

/** At most this many distinct values are listed in a profile. */
export const POOL_LIMIT = 24;

/** Profiles keyed by `table` then `column`. */
export type CatalogProfile = ReadonlyMap<string, ReadonlyMap<string, ColumnProfile>>;

/**
 * Parses `a IN ('x','y')`, PostgreSQL's `(a = ANY (ARRAY['x'::text, 'y'::text]))`, and for
 * an array column `(a <@ ARRAY['x'::text, 'y'::text])` (every element one of the list).
 */
export function parseInList(expression: string): { column: string; values: string[] } | undefined {
  const text = expression.trim().replace(/^CHECK\s*/iu, '');
  const anyForm =
    /^\(*\s*"?([A-Za-z_][\w$]*|[^"]+)"?(?:::\w+(?:\s\w+)*)?\s*(?:=\s*ANY\s*\(\s*\(?|<@\s*\(?)ARRAY\[(.*)\]/isu.exec(
      text,
    );
  const inForm = /^\(*\s*"?([A-Za-z_][\w$]*|[^"]+)"?(?:::\w+(?:\s\w+)*)?\s+IN\s*\((.*)\)/isu.exec(text);
  const match = anyForm ?? inForm;
  if (!match) return undefined;
  const values: string[] = [];
  const literal = /'((?:[^']|'')*)'/gu;
  let rest = match[2] as string;
  for (let m = literal.exec(rest); m; m = literal.exec(rest)) values.push((m[1] as string).replaceAll("''", "'"));
  rest = rest.replace(literal, '');
  if (values.length === 0 || /\b(AND|OR|SELECT)\b/iu.test(rest)) return undefined;
  return { column: match[1] as string, values };
}

/** A column that may tell a row's subtype: for each of its values, the rows with it and the non-NULL count of every other column. */
export interface DiscriminatorProfile {
  readonly column: string;
  readonly byValue: ReadonlyMap<string, { readonly rows: number; readonly nonNull: ReadonlyMap<string, number> }>;
}

/** Names a discriminator column goes by. */
export const DISCRIMINATOR_NAME =
  /^(type|kind|class|subtype|discriminator|dtype|record_type|entity_type|[a-z_]*_type)$/iu;
