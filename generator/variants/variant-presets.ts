import type { Attribute, Entity } from '../er-model/er-model.ts';
import type { ErIndex } from '../er-model/er-index.ts';
import { ConfigError } from '../common/errors.ts';
import type { HierarchyChoice, MultiValuedEncoding, RelationshipEncoding, VariantSpec } from './variant-spec.ts';

/** The ten named variants of the paper's Table 1, as rules that apply to any domain. */
export const PRESET_NAMES = [
  'full_sti',
  'full_cti',
  'full_concrete',
  'full_normalized',
  'concrete_all_tables',
  'hybrid_roots_merged',
  'hybrid_leaves_merged',
  'mixed_sti_cti',
  'sti_junction_fks',
  'kitchen_sink',
] as const;

export type PresetName = (typeof PRESET_NAMES)[number];

// Groupings of one hierarchy, as lists of classes in pre-order, top of each group first.

/** Single-table inheritance: the whole hierarchy in one group. */
export function stiGroups(index: ErIndex, root: string): string[][] {
  return [index.subtree(root).map((e) => e.name)];
}

/** Class-table inheritance (and concrete): every class in a group of its own. */
export function ctiGroups(index: ErIndex, root: string): string[][] {
  return index.subtree(root).map((e) => [e.name]);
}

/** The root and its children in one group; every deeper class alone. */
export function rootsMergedGroups(index: ErIndex, root: string): string[][] {
  const first = [root, ...index.children(root).map((c) => c.name)];
  const rest = index
    .subtree(root)
    .filter((e) => !first.includes(e.name))
    .map((e) => [e.name]);
  return [first, ...rest];
}

/**
 * Cuts a hierarchy into connected groups, top first, visiting classes in pre-order: each
 * class other than the root joins its parent's group when `joinsParent` says so.
 */
export function partitionHierarchy(index: ErIndex, root: string, joinsParent: (entity: Entity) => boolean): string[][] {
  const groups: string[][] = [];
  const groupOf = new Map<string, string[]>();
  for (const entity of index.subtree(root)) {
    const parentGroup = entity.parent === undefined ? undefined : groupOf.get(entity.parent);
    const group = parentGroup && joinsParent(entity) ? parentGroup : [];
    if (group !== parentGroup) groups.push(group);
    group.push(entity.name);
    groupOf.set(entity.name, group);
  }
  return groups;
}

/** The root alone; each leaf merged into its parent's group unless the parent is the root. */
export function leavesMergedGroups(index: ErIndex, root: string): string[][] {
  return partitionHierarchy(index, root, (e) => index.children(e.name).length === 0 && e.parent !== root);
}

/** The first child's subtree merged with the root (STI part); the other subtrees class-table. */
function splitGroups(index: ErIndex, root: string): string[][] {
  const [first, ...others] = index.children(root);
  if (!first) return [[root]];
  const merged = [root, ...index.subtree(first.name).map((e) => e.name)];
  return [merged, ...others.flatMap((o) => index.subtree(o.name).map((e) => [e.name]))];
}

/** Whether any relationship ends at a class of this hierarchy that has subclasses. */
function needsRegistry(index: ErIndex, root: string): boolean {
  const inner = new Set(
    index
      .subtree(root)
      .filter((e) => index.children(e.name).length > 0)
      .map((e) => e.name),
  );
  return index.domain.relationships.some((r) => inner.has(r.from) || inner.has(r.to));
}

interface MultiValuedSite {
  readonly key: string;
  readonly owner: Entity;
  readonly attribute: Attribute;
  /** Position among the domain's multi-valued attributes, in declaration order. */
  readonly ordinal: number;
}

function multiValuedSites(index: ErIndex): MultiValuedSite[] {
  const sites: MultiValuedSite[] = [];
  for (const owner of index.domain.entities) {
    for (const attribute of owner.attributes) {
      if (attribute.multiValued)
        sites.push({ key: `${owner.name}.${attribute.name}`, owner, attribute, ordinal: sites.length });
    }
  }
  return sites;
}

function manyToOne(index: ErIndex) {
  return index.domain.relationships.filter((r) => r.cardinality !== 'many-to-many');
}

function hierarchies(
  index: ErIndex,
  choose: (root: string, ordinal: number) => HierarchyChoice,
): Record<string, HierarchyChoice> {
  return Object.fromEntries(index.hierarchyRoots.map((r, i) => [r.name, choose(r.name, i)]));
}

function multiValued(
  index: ErIndex,
  choose: (site: MultiValuedSite) => MultiValuedEncoding,
): Record<string, MultiValuedEncoding> {
  return Object.fromEntries(multiValuedSites(index).map((s) => [s.key, choose(s)]));
}

function relationships(
  index: ErIndex,
  choose: (name: string, ordinal: number) => RelationshipEncoding,
): Record<string, RelationshipEncoding> {
  return Object.fromEntries(manyToOne(index).map((r, i) => [r.name, choose(r.name, i)]));
}

const nested = (groups: string[][]): HierarchyChoice => ({ mode: 'nested', groups });

/**
 * Concrete inheritance copies an object into the table of its one most specific class, so
 * it needs a disjoint hierarchy; an overlapping one falls back to class tables.
 */
function concreteOrCti(index: ErIndex, root: string, registry?: boolean): HierarchyChoice {
  if (!index.hierarchyIsDisjoint(root)) return nested(ctiGroups(index, root));
  return registry === undefined
    ? { mode: 'concrete', groups: ctiGroups(index, root) }
    : { mode: 'concrete', groups: ctiGroups(index, root), registry };
}
/** Why a concrete preset is not concrete everywhere on this domain, or '' when it is. */
function concreteFallbackNote(index: ErIndex): string {
  const overlapping = index.hierarchyRoots.filter((r) => !index.hierarchyIsDisjoint(r.name)).map((r) => r.name);
  if (overlapping.length === 0) return '';
  const names = overlapping.join(', ');
  return `; overlapping hierarchy ${names} as class tables (concrete tables need a disjoint hierarchy)`;
}

/**
 * The hierarchies a preset could not shred as it says (an overlapping one where it wants
 * concrete tables), as a phrase for reports; undefined when the preset applies as named.
 */
export function presetFallback(index: ErIndex, name: string): string | undefined {
  if (name !== 'full_concrete' && name !== 'concrete_all_tables') return undefined;
  const overlapping = index.hierarchyRoots.filter((r) => !index.hierarchyIsDisjoint(r.name)).map((r) => r.name);
  if (overlapping.length === 0) return undefined;
  return `overlapping hierarchy ${overlapping.join(', ')} cannot be stored as concrete tables`;
}

const isText = (a: Attribute): boolean => a.type.kind === 'text' || a.type.kind === 'enum';

/**
 * One of the ten named variants for a domain.
 * @example presetVariant(indexDomain(retail), 'full_cti').hierarchies.Product.groups.length // 8
 */
export function presetVariant(index: ErIndex, name: string): VariantSpec {
  const partial = (rel: string): boolean => index.relationship(rel).participation?.from !== 'total';
  const touchesInner = (rel: string): boolean => {
    const r = index.relationship(rel);
    return index.children(r.from).length > 0 || index.children(r.to).length > 0;
  };
  const base = (description: string, tables: 'singular' | 'plural') => ({ name, description, naming: { tables } });
  switch (name as PresetName) {
    case 'full_sti':
      return {
        ...base(
          'single-table inheritance everywhere; multi-valued attributes as arrays and JSONB; foreign keys',
          'plural',
        ),
        hierarchies: hierarchies(index, (r) => nested(stiGroups(index, r))),
        multiValued: multiValued(index, (s) => (s.ordinal % 2 === 0 ? 'array' : 'jsonb')),
        relationships: relationships(index, () => 'fk'),
      };
    case 'full_cti':
      return {
        ...base('class-table inheritance everywhere; child tables; foreign keys and junction tables', 'singular'),
        hierarchies: hierarchies(index, (r) => nested(ctiGroups(index, r))),
        multiValued: multiValued(index, () => 'table'),
        relationships: relationships(index, () => 'fk'),
      };
    case 'full_concrete':
      return {
        ...base(
          `a table per concrete class with inherited attributes copied down; child tables${concreteFallbackNote(index)}`,
          'plural',
        ),
        hierarchies: hierarchies(index, (r) => concreteOrCti(index, r)),
        multiValued: multiValued(index, () => 'table'),
        relationships: relationships(index, () => 'fk'),
      };
    case 'full_normalized':
      return {
        ...base(
          'class-table inheritance; child tables; relationship tables for partial and some total many-to-one',
          'singular',
        ),
        hierarchies: hierarchies(index, (r) => nested(ctiGroups(index, r))),
        multiValued: multiValued(index, () => 'table'),
        relationships: relationships(index, (rel, i) => (partial(rel) || i % 2 === 0 ? 'table' : 'fk')),
      };
    case 'concrete_all_tables':
      return {
        ...base(
          `concrete tables with a root registry where relationships need one; relationship tables${concreteFallbackNote(index)}`,
          'plural',
        ),
        hierarchies: hierarchies(index, (r) => concreteOrCti(index, r, needsRegistry(index, r))),
        multiValued: multiValued(index, () => 'table'),
        relationships: relationships(index, (rel) => (partial(rel) || touchesInner(rel) ? 'table' : 'fk')),
      };
    case 'hybrid_roots_merged': {
      const merged = new Set(index.hierarchyRoots.flatMap((r) => rootsMergedGroups(index, r.name)[0] ?? []));
      return {
        ...base(
          'roots and first-level classes merged, deeper classes separate; mixed multi-valued storage',
          'singular',
        ),
        hierarchies: hierarchies(index, (r) => nested(rootsMergedGroups(index, r))),
        multiValued: multiValued(index, (s) => (merged.has(s.owner.name) ? 'table' : 'array')),
        relationships: relationships(index, () => 'fk'),
      };
    }
    case 'hybrid_leaves_merged':
      return {
        ...base(
          'roots separate, leaves merged into their parents; compact sets nested, large ones in tables',
          'plural',
        ),
        hierarchies: hierarchies(index, (r) => nested(leavesMergedGroups(index, r))),
        multiValued: multiValued(index, (s) =>
          (s.attribute.hints?.setSize?.[1] ?? 4) >= 6 ? 'table' : isText(s.attribute) ? 'jsonb' : 'array',
        ),
        relationships: relationships(index, () => 'fk'),
      };
    case 'mixed_sti_cti':
      return {
        ...base(
          'single-table inheritance for one hierarchy, class-table for the next; mixed multi-valued storage',
          'singular',
        ),
        hierarchies: hierarchies(index, (r, i) => nested(i % 2 === 0 ? stiGroups(index, r) : ctiGroups(index, r))),
        multiValued: multiValued(index, (s) => (s.ordinal % 2 === 0 ? 'array' : 'table')),
        relationships: relationships(index, () => 'fk'),
      };
    case 'sti_junction_fks':
      return {
        ...base(
          'single-table inheritance; every multi-valued attribute in a child table; foreign keys and junctions',
          'plural',
        ),
        hierarchies: hierarchies(index, (r) => nested(stiGroups(index, r))),
        multiValued: multiValued(index, () => 'table'),
        relationships: relationships(index, () => 'fk'),
      };
    case 'kitchen_sink':
      return {
        ...base(
          'concrete, single-table and class-table inheritance side by side; storage chosen attribute by attribute',
          'singular',
        ),
        hierarchies: hierarchies(index, (r, i) =>
          i % 2 === 0 && index.hierarchyIsDisjoint(r)
            ? { mode: 'concrete', groups: ctiGroups(index, r) }
            : nested(splitGroups(index, r)),
        ),
        multiValued: multiValued(
          index,
          (s) => (['array', 'jsonb', 'table'] as const)[s.ordinal % 3] as MultiValuedEncoding,
        ),
        relationships: relationships(index, (_rel, i) => (i % 2 === 1 ? 'table' : 'fk')),
      };
    default:
      throw new ConfigError(`unknown variant "${name}" (presets: ${PRESET_NAMES.join(', ')}; or random:K)`);
  }
}

/** All ten presets, in Table 1 order. */
export function allPresets(index: ErIndex): VariantSpec[] {
  return PRESET_NAMES.map((n) => presetVariant(index, n));
}
