/**
 * The content filler (TACO §3.2.2, over the E/R graph instead of SQL tables): a skeleton's
 * shape + the schema graph + the instance → a conceptual query.
 *
 * Each `<table>` becomes an entity (any level of a hierarchy) and each JOIN an edge of the
 * graph from an alias already in the query (a relationship, or a multi-valued attribute's
 * element relation); typed column slots get attributes of a fitting kind; values come from
 * the data: equality and IN values that exist, LIKE patterns cut from real words, numeric
 * thresholds and BETWEEN bounds at quantiles, HAVING thresholds from the distribution of the
 * group aggregates and LIMITs where the order is strict (both read by probe queries on one
 * variant). Paths whose storage differs between variants are preferred.
 *
 * A slot nothing fits throws `CandidateRejected` with its reason; the caller repairs by
 * filling again from another random stream, a bounded number of times.
 */
import type { Rng } from '../common/rng.ts';
import { snakeCase } from '../er-model/er-index.ts';
import type { ConceptualInstance, EntityObject, Scalar } from '../instance/conceptual-instance.ts';
import type { Expr, Join, OrderItem, OutputColumn, Predicate, Query, ScalarLiteral, SelectQuery, SetQuery } from '../query/conceptual-query.ts';
import { reject } from './group-record.ts';
import { TOP_PER_GROUP_SHARE, topPerGroup, WINDOW_OUTPUT_SHARE, windowOutput } from './fill-window.ts';
import { hasAggregate } from '../query/query-scope.ts';
import { analyticColumn, conditionalAggregate, dateWindow, distinctAggregate, yearCategory } from './analytic-filler.ts';
import type { AttributeSlot, RelationshipEdge, SchemaGraph, SlotKind } from './schema-graph.ts';
import { isAggregateItem, type AggregateArithmeticSlot, type AggregateSlot, type ColumnSlot, type ComparisonOp, type ConditionShape, type ItemSlot, type PredicateSlot, type QueryShape, type SelectShape, type SetShape } from './skeleton-shape.ts';

/** Runs a conceptual query on the reference variant of the main instance; rows as text. */
export type Probe = (query: Query) => Promise<readonly (readonly (string | null)[])[]>;

export interface FillContext {
  readonly graph: SchemaGraph;
  readonly instance: ConceptualInstance;
  readonly rng: Rng;
  readonly probe: Probe;
}

interface EntityAlias {
  readonly alias: string;
  readonly entity: string;
  /** The edge this alias was joined through (none for a FROM alias). */
  readonly via?: RelationshipEdge;
}

interface ElementAlias {
  readonly alias: string;
  readonly owner: string;
  readonly slot: AttributeSlot;
}

/** What COUNT(*) becomes under a LEFT join: the partner's id or the element, so none counts 0. */
interface CountTarget {
  readonly expr: Expr;
  readonly label: string;
}

/** A value expression with what the filler knows of it. */
interface Typed {
  readonly expr: Expr;
  readonly kind: SlotKind | 'id';
  /** A name for an output column. */
  readonly label: string;
}

/** Per instance: objects of each entity (subclasses included), and non-null values per column. */
const MEMBERS = new WeakMap<ConceptualInstance, Map<string, readonly EntityObject[]>>();
const VALUES = new WeakMap<ConceptualInstance, Map<string, Scalar[]>>();

/** Short words an alias made of initials could spell that SQL reserves. */
const RESERVED = new Set(['all', 'and', 'any', 'as', 'asc', 'at', 'by', 'case', 'cast', 'desc', 'do', 'else', 'end', 'for', 'from', 'if', 'in', 'into', 'is', 'join', 'like', 'not', 'null', 'of', 'off', 'on', 'only', 'or', 'some', 'then', 'to', 'true', 'user', 'when', 'with']);

/** Text a question should not quote: planted odd values belong to the edge-case instance. */
const ODD_TEXT = /[\\\n\r\t"]|^\s|\s$|^$/u;

/**
 * Fills a skeleton shape into a conceptual query.
 *
 * @example
 * await fillQuery(readSkeleton(tokens), { graph, instance, rng, probe });
 * // { kind: 'select', from: { entity: 'Clip', alias: 'c' }, joins: [...], where: {...}, … }
 */
export async function fillQuery(shape: QueryShape, ctx: FillContext): Promise<Query> {
  return new Filler(ctx).query(shape);
}

class Filler {
  private readonly used = new Set<string>();
  private readonly rng: Rng;
  private readonly graph: SchemaGraph;

  /**
   * The analytic choices draw from a stream of their own, so the draws of everything else
   * (entities, joins, columns, values) are what they were before those constructs existed.
   */
  private readonly analyticRng: Rng;

  constructor(private readonly ctx: FillContext) {
    this.rng = ctx.rng;
    this.analyticRng = ctx.rng.fork('analytic');
    this.graph = ctx.graph;
  }

  async query(shape: QueryShape): Promise<Query> {
    if (shape.kind === 'select') return this.topSelect(shape);
    return this.setQuery(shape);
  }

  // ---- aliases and paths -------------------------------------------------------------

  private alias(entity: string): string {
    const base = snakeCase(entity).split('_').map((w) => w[0]).join('') || 'x';
    let name = RESERVED.has(base) ? `${base}1` : base;
    for (let i = 2; this.used.has(name) || RESERVED.has(name); i++) name = `${base}${i}`;
    this.used.add(name);
    return name;
  }

  /** Weight of a node or edge: variation squared, so schema-sensitive paths dominate. */
  private weight(variation: number): number {
    return variation * variation;
  }

  private pickEntity(candidates?: readonly string[]): string {
    const names = candidates ?? [...this.graph.entities.keys()];
    const usable = names.filter((n) => this.members(n).length > 0);
    if (usable.length === 0) reject('no-fitting-slot', 'no entity with instances');
    return usable[this.rng.weighted(usable.map((n) => this.weight(this.graph.entities.get(n)?.variation ?? 1)))] as string;
  }

  private members(entity: string): readonly EntityObject[] {
    let cache = MEMBERS.get(this.ctx.instance);
    if (!cache) MEMBERS.set(this.ctx.instance, (cache = new Map()));
    let list = cache.get(entity);
    if (!list) {
      const index = this.graph.index;
      const root = index.root(entity).name;
      list = (this.ctx.instance.objects[root] ?? []).filter((o) => o.classes.some((c) => index.isAncestorOrSelf(entity, c)));
      cache.set(entity, list);
    }
    return list;
  }

  /** Joins `count` edges onto the aliases, each from an alias already there. */
  private drawJoins(base: EntityAlias, count: number): { entities: EntityAlias[]; elements: ElementAlias[]; joins: Join[] } {
    const entities: EntityAlias[] = [base];
    const elements: ElementAlias[] = [];
    const joins: Join[] = [];
    for (let i = 0; i < count; i++) {
      type Option = { weight: number; make: () => void };
      const options: Option[] = [];
      for (const from of entities) {
        for (const edge of this.graph.walksFrom(from.entity)) {
          // Walking straight back over the edge just taken repeats the same objects.
          if (from.via && from.via.relationship === edge.relationship && from.via.direction !== edge.direction) continue;
          options.push({
            weight: this.weight(edge.variation),
            make: () => {
              const subtypes = this.graph.index.subtree(edge.to).map((e) => e.name).filter((n) => this.members(n).length > 0);
              const entity = subtypes.length > 1 && this.rng.chance(0.25) ? this.rng.pick(subtypes.slice(1)) : edge.to;
              const alias = this.alias(entity);
              joins.push({ kind: 'relationship', type: 'inner', relationship: edge.relationship, from: from.alias, direction: edge.direction, alias, entity });
              entities.push({ alias, entity, via: edge });
            },
          });
        }
        if (!elements.some((e) => e.owner === from.entity)) {
          for (const edge of this.graph.elementsOf(from.entity)) {
            options.push({
              weight: this.weight(edge.variation) * 0.5,
              make: () => {
                const alias = this.alias(edge.attribute.name.replace(/s$/u, ''));
                joins.push({ kind: 'elements', type: 'inner', of: from.alias, attribute: edge.attribute.name, alias });
                elements.push({ alias, owner: from.entity, slot: edge.attribute });
              },
            });
          }
        }
      }
      if (options.length === 0) reject('no-fitting-slot', `no edge to join from ${entities.map((e) => e.entity).join(', ')}`);
      (options[this.rng.weighted(options.map((o) => o.weight))] as Option).make();
    }
    return { entities, elements, joins };
  }

  // ---- typed slots ---------------------------------------------------------------------

  private fits(kind: SlotKind, type: ColumnSlot['type']): boolean {
    if (type === 'numeric') return kind === 'numeric';
    if (type === 'text') return kind === 'text';
    return kind !== 'boolean';
  }

  /** Attribute (or element, or link attribute) expressions of the aliases that fit a slot. */
  private candidates(entities: readonly EntityAlias[], elements: readonly ElementAlias[], type: ColumnSlot['type']): Typed[] {
    const out: Typed[] = [];
    for (const a of entities) {
      for (const slot of this.graph.entities.get(a.entity)?.attributes ?? []) {
        if (this.fits(slot.kind, type)) out.push({ expr: { kind: 'attribute', alias: a.alias, attribute: slot.name }, kind: slot.kind, label: slot.name });
      }
      for (const slot of a.via?.attributes ?? []) {
        if (this.fits(slot.kind, type)) out.push({ expr: { kind: 'linkAttribute', alias: a.alias, attribute: slot.name }, kind: slot.kind, label: slot.name });
      }
    }
    for (const e of elements) {
      if (this.fits(e.slot.kind, type)) out.push({ expr: { kind: 'element', alias: e.alias }, kind: e.slot.kind, label: e.slot.name.replace(/s$/u, '') });
    }
    return out;
  }

  private pickColumn(entities: readonly EntityAlias[], elements: readonly ElementAlias[], type: ColumnSlot['type'], avoid: readonly Expr[] = []): Typed {
    const key = (e: Expr): string => JSON.stringify(e);
    const avoided = new Set(avoid.map(key));
    const all = this.candidates(entities, elements, type).filter((c) => !avoided.has(key(c.expr)));
    if (all.length === 0) reject('no-fitting-slot', `no ${type} column on ${entities.map((e) => e.entity).join(', ')}`);
    return this.rng.pick(all);
  }

  /** Values an expression takes in the instance (non-null, realistic). */
  private valuesOf(t: Typed, entities: readonly EntityAlias[], elements: readonly ElementAlias[]): Scalar[] {
    const e = t.expr;
    // Values depend on the entity (or relationship) behind the alias, not on the alias name.
    const owner =
      e.kind === 'element' ? elements.find((x) => x.alias === e.alias)?.owner : e.kind === 'linkAttribute' ? entities.find((x) => x.alias === e.alias)?.via?.relationship : entities.find((x) => 'alias' in e && x.alias === e.alias)?.entity;
    const key = `${e.kind}|${owner}|${'attribute' in e ? e.attribute : (elements.find((x) => 'alias' in e && x.alias === e.alias)?.slot.name ?? '')}`;
    let cache = VALUES.get(this.ctx.instance);
    if (!cache) VALUES.set(this.ctx.instance, (cache = new Map()));
    const hit = cache.get(key);
    if (hit) return hit;
    const computed = this.computeValues(t, entities, elements);
    cache.set(key, computed);
    return computed;
  }

  private computeValues(t: Typed, entities: readonly EntityAlias[], elements: readonly ElementAlias[]): Scalar[] {
    const e = t.expr;
    let raw: unknown[] = [];
    if (e.kind === 'attribute') {
      const a = entities.find((x) => x.alias === e.alias);
      if (a) raw = this.members(a.entity).map((o) => (e.attribute === 'id' ? o.id : o.values[e.attribute]));
    } else if (e.kind === 'element') {
      const el = elements.find((x) => x.alias === e.alias);
      if (el) raw = this.members(el.owner).flatMap((o) => (o.values[el.slot.name] as readonly Scalar[] | null) ?? []);
    } else if (e.kind === 'linkAttribute') {
      const a = entities.find((x) => x.alias === e.alias);
      if (a?.via) raw = (this.ctx.instance.links[a.via.relationship] ?? []).map((l) => l.values?.[e.attribute]);
    }
    return raw.filter((v): v is Scalar => v !== null && v !== undefined && !Array.isArray(v) && !(typeof v === 'string' && ODD_TEXT.test(v)));
  }

  private literal(kind: Typed['kind'], v: Scalar): ScalarLiteral {
    return kind === 'numeric' && typeof v === 'string' ? Number(v) : v;
  }

  /** A value at a quantile of the column (sorted), away from both ends. */
  private quantile(values: Scalar[], kind: Typed['kind']): Scalar {
    const sorted = [...values].sort((a, b) => (kind === 'numeric' ? Number(a) - Number(b) : String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0));
    const q = this.rng.pick([0.25, 0.4, 0.5, 0.6, 0.75]);
    return sorted[Math.floor(q * (sorted.length - 1))] as Scalar;
  }

  // ---- predicates ----------------------------------------------------------------------

  private async condition(shape: ConditionShape, entities: EntityAlias[], elements: ElementAlias[]): Promise<Predicate> {
    const disjuncts: Predicate[] = [];
    for (const conj of shape) {
      const parts: Predicate[] = [];
      for (const slot of conj) parts.push(this.spellNegation(await this.predicate(slot, entities, elements)));
      disjuncts.push(parts.length === 1 ? (parts[0] as Predicate) : { kind: 'and', args: parts });
    }
    return disjuncts.length === 1 ? (disjuncts[0] as Predicate) : { kind: 'or', args: disjuncts };
  }

  /**
   * Now and then a negation is written as NOT over the positive condition: `NOT (x LIKE p)`
   * for `x NOT LIKE p`, `NOT (x = v)` for `x <> v`. SQL defines the negated forms as exactly
   * that (a NULL operand leaves both unknown), so the answer is the same and only the way the
   * query says it differs.
   */
  private spellNegation(p: Predicate): Predicate {
    if ((p.kind === 'like' || p.kind === 'in' || p.kind === 'between' || p.kind === 'isNull') && p.negated && this.rng.chance(0.35)) {
      const { negated: _negated, ...positive } = p;
      return { kind: 'not', arg: positive };
    }
    if (p.kind === 'compare' && p.op === '<>' && this.rng.chance(0.25)) return { kind: 'not', arg: { ...p, op: '=' } };
    return p;
  }

  private async predicate(slot: PredicateSlot, entities: EntityAlias[], elements: ElementAlias[]): Promise<Predicate> {
    const r = this.rng;
    switch (slot.kind) {
      case 'compareValue': {
        // Text is compared for equality only: an order on text depends on the collation.
        const wantsOrder = slot.op !== '=' && slot.op !== '<>';
        if (!wantsOrder) {
          // Equality on what schemas store differently: set membership and subtype tests.
          const special = this.membershipOrClass(entities, slot.op === '<>');
          if (special) return special;
        }
        const type = slot.column.type === 'text' && wantsOrder ? 'any' : slot.column.type;
        let options = this.candidates(entities, elements, type).filter((c) => (wantsOrder ? c.kind === 'numeric' || c.kind === 'temporal' : true));
        if (slot.valueType === 'number' && !wantsOrder) options = options.filter((c) => c.kind !== 'temporal');
        options = options.filter((c) => this.valuesOf(c, entities, elements).length > 0);
        if (options.length === 0) reject('no-fitting-slot', `no column for ${slot.op} ${slot.valueType}`);
        const t = r.pick(options);
        const values = this.valuesOf(t, entities, elements);
        const value = wantsOrder ? this.quantile(values, t.kind) : r.pick(values);
        const distinct = [...new Set(values)];
        if (!wantsOrder && t.kind !== 'temporal' && distinct.length > 3 && r.chance(0.1)) {
          // `x IN ('a', 'b')`: one of a few values that exist.
          const picked = r.sample(distinct, r.int(2, 3)).map((v) => this.literal(t.kind, v));
          return { kind: 'in', expr: t.expr, values: picked, ...(slot.op === '<>' ? { negated: true } : {}) };
        }
        // A date threshold as a window before the latest date in the data: "in the 5 months before 2025-12-30".
        const window = t.kind === 'temporal' && (slot.op === '>' || slot.op === '>=') && this.analyticRng.chance(0.4) ? dateWindow(values, value) : undefined;
        return { kind: 'compare', op: slot.op, left: t.expr, right: window ?? { kind: 'literal', value: this.literal(t.kind, value) } };
      }
      case 'compareColumn': {
        const ordered = slot.op !== '=' && slot.op !== '<>';
        const options = this.candidates(entities, elements, 'any').filter((c) => (ordered ? c.kind === 'numeric' || c.kind === 'temporal' : c.kind !== 'text' || !ordered));
        for (const left of r.shuffle(options)) {
          const leftAlias = (left.expr as { alias: string }).alias;
          const partners = options.filter((c) => c.kind === left.kind && (c.expr as { alias: string }).alias !== leftAlias && (c.label === left.label || left.kind !== 'text'));
          if (partners.length > 0) return { kind: 'compare', op: slot.op, left: left.expr, right: r.pick(partners).expr };
        }
        return reject('no-fitting-slot', 'no two comparable columns on different aliases');
      }
      case 'like': {
        const options = this.candidates(entities, elements, 'text').filter((c) => this.isPlainText(c, entities) && this.valuesOf(c, entities, elements).length > 0);
        if (options.length === 0) reject('no-fitting-slot', 'no text column for LIKE');
        const t = r.pick(options);
        const words = [...new Set(this.valuesOf(t, entities, elements).flatMap((v) => String(v).split(/[^\p{L}\p{N}]+/u)).filter((w) => w.length >= 3))];
        if (words.length === 0) reject('no-fitting-value', 'no word to cut a LIKE pattern from');
        const word = r.pick(words);
        const cut = word.length > 5 && r.chance(0.5) ? word.slice(0, 4) : word;
        const pattern = r.chance(0.3) ? `${cut}%` : `%${cut}%`;
        return { kind: 'like', expr: t.expr, pattern, ...(slot.negated ? { negated: true } : {}) };
      }
      case 'between': {
        const options = this.candidates(entities, elements, 'any').filter((c) => (c.kind === 'numeric' || c.kind === 'temporal') && this.valuesOf(c, entities, elements).length > 1);
        if (options.length === 0) reject('no-fitting-slot', 'no ordered column for BETWEEN');
        const t = r.pick(options);
        const values = this.valuesOf(t, entities, elements);
        let low = this.quantile(values, t.kind);
        let high = this.quantile(values, t.kind);
        const cmp = t.kind === 'numeric' ? Number(low) - Number(high) : String(low) < String(high) ? -1 : String(low) > String(high) ? 1 : 0;
        if (cmp === 0) reject('no-fitting-value', 'BETWEEN bounds fell on one value');
        if (cmp > 0) [low, high] = [high, low];
        return { kind: 'between', expr: t.expr, low: { kind: 'literal', value: this.literal(t.kind, low) }, high: { kind: 'literal', value: this.literal(t.kind, high) } };
      }
      case 'isNull': {
        const options = entities.flatMap((a) =>
          (this.graph.entities.get(a.entity)?.attributes ?? []).filter((s) => s.attribute.optional === true).map((s): Expr => ({ kind: 'attribute', alias: a.alias, attribute: s.name })),
        );
        if (options.length === 0) reject('no-fitting-slot', 'no optional attribute for IS NULL');
        return { kind: 'isNull', expr: r.pick(options), ...(slot.negated ? { negated: true } : {}) };
      }
      case 'inList': {
        const options = this.candidates(entities, elements, slot.column.type).filter((c) => c.kind !== 'temporal' && new Set(this.valuesOf(c, entities, elements)).size > 2);
        if (options.length === 0) reject('no-fitting-slot', 'no column with values for IN');
        const t = r.pick(options);
        const distinct = [...new Set(this.valuesOf(t, entities, elements))];
        const values = r.sample(distinct, Math.max(2, Math.min(slot.size, 4, distinct.length - 1))).map((v) => this.literal(t.kind, v));
        return { kind: 'in', expr: t.expr, values, ...(slot.negated ? { negated: true } : {}) };
      }
      case 'compareAggregate':
        return reject('meaningless-skeleton', 'an aggregate outside HAVING');
      case 'inSubquery':
      case 'exists':
        return this.linkedSubquery(slot, entities);
      case 'compareSubquery':
        return this.scalarComparison(slot, entities, elements);
    }
  }

  /**
   * Now and then an equality slot becomes `'v' = ANY(set)` (a multi-valued attribute
   * contains a value that occurs in the data), an is-a test on a subtype, or IS NULL.
   */
  private membershipOrClass(entities: readonly EntityAlias[], negated: boolean): Predicate | undefined {
    const r = this.rng;
    const roll = r.next();
    if (roll < 0.12) {
      const options = entities.flatMap((a) => (this.graph.entities.get(a.entity)?.sets ?? []).map((slot) => ({ a, slot })));
      if (options.length === 0) return undefined;
      const { a, slot } = r.pick(options);
      const values = this.members(a.entity).flatMap((o) => (o.values[slot.name] as readonly Scalar[] | null) ?? []).filter((v) => !(typeof v === 'string' && ODD_TEXT.test(v)));
      if (values.length === 0) return undefined;
      return { kind: 'contains', alias: a.alias, attribute: slot.name, value: r.pick(values), ...(negated ? { negated: true } : {}) };
    }
    if (roll < 0.22) {
      const options = entities.flatMap((a) => this.graph.index.subtree(a.entity).slice(1).filter((e) => this.members(e.name).length > 0).map((e) => ({ a, sub: e.name })));
      if (options.length === 0) return undefined;
      const { a, sub } = r.pick(options);
      return { kind: 'isA', alias: a.alias, entity: sub, ...(negated ? { negated: true } : {}) };
    }
    if (roll < 0.28) {
      // Or an unknown value: an optional attribute is NULL (or, for `<>`, known). Spider's
      // skeletons almost never say IS NULL, yet which values are missing is a question
      // real data raises and schemas answer alike only if their NULLs line up.
      const options = entities.flatMap((a) => (this.graph.entities.get(a.entity)?.attributes ?? []).filter((s) => s.attribute.optional === true).map((s) => ({ a, s })));
      if (options.length === 0) return undefined;
      const { a, s } = r.pick(options);
      return { kind: 'isNull', expr: { kind: 'attribute', alias: a.alias, attribute: s.name }, ...(negated ? { negated: true } : {}) };
    }
    return undefined;
  }

  /** Outputs only a conceptual query can ask for simply: a set's size, the set itself, the object's class. */
  private derivedOutput(entities: readonly EntityAlias[]): Typed | undefined {
    const r = this.rng;
    const a = r.pick(entities);
    const sets = this.graph.entities.get(a.entity)?.sets ?? [];
    const subs = this.graph.index.subtree(a.entity).map((e) => e.name);
    const roll = r.next();
    if (roll < 0.4 && sets.length > 0) {
      const slot = r.pick(sets);
      return { expr: { kind: 'setSize', alias: a.alias, attribute: slot.name }, kind: 'numeric', label: `${slot.name}_count` };
    }
    if (roll < 0.6 && sets.length > 0) {
      const slot = r.pick(sets);
      return { expr: { kind: 'setArray', alias: a.alias, attribute: slot.name }, kind: 'text', label: slot.name };
    }
    if (subs.length > 1) return { expr: { kind: 'classOf', alias: a.alias, among: subs }, kind: 'text', label: `${snakeCase(a.entity)}_kind` };
    return undefined;
  }

  /** Whether an attribute expression may be NULL (an optional attribute). */
  private isOptional(t: Typed, entities: readonly EntityAlias[]): boolean {
    const e = t.expr;
    if (e.kind !== 'attribute' || e.attribute === 'id') return false;
    const a = entities.find((x) => x.alias === e.alias);
    return this.graph.attribute(a?.entity ?? '', e.attribute)?.attribute.optional === true;
  }

  /** Text that LIKE can search: plain text, not an enum (PostgreSQL has no LIKE on enums). */
  private isPlainText(t: Typed, entities: readonly EntityAlias[]): boolean {
    const e = t.expr;
    if (e.kind !== 'attribute') return t.kind === 'text';
    const a = entities.find((x) => x.alias === e.alias);
    return this.graph.attribute(a?.entity ?? '', e.attribute)?.attribute.type.kind === 'text';
  }

  /**
   * `A.id [NOT] IN (SELECT b.id FROM Partner s JOIN … b …)` or `[NOT] EXISTS (…)`: the outer
   * objects that have (or lack) a partner through a relationship meeting the subquery's
   * condition. A subquery whose item is an aggregate has no such reading and is rejected.
   */
  private async linkedSubquery(slot: Extract<PredicateSlot, { kind: 'inSubquery' | 'exists' }>, entities: EntityAlias[]): Promise<Predicate> {
    const sub = slot.query;
    if (sub.leftJoins.length > 0) reject('unsupported-skeleton', 'a LEFT JOIN inside a subquery');
    if (slot.kind === 'inSubquery' && sub.items.some(isAggregateItem)) reject('meaningless-skeleton', 'x IN (SELECT aggregate …)');
    if (slot.kind === 'inSubquery' && sub.items.some((i) => i.kind === 'star')) reject('meaningless-skeleton', 'x IN (SELECT * …) compares one value with whole rows');
    if (sub.items.length !== 1 && slot.kind === 'inSubquery') reject('meaningless-skeleton', 'IN over a subquery of several columns');
    if (sub.groupBy.length > 0 || sub.limit !== null) reject('unsupported-skeleton', 'grouped or limited IN/EXISTS subquery');
    const outer = this.rng.pick(entities);
    const walks = this.graph.walksFrom(outer.entity);
    if (walks.length === 0) reject('no-fitting-slot', `${outer.entity} has no relationship for a subquery`);
    const edge = walks[this.rng.weighted(walks.map((w) => this.weight(w.variation)))] as RelationshipEdge;
    const partner: EntityAlias = { alias: this.alias(edge.to), entity: edge.to };
    const back: EntityAlias = { alias: this.alias(outer.entity), entity: outer.entity };
    const backJoin: Join = { kind: 'relationship', type: 'inner', relationship: edge.relationship, from: partner.alias, direction: edge.direction === 'forward' ? 'reverse' : 'forward', alias: back.alias, entity: outer.entity };
    const more = this.drawJoins(partner, sub.joins);
    const where = sub.where ? await this.condition(sub.where, more.entities, more.elements) : undefined;
    if (!where) reject('meaningless-skeleton', 'an IN/EXISTS subquery without a condition is a plain join');
    const joins = [backJoin, ...more.joins];
    // `id IN (…)` and a correlated EXISTS say the same; both forms are worth teaching.
    if (slot.kind === 'inSubquery' && !this.rng.chance(0.3)) {
      const q: SelectQuery = { kind: 'select', from: { entity: partner.entity, alias: partner.alias }, joins, where, select: [{ name: `${snakeCase(outer.entity)}_id`, expr: { kind: 'attribute', alias: back.alias, attribute: 'id' } }] };
      return { kind: 'inQuery', expr: { kind: 'attribute', alias: outer.alias, attribute: 'id' }, query: q, ...(slot.negated ? { negated: true } : {}) };
    }
    const correlate: Predicate = { kind: 'compare', op: '=', left: { kind: 'attribute', alias: back.alias, attribute: 'id' }, right: { kind: 'attribute', alias: outer.alias, attribute: 'id' } };
    const q: SelectQuery = { kind: 'select', from: { entity: partner.entity, alias: partner.alias }, joins, where: { kind: 'and', args: [correlate, where] }, select: [{ name: 'one', expr: { kind: 'literal', value: 1 } }] };
    return { kind: 'exists', query: q, ...(slot.negated ? { negated: true } : {}) };
  }

  /** `A.x op (SELECT agg(y.x) FROM E y [WHERE …])`: the same attribute against its aggregate. */
  private async scalarComparison(slot: Extract<PredicateSlot, { kind: 'compareSubquery' }>, entities: EntityAlias[], elements: ElementAlias[]): Promise<Predicate> {
    const sub = slot.query;
    const item = sub.items[0];
    if (sub.items.length !== 1 || item?.kind !== 'aggregate') reject('meaningless-skeleton', 'a scalar subquery without an aggregate may return many rows');
    if (sub.groupBy.length > 0) reject('meaningless-skeleton', 'a grouped scalar subquery may return many rows');
    if (sub.leftJoins.length > 0) reject('unsupported-skeleton', 'a LEFT JOIN inside a subquery');
    const options = this.candidates(entities, [], 'numeric').filter((c) => c.expr.kind === 'attribute');
    if (options.length === 0) reject('no-fitting-slot', 'no numeric attribute for a scalar subquery');
    const t = this.rng.pick(options);
    const outer = entities.find((a) => a.alias === (t.expr as { alias: string }).alias) as EntityAlias;
    const slotOwner = this.graph.attribute(outer.entity, t.label)?.owner ?? outer.entity;
    const inner: EntityAlias = { alias: this.alias(slotOwner), entity: slotOwner };
    const more = this.drawJoins(inner, sub.joins);
    const where = sub.where ? await this.condition(sub.where, more.entities, more.elements) : undefined;
    const fn = item.mode === 'free' ? this.rng.pick(['avg', 'max', 'min'] as const) : 'avg';
    const agg: Expr = { kind: 'aggregate', fn, arg: { kind: 'attribute', alias: inner.alias, attribute: t.label } };
    const q: SelectQuery = { kind: 'select', from: { entity: inner.entity, alias: inner.alias }, ...(more.joins.length > 0 ? { joins: more.joins } : {}), ...(where ? { where } : {}), select: [{ name: `${fn}_${t.label}`, expr: agg }] };
    const op: ComparisonOp = fn === 'max' ? (slot.op.startsWith('>') ? '>=' : slot.op === '=' ? '=' : '<') : fn === 'min' ? (slot.op.startsWith('<') ? '<=' : slot.op === '=' ? '=' : '>') : slot.op === '=' || slot.op === '<>' ? '>' : slot.op;
    return { kind: 'compare', op, left: t.expr, right: { kind: 'scalarSubquery', query: q } };
  }

  // ---- aggregates ----------------------------------------------------------------------

  private aggregate(slot: AggregateSlot, entities: readonly EntityAlias[], elements: readonly ElementAlias[], countTarget?: CountTarget, fixed: readonly Expr[] = []): Typed {
    const plain = this.plainAggregate(slot, entities, elements, countTarget, fixed);
    // Now and then a column aggregate becomes conditional aggregation, a percentage or an
    // aggregate of distinct values (drawn after the plain one, so other draws stay as they were).
    if (slot.mode === 'star' || slot.mode === 'distinct' || slot.argOp || !this.analyticRng.chance(0.2)) return plain;
    const pinned = new Set(fixed.map((e) => JSON.stringify(e)));
    return this.analyticAggregate(entities, elements, pinned, countTarget) ?? plain;
  }

  private plainAggregate(slot: AggregateSlot, entities: readonly EntityAlias[], elements: readonly ElementAlias[], countTarget?: CountTarget, fixed: readonly Expr[] = []): Typed {
    const r = this.rng;
    if (slot.mode === 'star') {
      if (countTarget) return { expr: { kind: 'aggregate', fn: 'count', arg: countTarget.expr }, kind: 'numeric', label: countTarget.label };
      return { expr: { kind: 'aggregate', fn: 'count' }, kind: 'numeric', label: 'count' };
    }
    if (slot.mode === 'distinct') {
      const ids: Typed[] = entities.slice(1).map((a) => ({ expr: { kind: 'attribute', alias: a.alias, attribute: 'id' }, kind: 'id', label: snakeCase(a.entity) }));
      const options = [...ids, ...this.candidates(entities, elements, 'text')];
      if (options.length === 0) reject('no-fitting-slot', 'nothing to count distinct values of');
      const t = r.pick(options);
      return { expr: { kind: 'aggregate', fn: 'count', arg: t.expr, distinct: true }, kind: 'numeric', label: `distinct_${t.label}s`.replace(/ss$/u, 's') };
    }
    // An aggregate of a column the WHERE clause pins to one value says nothing new.
    const pinned = new Set(fixed.map((e) => JSON.stringify(e)));
    const numeric = this.candidates(entities, elements, 'numeric').filter((c) => (c.expr.kind !== 'attribute' || c.label !== 'id') && !pinned.has(JSON.stringify(c.expr)));
    const temporal = this.candidates(entities, elements, 'any').filter((c) => c.kind === 'temporal');
    if (slot.argOp) return this.aggregateOfArithmetic(slot.argOp, numeric);
    if (numeric.length > 0 && (temporal.length === 0 || r.chance(0.85))) {
      const t = r.pick(numeric);
      const fn = r.pick(['sum', 'avg', 'max', 'min'] as const);
      const agg: Expr = { kind: 'aggregate', fn, arg: t.expr };
      // AVG prints many digits; rounding keeps answers readable and identical everywhere.
      return { expr: fn === 'avg' ? { kind: 'round', arg: agg, digits: 2 } : agg, kind: 'numeric', label: `${fn === 'sum' ? 'total' : fn}_${t.label}` };
    }
    if (temporal.length > 0) {
      const t = r.pick(temporal);
      const fn = r.pick(['max', 'min'] as const);
      return { expr: { kind: 'aggregate', fn, arg: t.expr }, kind: 'temporal', label: `${fn === 'max' ? 'latest' : 'earliest'}_${t.label}` };
    }
    return reject('no-fitting-slot', 'no numeric or date column to aggregate');
  }

  /**
   * An aggregate of arithmetic computed on each row: `SUM(a * b)`, `SUM(a - b)` over two
   * numbers of one object, or `AVG(x * 2)` with a number. A quotient is refused: on integers PostgreSQL
   * divides to an integer, which "divided by" does not say.
   */
  private aggregateOfArithmetic(op: '+' | '-' | '*' | '/', numeric: readonly Typed[]): Typed {
    const r = this.rng;
    if (op === '/') reject('no-fitting-slot', 'an aggregate of a quotient');
    const attrs = numeric.filter((c) => c.expr.kind === 'attribute');
    if (attrs.length === 0) reject('no-fitting-slot', 'no numeric attribute for an aggregate of arithmetic');
    const left = r.pick(attrs);
    const same = attrs.filter((c) => c !== left && (c.expr as { alias: string }).alias === (left.expr as { alias: string }).alias);
    const word = { '+': 'plus', '-': 'minus', '*': 'times' }[op];
    const fn = r.pick(['sum', 'avg', 'max', 'min'] as const);
    const name = fn === 'sum' ? 'total' : fn;
    let arg: Expr;
    let label: string;
    // Two numbers of one object (SUM(price * quantity) is a revenue), or one and a number.
    if (same.length > 0 && r.chance(0.7)) {
      const right = r.pick(same);
      arg = { kind: 'arithmetic', op, left: left.expr, right: right.expr };
      label = `${name}_${left.label}_${word}_${right.label}`;
    } else {
      const k = r.pick(op === '*' ? [2, 10, 100] : [1, 10, 100]);
      arg = { kind: 'arithmetic', op, left: left.expr, right: { kind: 'literal', value: k } };
      label = `${name}_${left.label}_${word}_${k}`;
    }
    const agg: Expr = { kind: 'aggregate', fn, arg };
    return { expr: fn === 'avg' ? { kind: 'round', arg: agg, digits: 2 } : agg, kind: 'numeric', label };
  }

  /** Conditional aggregation over a category of the data, or an aggregate of distinct numbers. */
  private analyticAggregate(entities: readonly EntityAlias[], elements: readonly ElementAlias[], pinned: ReadonlySet<string>, countTarget?: CountTarget): Typed | undefined {
    const r = this.analyticRng;
    const categories = this.candidates(entities, elements, 'any').filter((c) => (c.kind === 'text' || c.kind === 'boolean') && !pinned.has(JSON.stringify(c.expr)));
    const small = categories.filter((c) => {
      const n = new Set(this.valuesOf(c, entities, elements)).size;
      return n >= 2 && n <= 12;
    });
    if (small.length > 0 && r.chance(0.7)) {
      const c = r.pick(small);
      return conditionalAggregate(c, this.valuesOf(c, entities, elements), countTarget?.expr, r);
    }
    const numeric = this.candidates(entities, elements, 'numeric').filter((c) => c.label !== 'id' && !pinned.has(JSON.stringify(c.expr)));
    return numeric.length > 0 ? distinctAggregate(r.pick(numeric), r) : undefined;
  }

  // ---- SELECT --------------------------------------------------------------------------

  private outputs: OutputColumn[] = [];
  /** What each output of `select` is, by name (numbers and dates order without ties to break). */
  private outputKinds = new Map<string, Typed['kind']>();

  private addOutput(t: Typed): { name: string; expr: Expr } {
    let name = t.label;
    for (let i = 2; this.outputs.some((o) => o.name === name); i++) name = `${t.label}_${i}`;
    const out = { name, expr: t.expr };
    this.outputs.push(out);
    this.outputKinds.set(name, t.kind);
    return out;
  }

  /** A label attribute of an entity: a text attribute, preferring name-like ones. */
  private labelOf(a: EntityAlias): Typed {
    const texts = (this.graph.entities.get(a.entity)?.attributes ?? []).filter((s) => s.kind === 'text' && s.attribute.type.kind === 'text' && !s.attribute.optional);
    const named = texts.filter((s) => /name|title|handle|email/u.test(s.name));
    const slot = named[0] ?? texts[0];
    if (!slot) return { expr: { kind: 'attribute', alias: a.alias, attribute: 'id' }, kind: 'id', label: `${snakeCase(a.entity)}_id` };
    return { expr: { kind: 'attribute', alias: a.alias, attribute: slot.name }, kind: 'text', label: slot.name };
  }

  private async topSelect(shape: SelectShape): Promise<SelectQuery> {
    const q = await this.select(shape);
    const done = await this.orderAndLimit(q, shape.orderBy, shape.limit, shape);
    // A share of plain queries becomes top-N per group, from a stream of its own so the
    // rest of the fill draws what it drew before.
    const own = this.rng.fork('top-per-group');
    const roll = own.next();
    if (roll < TOP_PER_GROUP_SHARE) return topPerGroup(this.graph.index, own, done) ?? done;
    if (roll < TOP_PER_GROUP_SHARE + WINDOW_OUTPUT_SHARE) return windowOutput(this.graph.index, own, done) ?? done;
    return done;
  }

  private async select(shape: SelectShape, baseEntity?: string): Promise<SelectQuery> {
    this.outputs = [];
    this.outputKinds = new Map();
    const r = this.rng;
    const baseName = baseEntity ?? this.pickEntity();
    const base: EntityAlias = { alias: this.alias(baseName), entity: baseName };
    const { entities, elements, joins } = this.drawJoins(base, shape.joins);
    const where = shape.where ? await this.condition(shape.where, entities, elements) : undefined;
    const grouped = shape.groupBy.length > 0;
    if (!grouped && shape.leftJoins.length > 0) this.leftJoin(joins, shape.leftJoins, where);
    if (!grouped) {
      // A column the WHERE clause fixes to one value would be the same in every row.
      const fixed = equalityTargets(where);
      // Joined aliases nothing refers to yet: the columns go there first, so every join serves the answer.
      const unused = (): string[] => {
        const referenced = referencedAliases([where, ...this.outputs.map((o) => o.expr)]);
        const feeding = new Set(joins.flatMap((j) => (j.kind === 'relationship' ? [j.from] : [j.of])));
        return [...entities.slice(1).map((a) => a.alias), ...elements.map((e) => e.alias)].filter((a) => !referenced.has(a) && !feeding.has(a));
      };
      for (const item of shape.items) {
        if (item.kind === 'aggregate') this.addOutput(this.aggregate(item, entities, elements, undefined, fixed));
        else if (item.kind === 'aggregateArithmetic') this.addOutput(this.aggregateArithmetic(item, entities, elements, undefined, fixed));
        else if (item.kind === 'arithmetic') this.addOutput(this.arithmetic(item.op, entities, elements));
        else if (item.kind === 'star') this.everyAttribute(base).forEach((t) => this.addOutput(t));
        else {
          const open = unused();
          const avoid = [...fixed, ...this.outputs.map((o) => o.expr)];
          const there = open.length > 0 ? this.candidates(entities, elements, item.type).filter((c) => open.includes((c.expr as { alias: string }).alias) && !avoid.some((x) => JSON.stringify(x) === JSON.stringify(c.expr))) : [];
          const derived = there.length === 0 && item.type === 'any' && this.rng.chance(0.15) ? this.derivedOutput(entities) : undefined;
          const chosen = derived ?? (there.length > 0 ? this.rng.pick(there) : this.pickColumn(entities, elements, item.type, avoid));
          // Now and then the column's year, length, case, band…: an analytic output.
          const analytic = !derived && this.analyticRng.chance(0.15) ? analyticColumn(chosen, this.valuesOf(chosen, entities, elements), item.type, this.isPlainText(chosen, entities), this.isOptional(chosen, entities), this.analyticRng) : undefined;
          this.addOutput(analytic ?? chosen);
        }
      }
      const left = unused();
      if (left.length > 0 && !this.outputs.some((o) => o.expr.kind === 'aggregate')) reject('no-fitting-slot', `a join the answer does not use (${left.join(', ')})`);
      // With every attribute, id included, the rows are distinct already.
      const distinct = shape.distinct && !shape.items.some((i) => i.kind === 'star');
      const q: SelectQuery = { kind: 'select', ...(distinct ? { distinct: true } : {}), select: this.outputs, from: { entity: base.entity, alias: base.alias }, ...(joins.length > 0 ? { joins } : {}), ...(where ? { where } : {}) };
      return q;
    }
    // Grouped: by the objects of one alias (id, with label attributes) or by a category.
    const groupAlias = r.chance(0.7) ? base : r.pick(entities);
    const categories = this.candidates(entities, [], 'any').filter((c) => c.kind === 'text' || c.kind === 'boolean');
    const lowCardinality = categories.filter((c) => {
      const n = new Set(this.valuesOf(c, entities, elements)).size;
      return n >= 2 && n <= 12;
    });
    // The year of a date is a category too, when the data spans a few years.
    if (this.analyticRng.chance(0.25)) {
      for (const t of this.candidates(entities, [], 'any').filter((c) => c.kind === 'temporal')) {
        const year = yearCategory(t, this.valuesOf(t, entities, elements));
        if (year) lowCardinality.push(year);
      }
    }
    const keys: Expr[] = [];
    const plainItems = shape.items.filter((i) => i.kind === 'column');
    let countTarget: CountTarget | undefined;
    // Per object of one alias only when another alias supplies what is aggregated; an
    // aggregate over an object's own single row says nothing.
    const byObject = entities.length + elements.length > 1 && (lowCardinality.length === 0 || r.chance(0.6));
    if (!byObject) {
      if (lowCardinality.length === 0) reject('no-fitting-slot', 'no category to group by and nothing joined to aggregate per object');
      const pool = r.shuffle(lowCardinality);
      const wanted = Math.max(1, Math.min(shape.groupBy.length, plainItems.length || 1, pool.length));
      for (const c of pool.slice(0, wanted)) {
        keys.push(c.expr);
        this.addOutput(c);
      }
    } else {
      keys.push({ kind: 'attribute', alias: groupAlias.alias, attribute: 'id' });
      const attrs = (this.graph.entities.get(groupAlias.entity)?.attributes ?? []).filter((s) => s.kind !== 'boolean');
      const label = this.labelOf(groupAlias);
      this.addOutput(label);
      const extra = r.shuffle(attrs.filter((s) => s.name !== (label.expr as { attribute: string }).attribute));
      for (const s of extra.slice(0, Math.max(0, plainItems.length - 1))) this.addOutput({ expr: { kind: 'attribute', alias: groupAlias.alias, attribute: s.name }, kind: s.kind, label: s.name });
      // Counting partners of each object: a LEFT join keeps objects with none as a zero.
      // The same for a set's elements: an empty set counts as zero.
      const partner = entities.find((a) => a !== groupAlias && a.via && joins.some((j) => j.kind === 'relationship' && j.alias === a.alias && j.from === groupAlias.alias));
      const element = elements.find((e) => joins.some((j) => j.kind === 'elements' && j.alias === e.alias && j.of === groupAlias.alias));
      // A WHERE on the grouped objects alone keeps the LEFT join's meaning (objects with no
      // partner still count zero); one on the partners would undo it.
      const partnerFree = !where || !referencedAliases([where]).has((partner ?? element)?.alias ?? '');
      // A LEFT JOIN the skeleton asks for is taken where it has this meaning, refused elsewhere.
      const wantsLeft = shape.leftJoins.length > 0;
      if (wantsLeft && !((partner || element) && joins.length === 1 && partnerFree)) reject('no-fitting-slot', 'a LEFT JOIN in a grouped query other than counting the partners of each object');
      if ((partner || element) && joins.length === 1 && partnerFree && (wantsLeft || r.chance(0.5))) {
        joins[0] = { ...(joins[0] as Join), type: 'left' };
        countTarget = partner
          ? { expr: { kind: 'attribute', alias: partner.alias, attribute: 'id' }, label: `${snakeCase(partner.entity)}_count` }
          : { expr: { kind: 'element', alias: (element as ElementAlias).alias }, label: `${(element as ElementAlias).slot.name}_count` };
      }
    }
    if (shape.leftJoins.length > 0 && !joins.some((j) => j.type === 'left')) reject('no-fitting-slot', 'a LEFT JOIN in a grouped query other than counting the partners of each object');
    const others = entities.filter((a) => a !== groupAlias);
    const aggScope = byObject && others.length > 0 ? others : entities;
    for (const item of shape.items) {
      if (item.kind === 'aggregate') this.addOutput(this.aggregate(item, aggScope, elements, countTarget));
      else if (item.kind === 'aggregateArithmetic') this.addOutput(this.aggregateArithmetic(item, aggScope, elements, countTarget));
    }
    if (!this.outputs.some((o) => hasAggregate(o.expr))) this.addOutput(this.aggregate({ kind: 'aggregate', mode: 'star' }, aggScope, elements, countTarget));
    let having: Predicate | undefined;
    const base0: SelectQuery = { kind: 'select', select: [...this.outputs], from: { entity: base.entity, alias: base.alias }, ...(joins.length > 0 ? { joins } : {}), ...(where ? { where } : {}), groupBy: keys };
    if (shape.having) having = await this.having(shape.having, base0, aggScope, elements, countTarget);
    return { ...base0, ...(having ? { having } : {}) };
  }

  private arithmetic(op: '+' | '-' | '*' | '/', entities: readonly EntityAlias[], elements: readonly ElementAlias[]): Typed {
    const numeric = this.candidates(entities, elements, 'numeric').filter((c) => c.expr.kind === 'attribute' && c.label !== 'id');
    if (numeric.length === 0) reject('no-fitting-slot', 'no numeric attribute for arithmetic');
    const left = this.rng.pick(numeric);
    const same = numeric.filter((c) => c !== left && (c.expr as { alias: string }).alias === (left.expr as { alias: string }).alias);
    if (same.length > 0 && op !== '/' && this.rng.chance(0.6)) {
      const right = this.rng.pick(same);
      return { expr: { kind: 'arithmetic', op, left: left.expr, right: right.expr }, kind: 'numeric', label: `${left.label}_${op === '+' ? 'plus' : op === '-' ? 'minus' : 'times'}_${right.label}` };
    }
    const k = this.rng.pick([2, 10, 100]);
    const word = op === '+' ? 'plus' : op === '-' ? 'minus' : op === '*' ? 'times' : 'per';
    return { expr: { kind: 'arithmetic', op, left: left.expr, right: { kind: 'literal', value: k } }, kind: 'numeric', label: `${left.label}_${word}_${k}` };
  }

  /**
   * `SELECT *` as the conceptual query states it: the id and every single-valued attribute
   * of the entity (inherited ones first), each named by its attribute. The compiler lists
   * them, so every variant gives the same columns whatever its tables hold besides.
   */
  private everyAttribute(a: EntityAlias): Typed[] {
    const attrs = this.graph.entities.get(a.entity)?.attributes ?? [];
    return [
      { expr: { kind: 'attribute', alias: a.alias, attribute: 'id' }, kind: 'id', label: 'id' },
      ...attrs.map((s): Typed => ({ expr: { kind: 'attribute', alias: a.alias, attribute: s.name }, kind: s.kind, label: s.name })),
    ];
  }

  /**
   * Arithmetic on aggregates, read as what people compute so: with two aggregates, the range
   * of a number (MAX − MIN), the sum or difference of two totals, or one total per another
   * (a ratio, NULL where the second is 0); with a number, an aggregate shifted or scaled by it
   * (divided as a rounded ratio, so an integer total is not cut to an integer).
   */
  private aggregateArithmetic(slot: AggregateArithmeticSlot, entities: readonly EntityAlias[], elements: readonly ElementAlias[], countTarget?: CountTarget, fixed: readonly Expr[] = []): Typed {
    const r = this.rng;
    const key = (e: Expr): string => JSON.stringify(e);
    const pinned = new Set(fixed.map(key));
    if (slot.left.kind !== 'number' && slot.right.kind !== 'number') {
      if (slot.op === '*') reject('meaningless-skeleton', 'a product of two aggregates');
      const numeric = this.candidates(entities, elements, 'numeric').filter((c) => (c.expr.kind !== 'attribute' || c.label !== 'id') && !pinned.has(key(c.expr)));
      if (numeric.length === 0) reject('no-fitting-slot', 'no numeric column for arithmetic on aggregates');
      const t = r.pick(numeric);
      const aliasOf = (c: Typed): string => (c.expr as { alias: string }).alias;
      const others = numeric.filter((c) => c !== t && aliasOf(c) === aliasOf(t));
      const agg = (fn: 'sum' | 'max' | 'min', c: Typed): Expr => ({ kind: 'aggregate', fn, arg: c.expr });
      if (slot.op === '-' && (others.length === 0 || r.chance(0.6))) {
        return { expr: { kind: 'arithmetic', op: '-', left: agg('max', t), right: agg('min', t) }, kind: 'numeric', label: `${t.label}_range` };
      }
      if (others.length === 0) reject('no-fitting-slot', `no second numeric column beside ${t.label} for ${slot.op} of two aggregates`);
      const u = r.pick(others);
      if (slot.op === '/') return { expr: { kind: 'ratio', numerator: agg('sum', t), denominator: agg('sum', u), percent: false, digits: 2 }, kind: 'numeric', label: `${t.label}_per_${u.label}` };
      const word = slot.op === '+' ? 'plus' : 'minus';
      return { expr: { kind: 'arithmetic', op: slot.op, left: agg('sum', t), right: agg('sum', u) }, kind: 'numeric', label: `total_${t.label}_${word}_total_${u.label}` };
    }
    const side = (slot.left.kind === 'number' ? slot.right : slot.left) as AggregateSlot | { kind: 'number' };
    if (side.kind === 'number') return reject('meaningless-skeleton', 'arithmetic of two numbers');
    const a = this.plainAggregate(side, entities, elements, countTarget, fixed);
    if (a.kind !== 'numeric') reject('no-fitting-slot', 'arithmetic on a date aggregate');
    const k = r.pick(slot.op === '*' || slot.op === '/' ? [2, 10, 100] : [1, 10, 100]);
    // The ratio rounds: an average goes in unrounded, so it is rounded once.
    const numerator = a.expr.kind === 'round' ? a.expr.arg : a.expr;
    if (slot.op === '/') return { expr: { kind: 'ratio', numerator, denominator: { kind: 'literal', value: k }, percent: false, digits: 2 }, kind: 'numeric', label: `${a.label}_per_${k}` };
    const word = { '+': 'plus', '-': 'minus', '*': 'times' }[slot.op];
    return { expr: { kind: 'arithmetic', op: slot.op, left: a.expr, right: { kind: 'literal', value: k } }, kind: 'numeric', label: `${a.label}_${word}_${k}` };
  }

  /**
   * Makes the skeleton's LEFT joins LEFT: each object of the alias joined from is kept once
   * with empty partner columns when it has no partner. Refused where that meaning would not
   * hold: a WHERE on the partner drops those rows again, and so does a join on from it.
   */
  private leftJoin(joins: Join[], indices: readonly number[], where: Predicate | undefined): void {
    const inWhere = referencedAliases([where]);
    for (const i of indices) {
      const j = joins[i] as Join;
      if (inWhere.has(j.alias)) reject('no-fitting-slot', `a WHERE on ${j.alias}, LEFT-joined, would drop the rows without one`);
      if (joins.some((k) => (k.kind === 'relationship' ? k.from : k.of) === j.alias)) reject('no-fitting-slot', `a join from ${j.alias}, LEFT-joined, would drop the rows without one`);
      joins[i] = { ...j, type: 'left' };
    }
  }

  /** HAVING thresholds from the distribution of the group aggregates, read by a probe. */
  private async having(shape: ConditionShape, q: SelectQuery, scope: readonly EntityAlias[], elements: readonly ElementAlias[], countTarget?: CountTarget): Promise<Predicate> {
    const disjuncts: Predicate[] = [];
    for (const conj of shape) {
      const parts: Predicate[] = [];
      for (const slot of conj) {
        if (slot.kind !== 'compareAggregate') return reject('meaningless-skeleton', 'HAVING without an aggregate');
        const t = this.aggregate(slot.aggregate, scope, elements, countTarget);
        if (t.kind !== 'numeric') reject('no-fitting-slot', 'HAVING on a date aggregate');
        const rows = await this.ctx.probe({ ...q, select: [{ name: 'h', expr: t.expr }], orderBy: undefined, limit: undefined });
        const values = [...new Set(rows.map((row) => row[0]).filter((v): v is string => v !== null).map(Number))].sort((a, b) => a - b);
        if (values.length < 2) reject('no-fitting-value', 'the group aggregate takes fewer than two values');
        const op: ComparisonOp = slot.op === '<>' ? '>' : slot.op;
        // A threshold strictly inside the distribution keeps some groups and drops others.
        const inner = op === '=' ? values : op.startsWith('>') ? values.slice(0, -1) : values.slice(1);
        const pick = inner[Math.floor(this.rng.pick([0.3, 0.5, 0.7]) * (inner.length - 1))] as number;
        const threshold = op === '>=' ? (values[values.indexOf(pick) + 1] ?? pick) : op === '<=' ? (values[values.indexOf(pick) - 1] ?? pick) : pick;
        parts.push({ kind: 'compare', op, left: t.expr, right: { kind: 'literal', value: threshold } });
      }
      disjuncts.push(parts.length === 1 ? (parts[0] as Predicate) : { kind: 'and', args: parts });
    }
    return disjuncts.length === 1 ? (disjuncts[0] as Predicate) : { kind: 'or', args: disjuncts };
  }

  // ---- ORDER BY and LIMIT ----------------------------------------------------------------

  /**
   * Orders by the skeleton's keys and places the LIMIT where the order is strict: the rows
   * up to the cut are strictly ordered and the cut does not fall inside a tie. Without a
   * LIMIT, remaining outputs are added as tie-breakers when tied rows differ.
   */
  private async orderAndLimit(q: SelectQuery, order: SelectShape['orderBy'], limit: SelectShape['limit'], shape: SelectShape): Promise<SelectQuery> {
    if (order.length === 0) {
      if (limit !== null) reject('meaningless-skeleton', 'LIMIT without ORDER BY leaves the rows to the database');
      return q;
    }
    const grouped = (q.groupBy?.length ?? 0) > 0;
    const items: OrderItem[] = [];
    const taken = new Set<string>();
    for (const o of order) {
      const key = this.orderKey(o.key, q, grouped, shape, taken);
      taken.add(key.name);
      // Now and then NULLs go to the other end than PostgreSQL's default, said explicitly.
      const nulls = this.analyticRng.chance(0.08) ? { nulls: o.direction === 'desc' ? ('last' as const) : ('first' as const) } : {};
      items.push({ expr: { kind: 'output', name: key.name }, direction: o.direction, ...nulls });
    }
    // SELECT * shows the id: it ends the order, so ties on either instance have a known order.
    if (shape.items.some((i) => i.kind === 'star') && !taken.has('id') && (q.joins ?? []).length === 0) items.push({ expr: { kind: 'output', name: 'id' }, direction: 'asc' });
    const ordered: SelectQuery = { ...q, select: this.outputs.length > q.select.length ? [...this.outputs] : q.select, orderBy: items };
    return this.placeLimit(ordered, limit);
  }

  private orderKey(key: ItemSlot, q: SelectQuery, grouped: boolean, shape: SelectShape, taken: Set<string>): { name: string } {
    const outs = this.outputs.filter((o) => !taken.has(o.name));
    const isAgg = (e: Expr): boolean => hasAggregate(e);
    if (isAggregateItem(key)) {
      const existing = outs.filter((o) => isAgg(o.expr));
      if (existing.length > 0) return this.rng.pick(existing);
      if (!grouped) reject('meaningless-skeleton', 'ORDER BY an aggregate in an ungrouped query');
    }
    // Prefer ordered kinds (numbers, dates) over text, whose order depends on the collation.
    const plain = outs.filter((o) => !isAgg(o.expr) || key.kind !== 'column');
    // An id orders rows by nothing a reader knows: only when there is nothing else.
    const known = plain.filter((o) => !(o.expr.kind === 'attribute' && o.expr.attribute === 'id'));
    // Among every attribute of SELECT *, a number or a date: text orders by collation, and
    // flags and categories tie, so a LIMIT seldom finds a cut.
    const ordered = shape.items.some((i) => i.kind === 'star') ? known.filter((o) => ['numeric', 'temporal'].includes(this.outputKinds.get(o.name) ?? '')) : [];
    if (ordered.length > 0) return this.rng.pick(ordered);
    if (known.length > 0) return this.rng.pick(known);
    if (plain.length > 0) return this.rng.pick(plain);
    if (shape.distinct || grouped) reject('no-fitting-slot', 'no output left to order by');
    return reject('no-fitting-slot', 'no output to order by');
  }

  private async placeLimit(q: Query, limit: SelectShape['limit']): Promise<Query & SelectQuery>;
  private async placeLimit(q: Query, limit: SelectShape['limit']): Promise<Query> {
    const keys = (q.orderBy ?? []).map((o) => ('name' in o ? o.name : (o.expr as { name: string }).name));
    const names = outputNames(q);
    const idx = keys.map((k) => names.indexOf(k));
    const rows = await this.ctx.probe(q);
    const keyOf = (row: readonly (string | null)[]): string => JSON.stringify(idx.map((i) => row[i] ?? null));
    if (limit === null) {
      // Tied rows that differ would leave their order to the database: break ties by every output.
      const tiedDiffer = rows.some((row, i) => i > 0 && keyOf(row) === keyOf(rows[i - 1] as typeof row) && JSON.stringify(row) !== JSON.stringify(rows[i - 1]));
      if (!tiedDiffer) return q;
      // Over one entity, its id alone (when shown) breaks every tie.
      const id = q.kind === 'select' && (q.joins ?? []).length === 0 ? q.select.find((o) => o.expr.kind === 'attribute' && o.expr.alias === q.from.alias && o.expr.attribute === 'id' && !keys.includes(o.name)) : undefined;
      const rest = (id ? [id.name] : names.filter((n) => !keys.includes(n))).map((name) => ({ expr: { kind: 'output' as const, name }, direction: 'asc' as const }));
      if (q.kind === 'set') return { ...q, orderBy: [...(q.orderBy ?? []), ...rest.map((x) => ({ name: x.expr.name, direction: x.direction }))] };
      return { ...q, orderBy: [...(q.orderBy ?? []), ...rest] };
    }
    // Positions k where rows 1..k are strictly ordered and row k+1 is below row k.
    const fits: number[] = [];
    for (let k = 1; k < rows.length && k <= 10; k++) {
      if (keyOf(rows[k] as (string | null)[]) === keyOf(rows[k - 1] as (string | null)[])) break;
      fits.push(k);
    }
    const wanted = limit === 'one' ? fits.filter((k) => k === 1) : fits.filter((k) => k >= 2);
    if (wanted.length === 0) reject('no-fitting-value', limit === 'one' ? 'the first two rows tie on the ORDER BY keys' : 'no strict cut between 2 and 10 rows');
    return { ...q, limit: this.rng.pick(wanted) };
  }

  // ---- set operations ------------------------------------------------------------------

  /**
   * Both arms over one hierarchy, projecting the same attributes of the arms' common
   * ancestor (type-compatible by construction).
   */
  private async setQuery(shape: SetShape): Promise<Query> {
    const arms: SelectShape[] = [];
    const ops: SetShape['op'][] = [];
    let s: QueryShape = shape;
    while (s.kind === 'set') {
      arms.unshift(s.right);
      ops.unshift(s.op);
      s = s.left;
    }
    arms.unshift(s);
    const width = arms[0]?.items.length ?? 0;
    if (arms.every((a) => a.items.length === 1 && a.items[0]?.kind === 'aggregate' && a.groupBy.length === 0)) return this.numbersList(arms, ops, shape);
    // Arms that each select * compare whole objects of one hierarchy: every attribute of its root.
    const stars = arms.every((a) => a.items.length === 1 && a.items[0]?.kind === 'star');
    for (const a of arms) {
      if (a.items.length !== width) reject('meaningless-skeleton', 'set operation arms of different widths');
      if (!stars && a.items.some((i) => i.kind === 'star')) reject('meaningless-skeleton', 'SELECT * beside other columns in a set operation');
      if (!stars && a.items.some((i) => i.kind !== 'column')) reject('meaningless-skeleton', 'a set operation over aggregates');
      if (a.groupBy.length > 0 && a.having === null) reject('unsupported-skeleton', 'a grouped arm without HAVING');
      if (a.orderBy.length > 0 || a.limit !== null) reject('unsupported-skeleton', 'an ordered arm inside a set operation');
      if (a.leftJoins.length > 0) reject('unsupported-skeleton', 'a LEFT JOIN inside a set operation');
    }
    const root = this.pickEntity(this.graph.index.roots.map((r) => r.name).filter((n) => this.graph.index.subtree(n).length > 1 || this.rng.chance(0.3)));
    const family = this.graph.index.subtree(root).map((e) => e.name);
    const firstBase = this.pickEntity(family);
    const attrs = (this.graph.entities.get(root)?.attributes ?? []).filter((x) => x.kind !== 'boolean');
    const chosen = [this.labelOf({ alias: '', entity: root }).label, ...this.rng.shuffle(attrs.map((x) => x.name))].filter((v, i, all) => all.indexOf(v) === i && v !== `${snakeCase(root)}_id`);
    const columns = stars ? this.everyAttribute({ alias: '', entity: root }).map((t) => t.label) : chosen.slice(0, width);
    if (columns.length < width) reject('no-fitting-slot', 'not enough shared attributes for the arms');
    const arm = async (a: SelectShape, entity: string): Promise<SelectQuery> => {
      const base: EntityAlias = { alias: this.alias(entity), entity };
      const { entities, elements, joins } = this.drawJoins(base, a.joins);
      const where = a.where ? await this.condition(a.where, entities, elements) : undefined;
      const select = columns.map((c) => ({ name: c, expr: { kind: 'attribute', alias: base.alias, attribute: c } as Expr }));
      if (a.groupBy.length > 0) {
        const having = await this.having(a.having ?? [], { kind: 'select', select, from: { entity, alias: base.alias }, ...(joins.length > 0 ? { joins } : {}), ...(where ? { where } : {}), groupBy: [{ kind: 'attribute', alias: base.alias, attribute: 'id' }] }, entities.slice(1).length > 0 ? entities.slice(1) : entities, elements);
        return { kind: 'select', select, from: { entity, alias: base.alias }, ...(joins.length > 0 ? { joins } : {}), ...(where ? { where } : {}), groupBy: [{ kind: 'attribute', alias: base.alias, attribute: 'id' }], having };
      }
      return { kind: 'select', ...(a.distinct ? { distinct: true } : {}), select, from: { entity, alias: base.alias }, ...(joins.length > 0 ? { joins } : {}), ...(where ? { where } : {}) };
    };
    let q: Query = await arm(arms[0] as SelectShape, firstBase);
    for (let i = 1; i < arms.length; i++) {
      // UNION ALL is all but absent from Spider's grammar; a UNION sometimes keeps its
      // repeats (an object or value in both arms is listed twice), which a question can ask.
      const op = ops[i - 1] === 'union' && this.rng.chance(0.5) ? 'union all' : (ops[i - 1] as SetShape['op']);
      q = { kind: 'set', op, left: q, right: await arm(arms[i] as SelectShape, this.pickEntity(family)) };
    }
    const set = q as SetQuery;
    if (shape.orderBy.length === 0) {
      if (shape.limit !== null) reject('meaningless-skeleton', 'LIMIT without ORDER BY');
      return set;
    }
    const orderBy = shape.orderBy.slice(0, columns.length).map((o, i) => ({ name: columns[i] as string, direction: o.direction }));
    return this.placeLimit({ ...set, orderBy }, shape.limit);
  }

  /**
   * Arms that each give one aggregate, over one hierarchy: a list of those numbers, one row
   * an arm (`SELECT count(*) … WHERE a UNION ALL SELECT count(*) … WHERE b`). The operator is
   * UNION ALL whatever the skeleton said: a UNION would list two equal numbers once, which no
   * one asking for both means; and two numbers have no telling intersection or difference.
   */
  private async numbersList(arms: readonly SelectShape[], ops: readonly SetShape['op'][], shape: SetShape): Promise<Query> {
    if (ops.some((op) => op !== 'union' && op !== 'union all')) reject('meaningless-skeleton', 'an intersection or difference of single aggregates');
    if (shape.orderBy.length > 0 || shape.limit !== null) reject('unsupported-skeleton', 'an ordered list of single aggregates');
    for (const a of arms) {
      if (a.orderBy.length > 0 || a.limit !== null || a.having !== null) reject('unsupported-skeleton', 'an ordered or filtered aggregate arm of a set operation');
      if (a.leftJoins.length > 0) reject('unsupported-skeleton', 'a LEFT JOIN inside a set operation');
    }
    const root = this.pickEntity(this.graph.index.roots.map((r) => r.name));
    const family = this.graph.index.subtree(root).map((e) => e.name);
    // One aggregate for every arm, so the numbers are of one kind: a count, or one function of
    // one number every object of the hierarchy has.
    const numbers = (this.graph.entities.get(root)?.attributes ?? []).filter((x) => x.kind === 'numeric');
    const slot = arms[0]?.items[0] as AggregateSlot;
    const counted = slot.mode !== 'free' || numbers.length === 0;
    const attribute = counted ? undefined : this.rng.pick(numbers).name;
    const fn = counted ? 'count' : this.rng.pick(['sum', 'max', 'min'] as const);
    const name = counted ? 'count' : `${fn === 'sum' ? 'total' : fn}_${attribute}`;
    const arm = async (a: SelectShape, entity: string): Promise<SelectQuery> => {
      const base: EntityAlias = { alias: this.alias(entity), entity };
      const { entities, elements, joins } = this.drawJoins(base, a.joins);
      const where = a.where ? await this.condition(a.where, entities, elements) : undefined;
      const expr: Expr = attribute ? { kind: 'aggregate', fn, arg: { kind: 'attribute', alias: base.alias, attribute } } : { kind: 'aggregate', fn: 'count' };
      return { kind: 'select', select: [{ name, expr }], from: { entity, alias: base.alias }, ...(joins.length > 0 ? { joins } : {}), ...(where ? { where } : {}) };
    };
    let q: Query = await arm(arms[0] as SelectShape, this.pickEntity(family));
    for (let i = 1; i < arms.length; i++) q = { kind: 'set', op: 'union all', left: q, right: await arm(arms[i] as SelectShape, this.pickEntity(family)) };
    return q;
  }
}

/** Aliases an expression or predicate refers to (subqueries included). */
function referencedAliases(nodes: readonly unknown[]): Set<string> {
  const out = new Set<string>();
  const walk = (n: unknown): void => {
    if (Array.isArray(n)) return n.forEach(walk);
    if (n === null || typeof n !== 'object') return;
    const o = n as Record<string, unknown>;
    if (typeof o['alias'] === 'string' && o['kind'] !== undefined) out.add(o['alias']);
    for (const k of Object.keys(o)) walk(o[k]);
  };
  walk(nodes);
  return out;
}

/** Expressions a predicate pins to one value (`x = literal` in a conjunction). */
function equalityTargets(p: Predicate | undefined): Expr[] {
  if (!p) return [];
  if (p.kind === 'compare' && p.op === '=' && p.right.kind === 'literal') return [p.left];
  if (p.kind === 'and') return p.args.flatMap(equalityTargets);
  return [];
}

/** The output column names of a query (a set query's are its left arm's). */
export function outputNames(q: Query): string[] {
  return q.kind === 'select' ? q.select.map((o) => o.name) : outputNames(q.left);
}
