/**
 * Labels of a group: Spider's hardness (easy/medium/hard/extra) of its SQL on the reference
 * variant, and counts of the conceptual query's constructs.
 *
 * Hardness follows `eval_hardness` of Spider's evaluation script: component1 counts WHERE,
 * GROUP BY, ORDER BY, LIMIT, each join, each OR and each LIKE; component2 counts nested
 * queries (subqueries in conditions and set-operation arms); "others" counts more than one
 * aggregate, more than one select column, more than one WHERE condition, more than one
 * GROUP BY key.
 */
import { analyticParts, isAnalytic } from '../query/analytic-expr.ts';
import type * as Sql from '../sql/sql-ast.ts';
import type { Expr, Join, Predicate, Query, SelectQuery } from '../query/conceptual-query.ts';
import type { ConstructCounts, Difficulty } from '../records/group-record.ts';

interface Conditions {
  units: number;
  ors: number;
  likes: number;
  aggregates: number;
  nested: number;
}

function walkCondition(e: Sql.Expr | null, c: Conditions): void {
  if (e === null) return;
  if (e.kind === 'logical') {
    if (e.op === 'or') c.ors += 1;
    walkCondition(e.left, c);
    walkCondition(e.right, c);
    return;
  }
  if (e.kind === 'not') return walkCondition(e.operand, c);
  c.units += 1;
  if (e.kind === 'like') c.likes += 1;
  c.aggregates += countAggregates(e);
  c.nested += countNested(e);
}

function countAggregates(e: Sql.Expr): number {
  switch (e.kind) {
    case 'aggregate':
      return 1;
    case 'comparison':
    case 'arithmetic':
    case 'operator':
      return countAggregates(e.left) + countAggregates(e.right);
    case 'between':
      return countAggregates(e.operand) + countAggregates(e.low) + countAggregates(e.high);
    case 'like':
    case 'in-list':
    case 'in-subquery':
    case 'is-null':
      return countAggregates(e.operand);
    case 'function':
      return e.args.reduce((n, a) => n + countAggregates(a), 0);
    case 'cast':
    case 'not':
    case 'negate':
      return countAggregates(e.operand);
    default:
      return 0;
  }
}

function countNested(e: Sql.Expr): number {
  switch (e.kind) {
    case 'subquery':
    case 'exists':
    case 'array-subquery':
      return 1;
    case 'in-subquery':
      return 1;
    case 'comparison':
    case 'arithmetic':
    case 'operator':
    case 'logical':
      return countNested(e.left) + countNested(e.right);
    case 'between':
      return countNested(e.operand) + countNested(e.low) + countNested(e.high);
    case 'like':
    case 'in-list':
    case 'is-null':
    case 'not':
    case 'negate':
    case 'cast':
      return countNested(e.operand);
    case 'function':
      return e.args.reduce((n, a) => n + countNested(a), 0);
    default:
      return 0;
  }
}

/**
 * Spider hardness of a parsed query.
 *
 * @example
 * spiderHardness(parseSql('SELECT count(*) FROM singer')); // 'easy'
 * spiderHardness(parseSql('SELECT name FROM singer WHERE age > 30 ORDER BY age LIMIT 1')); // 'hard'
 */
export function spiderHardness(q: Sql.Query): Difficulty {
  // Spider has no WITH and so no rule for it; the body is graded.
  if (q.kind === 'with') return spiderHardness(q.body);
  const head = q.kind === 'select' ? q : q.head;
  const arms = q.kind === 'select' ? 0 : q.tail.length;
  const w: Conditions = { units: 0, ors: 0, likes: 0, aggregates: 0, nested: 0 };
  walkCondition(head.where, w);
  const h: Conditions = { units: 0, ors: 0, likes: 0, aggregates: 0, nested: 0 };
  walkCondition(head.having, h);
  const orderBy = q.kind === 'select' ? q.orderBy : q.orderBy.length > 0 ? q.orderBy : head.orderBy;
  const limit = q.kind === 'select' ? q.limit : (q.limit ?? head.limit);
  let comp1 = 0;
  if (head.where) comp1 += 1;
  if (head.groupBy.length > 0) comp1 += 1;
  if (orderBy.length > 0) comp1 += 1;
  if (limit !== null) comp1 += 1;
  comp1 += head.from?.joins.length ?? 0;
  comp1 += w.ors + h.ors + w.likes + h.likes;
  const derived = (head.from ? [head.from.first, ...head.from.joins.map((j) => j.source)] : []).filter(
    (s) => s.kind === 'derived',
  ).length;
  const comp2 = arms + w.nested + h.nested + derived;
  let aggs = head.columns.reduce((n, c) => n + countAggregates(c.expr), 0) + w.aggregates + h.aggregates;
  aggs += head.groupBy.reduce((n, e) => n + countAggregates(e), 0);
  aggs += orderBy.reduce((n, o) => n + countAggregates(o.expr), 0);
  let others = 0;
  if (aggs > 1) others += 1;
  if (head.columns.length > 1) others += 1;
  if (w.units > 1) others += 1;
  if (head.groupBy.length > 1) others += 1;
  if (comp1 <= 1 && others === 0 && comp2 === 0) return 'easy';
  if ((others <= 2 && comp1 <= 1 && comp2 === 0) || (comp1 <= 2 && others < 2 && comp2 === 0)) return 'medium';
  if (
    (others > 2 && comp1 <= 2 && comp2 === 0) ||
    (comp1 > 2 && comp1 <= 3 && others <= 2 && comp2 === 0) ||
    (comp1 <= 1 && others === 0 && comp2 <= 1)
  )
    return 'hard';
  return 'extra';
}

/** Joins, aggregates, subqueries and set operations of a conceptual query, nested ones included. */
export function constructCounts(q: Query): ConstructCounts {
  const c = { joins: 0, aggregates: 0, subqueries: 0, set_operations: 0 };
  const expr = (e: Expr | undefined): void => {
    if (!e) return;
    switch (e.kind) {
      case 'aggregate':
        c.aggregates += 1;
        expr(e.arg);
        pred(e.filter);
        return;
      case 'arithmetic':
        expr(e.left);
        expr(e.right);
        return;
      case 'round':
        expr(e.arg);
        return;
      case 'scalarSubquery':
        c.subqueries += 1;
        query(e.query);
        return;
      default:
        // CASE, ratios, COALESCE… hold aggregates and conditions of their own.
        if (isAnalytic(e)) {
          analyticParts(e).exprs.forEach(expr);
          analyticParts(e).predicates.forEach(pred);
        }
        return;
    }
  };
  const pred = (p: Predicate | undefined): void => {
    if (!p) return;
    switch (p.kind) {
      case 'compare':
        expr(p.left);
        expr(p.right);
        return;
      case 'in':
      case 'like':
      case 'isNull':
        expr(p.expr);
        return;
      case 'between':
        expr(p.expr);
        expr(p.low);
        expr(p.high);
        return;
      case 'and':
      case 'or':
        p.args.forEach(pred);
        return;
      case 'not':
        pred(p.arg);
        return;
      case 'exists':
        c.subqueries += 1;
        query(p.query);
        return;
      case 'inQuery':
        c.subqueries += 1;
        expr(p.expr);
        query(p.query);
        return;
      default:
        return;
    }
  };
  const select = (s: SelectQuery): void => {
    c.joins += s.joins?.length ?? 0;
    (s.joins ?? []).forEach((j: Join) => j.kind === 'relationship' && pred(j.on));
    s.select.forEach((o) => expr(o.expr));
    pred(s.where);
    s.groupBy?.forEach(expr);
    pred(s.having);
    s.orderBy?.forEach((o) => o.expr.kind !== 'output' && expr(o.expr));
  };
  const query = (x: Query): void => {
    if (x.kind === 'select') return select(x);
    c.set_operations += 1;
    query(x.left);
    query(x.right);
  };
  query(q);
  return c;
}
