import type { Attribute, Domain, Entity, Relationship } from './er-model.ts';

/**
 * Derived, read-only views of a validated domain that every stage needs: hierarchy
 * structure, inherited attributes, which classes can have direct instances. Built once per
 * domain; the lists it returns keep the model's declaration order, so everything derived
 * from them is deterministic.
 */
export interface ErIndex {
  readonly domain: Domain;
  entity(name: string): Entity;
  /** Direct subclasses, in declaration order. */
  children(name: string): readonly Entity[];
  /** The root of the entity's hierarchy (itself for a root or standalone entity). */
  root(name: string): Entity;
  /** Ancestors from the root down to and including the entity. */
  chain(name: string): readonly Entity[];
  /** The entity and all its descendants, pre-order. */
  subtree(name: string): readonly Entity[];
  /** Root entities (hierarchy roots and standalone entities), in declaration order. */
  readonly roots: readonly Entity[];
  /** Roots that have subclasses. */
  readonly hierarchyRoots: readonly Entity[];
  isAncestorOrSelf(ancestor: string, name: string): boolean;
  /** Whether an instance can have `name` as its most specific class. */
  canBeDirect(name: string): boolean;
  /** Attributes declared on the entity itself. */
  ownAttributes(name: string): readonly Attribute[];
  /** Inherited then own attributes, each with the class that declares it. */
  allAttributes(name: string): readonly { readonly owner: Entity; readonly attribute: Attribute }[];
  relationship(name: string): Relationship;
  /** Whether the entity's hierarchy is disjoint at every level. */
  hierarchyIsDisjoint(rootName: string): boolean;
}

export function indexDomain(domain: Domain): ErIndex {
  const byName = new Map(domain.entities.map((e) => [e.name, e]));
  const kids = new Map<string, Entity[]>();
  for (const e of domain.entities) {
    if (e.parent !== undefined) {
      const list = kids.get(e.parent) ?? [];
      list.push(e);
      kids.set(e.parent, list);
    }
  }
  const relationships = new Map(domain.relationships.map((r) => [r.name, r]));
  const entity = (name: string): Entity => {
    const e = byName.get(name);
    if (!e) throw new Error(`unknown entity "${name}" in domain ${domain.name}`);
    return e;
  };
  const children = (name: string): readonly Entity[] => kids.get(name) ?? [];
  const chain = (name: string): Entity[] => {
    const out: Entity[] = [];
    let current: Entity | undefined = entity(name);
    while (current) {
      out.unshift(current);
      current = current.parent === undefined ? undefined : entity(current.parent);
    }
    return out;
  };
  const subtree = (name: string): Entity[] => {
    const out: Entity[] = [entity(name)];
    for (const child of children(name)) out.push(...subtree(child.name));
    return out;
  };
  const roots = domain.entities.filter((e) => e.parent === undefined);
  return {
    domain,
    entity,
    children,
    root: (name) => chain(name)[0] as Entity,
    chain,
    subtree,
    roots,
    hierarchyRoots: roots.filter((r) => children(r.name).length > 0),
    isAncestorOrSelf: (ancestor, name) => chain(name).some((e) => e.name === ancestor),
    canBeDirect: (name) => children(name).length === 0 || entity(name).specialization?.total !== true,
    ownAttributes: (name) => entity(name).attributes,
    allAttributes: (name) =>
      chain(name).flatMap((owner) => owner.attributes.map((attribute) => ({ owner, attribute }))),
    relationship: (name) => {
      const r = relationships.get(name);
      if (!r) throw new Error(`unknown relationship "${name}" in domain ${domain.name}`);
      return r;
    },
    hierarchyIsDisjoint: (rootName) =>
      subtree(rootName).every((e) => children(e.name).length === 0 || e.specialization?.disjoint !== false),
  };
}

/** `LiveStream` → `live_stream`, `CustOrder` → `cust_order`, `avgViewers` → `avg_viewers`. */
export function snakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .replace(/[\s-]+/g, '_')
    .toLowerCase();
}
