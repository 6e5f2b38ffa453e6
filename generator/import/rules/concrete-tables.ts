import type {
  Catalog,
  CatalogCheck,
  CatalogColumn,
  CatalogForeignKey,
  CatalogProfile,
  CatalogTable,
  ColumnProfile,
} from '../catalog.ts';
import { POOL_LIMIT } from '../catalog.ts';
import type { ConcreteProfile } from '../column-profile.ts';
import { isAuditColumn } from './audit-columns.ts';
import type { Finding } from './finding.ts';
import { snakeName } from './lexicon-words.ts';
import { isIntegerKey } from './physical-names.ts';
import pluralize from 'pluralize';

/** Distinct values a column without a foreign key needs before its values being keys is read as a reference. */
const MIN_REFERENCED = 5;

/** A column as concrete tables compare them: name, type, and the table it references. */
const columnSignature = (name: string, sqlType: string, target: string): string =>
  `${name}:${sqlType}${target === '' ? '' : `→${target}`}`;

/** Columns that tables must share, beyond their keys, to be read as one hierarchy. */
const SHARED_COLUMNS = 3;
/** Columns a class without a table must add to its parent's to be read as a class of its own. */
const OWN_COLUMNS = 2;

/**
 * Rule `same-columns` (concrete-table inheritance): tables that share at least three
 * non-key columns of the same names and types may be concrete tables of one class, each
 * holding a subtype with the shared columns copied down. Alone, a candidate only: two tables
 * with an address each are not always kinds of one thing (see `readConcreteTables`).
 */
export function sameColumnGroups(
  tables: readonly CatalogTable[],
): { readonly tables: readonly string[]; readonly columns: readonly string[] }[] {
  const signature = (t: CatalogTable): Set<string> => {
    const keyCols = new Set([...(t.primaryKey ?? []), ...t.foreignKeys.flatMap((f) => f.columns)]);
    return new Set(
      t.columns.filter((c) => !keyCols.has(c.name) && !isAuditColumn(c)).map((c) => `${c.name}:${c.sqlType}`),
    );
  };
  const sigs = tables.map((t) => ({ name: t.name, sig: signature(t) }));
  const groups: { tables: string[]; columns: string[] }[] = [];
  const used = new Set<string>();
  for (const a of sigs) {
    if (used.has(a.name)) continue;
    const group = [a.name];
    let shared = [...a.sig];
    for (const b of sigs) {
      if (b.name === a.name || used.has(b.name)) continue;
      const common = shared.filter((s) => b.sig.has(s));
      if (common.length >= SHARED_COLUMNS) {
        group.push(b.name);
        shared = common;
      }
    }
    if (group.length > 1) {
      for (const g of group) used.add(g);
      groups.push({ tables: group, columns: shared.map((s) => s.split(':')[0] as string) });
    }
  }
  return groups;
}

/** A registry table's names: its one integer key and the one column beside it that tells each object's kind. */
export interface RegistryShape {
  readonly table: string;
  readonly key: string;
  readonly column: string;
}

/**
 * Whether a table can be a concrete hierarchy's registry: an integer key and one required
 * text column, nothing else, referencing no table.
 */
export function registryShape(t: CatalogTable | undefined): RegistryShape | undefined {
  if (!t || t.primaryKey?.length !== 1 || t.columns.length !== 2 || t.foreignKeys.length > 0) return undefined;
  const key = t.columns.find((c) => c.name === t.primaryKey?.[0]);
  const kind = t.columns.find((c) => c !== key);
  if (!key || !isIntegerKey(key) || !kind || kind.nullable) return undefined;
  if (!['text', 'char', 'enum'].includes(kind.type.kind)) return undefined;
  return { table: t.name, key: key.name, column: kind.name };
}

/** The registry a table's key references, if it does. */
export function keyRegistry(t: CatalogTable, byName: ReadonlyMap<string, CatalogTable>): RegistryShape | undefined {
  const key = t.primaryKey?.length === 1 ? t.primaryKey[0] : undefined;
  const fk = t.foreignKeys.find((f) => f.columns.length === 1 && f.columns[0] === key);
  return fk ? registryShape(byName.get(fk.table)) : undefined;
}

/** Whether a table can be a concrete table: one integer key column that references nothing but a registry, no INHERITS. */
function concreteShaped(t: CatalogTable, byName: ReadonlyMap<string, CatalogTable>): boolean {
  const key = t.primaryKey?.length === 1 ? t.columns.find((c) => c.name === t.primaryKey?.[0]) : undefined;
  return (
    key !== undefined &&
    isIntegerKey(key) &&
    t.rowCount > 0 &&
    t.inherits.length === 0 &&
    t.foreignKeys.filter((fk) => fk.columns.includes(key.name)).length === (keyRegistry(t, byName) ? 1 : 0)
  );
}

/** The groups of tables, each with rows and one integer key, that `sameColumnGroups` finds: the rows decide. */
export function concreteCandidates(tables: readonly CatalogTable[]): string[][] {
  const byName = new Map(tables.map((t) => [t.name, t]));
  // A registry's key is no column the tables share: it is read apart.
  const unkeyed = tables
    .filter((t) => concreteShaped(t, byName))
    .map((t) =>
      keyRegistry(t, byName) ? { ...t, foreignKeys: t.foreignKeys.filter((f) => !isKeyReference(t, f)) } : t,
    );
  return sameColumnGroups(unkeyed).map((g) => [...g.tables]);
}

const isKeyReference = (t: CatalogTable, fk: CatalogForeignKey): boolean =>
  fk.columns.length === 1 && t.primaryKey?.length === 1 && fk.columns[0] === t.primaryKey[0];

/**
 * A table's integer columns that may reference a concrete hierarchy: named like a reference
 * (`product_id`) with no foreign key, or a foreign key to a registry (which holds every
 * object, whatever its class; the table's own key too, as a relationship table's is).
 */
export function referenceCandidates(t: CatalogTable, byName: ReadonlyMap<string, CatalogTable>): string[] {
  const covered = new Set(
    t.foreignKeys.filter((fk) => !registryShape(byName.get(fk.table))).flatMap((fk) => fk.columns),
  );
  const toRegistry = new Set(
    t.foreignKeys.filter((fk) => registryShape(byName.get(fk.table))).flatMap((fk) => fk.columns),
  );
  const ownKey = t.primaryKey?.length === 1 ? t.primaryKey[0] : undefined;
  return t.columns
    .filter(
      (c) =>
        isIntegerKey(c) &&
        (c.name !== ownKey || toRegistry.has(c.name)) &&
        !covered.has(c.name) &&
        (toRegistry.has(c.name) || /(^|_)id$/iu.test(c.name)),
    )
    .map((c) => c.name);
}

/** One class of a concrete hierarchy: the columns its objects have, its table if it has one, its subclasses. */
interface ConcreteNode {
  readonly columns: ReadonlySet<string>;
  readonly table?: string;
  readonly children: readonly ConcreteNode[];
  readonly tables: readonly string[];
}

/** The read of `readConcreteTables`: the catalog with the hierarchies in it, and what was concluded. */
export interface ConcreteRead {
  readonly catalog: Catalog;
  readonly profile: CatalogProfile;
  readonly findings: readonly Finding[];
}

/**
 * Rule `concrete-tables`: tables that share at least three columns and whose keys never meet
 * (`ConcreteProfile.groups`) are the concrete tables of one hierarchy. Its classes are read
 * from the columns: a table whose columns are all in another's is that one's superclass; tables
 * that share at least two columns beyond their superclass's, with no table of exactly those,
 * have a superclass with no table (an abstract class), which the import adds to the catalog as
 * a table marked `concrete.abstract`. Rule `reference-by-rows`: an integer `…_id` column with
 * no foreign key whose every value is a key of the group is a reference to the most specific
 * class holding them all, added as a foreign key marked `inferred`. Every other rule then reads
 * the hierarchy as it reads `INHERITS`, and the references as foreign keys.
 */
export function readConcreteTables(
  catalog: Catalog,
  profile: CatalogProfile,
  concrete: ConcreteProfile | undefined,
): ConcreteRead {
  if (!concrete || concrete.groups.length === 0) return { catalog, profile, findings: [] };
  const findings: Finding[] = [];
  const byName = new Map(catalog.tables.map((t) => [t.name, t]));
  const tableOf = (name: string): CatalogTable => byName.get(name) as CatalogTable;
  const keyOf = (name: string): string => tableOf(name).primaryKey?.[0] as string;
  // A column's name and type, and the table it references: two tables' `owner_id` to different tables are not one column.
  const columnOf = new Map<string, string>();
  const columnNames = (sigs: Iterable<string>): string[] => [...sigs].map((s) => columnOf.get(s) as string);
  const signature = (name: string): Set<string> => {
    const t = tableOf(name);
    const target = (c: string): string =>
      t.foreignKeys.find((fk) => fk.columns.length === 1 && fk.columns[0] === c)?.table ?? '';
    const out = new Set<string>();
    for (const c of t.columns) {
      if (c.name === keyOf(name)) continue;
      const sig = columnSignature(c.name, c.sqlType, target(c.name));
      columnOf.set(sig, c.name);
      out.add(sig);
    }
    return out;
  };
  const taken = new Set(catalog.tables.map((t) => t.name.toLowerCase()));

  const trees = concrete.groups.map((g) => classTree(g, signature));
  // A group whose every table's key references one registry, with one kind per table, is kept
  // with that registry; one whose keys reference a table that is no such registry is no group
  // (its tables stay subclass tables of the one their keys reference).
  const registryOf = new Map<ConcreteNode, { shape: RegistryShape; kinds: Record<string, string> }>();
  const candidates: ConcreteNode[] = [];
  for (const root of trees) {
    const keyed = root.tables.some((t) => tableOf(t).foreignKeys.some((fk) => isKeyReference(tableOf(t), fk)));
    const shapes = root.tables.map((t) => keyRegistry(tableOf(t), byName));
    const shape = shapes[0];
    const kinds = root.tables.map((t) => concrete.kinds?.get(t));
    if (
      shape &&
      shapes.every((s) => s?.table === shape.table) &&
      kinds.every((k) => k !== undefined) &&
      new Set(kinds).size === kinds.length
    ) {
      registryOf.set(root, { shape, kinds: Object.fromEntries(root.tables.map((t, i) => [t, kinds[i] as string])) });
      candidates.push(root);
    } else if (!keyed) candidates.push(root);
  }
  const registryTables = new Set([...registryOf.values()].map((r) => r.shape.table));
  const rowsOf = (n: ConcreteNode): number => n.tables.reduce((s, t) => s + tableOf(t).rowCount, 0);
  const resolve = (among: readonly ConcreteNode[]): Reference[] => {
    const groupTables = new Set(among.flatMap((r) => r.tables));
    const nonGroupNames = new Set(
      catalog.tables
        .filter((t) => !groupTables.has(t.name) && !registryTables.has(t.name))
        .flatMap((t) => [snakeName(t.name), pluralize.singular(snakeName(t.name))]),
    );
    return resolveReferences(concrete.references, among, { tableOf, registryTables, nonGroupNames, rowsOf });
  };
  // Shared columns and keys that never meet may be chance (students and faculty numbered
  // apart): a group is kept where more says it is one hierarchy: its registry, a table whose
  // columns are all in another's, or a reference into a class of two or more of its tables.
  const offered = resolve(candidates);
  const superTable = (n: ConcreteNode): boolean =>
    (n.table !== undefined && n.children.length > 0) || n.children.some(superTable);
  const roots = candidates.filter(
    (root) =>
      registryOf.has(root) ||
      superTable(root) ||
      offered.some((r) => r.node.tables.length >= 2 && r.node.tables.every((t) => root.tables.includes(t))),
  );
  if (roots.length === 0) return { catalog, profile, findings: [] };
  // Each class's superclass, and every class of every group.
  const parentOf = new Map<ConcreteNode, ConcreteNode>();
  const visit = (n: ConcreteNode): void => {
    for (const c of n.children) {
      parentOf.set(c, n);
      visit(c);
    }
  };
  for (const r of roots) visit(r);
  const nodes = [...roots, ...parentOf.keys()];
  const references = resolve(roots);
  const nameOf = classNames(nodes, { parentOf, registryOf, references, taken, columnNames });

  const added: CatalogTable[] = [];
  const rewritten = new Map<string, CatalogTable>();
  for (const n of nodes) {
    const parent = parentOf.get(n);
    const registry = registryOf.get(n);
    const reading = {
      ...(parent ? { parent: nameOf.get(parent) as string } : {}),
      rows: rowsOf(n),
      ...(registry
        ? { registry: { table: registry.shape.table, column: registry.shape.column, kinds: registry.kinds } }
        : {}),
    };
    if (n.table !== undefined) {
      const t = tableOf(n.table);
      rewritten.set(n.table, { ...t, concrete: reading });
      continue;
    }
    const first = n.tables[0] as string;
    const like = tableOf(first);
    const key = keyOf(first);
    const names = new Set(columnNames(n.columns));
    const inColumns = (c: string): boolean => names.has(c);
    // A column allows NULL where any of the tables' does; a CHECK holds where every table has it.
    const all = n.tables.map(tableOf);
    const nullable = (c: CatalogColumn): boolean =>
      all.some((t) => t.columns.find((x) => x.name === c.name)?.nullable === true);
    const everywhere = (check: CatalogCheck): boolean =>
      all.every((t) => t.checks.some((x) => x.expression === check.expression));
    added.push({
      name: nameOf.get(n) as string,
      columns: like.columns
        .filter((c) => c.name === key || inColumns(c.name))
        .map((c) => (nullable(c) ? { ...c, nullable: true } : c)),
      primaryKey: [key],
      uniques: [],
      foreignKeys: like.foreignKeys.filter((fk) => fk.columns.every(inColumns) && !registryTables.has(fk.table)),
      checks: like.checks.filter((c) => c.inList !== undefined && inColumns(c.inList.column) && everywhere(c)),
      inherits: [],
      partitions: [],
      rowCount: rowsOf(n),
      concrete: { ...reading, abstract: true },
    });
    findings.push({
      rule: 'concrete-tables',
      subject: n.tables.join(', '),
      text: `class ${nameOf.get(n)} with no table of its own: the columns ${columnNames(n.columns).join(', ')} they share`,
      review: true,
    });
  }
  for (const r of roots)
    findings.push({
      rule: 'concrete-tables',
      subject: r.tables.join(', '),
      text: `concrete tables of one hierarchy: they share ${columnNames(r.columns).join(', ')} and no two hold the same key`,
      review: true,
    });
  for (const [root, registry] of registryOf) {
    const r = tableOf(registry.shape.table);
    rewritten.set(r.name, { ...r, concrete: { rows: r.rowCount, isRegistry: true } });
    findings.push({
      rule: 'concrete-tables',
      subject: r.name,
      text: `registry of ${nameOf.get(root)}: every object's key, and in ${registry.shape.column} the kind of its table`,
    });
  }
  // The key's reference to the registry is the hierarchy's, not a superclass's: the registry is read with the root.
  for (const [name, t] of rewritten)
    if (t.concrete && !t.concrete.isRegistry)
      rewritten.set(name, {
        ...t,
        foreignKeys: t.foreignKeys.filter((fk) => !(isKeyReference(t, fk) && registryTables.has(fk.table))),
      });
  for (const ref of references) {
    const target = nameOf.get(ref.node) as string;
    const key = ref.node.table !== undefined ? keyOf(ref.node.table) : keyOf(ref.node.tables[0] as string);
    const t = rewritten.get(ref.table) ?? tableOf(ref.table);
    // A foreign key to a registry names no class: the rows tell which.
    const viaRegistry = t.foreignKeys.find((f) => f.columns.length === 1 && f.columns[0] === ref.column);
    const fk: CatalogForeignKey = {
      columns: [ref.column],
      table: target,
      references: [key],
      ...(viaRegistry ? {} : { inferred: true }),
    };
    rewritten.set(ref.table, { ...t, foreignKeys: [...t.foreignKeys.filter((f) => f !== viaRegistry), fk] });
    findings.push({
      rule: 'reference-by-rows',
      subject: `${ref.table}.${ref.column}`,
      text: `${viaRegistry ? `references the registry ${viaRegistry.table}` : 'no foreign key'}, but every value is a key of ${target}${ref.node.table === undefined ? ` (in ${ref.node.tables.join(', ')})` : ''}: a reference to it`,
      review: true,
    });
  }

  const tables = [...catalog.tables.map((t) => rewritten.get(t.name) ?? t), ...added];
  const merged = new Map(profile);
  for (const t of added) {
    const n = nodes.find((x) => nameOf.get(x) === t.name) as ConcreteNode;
    merged.set(t.name, mergedProfile(t.columns, n.tables, profile));
  }
  return { catalog: { ...catalog, tables }, profile: merged, findings };
}

/** A reference column resolved to the class it points at. */
interface Reference {
  readonly table: string;
  readonly column: string;
  readonly node: ConcreteNode;
}

/** Rule `reference-by-rows`: each profiled column that points into a group, and the most specific class holding its values. */
function resolveReferences(
  profiled: ConcreteProfile['references'],
  roots: readonly ConcreteNode[],
  at: {
    readonly tableOf: (name: string) => CatalogTable;
    readonly registryTables: ReadonlySet<string>;
    readonly nonGroupNames: ReadonlySet<string>;
    readonly rowsOf: (n: ConcreteNode) => number;
  },
): Reference[] {
  const { tableOf, registryTables, nonGroupNames, rowsOf } = at;
  const references: Reference[] = [];
  for (const [table, columns] of profiled) {
    for (const [column, hits] of columns) {
      const stem = snakeName(column).replace(/_?id$/u, '');
      // A declared foreign key stays, but one to a registry of a group, which names no class.
      const declared = tableOf(table).foreignKeys.find((fk) => fk.columns.length === 1 && fk.columns[0] === column);
      if (declared && !registryTables.has(declared.table)) continue;
      // Too few values to tell a reference from a code (`status_id` 1 to 3); a column named
      // after another table is a reference to it that lacks its constraint.
      if (
        !declared &&
        (hits.distinct < MIN_REFERENCED || nonGroupNames.has(stem) || nonGroupNames.has(pluralize.singular(stem)))
      )
        continue;
      // Keys of different hierarchies may meet: each group that holds every value offers the
      // most specific class holding them; a class named like the column wins, else the one with
      // the fewest keys (were the values drawn from a larger class, they would seldom all fall in it).
      const offers: ConcreteNode[] = [];
      for (const root of roots) {
        const holding = root.tables.filter((t) => (hits.found.get(t) ?? 0) > 0);
        if (root.tables.reduce((sum, t) => sum + (hits.found.get(t) ?? 0), 0) !== hits.distinct) continue;
        let node = root;
        for (let next = node.children.find((c) => holding.every((t) => c.tables.includes(t))); next; ) {
          node = next;
          next = node.children.find((c) => holding.every((t) => c.tables.includes(t)));
        }
        offers.push(node);
      }
      const named = (n: ConcreteNode): boolean => {
        const t = n.table === undefined ? '' : snakeName(n.table);
        return t === stem || t === `${stem}s` || t.startsWith(`${stem}_`);
      };
      const node =
        offers.find(named) ?? offers.sort((a, b) => rowsOf(a) - rowsOf(b) || a.tables.length - b.tables.length)[0];
      // Without a foreign key, only a class of more than one table: the source could have declared one to a single table.
      if (!node || (!declared && node.tables.length < 2)) continue;
      references.push({ table, column, node });
    }
  }

  return references;
}

/**
 * A name for each class: its table's, else the registry's word, else the word most
 * references to it use (`product_id` → product), else for a subclass its first own column
 * and its superclass (`format_product`), for a root its tables' common last word.
 */
function classNames(
  nodes: readonly ConcreteNode[],
  at: {
    readonly parentOf: ReadonlyMap<ConcreteNode, ConcreteNode>;
    readonly registryOf: ReadonlyMap<ConcreteNode, { readonly shape: RegistryShape }>;
    readonly references: readonly Reference[];
    readonly taken: Set<string>;
    readonly columnNames: (sigs: Iterable<string>) => string[];
  },
): Map<ConcreteNode, string> {
  const { parentOf, registryOf, references, taken, columnNames } = at;
  const nameOf = new Map<ConcreteNode, string>();
  for (const n of nodes) {
    if (n.table !== undefined) {
      nameOf.set(n, n.table);
      continue;
    }
    const registry = registryOf.get(n)?.shape.table;
    const stems = [
      ...(registry !== undefined ? [snakeName(registry).replace(/_?registr(y|ies)$/u, '')] : []),
      ...references.filter((r) => r.node === n).map((r) => snakeName(r.column).replace(/_?id$/u, '')),
    ];
    // Else a subclass is named by its first own column and its superclass (`format_product`).
    const parent = parentOf.get(n);
    const firstOwn = columnNames([...n.columns].filter((c) => !parent?.columns.has(c)))[0];
    const fallback =
      parent !== undefined && firstOwn !== undefined
        ? `${snakeName(firstOwn)}_${snakeName(nameOf.get(parent) as string)}`
        : (commonLastWord(n.tables) ?? `${snakeName(n.tables[0] as string)}_kind`);
    // The registry's word first, then the word most references use (the shortest of equals).
    const uses = (w: string): number => stems.filter((x) => x === w).length;
    const [registryStem, ...referenceStems] = registry !== undefined ? stems : ['', ...stems];
    const ranked = [
      registryStem as string,
      ...[...new Set(referenceStems)].sort((a, b) => uses(b) - uses(a) || a.length - b.length),
    ];
    const base = ranked.find((w) => w !== '' && !taken.has(w)) ?? fallback;
    let name = base;
    for (let i = 2; taken.has(name.toLowerCase()); i++) name = `${base}_${i}`;
    taken.add(name.toLowerCase());
    nameOf.set(n, name);
  }

  return nameOf;
}

/**
 * The classes of a group of concrete tables, from their columns: the group's shared columns
 * are the root's; a table with exactly those is the root's own table; the other tables fall
 * into clusters sharing `OWN_COLUMNS` more, each a subclass read the same way.
 */
function classTree(tables: readonly string[], signature: (t: string) => Set<string>): ConcreteNode {
  const sigs = new Map(tables.map((t) => [t, signature(t)]));
  const shared = (names: readonly string[]): Set<string> => {
    const [first, ...rest] = names.map((n) => sigs.get(n) as Set<string>);
    return new Set([...(first ?? [])].filter((c) => rest.every((s) => s.has(c))));
  };
  const build = (names: readonly string[], columns: Set<string>): ConcreteNode => {
    const own = names.filter((n) => (sigs.get(n) as Set<string>).size === columns.size);
    const table = own.length === 1 ? own[0] : undefined;
    const rest = names.filter((n) => n !== table);
    // Union-find over the rest: two tables are in one cluster when they share enough beyond `columns`.
    const cluster = new Map(rest.map((n) => [n, n]));
    const find = (n: string): string => {
      const p = cluster.get(n) as string;
      return p === n ? n : find(p);
    };
    for (const a of rest)
      for (const b of rest) {
        if (a >= b) continue;
        const beyond = [...(sigs.get(a) as Set<string>)].filter(
          (c) => !columns.has(c) && (sigs.get(b) as Set<string>).has(c),
        );
        if (beyond.length >= OWN_COLUMNS) cluster.set(find(a), find(b));
      }
    const clusters = new Map<string, string[]>();
    for (const n of rest) clusters.set(find(n), [...(clusters.get(find(n)) ?? []), n]);
    const children: ConcreteNode[] = [];
    for (const members of clusters.values()) {
      const common = shared(members);
      const adds = [...common].filter((c) => !columns.has(c)).length;
      if (members.length === 1 || adds >= OWN_COLUMNS) children.push(build(members, common));
      else for (const m of members) children.push(build([m], sigs.get(m) as Set<string>));
    }
    return { columns, ...(table !== undefined ? { table } : {}), children, tables: names };
  };
  return build(tables, shared(tables));
}

/** The last word the tables' names share (`media_products`, `software_products` → `products`), if any. */
function commonLastWord(tables: readonly string[]): string | undefined {
  const last = tables.map((t) => snakeName(t).split('_').pop() as string);
  return last.every((w) => w === last[0]) && tables.every((t) => snakeName(t) !== last[0]) ? last[0] : undefined;
}

/** A class without a table's column profiles: its tables' rows taken together. */
function mergedProfile(
  columns: readonly CatalogColumn[],
  tables: readonly string[],
  profile: CatalogProfile,
): Map<string, ColumnProfile> {
  const out = new Map<string, ColumnProfile>();
  for (const c of columns) {
    const parts = tables.map((t) => profile.get(t)?.get(c.name)).filter((p): p is ColumnProfile => p !== undefined);
    if (parts.length === 0) continue;
    const counts = new Map<string, number>();
    if (parts.every((p) => p.values !== undefined))
      for (const p of parts) for (const v of p.values ?? []) counts.set(v.value, (counts.get(v.value) ?? 0) + v.count);
    const ends = (pick: (p: ColumnProfile) => string | undefined, lower: boolean): string | undefined => {
      const all = parts.map(pick).filter((v): v is string => v !== undefined);
      if (all.length === 0) return undefined;
      const numeric = all.every((v) => Number.isFinite(Number(v)));
      return all.reduce((a, b) => {
        const less = numeric ? Number(b) < Number(a) : b < a;
        return less === lower ? b : a;
      });
    };
    const pooled = parts.every((p) => p.values !== undefined) && counts.size <= POOL_LIMIT;
    const min = ends((p) => p.min, true);
    const max = ends((p) => p.max, false);
    out.set(c.name, {
      rows: parts.reduce((s, p) => s + p.rows, 0),
      nulls: parts.reduce((s, p) => s + p.nulls, 0),
      distinct: pooled ? counts.size : Math.max(...parts.map((p) => p.distinct)),
      ...(min !== undefined ? { min } : {}),
      ...(max !== undefined ? { max } : {}),
      ...(pooled
        ? { values: [...counts].map(([value, count]) => ({ value, count })).sort((a, b) => b.count - a.count) }
        : {}),
      ...(parts.every((p) => p.jsonArrayOf === parts[0]?.jsonArrayOf) && parts[0]?.jsonArrayOf
        ? { jsonArrayOf: parts[0].jsonArrayOf }
        : {}),
    });
  }
  return out;
}
