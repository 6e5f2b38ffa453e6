import type { Expr, Predicate, Query } from '../../query/conceptual-query.ts';
import { analyticParts, isAnalytic } from '../../query/analytic-expr.ts';
import type { DescribeContext } from './context.ts';
import { conjuncts } from './english.ts';

/**
 * Collects every alias of a query, subqueries included: its entity (or multi-valued
 * attribute), whether a LEFT join makes it optional, and which outer alias a subquery's
 * alias stands for (a correlated back link, `x.id IN (SELECT b.id …)`).
 */
export function collect(d: DescribeContext, query: Query, optional: boolean): void {
  if (query.kind === 'set') {
    collect(d, query.left, optional);
    collect(d, query.right, optional);
    return;
  }
  d.aliases.set(query.from.alias, { entity: query.from.entity, optional: false });
  const leftAliases = new Set<string>();
  for (const j of query.joins ?? []) {
    const parent = j.kind === 'relationship' ? j.from : j.of;
    const isOptional = j.type === 'left' || leftAliases.has(parent);
    if (isOptional) leftAliases.add(j.alias);
    if (j.kind === 'relationship') {
      d.aliases.set(j.alias, { entity: j.entity, optional: isOptional, relationship: j.relationship });
      if (j.on) collectPredicate(d, j.on);
    } else {
      const owner = d.aliases.get(j.of);
      const attribute = d.index
        .allAttributes(owner?.entity ?? '')
        .find((a) => a.attribute.name === j.attribute)?.attribute;
      if (!attribute) throw new Error(`no multi-valued attribute ${j.attribute} on alias ${j.of}`);
      d.aliases.set(j.alias, { element: { owner: j.of, attribute }, optional: isOptional });
    }
  }
  if (query.where) collectPredicate(d, query.where);
  if (query.having) collectPredicate(d, query.having);
  for (const o of query.select) collectExpr(d, o.expr);
  // A subquery that equates one of its join aliases with an outer alias by id talks about
  // that outer object: "content produced by the creator", not "… by a creator who is the creator".
  for (const c of conjuncts(query.where)) {
    if (c.kind !== 'compare' || c.op !== '=' || c.left.kind !== 'attribute' || c.right.kind !== 'attribute') continue;
    if (c.left.attribute !== 'id' || c.right.attribute !== 'id') continue;
    const inner = (query.joins ?? []).find(
      (j) =>
        j.kind === 'relationship' &&
        j.type === 'inner' &&
        (j.alias === (c.left as { alias: string }).alias || j.alias === (c.right as { alias: string }).alias),
    );
    if (!inner) continue;
    const other = inner.alias === c.left.alias ? c.right.alias : c.left.alias;
    const info = d.aliases.get(inner.alias);
    if (info && other !== inner.alias && d.aliases.has(other) && other !== query.from.alias) info.sameAs = other;
  }
}

function collectPredicate(d: DescribeContext, p: Predicate): void {
  if (p.kind === 'and' || p.kind === 'or') p.args.forEach((a) => collectPredicate(d, a));
  else if (p.kind === 'not') collectPredicate(d, p.arg);
  else if (p.kind === 'exists' || p.kind === 'inQuery') {
    collect(d, p.query, false);
    // `x.id IN (SELECT b.id …)` speaks of x through b: b is not another object.
    const q = p.query;
    if (p.kind === 'inQuery' && q.kind === 'select' && p.expr.kind === 'attribute' && p.expr.attribute === 'id') {
      const inner = q.select[0]?.expr;
      const info =
        inner?.kind === 'attribute' && inner.attribute === 'id' && inner.alias !== q.from.alias
          ? d.aliases.get(inner.alias)
          : undefined;
      if (info && inner?.kind === 'attribute') info.sameAs = p.expr.alias;
    }
  } else if (p.kind === 'compare') {
    collectExpr(d, p.left);
    collectExpr(d, p.right);
  }
}

function collectExpr(d: DescribeContext, e: Expr): void {
  if (isAnalytic(e)) {
    const parts = analyticParts(e);
    parts.exprs.forEach((x) => collectExpr(d, x));
    parts.predicates.forEach((p) => collectPredicate(d, p));
  } else if (e.kind === 'aggregate' && e.filter) {
    collectPredicate(d, e.filter);
    if (e.arg) collectExpr(d, e.arg);
  } else if (e.kind === 'scalarSubquery') collect(d, e.query, false);
  else if (e.kind === 'aggregate' && e.arg) collectExpr(d, e.arg);
  else if (e.kind === 'round') collectExpr(d, e.arg);
  else if (e.kind === 'arithmetic') {
    collectExpr(d, e.left);
    collectExpr(d, e.right);
  }
}
