import type { Rng } from '../../common/rng.ts';
import type { ErIndex } from '../../er-model/er-index.ts';
import type {
  Expr,
  Predicate,
  Qualify,
  SelectQuery,
  WindowExpr,
  WindowFunction,
  WindowOrderItem,
} from '../../query/conceptual-query.ts';
import { ORDER_SENSITIVE } from '../../query/window-scope.ts';
import { hasAggregate } from '../../query/query-scope.ts';
import { FILL_RATES } from './fill-rates.ts';
import { roleOf } from '../../er-model/attribute-roles.ts';
import { summable } from './rules/additive-sum.ts';
import { averageable } from './rules/aggregate-argument.ts';
import { groupable } from './rules/group-key.ts';
import { rangeable } from './rules/range-on-quantity.ts';
import { sameNode } from '../../query/walk.ts';

/**
 * Windows for the content filler: a filled plain query becomes "the N first rows of each
 * group by some value" (the three dearest products of each kind, each customer's latest two
 * orders), or gains a window output over such a frame (the previous order's time, a running
 * total). The group is a partner reached by a join, the base object's kind in a hierarchy,
 * or a value of few distinct values; the order is a number or a date of the base object.
 * `rank` and `dense_rank` keep ties; `row_number`, `lag` and `lead` break them by every
 * alias's id, which the question then states.
 */

/** The share of plain filled queries that become top-N per group. */
export const TOP_PER_GROUP_SHARE = FILL_RATES.topPerGroup;

const ORDERED = ['integer', 'bigint', 'numeric', 'date', 'timestamptz', 'timestamp'];

/**
 * The query with a `qualify` keeping the first N rows of each group, or undefined when the
 * query does not lend itself: grouped, DISTINCT, with a LIMIT (chosen for the rows before the
 * cut), a set element among its rows, or no ordered attribute on its base entity.
 *
 * @example
 * topPerGroup(index, rng, { kind: 'select', from: { entity: 'Product', alias: 'p' }, select: [...] })
 * // { …, qualify: { window: { kind: 'window', fn: 'rank', partitionBy: [classOf p], orderBy: [{ p.price desc }] }, op: '<=', value: 2 } }
 */
export function topPerGroup(index: ErIndex, rng: Rng, q: SelectQuery): SelectQuery | undefined {
  // Rows narrowed to one value of something (an email, an age) leave groups of a row or two:
  // "the three latest of each" would keep them all.
  if (q.limit !== undefined || fixesAValue(q.where)) return undefined;
  const frame = windowFrame(index, rng, q, ['rank', 'rank', 'dense_rank', 'row_number']);
  if (!frame) return undefined;
  const qualify: Qualify = { window: frame.window, op: '<=', value: rng.int(1, 3) };
  return { ...q, qualify };
}

/** The share of plain filled queries that get a window output (a previous value, a running total, a position). */
export const WINDOW_OUTPUT_SHARE = FILL_RATES.windowOutput;

const OUTPUT_NAME: Record<WindowFunction, string> = {
  row_number: 'position',
  rank: 'rank_in_group',
  dense_rank: 'dense_rank_in_group',
  lag: 'previous_value',
  lead: 'next_value',
  sum: 'running_total',
  avg: 'running_average',
  count: 'running_count',
};

/**
 * The query with one more output: a window over the same groups and order as topPerGroup
 * draws (lag, lead, a running total, or a position), or undefined when the
 * query does not lend itself (as for topPerGroup; a LIMIT above 1 is fine, the ORDER BY gains the
 * new column so it stays as total as it was).
 */
export function windowOutput(index: ErIndex, rng: Rng, q: SelectQuery): SelectQuery | undefined {
  // One row's place in a group it is shown without: "the description and price rank of one
  // app", or of the rows one email or one age picks ("the sign-up time rank within each
  // account type of accounts with the email address …").
  if ((q.limit !== undefined && q.limit <= 1) || fixesAValue(q.where)) return undefined;
  const frame = windowFrame(index, rng, q, ['lag', 'lead', 'sum', 'row_number', 'dense_rank']);
  if (!frame) return undefined;
  let name = OUTPUT_NAME[frame.window.fn];
  for (let i = 2; q.select.some((c) => c.name === name); i++) name = `${OUTPUT_NAME[frame.window.fn]}_${i}`;
  const orderBy = q.orderBy
    ? [...q.orderBy, { expr: { kind: 'output' as const, name }, direction: 'asc' as const }]
    : undefined;
  return { ...q, select: [...q.select, { name, expr: frame.window }], ...(orderBy ? { orderBy } : {}) };
}

/**
 * A window over the rows of a plain query: partitioned by a group (a partner joined without
 * LEFT that several rows share, the base object's kind, or a few-valued attribute), ordered
 * by a number or date of the base object, with every alias's id as tie-break where the
 * function needs one. Windows read as an analyst asks them: a rank or position by a number
 * or a date; a previous or next value, or a running total, only along time (each
 * customer's previous order time, the running total of amounts by order time), of a quantity
 * other than the order when it is one.
 */
function windowFrame(
  index: ErIndex,
  rng: Rng,
  q: SelectQuery,
  fns: readonly WindowFunction[],
): { window: WindowExpr } | undefined {
  if ((q.groupBy ?? []).length > 0 || q.having || q.distinct || q.qualify) return undefined;
  // Any aggregate makes the query one row of aggregates: round(avg(…)), max(…) - min(…) too.
  if (q.select.some((c) => hasAggregate(c.expr) || c.expr.kind === 'window')) return undefined;
  const joins = q.joins ?? [];
  if (joins.some((j) => j.kind === 'elements')) return undefined;
  const base = q.from;
  const role = (a: { owner: { name: string }; attribute: { name: string } }) =>
    roleOf(index.domain, a.owner.name, a.attribute.name);
  // Ordered by a quantity or a date (range-on-quantity), partitioned by a kind (group-key).
  const asked = index.allAttributes(base.entity).filter((a) => a.attribute.neverAsked !== true);
  // Not a value the WHERE clause fixes: ranked by a value all rows share, every row is first.
  const fixed = fixedAttributes(q.where);
  const ordered = asked.filter(
    (a) =>
      !a.attribute.multiValued &&
      ORDERED.includes(a.attribute.type.kind) &&
      rangeable(role(a)) &&
      !fixed.has(`${base.alias}.${a.attribute.name}`),
  );
  if (ordered.length === 0) return undefined;

  // A partner groups rows only when several rows may share it: partitioned by a product's own
  // review, each partition is one row.
  const groups: Expr[] = joins
    .filter((j) => j.kind === 'relationship' && j.type === 'inner' && sharedPartner(index, j))
    .map((j) => ({ kind: 'attribute', alias: j.alias, attribute: 'id' }));
  const subclasses = index
    .subtree(base.entity)
    .slice(1)
    .map((e) => e.name);
  if (subclasses.length > 1) groups.push({ kind: 'classOf', alias: base.alias, among: subclasses });
  for (const a of asked)
    if (!a.attribute.multiValued && groupable(role(a)))
      groups.push({ kind: 'attribute', alias: base.alias, attribute: a.attribute.name });
  if (groups.length === 0) return undefined;
  const partition = rng.pick(groups);

  let fn = rng.pick(fns);
  const temporal = ordered.filter((a) => TEMPORAL.includes(a.attribute.type.kind));
  // A previous value or a running figure only along time; by a price, "the next price" says nothing.
  if (ALONG_TIME.has(fn) && temporal.length === 0) fn = 'row_number';
  const pickedSlot = rng.pick(ALONG_TIME.has(fn) ? temporal : ordered);
  const value: Expr = { kind: 'attribute', alias: base.alias, attribute: pickedSlot.attribute.name };
  let arg: Expr | undefined = fn === 'lag' || fn === 'lead' ? value : undefined;
  if (fn === 'sum' || fn === 'avg') {
    // A running total of what adds up (additive-sum), a running average of a quantity.
    const fits = fn === 'sum' ? summable : averageable;
    const quantities = asked.filter(
      (a) =>
        !a.attribute.multiValued &&
        ['integer', 'bigint', 'numeric'].includes(a.attribute.type.kind) &&
        fits(role(a)) &&
        !fixed.has(`${base.alias}.${a.attribute.name}`),
    );
    if (quantities.length > 0)
      arg = { kind: 'attribute', alias: base.alias, attribute: rng.pick(quantities).attribute.name };
    else fn = 'row_number';
  }
  // Along time, forward: "previous" is earlier, a running total grows with the days.
  const descending = rng.chance(FILL_RATES.windowDescending) && !ALONG_TIME.has(fn);
  const orderBy: WindowOrderItem[] = [{ expr: value, direction: descending ? 'desc' : 'asc' }];
  if (ORDER_SENSITIVE.has(fn)) {
    // Every alias's id: a row's position or neighbour must not depend on how ties were stored.
    const ids: Expr[] = [base.alias, ...joins.map((j) => j.alias)].map((alias) => ({
      kind: 'attribute',
      alias,
      attribute: 'id',
    }));
    for (const id of ids) if (!sameNode(id, partition)) orderBy.push({ expr: id, direction: 'asc' });
  }
  return { window: { kind: 'window', fn, ...(arg ? { arg } : {}), partitionBy: [partition], orderBy } };
}

const TEMPORAL = ['date', 'timestamptz', 'timestamp'];
const ALONG_TIME: ReadonlySet<WindowFunction> = new Set(['lag', 'lead', 'sum', 'avg']);

/** Whether several rows of a join may share its partner: not a one-to-one partner, nor the "many" end reached from the "one". */
function sharedPartner(
  index: ErIndex,
  j: Extract<NonNullable<SelectQuery['joins']>[number], { kind: 'relationship' }>,
): boolean {
  const c = index.relationship(j.relationship).cardinality;
  if (c === 'one-to-one') return false;
  return !(c === 'many-to-one' && j.direction === 'reverse');
}

/** The attributes a WHERE clause fixes to one value (`x = 3`, `x IN (3)`) in one of its conjuncts, as `alias.attribute`. */
function fixedAttributes(where: Predicate | undefined): Set<string> {
  const out = new Set<string>();
  const visit = (p: Predicate | undefined): void => {
    if (!p) return;
    if (p.kind === 'and') p.args.forEach(visit);
    const left = p.kind === 'compare' ? p.left : p.kind === 'in' ? p.expr : undefined;
    const fixes =
      (p.kind === 'compare' && p.op === '=' && p.right.kind === 'literal') ||
      (p.kind === 'in' && !p.negated && p.values.length === 1);
    if (fixes && left?.kind === 'attribute') out.add(`${left.alias}.${left.attribute}`);
  };
  visit(where);
  return out;
}

const fixesAValue = (where: Predicate | undefined): boolean => fixedAttributes(where).size > 0;
