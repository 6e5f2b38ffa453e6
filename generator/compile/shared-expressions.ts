import type { Expr, Predicate, SelectQuery } from '../query/conceptual-query.ts';
import { keyUpToAliases } from '../query/walk.ts';

/**
 * An expression's identity up to the names of the aliases it declares itself: two copies of
 * one correlated count, written over `o1` and over `o2`, have the same key. Aliases from
 * outside (the row a subquery correlates with) keep their names, so counts correlated with
 * different rows differ.
 *
 * @example
 * expressionKey({ kind: 'scalarSubquery', query: { kind: 'select', from: { entity: 'Order', alias: 'o1' }, select: [...] } })
 * // the same key as the copy with alias 'o2'
 */
export function expressionKey(e: Expr): string {
  let key = keys.get(e);
  // The compiler puts the query in canonical order before anything asks for a key.
  if (key === undefined) keys.set(e, (key = keyUpToAliases(e, { canonical: true })));
  return key;
}

/** Keys already worked out: parts are immutable, and one query is compiled for every variant. */
const keys = new WeakMap<Expr, string>();

/** Whether an expression aggregates the rows of its own query (not those of a subquery). */
export function aggregates(e: Expr): boolean {
  switch (e.kind) {
    case 'aggregate':
      return true;
    case 'arithmetic':
      return aggregates(e.left) || aggregates(e.right);
    case 'round':
      return aggregates(e.arg);
    default:
      return false;
  }
}

/**
 * Whether an expression is made only of `shared` expressions (by key), literals, and
 * arithmetic over them: it can then be computed over a derived table's output columns.
 */
export function builtFrom(e: Expr, shared: ReadonlyMap<string, string>): boolean {
  if (shared.has(expressionKey(e))) return true;
  switch (e.kind) {
    case 'literal':
      return true;
    case 'arithmetic':
      return builtFrom(e.left, shared) && builtFrom(e.right, shared);
    case 'round':
      return builtFrom(e.arg, shared);
    default:
      return false;
  }
}

/** Whether a condition reads nothing but `builtFrom` expressions, and at least one shared one. */
export function conditionBuiltFrom(p: Predicate, shared: ReadonlyMap<string, string>): boolean {
  const uses = (e: Expr): boolean =>
    shared.has(expressionKey(e)) ||
    (e.kind === 'arithmetic' && (uses(e.left) || uses(e.right))) ||
    (e.kind === 'round' && uses(e.arg));
  const exprs = ((): Expr[] | undefined => {
    switch (p.kind) {
      case 'compare':
        return [p.left, p.right];
      case 'between':
        return [p.expr, p.low, p.high];
      case 'in':
      case 'like':
      case 'isNull':
        return [p.expr];
      default:
        return undefined;
    }
  })();
  if (exprs) return exprs.every((e) => builtFrom(e, shared)) && exprs.some(uses);
  if (p.kind === 'and' || p.kind === 'or') return p.args.every((a) => conditionBuiltFrom(a, shared));
  if (p.kind === 'not') return conditionBuiltFrom(p.arg, shared);
  return false;
}

/**
 * Output columns of `q` whose expression (a subquery, an aggregate, any non-column) is
 * written again in a condition or an ORDER BY expression that could read the output
 * instead: expression key → output name. PostgreSQL lets neither WHERE, HAVING nor an
 * ORDER BY expression name an output column, so such a query reads best over a derived
 * table that computes each expression once.
 */
export function sharedOutputs(q: SelectQuery): Map<string, string> {
  const candidates = new Map<string, string>();
  for (const c of q.select)
    if (c.expr.kind !== 'attribute' && c.expr.kind !== 'literal') candidates.set(expressionKey(c.expr), c.name);
  if (candidates.size === 0) return new Map();
  const found = new Map<string, string>();
  const visit = (e: Expr): void => {
    const key = expressionKey(e);
    const name = candidates.get(key);
    if (name !== undefined) found.set(key, name);
    else if (e.kind === 'arithmetic') visit(e.left), visit(e.right);
    else if (e.kind === 'round') visit(e.arg);
  };
  const grouped = (q.groupBy?.length ?? 0) > 0 || q.having !== undefined || q.select.some((c) => aggregates(c.expr));
  const conditions = [...(grouped ? [] : conjunctsOf(q.where)), ...conjunctsOf(q.having)];
  for (const p of conditions) {
    const found1 = new Map<string, string>();
    for (const e of conditionExprs(p)) {
      const name = candidates.get(expressionKey(e));
      if (name !== undefined) found1.set(expressionKey(e), name);
    }
    if (found1.size > 0 && conditionBuiltFrom(p, candidates)) for (const [k, n] of found1) found.set(k, n);
  }
  for (const o of q.orderBy ?? []) {
    if (o.expr.kind === 'output' || candidates.has(expressionKey(o.expr as Expr))) continue;
    if (builtFrom(o.expr as Expr, candidates)) visit(o.expr as Expr);
  }
  return found;
}

/** The top-level conjuncts of a condition. */
export function conjunctsOf(p: Predicate | undefined): Predicate[] {
  if (!p) return [];
  return p.kind === 'and' ? p.args.flatMap((a) => conjunctsOf(a)) : [p];
}

/** The expressions a simple condition compares, through arithmetic. */
function conditionExprs(p: Predicate): Expr[] {
  const flat = (e: Expr): Expr[] =>
    e.kind === 'arithmetic' ? [e, ...flat(e.left), ...flat(e.right)] : e.kind === 'round' ? [e, ...flat(e.arg)] : [e];
  switch (p.kind) {
    case 'compare':
      return [...flat(p.left), ...flat(p.right)];
    case 'between':
      return [...flat(p.expr), ...flat(p.low), ...flat(p.high)];
    case 'in':
    case 'like':
    case 'isNull':
      return flat(p.expr);
    case 'and':
    case 'or':
      return p.args.flatMap(conditionExprs);
    case 'not':
      return conditionExprs(p.arg);
    default:
      return [];
  }
}
