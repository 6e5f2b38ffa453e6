/**
 * Set operations: arms over one hierarchy projecting the same attributes of its root (so
 * they are type-compatible by construction), or arms that each give one aggregate, listed
 * as numbers with UNION ALL.
 */
import { snakeCase } from '../../er-model/er-index.ts';
import type { Expr, Query, SelectQuery, SetQuery } from '../../query/conceptual-query.ts';
import { reject } from '../../records/group-record.ts';
import type { AggregateSlot, QueryShape, SelectShape, SetShape } from '../skeleton-shape.ts';
import { everyAttribute, labelOf } from './column-slots.ts';
import { type EntityAlias, type Fill, newAlias } from './fill-context.ts';
import { FILL_RATES } from './fill-rates.ts';
import { having } from './having.ts';
import { drawJoins, pickEntity } from './join-paths.ts';
import { placeLimit } from './order-limit.ts';
import { condition } from './predicates.ts';
import { summable } from './rules/additive-sum.ts';
import { averageable } from './rules/aggregate-argument.ts';
import { groupsAggregate } from './rules/single-object-groups.ts';

/**
 * Both arms over one hierarchy, projecting the same attributes of the arms' common
 * ancestor (type-compatible by construction).
 */
export async function fillSetQuery(f: Fill, shape: SetShape): Promise<Query> {
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
  if (arms.every((a) => a.items.length === 1 && a.items[0]?.kind === 'aggregate' && a.groupBy.length === 0))
    return numbersList(f, arms, ops, shape);
  // Arms that each select * compare whole objects of one hierarchy: every attribute of its root.
  const stars = arms.every((a) => a.items.length === 1 && a.items[0]?.kind === 'star');
  for (const a of arms) {
    if (a.items.length !== width) reject('meaningless-skeleton', 'set operation arms of different widths');
    if (!stars && a.items.some((i) => i.kind === 'star'))
      reject('meaningless-skeleton', 'SELECT * beside other columns in a set operation');
    if (!stars && a.items.some((i) => i.kind !== 'column'))
      reject('meaningless-skeleton', 'a set operation over aggregates');
    if (a.groupBy.length > 0 && a.having === null) reject('unsupported-skeleton', 'a grouped arm without HAVING');
    if (a.orderBy.length > 0 || a.limit !== null)
      reject('unsupported-skeleton', 'an ordered arm inside a set operation');
    if (a.leftJoins.length > 0) reject('unsupported-skeleton', 'a LEFT JOIN inside a set operation');
  }
  const root = pickEntity(
    f,
    f.graph.index.roots
      .map((r) => r.name)
      .filter((n) => f.graph.index.subtree(n).length > 1 || f.rng.chance(FILL_RATES.plainRootForSet)),
  );
  const family = f.graph.index.subtree(root).map((e) => e.name);
  const firstBase = pickEntity(f, family);
  const attrs = (f.graph.entities.get(root)?.attributes ?? []).filter((x) => x.kind !== 'boolean');
  const chosen = [labelOf(f, { alias: '', entity: root }).label, ...f.rng.shuffle(attrs.map((x) => x.name))].filter(
    (v, i, all) => all.indexOf(v) === i && v !== `${snakeCase(root)}_id`,
  );
  const columns = stars ? everyAttribute(f, { alias: '', entity: root }).map((t) => t.label) : chosen.slice(0, width);
  if (columns.length < width) reject('no-fitting-slot', 'not enough shared attributes for the arms');
  const arm = async (a: SelectShape, entity: string): Promise<SelectQuery> => {
    const base: EntityAlias = { alias: newAlias(f, entity), entity };
    const { entities, elements, joins } = drawJoins(f, base, a.joins);
    const where = a.where ? await condition(f, a.where, entities, elements) : undefined;
    const select = columns.map((c) => ({
      name: c,
      expr: { kind: 'attribute', alias: base.alias, attribute: c } as Expr,
    }));
    if (a.groupBy.length > 0) {
      if (!groupsAggregate(f.graph.index, base.alias, base.alias, joins))
        reject('no-meaningful-slot:single-object-groups', `every group of ${entity} is one object`);
      const kept = await having(
        f,
        a.having ?? [],
        {
          kind: 'select',
          select,
          from: { entity, alias: base.alias },
          ...(joins.length > 0 ? { joins } : {}),
          ...(where ? { where } : {}),
          groupBy: [{ kind: 'attribute', alias: base.alias, attribute: 'id' }],
        },
        entities.slice(1).length > 0 ? entities.slice(1) : entities,
        elements,
      );
      return {
        kind: 'select',
        select,
        from: { entity, alias: base.alias },
        ...(joins.length > 0 ? { joins } : {}),
        ...(where ? { where } : {}),
        groupBy: [{ kind: 'attribute', alias: base.alias, attribute: 'id' }],
        having: kept,
      };
    }
    return {
      kind: 'select',
      ...(a.distinct ? { distinct: true } : {}),
      select,
      from: { entity, alias: base.alias },
      ...(joins.length > 0 ? { joins } : {}),
      ...(where ? { where } : {}),
    };
  };
  let q: Query = await arm(arms[0] as SelectShape, firstBase);
  for (let i = 1; i < arms.length; i++) {
    // UNION ALL is all but absent from Spider's grammar; a UNION sometimes keeps its
    // repeats (an object or value in both arms is listed twice), which a question can ask.
    const op =
      ops[i - 1] === 'union' && f.rng.chance(FILL_RATES.unionAll) ? 'union all' : (ops[i - 1] as SetShape['op']);
    q = { kind: 'set', op, left: q, right: await arm(arms[i] as SelectShape, pickEntity(f, family)) };
  }
  const set = q as SetQuery;
  if (shape.orderBy.length === 0) {
    if (shape.limit !== null) reject('meaningless-skeleton', 'LIMIT without ORDER BY');
    return set;
  }
  const orderBy = shape.orderBy
    .slice(0, columns.length)
    .map((o, i) => ({ name: columns[i] as string, direction: o.direction }));
  const first = f.graph.attribute(root, orderBy[0]?.name ?? '');
  if (shape.limit !== null && (first === undefined || first.kind === 'text'))
    reject('no-meaningful-slot:alphabetical-cut', 'a set operation ordered by text before a LIMIT');
  return placeLimit(f, { ...set, orderBy }, shape.limit);
}

/**
 * Arms that each give one aggregate, over one hierarchy: a list of those numbers, one row
 * an arm (`SELECT count(*) … WHERE a UNION ALL SELECT count(*) … WHERE b`). The operator is
 * UNION ALL whatever the skeleton said: a UNION would list two equal numbers once, which no
 * one asking for both means; and two numbers have no telling intersection or difference.
 */
async function numbersList(
  f: Fill,
  arms: readonly SelectShape[],
  ops: readonly SetShape['op'][],
  shape: SetShape,
): Promise<Query> {
  if (ops.some((op) => op !== 'union' && op !== 'union all'))
    reject('meaningless-skeleton', 'an intersection or difference of single aggregates');
  if (shape.orderBy.length > 0 || shape.limit !== null)
    reject('unsupported-skeleton', 'an ordered list of single aggregates');
  for (const a of arms) {
    if (a.orderBy.length > 0 || a.limit !== null || a.having !== null)
      reject('unsupported-skeleton', 'an ordered or filtered aggregate arm of a set operation');
    if (a.leftJoins.length > 0) reject('unsupported-skeleton', 'a LEFT JOIN inside a set operation');
  }
  const root = pickEntity(
    f,
    f.graph.index.roots.map((r) => r.name),
  );
  const family = f.graph.index.subtree(root).map((e) => e.name);
  // One aggregate for every arm, so the numbers are of one kind: a count, or one function of
  // one number every object of the hierarchy has.
  const numbers = (f.graph.entities.get(root)?.attributes ?? []).filter(
    (x) => x.kind === 'numeric' && averageable(x.role),
  );
  const slot = arms[0]?.items[0] as AggregateSlot;
  const counted = slot.mode !== 'free' || numbers.length === 0;
  const attribute = counted ? undefined : f.rng.pick(numbers).name;
  const picked = counted ? undefined : numbers.find((x) => x.name === attribute);
  const fn = counted
    ? 'count'
    : f.rng.pick(summable(picked?.role) ? (['sum', 'max', 'min'] as const) : (['max', 'min'] as const));
  const name = counted ? 'count' : `${fn === 'sum' ? 'total' : fn}_${attribute}`;
  const arm = async (a: SelectShape, entity: string): Promise<SelectQuery> => {
    const base: EntityAlias = { alias: newAlias(f, entity), entity };
    const { entities, elements, joins } = drawJoins(f, base, a.joins);
    const where = a.where ? await condition(f, a.where, entities, elements) : undefined;
    const expr: Expr = attribute
      ? { kind: 'aggregate', fn, arg: { kind: 'attribute', alias: base.alias, attribute } }
      : { kind: 'aggregate', fn: 'count' };
    return {
      kind: 'select',
      select: [{ name, expr }],
      from: { entity, alias: base.alias },
      ...(joins.length > 0 ? { joins } : {}),
      ...(where ? { where } : {}),
    };
  };
  let q: Query = await arm(arms[0] as SelectShape, pickEntity(f, family));
  for (let i = 1; i < arms.length; i++)
    q = { kind: 'set', op: 'union all', left: q, right: await arm(arms[i] as SelectShape, pickEntity(f, family)) };
  return q;
}
