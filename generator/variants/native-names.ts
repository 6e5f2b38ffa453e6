import type {
  Attribute,
  Entity,
  EntityDiscriminator,
  EntityRegistry,
  OpaqueColumn,
  Relationship,
} from '../er-model/er-model.ts';
import type { ErIndex } from '../er-model/er-index.ts';
import { ConfigError } from '../common/errors.ts';
import { ctiGroups, partitionHierarchy } from './variant-presets.ts';
import type { EnumType } from './relational-schema.ts';
import type { HierarchyChoice, MultiValuedEncoding, RelationshipEncoding, VariantSpec } from './variant-spec.ts';

/** The name of the variant that is exactly the database a model was imported from. */
export const NATIVE_VARIANT = 'native';

/** Types whose values are text as the model holds them (a JSON array holds text too): anything else under an enum is an enum type. */
const TEXT_TYPE = /^(text|character varying|varchar|character|char|bpchar|citext)\b|^jsonb?$/iu;

/**
 * The `native` variant of a model with physical names (`storage`, written by `equisql
 * import`): every class with a table of its own is a group (class tables), every class
 * without one lives in its parent's (a discriminator); a multi-valued attribute is kept as
 * the model says (a child table, an array, a JSON array); a relationship with a table of its
 * own is stored in it, every other one as the column the model names. Refuses a model
 * without physical names in one line naming the first element that has none.
 *
 * @example nativeVariant(indexDomain(pagila)).hierarchies // {} (Pagila has no inheritance)
 */
export function nativeVariant(index: ErIndex): VariantSpec {
  const missing = firstWithoutStorage(index);
  if (missing) {
    throw new ConfigError(
      `variant native: model ${index.domain.name} has no physical names (${missing} has no "storage"); the native variant is for a model made by equisql import`,
    );
  }
  const hierarchies: Record<string, HierarchyChoice> = {};
  for (const root of index.hierarchyRoots) {
    hierarchies[root.name] = isConcrete(index, root.name)
      ? { mode: 'concrete', groups: ctiGroups(index, root.name), registry: root.registry !== undefined }
      : { mode: 'nested', groups: partitionHierarchy(index, root.name, (e) => e.storage === undefined) };
  }
  const multiValued: Record<string, MultiValuedEncoding> = {};
  for (const entity of index.domain.entities) {
    for (const a of entity.attributes) {
      if (!a.multiValued) continue;
      const storage = a.storage;
      multiValued[`${entity.name}.${a.name}`] =
        storage?.table !== undefined ? 'table' : /^jsonb?$/iu.test(storage?.sqlType ?? '') ? 'jsonb' : 'array';
    }
  }
  const relationships: Record<string, RelationshipEncoding> = {};
  for (const rel of index.domain.relationships) {
    if (rel.cardinality !== 'many-to-many') relationships[rel.name] = rel.storage?.table !== undefined ? 'table' : 'fk';
  }
  return {
    name: NATIVE_VARIANT,
    description: 'exactly the database the model was imported from: its tables, columns, types and keys',
    hierarchies,
    multiValued,
    relationships,
    naming: { tables: 'singular' },
    native: true,
  };
}

/** Whether a model carries the physical names the `native` variant needs. */
export function hasPhysicalNames(index: ErIndex): boolean {
  return firstWithoutStorage(index) === undefined;
}

/** Whether a hierarchy is kept in concrete tables: a table for each class with objects of its own, holding every attribute. */
function isConcrete(index: ErIndex, root: string): boolean {
  return index.entity(root).registry !== undefined || index.subtree(root).some((e) => e.storage?.concrete === true);
}

function firstWithoutStorage(index: ErIndex): string | undefined {
  for (const e of index.domain.entities) {
    if (e.parent === undefined && !e.storage && !isConcrete(index, e.name)) return `entity ${e.name}`;
    for (const a of e.attributes) if (!a.storage) return `attribute ${e.name}.${a.name}`;
  }
  for (const r of index.domain.relationships) {
    if (!r.storage) return `relationship ${r.name}`;
    for (const a of r.attributes ?? []) if (!a.storage) return `attribute ${r.name}.${a.name}`;
  }
  return undefined;
}

/** What `buildRelationalSchema` asks of the model's storage under the `native` variant. */
export interface NativeNames {
  readonly table: (entity: Entity) => string;
  readonly key: (entity: Entity) => { readonly name: string; readonly sqlType: string };
  readonly uniques: (entity: Entity) => string[][];
  /** The table's primary key: its key column, or more where the source's holds more. */
  readonly primaryKey: (entity: Entity) => string[];
  readonly opaque: (entity: Entity) => OpaqueColumn[];
  /** The registry table of a root's concrete tables, as the source names and fills it. */
  readonly registry: (root: Entity) => EntityRegistry | undefined;
  /** The discriminator of the table `entity` has of its own, as the source names and fills it. */
  readonly discriminator: (entity: Entity) => EntityDiscriminator | undefined;
  /** The flag column of `entity` in the table of its nearest ancestor with one, as the source names it. */
  readonly flag: (entity: Entity) => string | undefined;
  readonly column: (attribute: Attribute) => string;
  readonly sqlType: (attribute: Attribute) => string;
  /** Whether the attribute's values are an enum type of the source (which checks them itself). */
  readonly enumTyped: (attribute: Attribute) => boolean;
  readonly reference: (rel: Relationship) => { readonly name: string; readonly sqlType: string };
  readonly childTable: (
    entity: Entity,
    attribute: Attribute,
  ) => { table: string; ownerColumn: string; ownerSqlType: string; column: string; sqlType: string } | undefined;
  readonly relationshipTable: (rel: Relationship) =>
    | {
        table: string;
        fromColumn: string;
        fromSqlType: string;
        column: string;
        sqlType: string;
        uniques: string[][];
        opaque: OpaqueColumn[];
      }
    | undefined;
}

/** The physical names of a `native` variant; undefined for every other variant. */
export function nativeNames(index: ErIndex, variant: VariantSpec): NativeNames | undefined {
  if (variant.native !== true) return undefined;
  const leftOut = new Set(variant.uniquesLeftOut ?? []);
  // A class without a table of its own lives in its nearest ancestor's; in concrete tables an
  // abstract class has none, and its key is the one its subclasses' tables share.
  const stored = (entity: Entity): Entity => {
    for (const e of [...index.chain(entity.name)].reverse()) if (e.storage) return e;
    const below = index.subtree(entity.name).find((e) => e.storage?.concrete === true);
    if (below) return below;
    throw new ConfigError(`variant native: entity ${entity.name} has no table`);
  };
  const storageOf = (entity: Entity) => stored(entity).storage as NonNullable<Entity['storage']>;
  const attributeStorage = (a: Attribute) => {
    if (!a.storage) throw new ConfigError(`variant native: attribute ${a.name} has no column`);
    return a.storage;
  };
  return {
    table: (e) => storageOf(e).table,
    key: (e) => ({ name: storageOf(e).key, sqlType: storageOf(e).keyType }),
    uniques: (e) =>
      (storageOf(e).uniques ?? []).map((u) => [...u]).filter((u) => !leftOut.has(uniqueKey(storageOf(e).table, u))),
    primaryKey: (e) => [...(storageOf(e).primaryKey ?? [storageOf(e).key])],
    opaque: (e) => [...(storageOf(e).opaque ?? [])],
    registry: (e) => e.registry,
    discriminator: (e) => e.storage?.discriminator,
    flag: (e) => storageOf(e).flags?.[e.name],
    column: (a) => attributeStorage(a).column,
    sqlType: (a) => attributeStorage(a).sqlType,
    enumTyped: (a) => a.type.kind === 'enum' && !TEXT_TYPE.test(attributeStorage(a).sqlType),
    reference: (rel) => ({
      name: (rel.storage as NonNullable<Relationship['storage']>).column,
      sqlType: (rel.storage as NonNullable<Relationship['storage']>).sqlType,
    }),
    childTable: (entity, a) => {
      const s = attributeStorage(a);
      if (s.table === undefined || s.ownerColumn === undefined) return undefined;
      const key = storageOf(entity);
      return {
        table: s.table,
        ownerColumn: s.ownerColumn,
        ownerSqlType: key.keyType,
        column: s.column,
        sqlType: s.sqlType,
      };
    },
    relationshipTable: (rel) => {
      const s = rel.storage;
      if (s?.table === undefined || s.fromColumn === undefined) return undefined;
      const from = storageOf(index.entity(rel.from));
      const table = s.table;
      const uniques = (s.uniques ?? []).map((u) => [...u]).filter((u) => !leftOut.has(uniqueKey(table, u)));
      return {
        table,
        fromColumn: s.fromColumn,
        fromSqlType: s.fromSqlType ?? from.keyType,
        column: s.column,
        sqlType: s.sqlType,
        uniques,
        opaque: [...(s.opaque ?? [])],
      };
    },
  };
}

/** How a unique key is named in `VariantSpec.uniquesLeftOut`: `rental(rental_date,inventory_id,customer_id)`. */
export function uniqueKey(table: string, columns: readonly string[]): string {
  return `${table}(${columns.join(',')})`;
}

/** Whether a variant stores an attribute as an enum type of the source (the native variant only). */
export function isEnumTyped(variant: VariantSpec, attribute: Attribute): boolean {
  return (
    variant.native === true &&
    attribute.type.kind === 'enum' &&
    attribute.storage !== undefined &&
    !TEXT_TYPE.test(attribute.storage.sqlType)
  );
}

/** The enum types a native schema creates: one per enum attribute stored as a type of its own, with the attribute's values in order. */
export function nativeEnumTypes(index: ErIndex): EnumType[] {
  const out = new Map<string, readonly string[]>();
  const visit = (a: Attribute): void => {
    if (a.type.kind !== 'enum' || !a.storage || TEXT_TYPE.test(a.storage.sqlType)) return;
    const name = a.storage.sqlType.replace(/\[\]$/u, '');
    const known = out.get(name);
    if (known && known.join('\u0000') !== a.type.values.join('\u0000')) {
      throw new ConfigError(
        `variant native: enum type ${name} is given two lists of values (${known.join(', ')}; ${a.type.values.join(', ')})`,
      );
    }
    out.set(name, a.type.values);
  };
  for (const e of index.domain.entities) {
    for (const a of e.attributes) visit(a);
    const d = e.storage?.discriminator;
    if (d?.labels !== undefined) {
      const known = out.get(d.sqlType);
      if (known && known.join('\u0000') !== d.labels.join('\u0000')) {
        throw new ConfigError(
          `variant native: enum type ${d.sqlType} is given two lists of values (${known.join(', ')}; ${d.labels.join(', ')})`,
        );
      }
      out.set(d.sqlType, d.labels);
    }
  }
  for (const r of index.domain.relationships) for (const a of r.attributes ?? []) visit(a);
  return [...out].map(([name, values]) => ({ name, values }));
}
