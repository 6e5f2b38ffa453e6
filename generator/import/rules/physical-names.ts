import type { OpaqueColumn } from '../../er-model/er-model.ts';
import { isSafeDefault, isSafeExpression, isSqlTypeName } from '../../er-model/physical-sql.ts';
import type { CatalogColumn, CatalogType } from '../catalog.ts';

/**
 * Rule `physical-names`: the PostgreSQL type a column of the source is declared with in the
 * `native` variant. A PostgreSQL source keeps its own types (a domain its base type, which
 * the catalog already reads); a SQLite source gets the PostgreSQL type of its declared
 * affinity and size (`NVARCHAR(120)` is `character varying(120)`, `DATETIME` is
 * `timestamp without time zone`).
 *
 * @example nativeSqlType({ type: { kind: 'char', length: 20 }, … }) // 'character(20)'
 */
export function nativeSqlType(column: CatalogColumn): string {
  const spelled = spell(column.type, column.sqlType);
  // A type the model could not write back (a SQLite type of any text) is kept as bytes are: bytea.
  return isSqlTypeName(spelled) ? spelled : 'bytea';
}

function spell(t: CatalogType, sourceSpelling: string): string {
  switch (t.kind) {
    case 'smallint':
    case 'integer':
    case 'bigint':
    case 'real':
    case 'boolean':
    case 'date':
    case 'uuid':
      return t.kind;
    case 'double':
      return 'double precision';
    case 'numeric':
      return t.precision === undefined ? 'numeric' : `numeric(${t.precision},${t.scale ?? 0})`;
    case 'text':
      return t.length === undefined
        ? /^(character varying|varchar)$/iu.test(sourceSpelling)
          ? 'character varying'
          : 'text'
        : `character varying(${t.length})`;
    case 'char':
      return `character(${t.length})`;
    case 'timestamp':
      return 'timestamp without time zone';
    case 'timestamptz':
      return 'timestamp with time zone';
    case 'json':
      return /jsonb/iu.test(sourceSpelling) ? 'jsonb' : 'json';
    case 'enum':
      return /^[a-z_][a-z0-9_$]*$/u.test(t.typeName) ? t.typeName : `"${t.typeName.replaceAll('"', '""')}"`;
    case 'array':
      return `${spell(t.element, sourceSpelling.replace(/\[\]$/u, ''))}[]`;
    case 'opaque':
      // SQLite's BLOB is PostgreSQL's bytea; any other type is kept as the source spells it.
      return /^blob$/iu.test(t.typeName) ? 'bytea' : t.typeName;
  }
}

/** A column the model leaves out, as the `native` variant keeps it in the DDL. */
export function opaqueColumn(column: CatalogColumn): OpaqueColumn {
  // Only a default or an expression the model may carry (a literal, a clock; the row's own
  // columns and pure functions) is kept: the native DDL runs on the user's database.
  const generated = column.generated !== undefined && isSafeExpression(column.generated) ? column.generated : undefined;
  const fallback = column.default !== undefined && isSafeDefault(column.default) ? column.default : undefined;
  return {
    column: column.name,
    sqlType: nativeSqlType(column),
    nullable: column.nullable || (column.generated !== undefined && generated === undefined),
    ...(generated !== undefined ? { generated } : fallback !== undefined ? { default: fallback } : {}),
  };
}

/** The types a key column can have for the model's integer object ids. */
export function isIntegerKey(column: CatalogColumn | undefined): boolean {
  return column !== undefined && ['smallint', 'integer', 'bigint'].includes(column.type.kind);
}
