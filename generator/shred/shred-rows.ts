import { type ErIndex, snakeCase } from '../er-model/er-index.ts';
import type { ConceptualInstance, EntityObject, Link, Scalar, Value } from '../instance/conceptual-instance.ts';
import { compareScalars } from '../instance/canonical-instance.ts';
import type { Column, RelationalSchema, Table } from '../variants/relational-schema.ts';
import { ShredError } from '../common/errors.ts';

/** One cell as PostgreSQL's text input form, or null for SQL NULL. */
export type Cell = string | null;

/** Text input form of one scalar: booleans as t/f, the rest as their canonical strings. */
export function scalarText(value: Scalar): string {
  if (typeof value === 'boolean') return value ? 't' : 'f';
  return String(value);
}

/** A set as a PostgreSQL array literal, every element double-quoted and escaped. */
export function arrayLiteral(values: readonly Scalar[]): string {
  return `{${values.map((v) => `"${scalarText(v).replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`).join(',')}}`;
}

/** A set as a JSONB array: integers as numbers, booleans as booleans, the rest as strings. */
export function jsonbLiteral(values: readonly Scalar[]): string {
  return JSON.stringify(values);
}

/**
 * Facts about the instance that every table's shredding looks up: which objects are-a which
 * class, and each object's partner in every many-to-one relationship.
 */
export interface ShredContext {
  readonly index: ErIndex;
  readonly instance: ConceptualInstance;
  isA(object: EntityObject, entity: string): boolean;
  /** The link of a many-to-one or one-to-one relationship whose `from` is `id`. */
  linkFrom(relationship: string, id: number): Link | undefined;
}

export function createShredContext(index: ErIndex, instance: ConceptualInstance): ShredContext {
  const isACache = new Map<string, boolean>();
  const byFrom = new Map<string, Map<number, Link>>();
  for (const rel of index.domain.relationships) {
    if (rel.cardinality === 'many-to-many') continue;
    const map = new Map<number, Link>();
    for (const link of instance.links[rel.name] ?? []) map.set(link.from, link);
    byFrom.set(rel.name, map);
  }
  return {
    index,
    instance,
    isA: (object, entity) =>
      object.classes.some((c) => {
        const key = `${entity}>${c}`;
        let hit = isACache.get(key);
        if (hit === undefined) {
          hit = index.isAncestorOrSelf(entity, c);
          isACache.set(key, hit);
        }
        return hit;
      }),
    linkFrom: (relationship, id) => byFrom.get(relationship)?.get(id),
  };
}

/**
 * The rows of one table of a variant, in a fixed order (by id, then by element or partner),
 * shredded from the conceptual instance according to each column's role.
 */
export function* shredTable(context: ShredContext, schema: RelationalSchema, table: Table): Generator<Cell[]> {
  const { index, instance } = context;
  const role = table.role;
  switch (role.kind) {
    case 'registry': {
      for (const o of instance.objects[role.root] ?? []) {
        const kind = mostSpecific(o, schema);
        yield [String(o.id), role.typeValues[kind] ?? snakeCase(kind)];
      }
      return;
    }
    case 'entity': {
      const inGroup = new Set(role.classes);
      const top = role.classes[0] as string;
      const hasType = table.columns.some((c) => c.role.kind === 'type');
      for (const o of instance.objects[role.root] ?? []) {
        let typeClass: string | undefined;
        if (role.mode === 'nested') {
          if (!context.isA(o, top)) continue;
          if (hasType) typeClass = deepestInGroup(index, o, inGroup, schema);
        } else {
          const own = o.classes.find((c) => inGroup.has(c));
          if (own === undefined) continue;
          typeClass = own;
        }
        yield table.columns.map((column) => entityCell(context, o, column, typeClass ?? top, role.typeValues));
      }
      return;
    }
    case 'multiValued': {
      const root = index.root(role.entity).name;
      for (const o of instance.objects[root] ?? []) {
        if (!context.isA(o, role.entity)) continue;
        const set = (o.values[role.attribute] ?? []) as readonly Scalar[];
        for (const element of [...set].sort(compareScalars)) yield [String(o.id), scalarText(element)];
      }
      return;
    }
    case 'relationship': {
      for (const link of instance.links[role.relationship] ?? []) {
        yield table.columns.map((column) => {
          const r = column.role;
          if (r.kind === 'end') return String(r.end === 'from' ? link.from : link.to);
          if (r.kind === 'relationshipAttribute') return valueCell(link.values?.[r.attribute] ?? null);
          throw new ShredError(`table ${table.name}: unexpected column role ${r.kind}`);
        });
      }
      return;
    }
  }
}

/**
 * The deepest class of a group on the object's chains: an object of an overlapping hierarchy
 * may also be of a class kept in another table, but its classes in this one form one chain.
 */
function deepestInGroup(
  index: ErIndex,
  o: EntityObject,
  inGroup: ReadonlySet<string>,
  schema: RelationalSchema,
): string {
  const reached = new Set(o.classes.flatMap((c) => index.chain(c).map((e) => e.name)).filter((n) => inGroup.has(n)));
  const deepest = [...reached].filter((n) => ![...reached].some((m) => m !== n && index.isAncestorOrSelf(n, m)));
  if (deepest.length !== 1) {
    throw new ShredError(
      `variant ${schema.variant.name}: object ${o.id} is of ${deepest.length} kinds kept in one table (${deepest.join(', ')}) where one is needed`,
    );
  }
  return deepest[0] as string;
}

function mostSpecific(o: EntityObject, schema: RelationalSchema): string {
  const c = o.classes[0];
  if (c === undefined || o.classes.length > 1) {
    throw new ShredError(
      `variant ${schema.variant.name}: object ${o.id} has ${o.classes.length} most specific classes where one is needed`,
    );
  }
  return c;
}

function valueCell(value: Value | undefined): Cell {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) throw new ShredError('a set where a single value was expected');
  return scalarText(value as Scalar);
}

function entityCell(
  context: ShredContext,
  o: EntityObject,
  column: Column,
  typeClass: string,
  typeValues: Readonly<Record<string, string>>,
): Cell {
  const r = column.role;
  switch (r.kind) {
    case 'id':
      return String(o.id);
    case 'type':
      return typeValues[typeClass] ?? snakeCase(typeClass);
    case 'flag':
      return context.isA(o, r.entity) ? 't' : 'f';
    case 'attribute':
      return context.isA(o, r.entity) ? valueCell(o.values[r.attribute]) : null;
    case 'nested': {
      if (!context.isA(o, r.entity)) return null;
      const set = (o.values[r.attribute] ?? []) as readonly Scalar[];
      return r.encoding === 'array' ? arrayLiteral(set) : jsonbLiteral(set);
    }
    case 'reference': {
      const rel = context.index.relationship(r.relationship);
      if (!context.isA(o, rel.from)) return null;
      const link = context.linkFrom(r.relationship, o.id);
      return link ? String(link.to) : null;
    }
    case 'relationshipAttribute': {
      const link = context.linkFrom(r.relationship, o.id);
      return link ? valueCell(link.values?.[r.attribute] ?? null) : null;
    }
    case 'owner':
    case 'element':
    case 'end':
      throw new ShredError(`column ${column.name}: role ${r.kind} does not belong in an entity table`);
  }
}

/** Escapes one cell for COPY's text format. */
export function copyCell(cell: Cell): string {
  if (cell === null) return '\\N';
  return cell.replace(/[\\\n\r\t]/g, (c) => (c === '\\' ? '\\\\' : c === '\n' ? '\\n' : c === '\r' ? '\\r' : '\\t'));
}

/** Rows as COPY text: tab-separated escaped cells, one line per row. */
export function copyText(rows: Iterable<Cell[]>): { text: string; rows: number } {
  const lines: string[] = [];
  for (const row of rows) lines.push(`${row.map(copyCell).join('\t')}\n`);
  return { text: lines.join(''), rows: lines.length };
}

/**
 * The unique keys of a table that its rows break (two rows with the same non-NULL values),
 * as `table(a,b)`; a native schema built from a generated instance leaves them out.
 */
export function brokenUniques(context: ShredContext, schema: RelationalSchema, table: Table): string[] {
  if (table.uniques.length === 0) return [];
  const positions = table.uniques.map((u) => u.map((c) => table.columns.findIndex((col) => col.name === c)));
  const seen = table.uniques.map(() => new Set<string>());
  const broken = new Set<number>();
  for (const row of shredTable(context, schema, table)) {
    positions.forEach((cols, i) => {
      if (broken.has(i) || cols.some((p) => p < 0 || row[p] === null)) return;
      const key = JSON.stringify(cols.map((p) => row[p]));
      if ((seen[i] as Set<string>).has(key)) broken.add(i);
      else (seen[i] as Set<string>).add(key);
    });
  }
  return [...broken].map((i) => `${table.name}(${(table.uniques[i] as readonly string[]).join(',')})`);
}
