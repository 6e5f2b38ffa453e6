/**
 * Predicates over subqueries: the objects that have (or lack) a partner meeting a condition
 * (`id IN (…)` or a correlated EXISTS), and an attribute against an aggregate of itself
 * (`price > (SELECT avg(price) …)`).
 */
import { snakeCase } from '../../er-model/er-index.ts';
import type { Expr, Join, Predicate, SelectQuery } from '../../query/conceptual-query.ts';
import { reject } from '../../records/group-record.ts';
import type { RelationshipEdge } from '../schema-graph.ts';
import { isAggregateItem, type ComparisonOp, type PredicateSlot } from '../skeleton-shape.ts';
import { candidates } from './column-slots.ts';
import { type ElementAlias, type EntityAlias, type Fill, newAlias, weight } from './fill-context.ts';
import { FILL_RATES } from './fill-rates.ts';
import { drawJoins } from './join-paths.ts';
import { CONDITION_DRAWS, condition } from './predicates.ts';
import { averageable } from './rules/aggregate-argument.ts';

/**
 * `A.id [NOT] IN (SELECT b.id FROM Partner s JOIN … b …)` or `[NOT] EXISTS (…)`: the outer
 * objects that have (or lack) a partner through a relationship meeting the subquery's
 * condition. A subquery whose item is an aggregate has no such reading and is rejected.
 */
export async function linkedSubquery(
  f: Fill,
  slot: Extract<PredicateSlot, { kind: 'inSubquery' | 'exists' }>,
  entities: EntityAlias[],
): Promise<Predicate> {
  const sub = slot.query;
  if (sub.leftJoins.length > 0) reject('unsupported-skeleton', 'a LEFT JOIN inside a subquery');
  if (slot.kind === 'inSubquery' && sub.items.some(isAggregateItem))
    reject('meaningless-skeleton', 'x IN (SELECT aggregate …)');
  if (slot.kind === 'inSubquery' && sub.items.some((i) => i.kind === 'star'))
    reject('meaningless-skeleton', 'x IN (SELECT * …) compares one value with whole rows');
  if (sub.items.length !== 1 && slot.kind === 'inSubquery')
    reject('meaningless-skeleton', 'IN over a subquery of several columns');
  if (sub.groupBy.length > 0 || sub.limit !== null)
    reject('unsupported-skeleton', 'grouped or limited IN/EXISTS subquery');
  const outer = f.rng.pick(entities);
  const walks = f.graph.walksFrom(outer.entity);
  if (walks.length === 0) reject('no-fitting-slot', `${outer.entity} has no relationship for a subquery`);
  const edge = walks[f.rng.weighted(walks.map((w) => weight(w.variation)))] as RelationshipEdge;
  const partner: EntityAlias = { alias: newAlias(f, edge.to), entity: edge.to };
  const back: EntityAlias = { alias: newAlias(f, outer.entity), entity: outer.entity };
  const backJoin: Join = {
    kind: 'relationship',
    type: 'inner',
    relationship: edge.relationship,
    from: partner.alias,
    direction: edge.direction === 'forward' ? 'reverse' : 'forward',
    alias: back.alias,
    entity: outer.entity,
  };
  const more = drawJoins(f, partner, sub.joins, [backJoin]);
  if (!sub.where) reject('meaningless-skeleton', 'an IN/EXISTS subquery without a condition is a plain join');
  // "apps with no review that has no review text" is a double negative a person turns around:
  // the condition is drawn again, and the slot turned down when it keeps coming.
  let where = await condition(f, sub.where, more.entities, more.elements);
  for (let draw = 1; slot.negated && negative(where); draw++) {
    if (draw === CONDITION_DRAWS) reject('no-fitting-slot', 'a NOT IN/NOT EXISTS whose condition is itself a negation');
    where = await condition(f, sub.where, more.entities, more.elements);
  }
  const joins = [backJoin, ...more.joins];
  // `id IN (…)` and a correlated EXISTS say the same; both forms are worth teaching.
  if (slot.kind === 'inSubquery' && !f.rng.chance(FILL_RATES.existsForm)) {
    const q: SelectQuery = {
      kind: 'select',
      from: { entity: partner.entity, alias: partner.alias },
      joins,
      where,
      select: [
        { name: `${snakeCase(outer.entity)}_id`, expr: { kind: 'attribute', alias: back.alias, attribute: 'id' } },
      ],
    };
    return {
      kind: 'inQuery',
      expr: { kind: 'attribute', alias: outer.alias, attribute: 'id' },
      query: q,
      ...(slot.negated ? { negated: true } : {}),
    };
  }
  const correlate: Predicate = {
    kind: 'compare',
    op: '=',
    left: { kind: 'attribute', alias: back.alias, attribute: 'id' },
    right: { kind: 'attribute', alias: outer.alias, attribute: 'id' },
  };
  const q: SelectQuery = {
    kind: 'select',
    from: { entity: partner.entity, alias: partner.alias },
    joins,
    where: { kind: 'and', args: [correlate, where] },
    select: [{ name: 'one', expr: { kind: 'literal', value: 1 } }],
  };
  return { kind: 'exists', query: q, ...(slot.negated ? { negated: true } : {}) };
}

/** Whether a condition excludes: a missing value, "other than", NOT IN, NOT LIKE, NOT. */
function negative(p: Predicate): boolean {
  switch (p.kind) {
    case 'isNull':
      return p.negated !== true;
    case 'compare':
      return p.op === '<>';
    case 'in':
    case 'like':
    case 'between':
    case 'contains':
    case 'isA':
    case 'exists':
    case 'inQuery':
      return p.negated === true;
    case 'not':
      return true;
    case 'and':
    case 'or':
      return p.args.some(negative);
    default:
      return false;
  }
}

/** `A.x op (SELECT agg(y.x) FROM E y [WHERE …])`: the same attribute against its aggregate. */
export async function scalarComparison(
  f: Fill,
  slot: Extract<PredicateSlot, { kind: 'compareSubquery' }>,
  entities: EntityAlias[],
  _elements: ElementAlias[],
): Promise<Predicate> {
  const sub = slot.query;
  const item = sub.items[0];
  if (sub.items.length !== 1 || item?.kind !== 'aggregate')
    reject('meaningless-skeleton', 'a scalar subquery without an aggregate may return many rows');
  if (sub.groupBy.length > 0) reject('meaningless-skeleton', 'a grouped scalar subquery may return many rows');
  if (sub.leftJoins.length > 0) reject('unsupported-skeleton', 'a LEFT JOIN inside a subquery');
  // An attribute against its own average or extreme: a quantity (aggregate-argument).
  const options = candidates(f, entities, [], 'numeric').filter(
    (c) => c.expr.kind === 'attribute' && averageable(c.slot?.role),
  );
  if (options.length === 0) reject('no-fitting-slot', 'no numeric attribute for a scalar subquery');
  const t = f.rng.pick(options);
  const outer = entities.find((a) => a.alias === (t.expr as { alias: string }).alias) as EntityAlias;
  const slotOwner = f.graph.attribute(outer.entity, t.label)?.owner ?? outer.entity;
  const inner: EntityAlias = { alias: newAlias(f, slotOwner), entity: slotOwner };
  const more = drawJoins(f, inner, sub.joins);
  const where = sub.where ? await condition(f, sub.where, more.entities, more.elements) : undefined;
  const fn = item.mode === 'free' ? f.rng.pick(['avg', 'max', 'min'] as const) : 'avg';
  const agg: Expr = { kind: 'aggregate', fn, arg: { kind: 'attribute', alias: inner.alias, attribute: t.label } };
  const q: SelectQuery = {
    kind: 'select',
    from: { entity: inner.entity, alias: inner.alias },
    ...(more.joins.length > 0 ? { joins: more.joins } : {}),
    ...(where ? { where } : {}),
    select: [{ name: `${fn}_${t.label}`, expr: agg }],
  };
  const op: ComparisonOp =
    fn === 'max'
      ? slot.op.startsWith('>')
        ? '>='
        : slot.op === '='
          ? '='
          : '<'
      : fn === 'min'
        ? slot.op.startsWith('<')
          ? '<='
          : slot.op === '='
            ? '='
            : '>'
        : slot.op === '=' || slot.op === '<>'
          ? '>'
          : slot.op;
  return { kind: 'compare', op, left: t.expr, right: { kind: 'scalarSubquery', query: q } };
}
