import type { Attribute, AttributeType } from '../er-model/er-model.ts';
import type { ErIndex } from '../er-model/er-index.ts';
import type { Rng } from '../common/rng.ts';
import type { ConceptualInstance, Scalar } from '../instance/conceptual-instance.ts';
import type { Expr, Join, OrderItem, Predicate, Query, ScalarLiteral, SelectQuery } from './conceptual-query.ts';
import { randomGroupWindow, randomQualify, randomRowWindow, type WindowContext } from './random-window.ts';
import {
  drawAnalyticAggregate,
  drawAnalyticPredicate,
  drawAnalyticValue,
  type AnalyticDrawer,
} from './random-analytic.ts';
import { sameNode } from './walk.ts';

/**
 * Seeded random conceptual queries over a domain, with literals drawn from an instance so
 * predicates select something. They exercise every construct of the IR (joins in both
 * directions and both kinds, a relationship joined twice, set elements, every predicate,
 * grouping, HAVING, subqueries of every kind, set operations, class tests, sets as
 * arrays) for property tests of the compiler: whatever they draw, all variants must agree.
 *
 * Every ORDER BY is total over the output columns, so a LIMIT picks the same rows in every
 * variant; scalar subqueries aggregate, so they return one row.
 */
export function randomQuery(index: ErIndex, instance: ConceptualInstance, rng: Rng): Query {
  const g = new QueryDrawer(index, instance, rng);
  return rng.chance(0.12) ? g.setQuery() : g.selectQuery(0);
}

interface EntityAlias {
  readonly alias: string;
  readonly entity: string;
}

interface ElementAlias {
  readonly alias: string;
  readonly owner: string;
  readonly attribute: Attribute;
}

class QueryDrawer {
  private counter = 0;
  /** Aliases joined through a relationship that has attributes, with those attributes. */
  private readonly links = new Map<string, readonly Attribute[]>();

  constructor(
    private readonly index: ErIndex,
    private readonly instance: ConceptualInstance,
    private readonly rng: Rng,
  ) {
    this.analytic = {
      rng,
      attributes: (entity) => this.singleAttributes(entity),
      sample: (entity, attribute) => this.sampleValue(entity, attribute),
      predicate: (a) => this.simplePredicate(a, true),
    };
  }

  /** The drawer's helpers, lent to the analytic draws (CASE, CAST, dates, text). */
  private readonly analytic: AnalyticDrawer;

  /** Short names that end one another ("c", "cc", "xc"), then numbered ones. */
  private readonly aliasPool = ['c', 'cc', 'xc', 'a', 'ca', 'p', 'pp'];

  private alias(prefix: string): string {
    this.counter += 1;
    if (this.rng.chance(0.3)) {
      const free = this.aliasPool.filter((a) => !this.taken.has(a));
      if (free.length > 0) {
        const name = this.rng.pick(free);
        this.taken.add(name);
        return name;
      }
    }
    return `${prefix}${this.counter}`;
  }

  private readonly taken = new Set<string>();

  /** Output names: mostly c1, k1, a1…; sometimes a real column's name, which must not confuse GROUP BY. */
  private outputName(fallback: string, used: Set<string>): string {
    const candidates = ['type', 'id', 'name', 'tags', 'price', 'title', 'email', 'category'];
    const name = this.rng.chance(0.25) ? this.rng.pick(candidates) : fallback;
    const unique = used.has(name) ? fallback : name;
    used.add(unique);
    return unique;
  }

  private entities(): string[] {
    return this.index.domain.entities.map((e) => e.name);
  }

  /** Objects of an entity in the instance (subclasses included). */
  private members(entity: string) {
    const root = this.index.root(entity).name;
    return (this.instance.objects[root] ?? []).filter((o) =>
      o.classes.some((c) => this.index.isAncestorOrSelf(entity, c)),
    );
  }

  private singleAttributes(entity: string): Attribute[] {
    return this.index
      .allAttributes(entity)
      .map((a) => a.attribute)
      .filter((a) => !a.multiValued);
  }

  private multiAttributes(entity: string): Attribute[] {
    return this.index
      .allAttributes(entity)
      .map((a) => a.attribute)
      .filter((a) => a.multiValued === true);
  }

  /** A value the instance has for an attribute (or a set element), if any. */
  private sampleValue(entity: string, attribute: Attribute): ScalarLiteral | undefined {
    const objects = this.members(entity);
    for (let tries = 0; tries < 20 && objects.length > 0; tries++) {
      const v = this.rng.pick(objects).values[attribute.name];
      if (Array.isArray(v)) {
        if (v.length > 0) return this.rng.pick(v as Scalar[]);
      } else if (v !== null && v !== undefined) return v as Scalar;
    }
    return undefined;
  }

  /** A relationship join from an entity alias, in a direction its class allows. */
  private relationshipJoin(
    from: EntityAlias,
    type: 'inner' | 'left',
    relationship?: string,
  ): { join: Join; alias: EntityAlias } | undefined {
    const options: { rel: string; direction: 'forward' | 'reverse'; end: string }[] = [];
    for (const r of this.index.domain.relationships) {
      if (relationship && r.name !== relationship) continue;
      if (this.index.isAncestorOrSelf(r.from, from.entity))
        options.push({ rel: r.name, direction: 'forward', end: r.to });
      if (this.index.isAncestorOrSelf(r.to, from.entity))
        options.push({ rel: r.name, direction: 'reverse', end: r.from });
    }
    if (options.length === 0) return undefined;
    const choice = this.rng.pick(options);
    const subclasses = this.index.subtree(choice.end).map((e) => e.name);
    const entity = this.rng.chance(0.75) ? choice.end : this.rng.pick(subclasses);
    const alias = { alias: this.alias('j'), entity };
    const relAttributes = this.index.relationship(choice.rel).attributes ?? [];
    if (relAttributes.length > 0) this.links.set(alias.alias, relAttributes);
    let join: Join = {
      kind: 'relationship',
      type,
      relationship: choice.rel,
      from: from.alias,
      direction: choice.direction,
      alias: alias.alias,
      entity,
    };
    if (type === 'left' && this.rng.chance(0.25)) {
      const on = this.rng.chance(0.3) ? this.subqueryPredicate(alias, 1) : this.simplePredicate(alias);
      if (on) join = { ...join, on };
    }
    return { join, alias };
  }

  /** A predicate over one entity alias's own attributes. */
  private simplePredicate(a: EntityAlias, plain = false): Predicate | undefined {
    const r = this.rng;
    if (!plain && r.chance(0.12)) {
      const p = drawAnalyticPredicate(this.analytic, a);
      if (p) return p;
    }
    const roll = r.next();
    const multi = this.multiAttributes(a.entity);
    if (roll < 0.12 && multi.length > 0) {
      const attribute = r.pick(multi);
      const value = this.sampleValue(a.entity, attribute);
      if (value === undefined) return undefined;
      return {
        kind: 'contains',
        alias: a.alias,
        attribute: attribute.name,
        value,
        ...(r.chance(0.3) ? { negated: true } : {}),
      };
    }
    if (roll < 0.26) {
      const subs = this.index.subtree(a.entity).slice(1);
      if (subs.length > 0)
        return { kind: 'isA', alias: a.alias, entity: r.pick(subs).name, ...(r.chance(0.3) ? { negated: true } : {}) };
    }
    const attributes = this.singleAttributes(a.entity);
    if (attributes.length === 0) return undefined;
    const attribute = r.pick(attributes);
    const expr: Expr = { kind: 'attribute', alias: a.alias, attribute: attribute.name };
    if (attribute.optional && r.chance(0.25))
      return { kind: 'isNull', expr, ...(r.chance(0.5) ? { negated: true } : {}) };
    const value = this.sampleValue(a.entity, attribute);
    if (value === undefined) return { kind: 'isNull', expr };
    return this.valuePredicate(expr, attribute.type, value, () => this.sampleValue(a.entity, attribute));
  }

  private valuePredicate(
    expr: Expr,
    type: AttributeType,
    value: ScalarLiteral,
    another: () => ScalarLiteral | undefined,
  ): Predicate {
    const r = this.rng;
    const ordered = type.kind !== 'boolean';
    const roll = r.next();
    if (type.kind === 'text' && typeof value === 'string' && roll < 0.25) {
      const cut = value.slice(0, Math.max(1, Math.floor(value.length / 2)));
      const pattern = r.chance(0.5) ? `${cut}%` : `%${cut.slice(-2)}%`;
      return {
        kind: 'like',
        expr,
        pattern,
        ...(r.chance(0.5) ? { caseInsensitive: true } : {}),
        ...(r.chance(0.2) ? { negated: true } : {}),
      };
    }
    if (roll < 0.45) {
      const values = [value, another(), another()].filter((v): v is ScalarLiteral => v !== undefined);
      return { kind: 'in', expr, values: [...new Set(values)], ...(r.chance(0.2) ? { negated: true } : {}) };
    }
    if (ordered && roll < 0.6) {
      const other = another() ?? value;
      const [low, high] = compare(value, other) <= 0 ? [value, other] : [other, value];
      return { kind: 'between', expr, low: { kind: 'literal', value: low }, high: { kind: 'literal', value: high } };
    }
    const op = ordered ? r.pick(['=', '<>', '<', '<=', '>', '>='] as const) : r.pick(['=', '<>'] as const);
    return { kind: 'compare', op, left: expr, right: { kind: 'literal', value } };
  }

  /** A correlated subquery predicate: some partner through a relationship (not) satisfying a condition. */
  private subqueryPredicate(a: EntityAlias, depth: number): Predicate | undefined {
    const r = this.rng;
    const inner = { alias: this.alias('s'), entity: '' };
    const rels = this.index.domain.relationships.filter(
      (x) => this.index.isAncestorOrSelf(x.from, a.entity) || this.index.isAncestorOrSelf(x.to, a.entity),
    );
    if (rels.length === 0) return undefined;
    const rel = r.pick(rels);
    const forward = this.index.isAncestorOrSelf(rel.from, a.entity);
    // The subquery ranges over the partners and joins back to a copy of the outer alias.
    const partner = forward ? rel.to : rel.from;
    const back = this.alias('b');
    const partnerAlias = { alias: inner.alias, entity: partner };
    const link: Join = {
      kind: 'relationship',
      type: 'inner',
      relationship: rel.name,
      from: inner.alias,
      direction: forward ? 'reverse' : 'forward',
      alias: back,
      entity: forward ? rel.from : rel.to,
    };
    const correlate: Predicate = {
      kind: 'compare',
      op: '=',
      left: { kind: 'attribute', alias: back, attribute: 'id' },
      right: { kind: 'attribute', alias: a.alias, attribute: 'id' },
    };
    const condition = depth < 1 && r.chance(0.6) ? this.simplePredicate(partnerAlias) : undefined;
    const where: Predicate = condition ? { kind: 'and', args: [correlate, condition] } : correlate;
    const roll = r.next();
    if (roll < 0.45) {
      return {
        kind: 'exists',
        query: {
          kind: 'select',
          from: partnerAlias,
          joins: [link],
          where,
          select: [{ name: 'one', expr: { kind: 'literal', value: 1 } }],
        },
        ...(r.chance(0.4) ? { negated: true } : {}),
      };
    }
    if (roll < 0.7) {
      // The outer id among the ids linked to partners meeting the condition.
      const q: SelectQuery = {
        kind: 'select',
        from: partnerAlias,
        joins: [link],
        ...(condition ? { where: condition } : {}),
        select: [{ name: 'linked_id', expr: { kind: 'attribute', alias: back, attribute: 'id' } }],
      };
      return {
        kind: 'inQuery',
        expr: { kind: 'attribute', alias: a.alias, attribute: 'id' },
        query: q,
        ...(r.chance(0.3) ? { negated: true } : {}),
      };
    }
    const counted: SelectQuery = {
      kind: 'select',
      from: partnerAlias,
      joins: [link],
      where,
      select: [{ name: 'n', expr: { kind: 'aggregate', fn: 'count' } }],
    };
    return {
      kind: 'compare',
      op: r.pick(['>', '>=', '=', '<'] as const),
      left: { kind: 'scalarSubquery', query: counted },
      right: { kind: 'literal', value: r.int(0, 3) },
    };
  }

  selectQuery(depth: number): SelectQuery {
    const r = this.rng;
    const base: EntityAlias = { alias: this.alias('t'), entity: r.pick(this.entities()) };
    const entityAliases: EntityAlias[] = [base];
    const elementAliases: ElementAlias[] = [];
    const joins: Join[] = [];
    const joinCount = r.weighted([3, 4, 3, 1]);
    let lastRelationship: string | undefined;
    for (let i = 0; i < joinCount; i++) {
      const from = r.pick(entityAliases);
      if (r.chance(0.15)) {
        const multi = this.multiAttributes(from.entity);
        if (multi.length > 0) {
          const attribute = r.pick(multi);
          const alias = this.alias('e');
          const owner = this.index.allAttributes(from.entity).find((x) => x.attribute.name === attribute.name)?.owner
            .name as string;
          joins.push({
            kind: 'elements',
            type: r.chance(0.5) ? 'left' : 'inner',
            of: from.alias,
            attribute: attribute.name,
            alias,
          });
          elementAliases.push({ alias, owner, attribute });
          continue;
        }
      }
      // Now and then the same relationship again from the base: a relationship joined twice.
      const again = lastRelationship && r.chance(0.2) ? lastRelationship : undefined;
      const drawn = this.relationshipJoin(again ? base : from, r.chance(0.5) ? 'left' : 'inner', again);
      if (!drawn) continue;
      joins.push(drawn.join);
      entityAliases.push(drawn.alias);
      lastRelationship = drawn.join.kind === 'relationship' ? drawn.join.relationship : undefined;
    }

    const conjuncts: Predicate[] = [];
    const predicateCount = r.weighted([3, 4, 2, 1]);
    for (let i = 0; i < predicateCount; i++) {
      const a = r.pick(entityAliases);
      const roll = r.next();
      let p: Predicate | undefined;
      if (roll < 0.2 && depth < 1) p = this.subqueryPredicate(a, depth);
      else if (roll < 0.28 && elementAliases.length > 0) {
        const e = r.pick(elementAliases);
        const value = this.sampleValue(e.owner, e.attribute);
        if (value !== undefined)
          p = this.valuePredicate({ kind: 'element', alias: e.alias }, e.attribute.type, value, () =>
            this.sampleValue(e.owner, e.attribute),
          );
      } else if (roll < 0.36) {
        const x = this.simplePredicate(a);
        const y = this.simplePredicate(r.pick(entityAliases));
        if (x && y) p = r.chance(0.5) ? { kind: 'or', args: [x, y] } : { kind: 'not', arg: x };
      } else p = this.simplePredicate(a);
      if (p) conjuncts.push(p);
    }
    const where: Predicate | undefined =
      conjuncts.length === 0 ? undefined : conjuncts.length === 1 ? conjuncts[0] : { kind: 'and', args: conjuncts };

    const grouped = r.chance(0.45);
    const query = grouped
      ? this.aggregated(entityAliases, elementAliases, depth)
      : this.projected(entityAliases, elementAliases);
    // Top-N per group now and then: the rows ranked within a partition, the first few kept.
    const qualify =
      !grouped && depth === 0 && r.chance(0.12)
        ? { qualify: randomQualify(this.windowContext(entityAliases, elementAliases)) }
        : {};
    const drawn: SelectQuery = {
      ...query,
      from: base,
      ...(joins.length > 0 ? { joins } : {}),
      ...(where ? { where } : {}),
      ...qualify,
    };
    return !grouped && depth === 0 && !drawn.qualify && r.chance(0.1) ? this.againstShared(drawn, base) : drawn;
  }

  /**
   * A value of all the base entity's objects (an average, a minimum) that the query filters
   * on and shows the difference from: the same standalone subquery read twice.
   */
  private againstShared(q: SelectQuery, base: EntityAlias): SelectQuery {
    const r = this.rng;
    const numeric = this.singleAttributes(base.entity).filter((x) =>
      ['integer', 'bigint', 'numeric'].includes(x.type.kind),
    );
    if (numeric.length === 0) return q;
    const attribute = r.pick(numeric).name;
    const fn = r.pick(['avg', 'min', 'max'] as const);
    const value = (): Expr => {
      const alias = this.alias('v');
      const agg: Expr = { kind: 'aggregate', fn, arg: { kind: 'attribute', alias, attribute } };
      return {
        kind: 'scalarSubquery',
        query: {
          kind: 'select',
          from: { entity: base.entity, alias },
          select: [{ name: `${fn}_${attribute}`, expr: fn === 'avg' ? { kind: 'round', arg: agg, digits: 2 } : agg }],
        },
      };
    };
    const own: Expr = { kind: 'attribute', alias: base.alias, attribute };
    const condition: Predicate = {
      kind: 'compare',
      op: r.pick(['>', '>=', '<', '<='] as const),
      left: own,
      right: value(),
    };
    const name = q.select.some((c) => c.name === 'difference') ? 'difference_2' : 'difference';
    const where: Predicate = q.where
      ? { kind: 'and', args: [...(q.where.kind === 'and' ? q.where.args : [q.where]), condition] }
      : condition;
    // The new output joins the ORDER BY, which stays total over the outputs.
    const orderBy: OrderItem[] | undefined = q.orderBy
      ? [...q.orderBy, { expr: { kind: 'output', name }, direction: 'asc' }]
      : undefined;
    return {
      ...q,
      select: [...q.select, { name, expr: { kind: 'arithmetic', op: '-', left: own, right: value() } }],
      where,
      ...(orderBy ? { orderBy } : {}),
    };
  }

  private windowContext(entityAliases: EntityAlias[], elementAliases: ElementAlias[]): WindowContext {
    const kinds = entityAliases.flatMap((a): Expr[] => {
      const subs = this.index.subtree(a.entity).map((e) => e.name);
      return subs.length > 1 ? [{ kind: 'classOf', alias: a.alias, among: subs.slice(1) }] : [];
    });
    return {
      rng: this.rng,
      entities: entityAliases.map((a) => ({ alias: a.alias, attributes: this.singleAttributes(a.entity) })),
      elements: elementAliases.map((e) => e.alias),
      kinds,
    };
  }

  /** Outputs of a plain query: attributes, ids, set sizes and arrays, class names, elements. */
  private projected(entityAliases: EntityAlias[], elementAliases: ElementAlias[]): SelectQuery {
    const r = this.rng;
    const outputs: { name: string; expr: Expr }[] = [];
    const used = new Set<string>();
    const count = r.int(1, 4);
    for (let i = 0; i < count; i++)
      outputs.push({
        name: this.outputName(`c${i + 1}`, used),
        expr: this.outputExpr(r.pick(entityAliases), elementAliases),
      });
    if (r.chance(0.15))
      outputs.push({
        name: this.outputName('w1', used),
        expr: randomRowWindow(this.windowContext(entityAliases, elementAliases)),
      });
    const distinct = r.chance(0.3);
    return this.finish(
      { kind: 'select', select: outputs, from: { entity: '', alias: '' }, ...(distinct ? { distinct } : {}) },
      outputs,
    );
  }

  private outputExpr(a: EntityAlias, elementAliases: ElementAlias[]): Expr {
    const r = this.rng;
    if (r.chance(0.2)) {
      const e = drawAnalyticValue(this.analytic, a);
      if (e) return e;
    }
    const roll = r.next();
    if (roll < 0.1 && elementAliases.length > 0) return { kind: 'element', alias: r.pick(elementAliases).alias };
    const multi = this.multiAttributes(a.entity);
    if (roll < 0.2 && multi.length > 0)
      return { kind: r.chance(0.5) ? 'setSize' : 'setArray', alias: a.alias, attribute: r.pick(multi).name };
    const subs = this.index.subtree(a.entity).map((e) => e.name);
    if (roll < 0.3 && subs.length > 1)
      return { kind: 'classOf', alias: a.alias, among: r.sample(subs, r.int(1, subs.length)) };
    if (roll < 0.35) {
      const numeric = this.singleAttributes(a.entity).filter((x) =>
        ['integer', 'bigint', 'numeric'].includes(x.type.kind),
      );
      const texts = this.singleAttributes(a.entity).filter((x) => x.type.kind === 'text');
      if (numeric.length > 0 && r.chance(0.6))
        return {
          kind: 'arithmetic',
          op: r.pick(['+', '-', '*'] as const),
          left: { kind: 'attribute', alias: a.alias, attribute: r.pick(numeric).name },
          right: { kind: 'literal', value: r.int(1, 5) },
        };
      if (texts.length > 0)
        return {
          kind: 'arithmetic',
          op: '||',
          left: { kind: 'attribute', alias: a.alias, attribute: r.pick(texts).name },
          right: { kind: 'literal', value: ' /' },
        };
    }
    if (roll < 0.45) return { kind: 'attribute', alias: a.alias, attribute: 'id' };
    const link = this.links.get(a.alias);
    if (link && roll < 0.6) return { kind: 'linkAttribute', alias: a.alias, attribute: r.pick(link).name };
    const attributes = this.singleAttributes(a.entity);
    if (attributes.length === 0) return { kind: 'attribute', alias: a.alias, attribute: 'id' };
    return { kind: 'attribute', alias: a.alias, attribute: r.pick(attributes).name };
  }

  /** A grouped query: group keys, aggregates, maybe HAVING. */
  private aggregated(entityAliases: EntityAlias[], elementAliases: ElementAlias[]): SelectQuery;
  private aggregated(entityAliases: EntityAlias[], elementAliases: ElementAlias[], depth: number): SelectQuery;
  private aggregated(entityAliases: EntityAlias[], elementAliases: ElementAlias[]): SelectQuery {
    const r = this.rng;
    const keys: Expr[] = [];
    const outputs: { name: string; expr: Expr }[] = [];
    const used = new Set<string>();
    const keyCount = r.weighted([1, 4, 2]);
    for (let i = 0; i < keyCount; i++) {
      const a = r.pick(entityAliases);
      const key = this.outputExpr(a, elementAliases);
      // A set, or a plain attribute now and then, is grouped through its alias's id.
      const throughId =
        key.kind === 'setSize' ||
        key.kind === 'setArray' ||
        (key.kind === 'attribute' && key.attribute !== 'id' && r.chance(0.3));
      if (throughId) {
        const idKey: Expr = { kind: 'attribute', alias: (key as { alias: string }).alias, attribute: 'id' };
        if (!keys.some((k) => sameNode(k, idKey))) keys.push(idKey);
        outputs.push({ name: this.outputName(`k${outputs.length + 1}`, used), expr: key });
        continue;
      }
      if (keys.some((k) => sameNode(k, key))) continue;
      keys.push(key);
      outputs.push({ name: this.outputName(`k${outputs.length + 1}`, used), expr: key });
    }
    const aggregates = r.int(1, 3);
    for (let i = 0; i < aggregates; i++)
      outputs.push({
        name: this.outputName(`a${i + 1}`, used),
        expr: this.aggregateExpr(entityAliases, elementAliases),
      });
    if (r.chance(0.15))
      outputs.push({
        name: this.outputName('w1', used),
        expr: randomGroupWindow(r, keys, (outputs[outputs.length - 1] as { expr: Expr }).expr),
      });
    let having: Predicate | undefined;
    if (r.chance(0.3))
      having = {
        kind: 'compare',
        op: r.pick(['>', '>=', '<'] as const),
        left: this.aggregateExpr(entityAliases, elementAliases, true),
        right: { kind: 'literal', value: r.int(0, 3) },
      };
    return this.finish(
      {
        kind: 'select',
        select: outputs,
        from: { entity: '', alias: '' },
        groupBy: keys,
        ...(having ? { having } : {}),
      },
      outputs,
    );
  }

  private aggregateExpr(entityAliases: EntityAlias[], elementAliases: ElementAlias[], countOnly = false): Expr {
    const r = this.rng;
    const a = r.pick(entityAliases);
    if (r.chance(countOnly ? 0.1 : 0.3)) {
      const e = drawAnalyticAggregate(this.analytic, a);
      if (e) return e;
    }
    if (countOnly || r.chance(0.45)) {
      const roll = r.next();
      if (roll < 0.3) return { kind: 'aggregate', fn: 'count' };
      if (roll < 0.65)
        return { kind: 'aggregate', fn: 'count', arg: { kind: 'attribute', alias: a.alias, attribute: 'id' } };
      return {
        kind: 'aggregate',
        fn: 'count',
        arg: { kind: 'attribute', alias: a.alias, attribute: 'id' },
        distinct: true,
      };
    }
    if (elementAliases.length > 0 && r.chance(0.15))
      return {
        kind: 'aggregate',
        fn: r.pick(['min', 'max', 'count'] as const),
        arg: { kind: 'element', alias: r.pick(elementAliases).alias },
      };
    const numeric = this.singleAttributes(a.entity).filter((x) =>
      ['integer', 'bigint', 'numeric'].includes(x.type.kind),
    );
    if (numeric.length > 0) {
      const fn = r.pick(['sum', 'avg', 'min', 'max'] as const);
      const arg: Expr = { kind: 'attribute', alias: a.alias, attribute: r.pick(numeric).name };
      const agg: Expr = { kind: 'aggregate', fn, arg };
      return fn === 'avg' && r.chance(0.6) ? { kind: 'round', arg: agg, digits: r.int(0, 3) } : agg;
    }
    const any = this.singleAttributes(a.entity).filter((x) => x.type.kind !== 'boolean');
    if (any.length > 0)
      return {
        kind: 'aggregate',
        fn: r.pick(['min', 'max'] as const),
        arg: { kind: 'attribute', alias: a.alias, attribute: r.pick(any).name },
      };
    return { kind: 'aggregate', fn: 'count' };
  }

  /** ORDER BY every output (a total order of the rows) and maybe LIMIT; or neither. */
  private finish(q: SelectQuery, outputs: readonly { name: string; expr: Expr }[]): SelectQuery {
    const r = this.rng;
    if (!r.chance(0.4)) return q;
    // By output name, or by the output's expression (the same order either way).
    const orderBy: OrderItem[] = r.shuffle(outputs).map((o) => ({
      expr: r.chance(0.3) ? o.expr : { kind: 'output', name: o.name },
      direction: r.chance(0.5) ? 'asc' : 'desc',
      ...(r.chance(0.15) ? { nulls: r.chance(0.5) ? 'first' : 'last' } : {}),
    }));
    return { ...q, orderBy, ...(r.chance(0.7) ? { limit: r.int(1, 20) } : {}) };
  }

  /** Two queries over ids of one hierarchy, combined by a set operator. */
  setQuery(): Query {
    const r = this.rng;
    const root = r.pick(this.index.roots).name;
    const side = (): SelectQuery => {
      const entity = r.pick(this.index.subtree(root)).name;
      const a = { alias: this.alias('u'), entity };
      const where = this.simplePredicate(a);
      const own = r.chance(0.25)
        ? { orderBy: [{ expr: { kind: 'output', name: 'id' }, direction: 'desc' }] as OrderItem[], limit: r.int(1, 10) }
        : {};
      return {
        kind: 'select',
        from: a,
        ...(where ? { where } : {}),
        select: [{ name: 'id', expr: { kind: 'attribute', alias: a.alias, attribute: 'id' } }],
        ...own,
      };
    };
    const op = r.pick(['union', 'union all', 'intersect', 'except'] as const);
    const ordered = r.chance(0.4);
    return {
      kind: 'set',
      op,
      left: side(),
      right: side(),
      ...(ordered ? { orderBy: [{ name: 'id', direction: r.chance(0.5) ? 'asc' : 'desc' }], limit: r.int(1, 20) } : {}),
    };
  }
}

function compare(a: ScalarLiteral, b: ScalarLiteral): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string' && /^-?\d+(\.\d+)?$/.test(a) && /^-?\d+(\.\d+)?$/.test(b))
    return Number(a) - Number(b);
  return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
}
