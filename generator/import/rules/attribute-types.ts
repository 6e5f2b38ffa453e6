import type { AttributeType } from '../../er-model/er-model.ts';
import type { CatalogColumn, CatalogType, ColumnProfile } from '../catalog.ts';

/** A column's attribute type, or why it has none. */
export type TypeReading =
  | { readonly type: AttributeType; readonly multiValued?: 'array' | 'json'; readonly approximated?: string }
  | { readonly leftOut: string };

/**
 * Rule `column-type`: the model type of a column. The model's types are fewer than the
 * engines' (it has no smallint, uuid, char(n) or floating
 * point): such a column gets the nearest type and the reading says so, for review. A
 * column of a type the model cannot ask about (bytea, tsvector, a JSON document) is left
 * out, with the reason. An array of a scalar is a multi-valued attribute.
 *
 * @example columnType({ type: { kind: 'smallint' }, … }).approximated // 'smallint read as integer'
 */
export function columnType(
  column: CatalogColumn,
  enums: ReadonlyMap<string, readonly string[]>,
  profile?: ColumnProfile,
): TypeReading {
  const t = column.type;
  // Rule `json-array`: a JSON column holding only arrays of one element type is a set of values.
  if (t.kind === 'json' && profile?.jsonArrayOf !== undefined) {
    const element: AttributeType =
      profile.jsonArrayOf === 'string'
        ? { kind: 'text' }
        : profile.jsonArrayOf === 'integer'
          ? { kind: 'integer' }
          : profile.jsonArrayOf === 'boolean'
            ? { kind: 'boolean' }
            : { kind: 'numeric', precision: 15, scale: 4 };
    return {
      type: element,
      multiValued: 'json',
      ...(profile.jsonArrayOf === 'number' ? { approximated: 'JSON numbers read as numeric(15,4)' } : {}),
    };
  }
  if (t.kind === 'array') {
    const inner = scalarType(t.element, enums);
    if ('leftOut' in inner) return { leftOut: `an array of ${column.sqlType.replace(/\[\]$/u, '')}: ${inner.leftOut}` };
    return { ...inner, multiValued: 'array' };
  }
  return scalarType(t, enums);
}

function scalarType(t: CatalogType, enums: ReadonlyMap<string, readonly string[]>): TypeReading {
  switch (t.kind) {
    case 'integer':
    case 'bigint':
      return { type: { kind: t.kind } };
    case 'smallint':
      return { type: { kind: 'integer' }, approximated: 'smallint read as integer' };
    case 'numeric':
      if (t.precision === undefined)
        return {
          type: { kind: 'numeric', precision: 14, scale: 2 },
          approximated: 'numeric without precision read as numeric(14,2)',
        };
      return { type: { kind: 'numeric', precision: t.precision, scale: t.scale ?? 0 } };
    case 'real':
    case 'double':
      return {
        type: { kind: 'numeric', precision: 15, scale: 4 },
        approximated: `${t.kind === 'real' ? 'real' : 'double precision'} read as numeric(15,4)`,
      };
    case 'text':
      return {
        type: { kind: 'text' },
        ...(t.length !== undefined ? { approximated: `varchar(${t.length}) read as text` } : {}),
      };
    case 'char':
      return { type: { kind: 'text' }, approximated: `char(${t.length}) read as text` };
    case 'uuid':
      return { type: { kind: 'text' }, approximated: 'uuid read as text' };
    case 'boolean':
    case 'date':
    case 'timestamptz':
      return { type: { kind: t.kind } };
    case 'timestamp':
      return { type: { kind: 'timestamp' } };
    case 'enum': {
      const values = enums.get(t.typeName);
      return values && values.length > 0
        ? { type: { kind: 'enum', values } }
        : { leftOut: `enum type ${t.typeName} has no values` };
    }
    case 'json':
      return { leftOut: 'a JSON document: no question is asked of its inside' };
    case 'array':
      return { leftOut: 'an array of arrays' };
    case 'opaque':
      return { leftOut: `type ${t.typeName} cannot be asked about` };
  }
}
