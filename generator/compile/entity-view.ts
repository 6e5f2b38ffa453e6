import type { ErIndex } from '../er-model/er-index.ts';
import { CompileError } from '../common/errors.ts';
import type { Column, ColumnRole, RelationalSchema, Table } from '../variants/relational-schema.ts';
import {
  binary,
  column,
  emptySelect,
  FALSE,
  isBoolean,
  isNull,
  literal,
  table as tableItem,
  type SqlColumn,
  type SqlExpr,
  type SqlFromItem,
  type SqlJoin,
  type SqlQuery,
  type SqlSelect,
} from './sql-tree.ts';

/** A column an entity alias must provide, beyond its id. */
export type Need =
  | { readonly kind: 'attribute'; readonly entity: string; readonly attribute: string }
  | { readonly kind: 'nested'; readonly entity: string; readonly attribute: string }
  | { readonly kind: 'reference'; readonly relationship: string }
  | { readonly kind: 'relationshipAttribute'; readonly relationship: string; readonly attribute: string }
  | { readonly kind: 'type' };

export function needKey(need: Need): string {
  switch (need.kind) {
    case 'attribute':
    case 'nested':
      return `${need.kind}:${need.entity}.${need.attribute}`;
    case 'reference':
      return `reference:${need.relationship}`;
    case 'relationshipAttribute':
      return `relationshipAttribute:${need.relationship}.${need.attribute}`;
    case 'type':
      return 'type';
  }
}

/** The SQL form of one relation: a FROM item, inner joins, and row filters. */
export interface Relation {
  readonly from: SqlFromItem;
  readonly joins: readonly SqlJoin[];
  readonly filters: readonly SqlExpr[];
  /** Need key (or `id`) → the column that holds it over this relation. */
  readonly columns: ReadonlyMap<string, SqlColumn>;
}

/** How an entity alias reads in one variant, and how to test its subclasses. */
export interface EntityView extends Relation {
  readonly entity: string;
  readonly alias: string;
  /** A predicate true when the aliased object is an instance of `entity`; undefined for always. */
  isA(entity: string): SqlExpr | undefined;
  /** A column holding the name of each row's most specific class, and the classes it can hold. */
  readonly classColumn?: { readonly sql: SqlColumn; readonly classes: readonly string[] };
  /** Columns of tables joined only to test subclasses: grouped with the alias's id. */
  readonly groupExtras?: readonly SqlColumn[];
}

/** Lookups over a variant's tables by the meaning of their columns. */
export interface VariantIndex {
  readonly index: ErIndex;
  readonly schema: RelationalSchema;
  readonly mode: (root: string) => 'nested' | 'concrete';
  /** Entity tables of a root's hierarchy. */
  readonly entityTables: (root: string) => readonly Table[];
  readonly registry: (root: string) => Table | undefined;
  /** Classes a row of an entity table can be (its type column's domain). */
  readonly typedClasses: (table: Table) => readonly string[];
  readonly column: (table: Table, match: (role: ColumnRole) => boolean) => Column | undefined;
  readonly tableByRole: (match: (table: Table) => boolean) => Table | undefined;
}

export function indexVariant(index: ErIndex, schema: RelationalSchema): VariantIndex {
  const mode = (root: string): 'nested' | 'concrete' => schema.variant.hierarchies[root]?.mode ?? 'nested';
  return {
    index,
    schema,
    mode,
    entityTables: (root) => schema.tables.filter((t) => t.role.kind === 'entity' && t.role.root === root),
    registry: (root) => schema.tables.find((t) => t.role.kind === 'registry' && t.role.root === root),
    typedClasses: (table) => {
      const role = table.role;
      if (role.kind === 'registry') return Object.keys(role.typeValues);
      if (role.kind !== 'entity') return [];
      const typed = Object.keys(role.typeValues);
      if (typed.length > 0) return typed;
      if (role.mode === 'nested') return [role.classes[0] as string];
      return role.classes.filter((c) => index.canBeDirect(c));
    },
    column: (table, match) => table.columns.find((c) => match(c.role)),
    tableByRole: (match) => schema.tables.find(match),
  };
}

function roleMatches(need: Need, role: ColumnRole): boolean {
  switch (need.kind) {
    case 'attribute':
      return role.kind === 'attribute' && role.entity === need.entity && role.attribute === need.attribute;
    case 'nested':
      return role.kind === 'nested' && role.entity === need.entity && role.attribute === need.attribute;
    case 'reference':
      return role.kind === 'reference' && role.relationship === need.relationship;
    case 'relationshipAttribute':
      return (
        role.kind === 'relationshipAttribute' &&
        role.relationship === need.relationship &&
        role.attribute === need.attribute
      );
    case 'type':
      return role.kind === 'type';
  }
}

/** The column of `table` that provides `need`; a variant without one is a compiler bug. */
function needColumn(v: VariantIndex, table: Table, need: Need): Column {
  const column = v.column(table, (r) => roleMatches(need, r));
  if (!column)
    throw new CompileError(`variant ${v.schema.variant.name}: table ${table.name} has no column for ${needKey(need)}`);
  return column;
}

/** The class whose table (nested mode) holds a need's column. */
function ownerOf(v: VariantIndex, need: Need): string | undefined {
  switch (need.kind) {
    case 'attribute':
    case 'nested':
      return need.entity;
    case 'reference':
    case 'relationshipAttribute':
      return v.index.relationship(need.relationship).from;
    case 'type':
      return undefined;
  }
}

const col = (alias: string, name: string): SqlColumn => column(alias, name);

/** The key column of a table: `id`, or under the native variant the source's own (`actor_id`). */
export function keyColumn(table: Table): string {
  return table.columns.find((c) => c.role.kind === 'id')?.name ?? 'id';
}

/** The key column of the table named `name` in a variant. */
export function keyColumnOf(v: VariantIndex, name: string): string {
  const table = v.schema.tables.find((t) => t.name === name);
  return table ? keyColumn(table) : 'id';
}

/** Rows of `table` that are instances of `entity`: a predicate, or undefined for all rows. */
export function instanceFilter(v: VariantIndex, table: Table, alias: string, entity: string): SqlExpr | undefined {
  const role = table.role;
  if (role.kind === 'entity' && role.mode === 'nested') {
    if (entity === role.classes[0] || !role.classes.includes(entity)) {
      return role.classes.includes(entity) || v.index.isAncestorOrSelf(entity, role.classes[0] as string)
        ? undefined
        : FALSE;
    }
    const flag = v.column(table, (r) => r.kind === 'flag' && r.entity === entity);
    if (flag) return col(alias, flag.name);
  }
  const typed = v.typedClasses(table);
  const inside = typed.filter((c) => v.index.isAncestorOrSelf(entity, c));
  if (inside.length === typed.length) return undefined;
  if (inside.length === 0) return FALSE;
  const typeColumn = v.column(table, (r) => r.kind === 'type');
  if (!typeColumn)
    throw new CompileError(
      `variant ${v.schema.variant.name}: table ${table.name} holds several classes but has no type column`,
    );
  const values = inside.map((c) => literal(typeValue(table, c)));
  return oneOf(col(alias, typeColumn.name), values);
}

/** `c = v`, or `c IN (v1, v2, …)` for several values. */
function oneOf(c: SqlColumn, values: readonly SqlExpr[]): SqlExpr {
  return values.length === 1 ? binary('=', c, values[0] as SqlExpr) : { kind: 'in', arg: c, values, negated: false };
}

function typeValue(table: Table, entity: string): string {
  const role = table.role;
  const values = role.kind === 'entity' || role.kind === 'registry' ? role.typeValues : {};
  const value = values[entity];
  if (value === undefined) throw new CompileError(`table ${table.name} has no type value for ${entity}`);
  return value;
}

/**
 * Unfolds the virtual relation of `entity` for one variant, providing exactly `needs`:
 * a discriminator filter on a merged table, only the joins up the hierarchy the needs call
 * for, and a UNION ALL only where the instances are spread over several concrete tables.
 */
export function entityView(
  v: VariantIndex,
  alias: string,
  entity: string,
  needs: readonly Need[],
  fresh: (base: string) => string,
  tested: readonly string[] = [],
): EntityView {
  const root = v.index.root(entity).name;
  const subclasses = new Set(v.index.subtree(entity).map((e) => e.name));
  const columns = new Map<string, SqlColumn>();
  const wantsType = needs.some((n) => n.kind === 'type');

  if (v.mode(root) === 'nested') {
    const groupOf = (cls: string): Table => {
      const t = v.entityTables(root).find((t) => t.role.kind === 'entity' && t.role.classes.includes(cls));
      if (!t) throw new CompileError(`variant ${v.schema.variant.name}: no table holds class ${cls}`);
      return t;
    };
    const base = groupOf(entity);
    const joins: SqlJoin[] = [];
    const joined = new Map<string, string>([[base.name, alias]]);
    const baseKey = col(alias, keyColumn(base));
    columns.set('id', baseKey);
    for (const need of needs) {
      if (need.kind === 'type') continue;
      const owner = ownerOf(v, need) as string;
      const table = groupOf(owner);
      let tableAlias = joined.get(table.name);
      if (!tableAlias) {
        tableAlias = fresh(table.name);
        joined.set(table.name, tableAlias);
        joins.push({
          type: 'JOIN',
          item: { kind: 'table', name: table.name, alias: tableAlias },
          on: [binary('=', col(tableAlias, keyColumn(table)), baseKey)],
        });
      }
      const column = needColumn(v, table, need);
      columns.set(needKey(need), col(tableAlias, column.name));
    }
    const filter = instanceFilter(v, base, alias, entity);
    // A subclass held in a table of its own is tested by a LEFT JOIN to that table on the
    // id (with its discriminator, where the table holds several classes): the joined row is
    // there exactly for the subclass's instances, and one join serves every row.
    const probes = new Map<string, SqlExpr>();
    const groupExtras: SqlColumn[] = [];
    for (const cls of tested) {
      if (v.index.isAncestorOrSelf(cls, entity) || probes.has(cls)) continue;
      const table = groupOf(cls);
      if (table === base) continue;
      const probe = fresh(table.name);
      const condition = instanceFilter(v, table, probe, cls);
      if (isBoolean(condition, false)) continue;
      const probeKey = col(probe, keyColumn(table));
      joins.push({
        type: 'LEFT JOIN',
        item: tableItem(table.name, probe),
        on: [binary('=', probeKey, baseKey), ...(condition ? [condition] : [])],
        unique: true,
      });
      probes.set(cls, isNull(probeKey, true));
      groupExtras.push(probeKey);
    }
    return {
      entity,
      alias,
      from: tableItem(base.name, alias),
      joins,
      filters: filter ? [filter] : [],
      columns,
      groupExtras,
      isA: (cls) => {
        if (v.index.isAncestorOrSelf(cls, entity)) return undefined;
        const probe = probes.get(cls);
        if (probe !== undefined) return probe;
        const table = groupOf(cls);
        if (table === base) return instanceFilter(v, base, alias, cls);
        const inner = fresh(table.name);
        const condition = instanceFilter(v, table, inner, cls);
        const test: SqlSelect = {
          ...emptySelect(tableItem(table.name, inner)),
          columns: [{ expr: literal(1) }],
          where: [binary('=', col(inner, keyColumn(table)), baseKey), ...(condition ? [condition] : [])],
        };
        return { kind: 'exists', negated: false, query: { kind: 'subquery', layout: 'line', query: test } };
      },
    };
  }

  // Concrete: the instances live in every table whose classes meet the subtree.
  const tables = v.entityTables(root).filter((t) => v.typedClasses(t).some((c) => subclasses.has(c)));
  const registry = v.registry(root);
  const onlyIds = needs.every((n) => n.kind === 'type');
  const single = onlyIds && registry ? registry : tables.length === 1 ? tables[0] : undefined;
  if (single) {
    columns.set('id', col(alias, keyColumn(single)));
    for (const need of needs) {
      if (need.kind === 'type') continue;
      const column = needColumn(v, single, need);
      columns.set(needKey(need), col(alias, column.name));
    }
    const filter = instanceFilter(v, single, alias, entity);
    return {
      entity,
      alias,
      from: tableItem(single.name, alias),
      joins: [],
      filters: filter ? [filter] : [],
      columns,
      isA: (cls) => (v.index.isAncestorOrSelf(cls, entity) ? undefined : instanceFilter(v, single, alias, cls)),
    };
  }

  // Several concrete tables: a UNION ALL of the needed columns, with the class of each row
  // when a subclass test needs it.
  const names = new Map<string, string>();
  const used = new Set(['id']);
  for (const need of needs) {
    if (need.kind === 'type') continue;
    const first = tables.map((t) => v.column(t, (r) => roleMatches(need, r))).find(Boolean);
    let name = first?.name ?? needKey(need).replace(/\W+/g, '_');
    for (let i = 2; used.has(name); i++) name = `${first?.name ?? 'c'}_${i}`;
    used.add(name);
    names.set(needKey(need), name);
  }
  let typeName = 'type';
  for (let i = 2; used.has(typeName); i++) typeName = `type_${i}`;
  const branches: SqlSelect[] = tables.map((table) => {
    const t = fresh(table.name);
    const key = keyColumn(table);
    const cols: { expr: SqlExpr; alias?: string }[] = [
      key === 'id' ? { expr: col(t, key) } : { expr: col(t, key), alias: 'id' },
    ];
    for (const need of needs) {
      if (need.kind === 'type') continue;
      const column = needColumn(v, table, need);
      const name = names.get(needKey(need)) as string;
      cols.push(column.name === name ? { expr: col(t, column.name) } : { expr: col(t, column.name), alias: name });
    }
    if (wantsType) {
      // Each row carries the name of its class itself, so naming the class needs no CASE
      // outside; only a table that holds several classes maps its stored values.
      const typed = v.typedClasses(table);
      const typeColumn = v.column(table, (r) => r.kind === 'type');
      const expr: SqlExpr =
        typeColumn && typed.length > 1
          ? {
              kind: 'case',
              operand: col(t, typeColumn.name),
              whens: typed.map((c) => ({ when: literal(typeValue(table, c)), then: literal(c) })),
            }
          : literal(typed[0] as string);
      cols.push({ expr, alias: typeName });
    }
    const filter = instanceFilter(v, table, t, entity);
    return { ...emptySelect(tableItem(table.name, t)), columns: cols, where: filter ? [filter] : [] };
  });
  const union = branches
    .slice(1)
    .reduce<SqlQuery>(
      (acc, b) => ({ kind: 'set', op: 'UNION ALL', left: acc, right: b, orderBy: [] }),
      branches[0] as SqlSelect,
    );
  columns.set('id', col(alias, 'id'));
  for (const [key, name] of names) columns.set(key, col(alias, name));
  if (wantsType) columns.set('type', col(alias, typeName));
  return {
    entity,
    alias,
    from: { kind: 'derived', query: union, alias },
    joins: [],
    filters: [],
    columns,
    isA: (cls) => {
      if (v.index.isAncestorOrSelf(cls, entity)) return undefined;
      const inside = v.index
        .subtree(cls)
        .map((e) => e.name)
        .filter((c) => v.index.canBeDirect(c));
      if (inside.length === 0) return FALSE;
      return oneOf(
        col(alias, typeName),
        inside.map((c) => literal(c)),
      );
    },
    ...(wantsType
      ? {
          classColumn: {
            sql: col(alias, typeName),
            classes: [...new Set(tables.flatMap((t) => v.typedClasses(t)))].filter((c) => subclasses.has(c)),
          },
        }
      : {}),
  };
}
