import type { Attribute, AttributeType, Entity, Relationship } from '../er-model/er-model.ts';
import { type ErIndex, snakeCase } from '../er-model/er-index.ts';
import { ShredError } from '../common/errors.ts';
import { quoteIdent, quoteLiteral } from '../common/sql-text.ts';
import type { HierarchyChoice, MultiValuedEncoding, VariantSpec } from './variant-spec.ts';
import type {
  Column,
  ColumnRole,
  EnumType,
  ForeignKey,
  RelationalSchema,
  Table,
  TableRole,
} from './relational-schema.ts';
import { nativeEnumTypes, nativeNames } from './native-names.ts';

/** The PostgreSQL type of one value of an attribute type. */
export function scalarSqlType(type: AttributeType): string {
  switch (type.kind) {
    case 'integer':
      return 'integer';
    case 'bigint':
      return 'bigint';
    case 'numeric':
      return `numeric(${type.precision},${type.scale})`;
    case 'text':
    case 'enum':
      return 'text';
    case 'boolean':
      return 'boolean';
    case 'date':
      return 'date';
    case 'timestamptz':
      return 'timestamptz';
    case 'timestamp':
      return 'timestamp';
  }
}

/** `aliases` → `alias`, `quality_opts` → `quality_opt`, `phone_no` → `phone_no_value`. */
export function elementColumnName(attribute: string): string {
  if (/ies$/.test(attribute)) return attribute.replace(/ies$/, 'y');
  if (/(ses|xes|ches|shes)$/.test(attribute)) return attribute.replace(/es$/, '');
  if (/[^s]s$/.test(attribute)) return attribute.slice(0, -1);
  return `${attribute}_value`;
}

/** Everything a schema builder needs to know about where one group's rows live. */
interface GroupTable {
  readonly name: string;
  readonly root: Entity;
  readonly mode: 'nested' | 'concrete';
  readonly classes: readonly Entity[];
  /** Classes an instance in this table can be typed as (discriminator domain). */
  readonly typed: readonly Entity[];
  readonly overlapping: boolean;
}

/**
 * Applies a variant's choices to a domain and returns its tables, each column labelled with
 * its meaning. Fails with a ShredError naming the variant and the choice that cannot work.
 *
 * @example
 * buildRelationalSchema(indexDomain(socialMedia), presetVariant(socialMedia, 'full_sti'))
 *   .tables.map((t) => t.name) // ['account', 'content', 'channel', 'tag', …]
 */
export function buildRelationalSchema(index: ErIndex, variant: VariantSpec): RelationalSchema {
  checkVariant(index, variant);
  const where = `variant ${variant.name}`;
  // The native variant takes every name and type from the model's storage; the others make them up.
  const physical = nativeNames(index, variant);
  const tableName = (entity: Entity): string =>
    physical
      ? physical.table(entity)
      : variant.naming.tables === 'plural'
        ? snakeCase(entity.lexicon.plural)
        : snakeCase(entity.name);

  // 1. Decide the group tables of every root, and where each class's rows can be found.
  const groups: GroupTable[] = [];
  const registries = new Map<string, string>();
  for (const root of index.roots) {
    const choice: HierarchyChoice = variant.hierarchies[root.name] ?? { mode: 'nested', groups: [[root.name]] };
    const overlapping = !index.hierarchyIsDisjoint(root.name);
    for (const groupNames of choice.groups) {
      const classes = groupNames.map((n) => index.entity(n));
      const top = classes[0] as Entity;
      if (choice.mode === 'nested') {
        // Deepest class in the group on an instance's chain: any class of the group that
        // can end a chain inside it (direct instances, or children outside the group).
        const typed = classes.filter(
          (c) => index.canBeDirect(c.name) || index.children(c.name).some((k) => !groupNames.includes(k.name)),
        );
        groups.push({ name: tableName(top), root, mode: 'nested', classes, typed, overlapping });
      } else {
        const typed = classes.filter((c) => index.canBeDirect(c.name));
        if (typed.length > 0)
          groups.push({ name: tableName(top), root, mode: 'concrete', classes, typed, overlapping });
      }
    }
    if (choice.mode === 'concrete' && choice.registry) {
      registries.set(root.name, physical?.registry(root)?.table ?? `${snakeCase(root.name)}_registry`);
    }
  }
  const groupOf = (entity: string): GroupTable | undefined =>
    groups.find((g) => g.mode === 'nested' && g.classes.some((c) => c.name === entity));
  /** Tables whose rows may be instances of `entity` (where its own columns go). */
  const rowTables = (entity: string): GroupTable[] => {
    const nested = groupOf(entity);
    if (nested) return [nested];
    return groups.filter((g) => g.typed.some((c) => index.isAncestorOrSelf(entity, c.name)));
  };
  /** The key column of a group table (its top class's key under native names). */
  const keyOf = (table: string): string => {
    const group = groups.find((g) => g.name === table);
    if (!physical) return 'id';
    if (group) return physical.key(group.classes[0] as Entity).name;
    const root = [...registries].find(([, name]) => name === table)?.[0];
    return (root !== undefined ? physical.registry(index.entity(root))?.key : undefined) ?? 'id';
  };
  /** The one table a foreign key to `entity` can reference, if there is one. */
  const idTarget = (entity: string): string | undefined => {
    const tables = rowTables(entity);
    if (tables.length === 1) return (tables[0] as GroupTable).name;
    return registries.get(index.root(entity).name);
  };

  // 2. Build each group table's columns.
  const tables: Table[] = [];
  const rowPredicate = new Map<string, (entity: string) => string | undefined>();
  for (const root of index.roots) {
    const registry = registries.get(root.name);
    if (registry) {
      // The native variant names and fills the registry as the source does.
      const source = physical?.registry(root);
      const classes = index
        .subtree(root.name)
        .filter((c) => index.canBeDirect(c.name))
        .map((c) => c.name);
      // The source's own kinds in its CHECK's order, others after them.
      const order = source?.check ?? [];
      const rank = (c: string): number => {
        const at = order.indexOf(source?.discriminator.values[c] ?? '');
        return at < 0 ? order.length : at;
      };
      const typeValues = Object.fromEntries(
        [...classes].sort((a, b) => rank(a) - rank(b)).map((c) => [c, source?.discriminator.values[c] ?? snakeCase(c)]),
      );
      const type = source?.discriminator.column ?? 'type';
      tables.push({
        name: registry,
        role: { kind: 'registry', root: root.name, typeValues },
        columns: [idColumn(source?.key, source?.keyType), typeColumn(type, source?.discriminator.sqlType)],
        primaryKey: [source?.key ?? 'id'],
        uniques: [],
        foreignKeys: [],
        checks: [`${quoteIdent(type)} IN (${Object.values(typeValues).map(quoteLiteral).join(', ')})`],
        indexes: [],
      });
    }
    for (const group of groups.filter((g) => g.root === root)) {
      tables.push(buildGroupTable(group));
    }
  }

  function buildGroupTable(group: GroupTable): Table {
    const top = group.classes[0] as Entity;
    const key = physical ? physical.key(top) : { name: 'id', sqlType: 'integer' };
    const columns: Column[] = [idColumn(key.name, key.sqlType)];
    const checks: string[] = [];
    const foreignKeys: ForeignKey[] = [];
    const uniques: string[][] = [...(physical ? physical.uniques(top) : [])];
    const indexes: string[][] = [];
    const used = new Set([key.name]);
    // Classes whose attributes this table carries: the group's own, plus (concrete) the
    // ancestors of its top, copied down.
    const owners: Entity[] =
      group.mode === 'concrete' ? [...index.chain(top.name).slice(0, -1), ...group.classes] : [...group.classes];
    const ownerNames = owners.map((o) => o.name);

    // Discriminator: a type column for disjoint hierarchies, flags for overlapping ones.
    const typeValues: Record<string, string> = {};
    let typeColumnName: string | undefined;
    const flagColumns = new Map<string, string>();
    // The source's discriminator, where one column can hold a row's kind (every class with two
    // or more kinds in this table is disjoint) and it has a value for every class a row here
    // can be typed as; otherwise the builder's own flags or `type` column, as for any model.
    const named = physical?.discriminator(top);
    const oneKind = group.classes.every(
      (c) =>
        c.specialization?.disjoint !== false ||
        index.children(c.name).filter((k) => group.classes.includes(k)).length < 2,
    );
    const sourceDiscriminator =
      named && oneKind && group.typed.every((c) => named.values[c.name] !== undefined) ? named : undefined;
    if (sourceDiscriminator) {
      // The source's own column and values; its constraints on them are its own.
      typeColumnName = claim(used, sourceDiscriminator.column, sourceDiscriminator.column);
      for (const c of group.typed) typeValues[c.name] = sourceDiscriminator.values[c.name] as string;
      columns.push(typeColumn(typeColumnName, sourceDiscriminator.sqlType));
    } else if (group.overlapping && group.mode === 'nested') {
      for (const c of group.classes.slice(1)) {
        const source = physical?.flag(c);
        const name = source ?? claim(used, `is_${snakeCase(c.name)}`, `is_${snakeCase(c.name)}_member`);
        used.add(name);
        flagColumns.set(c.name, name);
        columns.push({
          name,
          role: { kind: 'flag', entity: c.name },
          sqlType: 'boolean',
          valueType: { kind: 'boolean' },
          nullable: false,
        });
      }
      for (const c of group.classes.slice(1)) {
        const parent = c.parent as string;
        const parentFlag = flagColumns.get(parent);
        if (parentFlag)
          checks.push(`NOT ${quoteIdent(flagColumns.get(c.name) as string)} OR ${quoteIdent(parentFlag)}`);
      }
      // Within the group, a disjoint specialization allows at most one child flag, and a
      // total one requires one whenever the parent's flag (or, for the top, the row) is set.
      for (const parent of group.classes) {
        const kids = index.children(parent.name).filter((k) => flagColumns.has(k.name));
        if (kids.length === 0) continue;
        const flags = kids.map((k) => quoteIdent(flagColumns.get(k.name) as string));
        if (parent.specialization?.disjoint && kids.length > 1)
          checks.push(`num_nonnulls(${flags.map((f) => `NULLIF(${f}, FALSE)`).join(', ')}) <= 1`);
        if (parent.specialization?.total && kids.length === index.children(parent.name).length) {
          const own = flagColumns.get(parent.name);
          checks.push(`${own ? `NOT ${quoteIdent(own)} OR ` : ''}(${flags.join(' OR ')})`);
        }
      }
    } else if (group.typed.length > 1 || (group.mode === 'nested' && group.classes.length > 1)) {
      typeColumnName = claim(used, 'type', `${snakeCase(group.root.name)}_type`);
      for (const c of group.typed) typeValues[c.name] = snakeCase(c.name);
      columns.push(typeColumn(typeColumnName));
      checks.push(`${quoteIdent(typeColumnName)} IN (${Object.values(typeValues).map(quoteLiteral).join(', ')})`);
    }

    /** SQL that is true on the rows that are instances of `entity`; undefined for all rows. */
    const isInstance = (entity: string): string | undefined => {
      if (group.mode === 'nested') {
        if (entity === top.name || !group.classes.some((c) => c.name === entity)) return undefined;
        const flag = flagColumns.get(entity);
        if (flag) return quoteIdent(flag);
      }
      const values = group.typed.filter((c) => index.isAncestorOrSelf(entity, c.name));
      if (values.length === group.typed.length) return undefined;
      if (!typeColumnName) return undefined;
      return `${quoteIdent(typeColumnName)} IN (${values.map((c) => quoteLiteral(typeValues[c.name] as string)).join(', ')})`;
    };
    rowPredicate.set(group.name, isInstance);

    /** Adds a column that holds a value exactly on the rows of `entity` instances. */
    const addOwnedColumn = (entity: string, column: Omit<Column, 'nullable'>, required: boolean): void => {
      const predicate = isInstance(entity);
      const nullable = !required || predicate !== undefined;
      columns.push({ ...column, nullable });
      if (predicate !== undefined) {
        const q = quoteIdent(column.name);
        checks.push(required ? `(${predicate}) = (${q} IS NOT NULL)` : `${predicate} OR ${q} IS NULL`);
      }
    };

    // Attribute names that appear on more than one owner class are prefixed by their class.
    const attrCount = new Map<string, number>();
    for (const o of owners) for (const a of o.attributes) attrCount.set(a.name, (attrCount.get(a.name) ?? 0) + 1);
    for (const owner of owners) {
      for (const attribute of owner.attributes) {
        const key = `${owner.name}.${attribute.name}`;
        const encoding: MultiValuedEncoding | undefined = attribute.multiValued ? variant.multiValued[key] : undefined;
        if (encoding === 'table') continue;
        const base = physical
          ? physical.column(attribute)
          : (attrCount.get(attribute.name) ?? 0) > 1
            ? `${snakeCase(owner.name)}_${attribute.name}`
            : attribute.name;
        const name = claim(used, base, `${snakeCase(owner.name)}_${attribute.name}`);
        if (encoding === 'array' || encoding === 'jsonb') {
          const sqlType = physical
            ? physical.sqlType(attribute)
            : encoding === 'array'
              ? `${scalarSqlType(attribute.type)}[]`
              : 'jsonb';
          addOwnedColumn(
            owner.name,
            {
              name,
              role: { kind: 'nested', entity: owner.name, attribute: attribute.name, encoding },
              sqlType,
              valueType: attribute.type,
            },
            !(physical && attribute.storage?.nullable === true),
          );
          const q = quoteIdent(name);
          if (encoding === 'jsonb') checks.push(`jsonb_typeof(${q}) = 'array'`);
          if (attribute.type.kind === 'enum' && encoding === 'array' && !physical?.enumTyped(attribute)) {
            checks.push(`${q} <@ ARRAY[${attribute.type.values.map(quoteLiteral).join(', ')}]::text[]`);
          }
          // A JSON array of an enum's values: every element one of the list (containment of arrays is the subset test).
          if (attribute.type.kind === 'enum' && encoding === 'jsonb' && !physical?.enumTyped(attribute)) {
            checks.push(`${q} <@ ${quoteLiteral(JSON.stringify(attribute.type.values))}::jsonb`);
          }
        } else {
          addOwnedColumn(
            owner.name,
            {
              name,
              role: { kind: 'attribute', entity: owner.name, attribute: attribute.name },
              sqlType: physical ? physical.sqlType(attribute) : scalarSqlType(attribute.type),
              valueType: attribute.type,
            },
            attribute.optional !== true,
          );
          if (attribute.type.kind === 'enum' && !physical?.enumTyped(attribute)) {
            checks.push(`${quoteIdent(name)} IN (${attribute.type.values.map(quoteLiteral).join(', ')})`);
          }
        }
      }
    }

    // Many-to-one and one-to-one relationships stored as a reference on the `from` row.
    for (const rel of index.domain.relationships) {
      if (rel.cardinality === 'many-to-many' || variant.relationships[rel.name] !== 'fk') continue;
      if (!rowTables(rel.from).includes(group)) continue;
      const base = physical ? physical.reference(rel).name : `${rel.role ?? snakeCase(rel.to)}_id`;
      const name = claim(used, base, `${snakeCase(rel.name)}_id`);
      addOwnedColumn(
        rel.from,
        {
          name,
          role: { kind: 'reference', relationship: rel.name },
          sqlType: physical ? physical.reference(rel).sqlType : 'integer',
          valueType: { kind: 'id' },
        },
        rel.participation?.from === 'total',
      );
      const target = idTarget(rel.to);
      if (target) foreignKeys.push({ columns: [name], table: target, references: [keyOf(target)] });
      if (rel.cardinality === 'one-to-one') {
        if (!uniques.some((u) => u.length === 1 && u[0] === name)) uniques.push([name]);
      } else indexes.push([name]);
      for (const attribute of rel.attributes ?? []) {
        const attrName = claim(
          used,
          physical ? physical.column(attribute) : attribute.name,
          `${snakeCase(rel.name)}_${attribute.name}`,
        );
        // A relationship attribute exists exactly where the reference does.
        columns.push({
          name: attrName,
          role: { kind: 'relationshipAttribute', relationship: rel.name, attribute: attribute.name },
          sqlType: physical ? physical.sqlType(attribute) : scalarSqlType(attribute.type),
          valueType: attribute.type,
          nullable: true,
        });
        checks.push(
          attribute.optional === true
            ? `${quoteIdent(name)} IS NOT NULL OR ${quoteIdent(attrName)} IS NULL`
            : `(${quoteIdent(name)} IS NULL) = (${quoteIdent(attrName)} IS NULL)`,
        );
      }
    }

    // The id of a nested subgroup references its parent group; concrete ids the registry.
    if (group.mode === 'nested' && top.parent !== undefined) {
      const parentTable = (groupOf(top.parent) as GroupTable).name;
      foreignKeys.push({ columns: [key.name], table: parentTable, references: [keyOf(parentTable)] });
    }
    const registry = registries.get(group.root.name);
    if (registry) foreignKeys.push({ columns: [key.name], table: registry, references: [keyOf(registry)] });

    const role: TableRole = {
      kind: 'entity',
      root: group.root.name,
      mode: group.mode,
      classes: group.classes.map((c) => c.name),
      typeValues,
    };
    const opaque = physical ? physical.opaque(top) : [];
    return {
      name: group.name,
      role,
      columns,
      primaryKey: physical ? physical.primaryKey(top) : [key.name],
      uniques,
      foreignKeys,
      checks,
      indexes,
      ...(opaque.length > 0 ? { opaque } : {}),
    };
  }

  // 3. Child tables of multi-valued attributes stored as tables.
  for (const root of index.roots) {
    for (const entity of index.subtree(root.name)) {
      for (const attribute of entity.attributes) {
        if (!attribute.multiValued || variant.multiValued[`${entity.name}.${attribute.name}`] !== 'table') continue;
        const child = physical?.childTable(entity, attribute);
        const ownerColumn = child?.ownerColumn ?? `${snakeCase(entity.name)}_id`;
        const elementColumn = child?.column ?? elementColumnName(attribute.name);
        const target = idTarget(entity.name);
        tables.push({
          name: child?.table ?? `${snakeCase(entity.name)}_${attribute.name}`,
          role: { kind: 'multiValued', entity: entity.name, attribute: attribute.name },
          columns: [
            {
              name: ownerColumn,
              role: { kind: 'owner' },
              sqlType: child?.ownerSqlType ?? 'integer',
              valueType: { kind: 'id' },
              nullable: false,
            },
            {
              name: elementColumn,
              role: { kind: 'element' },
              sqlType: child?.sqlType ?? scalarSqlType(attribute.type),
              valueType: attribute.type,
              nullable: false,
            },
          ],
          primaryKey: [ownerColumn, elementColumn],
          uniques: [],
          foreignKeys: target ? [{ columns: [ownerColumn], table: target, references: [keyOf(target)] }] : [],
          checks:
            attribute.type.kind === 'enum' && !physical?.enumTyped(attribute)
              ? [`${quoteIdent(elementColumn)} IN (${attribute.type.values.map(quoteLiteral).join(', ')})`]
              : [],
          indexes: [],
        });
      }
    }
  }

  // 4. Relationships stored in tables of their own.
  for (const rel of index.domain.relationships) {
    if (rel.cardinality !== 'many-to-many' && variant.relationships[rel.name] !== 'table') continue;
    tables.push(relationshipTable(rel));
  }

  function relationshipTable(rel: Relationship): Table {
    const stored = physical?.relationshipTable(rel);
    const fromName = stored?.fromColumn ?? `${snakeCase(rel.from)}_id`;
    let toName =
      stored?.column ?? (rel.cardinality !== 'many-to-many' && rel.role ? `${rel.role}_id` : `${snakeCase(rel.to)}_id`);
    if (toName === fromName) toName = `other_${toName}`;
    const used = new Set([fromName, toName]);
    const columns: Column[] = [
      {
        name: fromName,
        role: { kind: 'end', end: 'from' },
        sqlType: stored?.fromSqlType ?? 'integer',
        valueType: { kind: 'id' },
        nullable: false,
      },
      {
        name: toName,
        role: { kind: 'end', end: 'to' },
        sqlType: stored?.sqlType ?? 'integer',
        valueType: { kind: 'id' },
        nullable: false,
      },
    ];
    for (const attribute of rel.attributes ?? []) {
      const name = claim(
        used,
        physical ? physical.column(attribute) : attribute.name,
        `${snakeCase(rel.name)}_${attribute.name}`,
      );
      columns.push({
        name,
        role: { kind: 'relationshipAttribute', relationship: rel.name, attribute: attribute.name },
        sqlType: physical ? physical.sqlType(attribute) : scalarSqlType(attribute.type),
        valueType: attribute.type,
        nullable: attribute.optional === true,
      });
    }
    const foreignKeys: ForeignKey[] = [];
    const fromTarget = idTarget(rel.from);
    const toTarget = idTarget(rel.to);
    if (fromTarget) foreignKeys.push({ columns: [fromName], table: fromTarget, references: [keyOf(fromTarget)] });
    if (toTarget) foreignKeys.push({ columns: [toName], table: toTarget, references: [keyOf(toTarget)] });
    const manyToMany = rel.cardinality === 'many-to-many';
    const uniques: string[][] = [...(stored?.uniques ?? [])];
    if (rel.cardinality === 'one-to-one' && !uniques.some((u) => u.length === 1 && u[0] === toName))
      uniques.push([toName]);
    return {
      name: stored?.table ?? `${snakeCase(rel.from)}_${snakeCase(rel.name)}`,
      role: { kind: 'relationship', relationship: rel.name },
      columns,
      primaryKey: manyToMany ? [fromName, toName] : [fromName],
      uniques,
      foreignKeys,
      checks: [],
      // A one-to-one's UNIQUE constraint already indexes the `to` column.
      indexes: rel.cardinality === 'one-to-one' ? [] : [[toName]],
      ...(stored && stored.opaque.length > 0 ? { opaque: stored.opaque } : {}),
    };
  }

  const seen = new Set<string>();
  for (const t of tables) {
    if (seen.has(t.name)) throw new ShredError(`${where}: two tables would both be named "${t.name}"`);
    seen.add(t.name);
    // PostgreSQL truncates longer names silently, which could merge two of them.
    for (const name of [t.name, ...t.columns.map((c) => c.name)]) {
      if (Buffer.byteLength(name, 'utf8') > 63)
        throw new ShredError(`${where}: name "${name}" in table ${t.name} is longer than PostgreSQL's 63 bytes`);
    }
  }
  const enumTypes: EnumType[] = physical ? nativeEnumTypes(index) : [];
  return { domain: index.domain.name, variant, tables, ...(enumTypes.length > 0 ? { enumTypes } : {}) };
}

function idColumn(name = 'id', sqlType = 'integer'): Column {
  return { name, role: { kind: 'id' }, sqlType, valueType: { kind: 'id' }, nullable: false };
}

function typeColumn(name: string, sqlType = 'text'): Column {
  return { name, role: { kind: 'type' }, sqlType, valueType: { kind: 'text' }, nullable: false };
}

/** Takes `preferred` if free, else `fallback`, else numbered variants of it. */
function claim(used: Set<string>, preferred: string, fallback: string): string {
  let name = used.has(preferred) ? fallback : preferred;
  for (let i = 2; used.has(name); i++) name = `${fallback}_${i}`;
  used.add(name);
  return name;
}

/** Rejects choices that do not fit the domain, naming the variant and the choice. */
export function checkVariant(index: ErIndex, variant: VariantSpec): void {
  const where = `variant ${variant.name}`;
  for (const [rootName, choice] of Object.entries(variant.hierarchies)) {
    const root = index.domain.entities.find((e) => e.name === rootName);
    if (!root || root.parent !== undefined)
      throw new ShredError(`${where}.hierarchies.${rootName}: not a root entity of domain ${index.domain.name}`);
    const members = index.subtree(rootName).map((e) => e.name);
    const placed = choice.groups.flat();
    for (const m of members) {
      const count = placed.filter((p) => p === m).length;
      if (count !== 1)
        throw new ShredError(`${where}.hierarchies.${rootName}: class ${m} is in ${count} groups, expected exactly 1`);
    }
    for (const p of placed) {
      if (!members.includes(p))
        throw new ShredError(`${where}.hierarchies.${rootName}: ${p} is not in the hierarchy of ${rootName}`);
    }
    for (const group of choice.groups) {
      if (group.length === 0) throw new ShredError(`${where}.hierarchies.${rootName}: empty group`);
      for (const c of group.slice(1)) {
        const parent = index.entity(c).parent;
        if (parent === undefined || !group.includes(parent) || group.indexOf(parent) > group.indexOf(c)) {
          throw new ShredError(
            `${where}.hierarchies.${rootName}: group [${group.join(', ')}] is not a connected subtree listed top first`,
          );
        }
      }
    }
    if (choice.mode === 'concrete' && !index.hierarchyIsDisjoint(rootName)) {
      throw new ShredError(`${where}.hierarchies.${rootName}: concrete inheritance needs a disjoint hierarchy`);
    }
    if (choice.registry && choice.mode !== 'concrete') {
      throw new ShredError(`${where}.hierarchies.${rootName}: a registry table applies to concrete inheritance only`);
    }
  }
  for (const root of index.hierarchyRoots) {
    if (!variant.hierarchies[root.name]) throw new ShredError(`${where}: no choice for the hierarchy of ${root.name}`);
  }
  for (const entity of index.domain.entities) {
    for (const attribute of entity.attributes) {
      if (!attribute.multiValued) continue;
      const key = `${entity.name}.${attribute.name}`;
      const encoding = variant.multiValued[key];
      if (encoding !== 'array' && encoding !== 'jsonb' && encoding !== 'table') {
        throw new ShredError(
          `${where}.multiValued.${key}: expected array, jsonb or table, got ${JSON.stringify(encoding)}`,
        );
      }
    }
  }
  for (const key of Object.keys(variant.multiValued)) {
    const [entity, attribute] = key.split('.');
    const found = index.domain.entities
      .find((e) => e.name === entity)
      ?.attributes.find((a: Attribute) => a.name === attribute);
    if (!found?.multiValued)
      throw new ShredError(`${where}.multiValued.${key}: not a multi-valued attribute of domain ${index.domain.name}`);
  }
  for (const rel of index.domain.relationships) {
    if (rel.cardinality === 'many-to-many') continue;
    const encoding = variant.relationships[rel.name];
    if (encoding !== 'fk' && encoding !== 'table') {
      throw new ShredError(`${where}.relationships.${rel.name}: expected fk or table, got ${JSON.stringify(encoding)}`);
    }
  }
  for (const name of Object.keys(variant.relationships)) {
    const rel = index.domain.relationships.find((r) => r.name === name);
    if (!rel || rel.cardinality === 'many-to-many') {
      throw new ShredError(
        `${where}.relationships.${name}: not a many-to-one or one-to-one relationship of domain ${index.domain.name}`,
      );
    }
  }
}
