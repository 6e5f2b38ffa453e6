/**
 * The schema graph of an E/R model: the conceptual counterpart of TACO's schema-linking
 * graph. Nodes are entity types (every level of a hierarchy, with inherited attributes)
 * and multi-valued attributes' element relations; edges are relationships (walkable both
 * ways), is-a links and element links. Every join the filler proposes is an edge here.
 *
 * Each node and edge carries `variation`: how many distinct SQL texts the variants compile
 * its simplest use to. The filler prefers high-variation paths, because a group whose SQL
 * is the same on every schema teaches nothing about schema variation.
 */
import type { Attribute, AttributeRole, AttributeType } from '../er-model/er-model.ts';
import { roleOf } from '../er-model/attribute-roles.ts';
import type { ErIndex } from '../er-model/er-index.ts';
import type { RelationalSchema } from '../variants/relational-schema.ts';
import type { Query } from '../query/conceptual-query.ts';
import { compileQuery } from '../compile/compile-query.ts';

/** What a typed column slot of a skeleton can hold. */
export type SlotKind = 'numeric' | 'text' | 'temporal' | 'boolean';

export function slotKind(type: AttributeType): SlotKind {
  switch (type.kind) {
    case 'integer':
    case 'bigint':
    case 'numeric':
      return 'numeric';
    case 'text':
    case 'enum':
      return 'text';
    case 'date':
    case 'timestamptz':
    case 'timestamp':
      return 'temporal';
    case 'boolean':
      return 'boolean';
  }
}

export interface AttributeSlot {
  readonly name: string;
  readonly kind: SlotKind;
  readonly attribute: Attribute;
  /** The class (or relationship) that declares it. */
  readonly owner: string;
  /** What the attribute is (declared or inferred): what the filler may do with it. */
  readonly role: AttributeRole;
}

export interface EntityNode {
  readonly name: string;
  /** Single-valued attributes, inherited ones first. */
  readonly attributes: readonly AttributeSlot[];
  /** Multi-valued attributes (each an element relation). */
  readonly sets: readonly AttributeSlot[];
  readonly parent: string | undefined;
  readonly subtypes: readonly string[];
  readonly variation: number;
}

/** A relationship walked from `from` (an entity that may use it) to `to`. */
export interface RelationshipEdge {
  readonly kind: 'relationship';
  readonly relationship: string;
  readonly direction: 'forward' | 'reverse';
  /** The end this walk starts at (declared type; subclasses may use it too). */
  readonly from: string;
  /** The declared type at the other end. */
  readonly to: string;
  /** At most one partner per `from` object. */
  readonly toOne: boolean;
  readonly attributes: readonly AttributeSlot[];
  readonly variation: number;
}

export interface ElementEdge {
  readonly kind: 'elements';
  readonly entity: string;
  readonly attribute: AttributeSlot;
  readonly variation: number;
}

export interface SchemaGraph {
  readonly index: ErIndex;
  readonly entities: ReadonlyMap<string, EntityNode>;
  readonly relationships: readonly RelationshipEdge[];
  /** Relationship walks an entity can start (its own and its ancestors'). */
  walksFrom(entity: string): readonly RelationshipEdge[];
  /** Element relations an entity has (own and inherited sets). */
  elementsOf(entity: string): readonly ElementEdge[];
  attribute(entity: string, name: string): AttributeSlot | undefined;
}

function slots(index: ErIndex, list: readonly { owner: { name: string }; attribute: Attribute }[]): AttributeSlot[] {
  return list.map(({ owner, attribute }) => ({
    name: attribute.name,
    kind: slotKind(attribute.type),
    attribute,
    owner: owner.name,
    role: roleOf(index.domain, owner.name, attribute.name) as AttributeRole,
  }));
}

/**
 * Builds the graph. With `schemas` (the built variants), variation is measured by
 * compiling a one-edge probe query per node and edge for every variant; without, it is 1.
 *
 * @example
 * const graph = buildSchemaGraph(indexDomain(socialMedia), schemas);
 * graph.walksFrom('Clip').map((e) => `${e.relationship}:${e.direction}`);
 * // ['produced_by:forward', 'derived_from:forward', …]
 */
export function buildSchemaGraph(index: ErIndex, schemas: readonly RelationalSchema[] = []): SchemaGraph {
  const variation = (query: Query): number => {
    if (schemas.length === 0) return 1;
    const texts = new Set<string>();
    for (const s of schemas) {
      try {
        texts.add(compileQuery(index, s, query));
      } catch {
        texts.add('<error>');
      }
    }
    return texts.size;
  };
  const entities = new Map<string, EntityNode>();
  for (const e of index.domain.entities) {
    // A never-asked attribute (bookkeeping) is no slot: no question reads it.
    const all = slots(
      index,
      index.allAttributes(e.name).filter((x) => x.attribute.neverAsked !== true),
    );
    entities.set(e.name, {
      name: e.name,
      attributes: all.filter((a) => !a.attribute.multiValued),
      sets: all.filter((a) => a.attribute.multiValued === true),
      parent: e.parent,
      subtypes: index.children(e.name).map((c) => c.name),
      variation: variation({
        kind: 'select',
        from: { entity: e.name, alias: 'x' },
        select: [{ name: 'id', expr: { kind: 'attribute', alias: 'x', attribute: 'id' } }],
      }),
    });
  }
  const relationships: RelationshipEdge[] = [];
  for (const r of index.domain.relationships) {
    const attrs = slots(
      index,
      (r.attributes ?? []).filter((a) => a.neverAsked !== true).map((attribute) => ({ owner: r, attribute })),
    );
    for (const direction of ['forward', 'reverse'] as const) {
      const from = direction === 'forward' ? r.from : r.to;
      const to = direction === 'forward' ? r.to : r.from;
      const toOne = direction === 'forward' ? r.cardinality !== 'many-to-many' : r.cardinality === 'one-to-one';
      const probe: Query = {
        kind: 'select',
        from: { entity: from, alias: 'x' },
        joins: [
          { kind: 'relationship', type: 'inner', relationship: r.name, from: 'x', direction, alias: 'y', entity: to },
        ],
        select: [{ name: 'id', expr: { kind: 'attribute', alias: 'y', attribute: 'id' } }],
      };
      relationships.push({
        kind: 'relationship',
        relationship: r.name,
        direction,
        from,
        to,
        toOne,
        attributes: attrs,
        variation: variation(probe),
      });
    }
  }
  const elementCache = new Map<string, ElementEdge[]>();
  const elementsOf = (entity: string): ElementEdge[] => {
    const cached = elementCache.get(entity);
    if (cached) return cached;
    const node = entities.get(entity);
    const out = (node?.sets ?? []).map(
      (attribute): ElementEdge => ({
        kind: 'elements',
        entity,
        attribute,
        variation: variation({
          kind: 'select',
          from: { entity, alias: 'x' },
          joins: [{ kind: 'elements', type: 'inner', of: 'x', attribute: attribute.name, alias: 'e' }],
          select: [{ name: 'v', expr: { kind: 'element', alias: 'e' } }],
        }),
      }),
    );
    elementCache.set(entity, out);
    return out;
  };
  const walkCache = new Map<string, RelationshipEdge[]>();
  return {
    index,
    entities,
    relationships,
    walksFrom: (entity) => {
      const cached = walkCache.get(entity);
      if (cached) return cached;
      const out = relationships.filter((edge) => index.isAncestorOrSelf(edge.from, entity));
      walkCache.set(entity, out);
      return out;
    },
    elementsOf,
    attribute: (entity, name) => entities.get(entity)?.attributes.find((a) => a.name === name),
  };
}
