/**
 * Which constructs of the conceptual query a set of groups exercises: every expression,
 * predicate and join kind, the clauses of a SELECT, and each set operator. The generation
 * benchmark reports the constructs no group uses.
 */
import type { Expr, Predicate, Query, SelectQuery } from '../query/conceptual-query.ts';
import { analyticParts, isAnalytic } from '../query/analytic-expr.ts';

export const IR_CONSTRUCTS = [
  'expr:attribute',
  'expr:element',
  'expr:linkAttribute',
  'expr:literal',
  'expr:aggregate',
  'expr:setSize',
  'expr:setArray',
  'expr:classOf',
  'expr:arithmetic',
  'expr:round',
  'expr:scalarSubquery',
  'agg:count',
  'agg:count-distinct',
  'agg:sum',
  'agg:avg',
  'agg:min',
  'agg:max',
  'pred:compare',
  'pred:in',
  'pred:like',
  'pred:between',
  'pred:isNull',
  'pred:contains',
  'pred:isA',
  'pred:and',
  'pred:or',
  'pred:not',
  'pred:exists',
  'pred:inQuery',
  'join:relationship-inner',
  'join:relationship-left',
  'join:elements-inner',
  'join:elements-left',
  'join:subclass-end',
  'select:distinct',
  'select:where',
  'select:groupBy',
  'select:having',
  'select:orderBy',
  'select:limit',
  'set:union',
  'set:union all',
  'set:intersect',
  'set:except',
  'expr:window',
  'win:row_number',
  'win:rank',
  'win:dense_rank',
  'win:lag',
  'win:lead',
  'win:sum',
  'win:avg',
  'win:count',
  'select:qualify',
  // Scalar analytics.
  'expr:case',
  'expr:simpleCase',
  'expr:cast',
  'expr:nullif',
  'expr:coalesce',
  'expr:ratio',
  'expr:extract',
  'expr:dateTrunc',
  'expr:dateShift',
  'expr:ageYears',
  'expr:textFunction',
  'expr:substring',
  'expr:position',
  'agg:filter',
  'agg:distinct',
  'order:nulls',
] as const;

export type IrConstruct = (typeof IR_CONSTRUCTS)[number];

/** The constructs one query uses. */
export function irConstructs(
  query: Query,
  declaredEnd?: (relationship: string, direction: 'forward' | 'reverse') => string,
): Set<IrConstruct> {
  const out = new Set<IrConstruct>();
  const expr = (e: Expr | undefined): void => {
    if (!e) return;
    out.add(`expr:${e.kind}` as IrConstruct);
    if (e.kind === 'aggregate') {
      out.add(e.fn === 'count' && e.distinct ? 'agg:count-distinct' : (`agg:${e.fn}` as IrConstruct));
      if (e.distinct && e.fn !== 'count') out.add('agg:distinct');
      if (e.filter) out.add('agg:filter');
      expr(e.arg);
      pred(e.filter);
    } else if (isAnalytic(e)) {
      const parts = analyticParts(e);
      parts.exprs.forEach(expr);
      parts.predicates.forEach(pred);
    } else if (e.kind === 'arithmetic') {
      expr(e.left);
      expr(e.right);
    } else if (e.kind === 'round') expr(e.arg);
    else if (e.kind === 'window') {
      out.add(`win:${e.fn}` as IrConstruct);
      expr(e.arg);
      e.partitionBy?.forEach(expr);
      e.orderBy?.forEach((o) => expr(o.expr));
    } else if (e.kind === 'scalarSubquery') query_(e.query);
  };
  const pred = (p: Predicate | undefined): void => {
    if (!p) return;
    out.add(`pred:${p.kind}` as IrConstruct);
    switch (p.kind) {
      case 'compare':
        expr(p.left);
        expr(p.right);
        break;
      case 'in':
      case 'like':
      case 'isNull':
        expr(p.expr);
        break;
      case 'between':
        expr(p.expr);
        expr(p.low);
        expr(p.high);
        break;
      case 'and':
      case 'or':
        p.args.forEach(pred);
        break;
      case 'not':
        pred(p.arg);
        break;
      case 'exists':
        query_(p.query);
        break;
      case 'inQuery':
        expr(p.expr);
        query_(p.query);
        break;
      default:
        break;
    }
  };
  const select = (s: SelectQuery): void => {
    for (const j of s.joins ?? []) {
      if (j.kind === 'relationship') {
        out.add(j.type === 'inner' ? 'join:relationship-inner' : 'join:relationship-left');
        if (declaredEnd && declaredEnd(j.relationship, j.direction) !== j.entity) out.add('join:subclass-end');
        pred(j.on);
      } else out.add(j.type === 'inner' ? 'join:elements-inner' : 'join:elements-left');
    }
    if (s.distinct) out.add('select:distinct');
    if (s.where) out.add('select:where');
    if (s.groupBy?.length) out.add('select:groupBy');
    if (s.having) out.add('select:having');
    if (s.orderBy?.length) out.add('select:orderBy');
    if (s.orderBy?.some((o) => o.nulls !== undefined)) out.add('order:nulls');
    if (s.limit !== undefined) out.add('select:limit');
    if (s.qualify) {
      out.add('select:qualify');
      expr(s.qualify.window);
    }
    s.select.forEach((o) => expr(o.expr));
    s.orderBy?.forEach((o) => (o.expr.kind === 'output' ? undefined : expr(o.expr)));
    pred(s.where);
    s.groupBy?.forEach(expr);
    pred(s.having);
  };
  const query_ = (q: Query): void => {
    if (q.kind === 'select') return select(q);
    out.add(`set:${q.op}` as IrConstruct);
    if (q.orderBy?.length) out.add('select:orderBy');
    if (q.limit !== undefined) out.add('select:limit');
    query_(q.left);
    query_(q.right);
  };
  query_(query);
  return out;
}
