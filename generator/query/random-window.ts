import type { Attribute } from '../er-model/er-model.ts';
import type { Rng } from '../common/rng.ts';
import type { Expr, Qualify, WindowExpr, WindowFunction, WindowOrderItem } from './conceptual-query.ts';
import { ORDER_SENSITIVE, RANKING, WINDOW_FUNCTIONS } from './window-scope.ts';
import { sameNode } from './walk.ts';

/**
 * Seeded random window functions for the property tests (random-query.ts draws the rest of
 * the query): over the rows of a plain query, or over the groups of a grouped one. Whenever
 * the function's value depends on the order among ties (row_number, lag, lead), the window
 * orders by every row key too (the ids and elements of the query's aliases, or its grouping
 * keys), so every variant numbers the rows alike.
 */

/** What the drawer may read: the query's aliases and their attributes. */
export interface WindowContext {
  readonly rng: Rng;
  /** Entity aliases with their single-valued attributes. */
  readonly entities: readonly { readonly alias: string; readonly attributes: readonly Attribute[] }[];
  /** Element aliases of the query. */
  readonly elements: readonly string[];
  /** Subtype names of entity aliases that have subclasses (a partition by kind). */
  readonly kinds: readonly Expr[];
}

const NUMERIC = ['integer', 'bigint', 'numeric'];

/** The keys that single out a row of a plain query: every alias's id or element. */
function rowKeys(ctx: WindowContext): Expr[] {
  return [
    ...ctx.entities.map((e): Expr => ({ kind: 'attribute', alias: e.alias, attribute: 'id' })),
    ...ctx.elements.map((alias): Expr => ({ kind: 'element', alias })),
  ];
}

/** Some value of a row: an attribute (numeric when asked and there is one) or an id. */
function rowValue(ctx: WindowContext, numeric = false): Expr | undefined {
  const r = ctx.rng;
  const e = r.pick(ctx.entities);
  const pool = e.attributes.filter((a) => (numeric ? NUMERIC.includes(a.type.kind) : a.type.kind !== 'boolean'));
  if (pool.length === 0) return numeric ? undefined : { kind: 'attribute', alias: e.alias, attribute: 'id' };
  return { kind: 'attribute', alias: e.alias, attribute: r.pick(pool).name };
}

const same = (a: Expr, b: Expr): boolean => sameNode(a, b);

/** Order items: the value keys, then (when the function needs it) every tie-break key not yet a key. */
function withTieBreak(
  fn: WindowFunction,
  values: WindowOrderItem[],
  partition: readonly Expr[],
  ties: readonly Expr[],
): WindowOrderItem[] {
  if (!ORDER_SENSITIVE.has(fn)) return values;
  const keys = [...partition, ...values.map((o) => o.expr)];
  return [
    ...values,
    ...ties.filter((t) => !keys.some((k) => same(k, t))).map((expr): WindowOrderItem => ({ expr, direction: 'asc' })),
  ];
}

/** A window function over the rows of a plain query. */
export function randomRowWindow(ctx: WindowContext, fns: readonly WindowFunction[] = WINDOW_FUNCTIONS): WindowExpr {
  const r = ctx.rng;
  const fn = r.pick(fns);
  const partition: Expr[] = [];
  if (r.chance(0.6)) {
    const roll = r.next();
    const key =
      roll < 0.2 && ctx.kinds.length > 0
        ? r.pick(ctx.kinds)
        : roll < 0.5
          ? ({ kind: 'attribute', alias: r.pick(ctx.entities).alias, attribute: 'id' } as Expr)
          : rowValue(ctx);
    if (key) partition.push(key);
  }
  const ordered = RANKING.has(fn) || fn === 'lag' || fn === 'lead' || r.chance(0.5);
  const values: WindowOrderItem[] = [];
  if (ordered) {
    const value = rowValue(ctx, r.chance(0.6)) ?? rowValue(ctx);
    if (value && !partition.some((p) => same(p, value)))
      values.push({ expr: value, direction: r.chance(0.5) ? 'desc' : 'asc' });
    if (values.length === 0)
      values.push({
        expr: { kind: 'attribute', alias: r.pick(ctx.entities).alias, attribute: 'id' },
        direction: 'asc',
      });
  }
  const orderBy = ordered ? withTieBreak(fn, values, partition, rowKeys(ctx)) : [];
  let arg: Expr | undefined;
  if (fn === 'lag' || fn === 'lead') arg = rowValue(ctx);
  else if (fn === 'sum' || fn === 'avg') arg = rowValue(ctx, true) ?? undefined;
  else if (fn === 'count' && r.chance(0.6))
    arg = { kind: 'attribute', alias: r.pick(ctx.entities).alias, attribute: 'id' };
  // sum/avg over an entity without numbers: count instead.
  const fnUsed: WindowFunction = (fn === 'sum' || fn === 'avg') && arg === undefined ? 'count' : fn;
  return {
    kind: 'window',
    fn: fnUsed,
    ...(arg ? { arg } : {}),
    ...((fnUsed === 'lag' || fnUsed === 'lead') && r.chance(0.3) ? { offset: r.int(2, 3) } : {}),
    ...(partition.length > 0 ? { partitionBy: partition } : {}),
    ...(orderBy.length > 0 ? { orderBy } : {}),
  };
}

/**
 * A window function over the groups of a grouped query: ranked or running over an aggregate,
 * partitioned by a grouping key now and then. `keys` are the query's grouping keys; a window
 * reads only those of them that are plain values (attributes, elements), so order-sensitive
 * functions are drawn only when every key is one.
 */
export function randomGroupWindow(rng: Rng, keys: readonly Expr[], aggregate: Expr): WindowExpr {
  const plain = keys.filter((k) => k.kind === 'attribute' || k.kind === 'element' || k.kind === 'linkAttribute');
  const allPlain = plain.length === keys.length;
  const fns = WINDOW_FUNCTIONS.filter((f) => allPlain || !ORDER_SENSITIVE.has(f));
  const fn = rng.pick(fns);
  const partition = plain.length >= 2 && rng.chance(0.5) ? [rng.pick(plain)] : [];
  const ordered = RANKING.has(fn) || fn === 'lag' || fn === 'lead' || rng.chance(0.5);
  const values: WindowOrderItem[] = ordered ? [{ expr: aggregate, direction: rng.chance(0.6) ? 'desc' : 'asc' }] : [];
  const orderBy = ordered ? withTieBreak(fn, values, partition, keys) : [];
  // sum and avg need numbers: a count of the group's rows (the aggregate may be a max of text).
  const counted: Expr = { kind: 'aggregate', fn: 'count' };
  const arg =
    fn === 'lag' || fn === 'lead'
      ? aggregate
      : fn === 'sum' || fn === 'avg'
        ? counted
        : fn === 'count' && rng.chance(0.3)
          ? aggregate
          : undefined;
  return {
    kind: 'window',
    fn,
    ...(arg ? { arg } : {}),
    ...(partition.length > 0 ? { partitionBy: partition } : {}),
    ...(orderBy.length > 0 ? { orderBy } : {}),
  };
}

/** Top-N per group: a ranking window over the rows kept when it is at most N. */
export function randomQualify(ctx: WindowContext): Qualify {
  const window = randomRowWindow(ctx, ['row_number', 'rank', 'dense_rank']);
  return { window, op: ctx.rng.chance(0.8) ? '<=' : '=', value: ctx.rng.int(1, 3) };
}
