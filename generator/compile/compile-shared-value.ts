import type { Expr, SelectQuery } from '../query/conceptual-query.ts';
import { isGrouped } from '../query/query-scope.ts';
import { aliasesIn, declaredAliases, keyUpToAliases, walk, type IrNode } from '../query/walk.ts';

/**
 * Values a query computes once and compares against: an uncorrelated subquery of one
 * aggregate (the average price of all products, the latest order time) that the outermost
 * query reads more than once, say in a filter and in an output. An engineer computes such a
 * value once, in a common table expression joined to every row:
 *
 * ```sql
 * WITH avg_price AS (
 *   SELECT round(avg(p2.price), 2) AS avg_price
 *   FROM products AS p2
 * )
 * SELECT p.name, (p.price - avg_price.avg_price) AS above_average
 * FROM products AS p
 *   CROSS JOIN avg_price
 * WHERE p.price > avg_price.avg_price
 * ```
 *
 * An aggregate without GROUP BY or HAVING returns exactly one row, so the cross join keeps
 * every row as it is. A value read once stays an inline subquery, as a person writes it.
 */

/** A subquery to compute once: its key (see valueKey) and query. */
export interface SharedValue {
  readonly key: string;
  readonly query: SelectQuery;
}

/**
 * The key of a standalone subquery expression: its canonical form with the aliases it
 * declares renamed by order of appearance. Aliases are unique across a query, so the same
 * value written twice differs only in them.
 */
export function valueKey(e: Expr): string {
  // The compiler puts the query in canonical order before anything asks for a key.
  return keyUpToAliases(e, { canonical: true });
}

/** Whether a subquery returns one row whatever the data, and names no alias of the query around it. */
function isStandaloneAggregate(q: SelectQuery): boolean {
  const only = q.select.length === 1 ? (q.select[0] as { expr: Expr }).expr : undefined;
  if (
    !only ||
    (q.groupBy ?? []).length > 0 ||
    q.having !== undefined ||
    q.limit !== undefined ||
    q.qualify !== undefined
  )
    return false;
  if (!isGrouped(q)) return false;
  const declared = new Set(declaredAliases(q));
  for (const used of aliasesIn(only)) if (!declared.has(used)) return false;
  if (q.where) for (const used of aliasesIn(q.where)) if (!declared.has(used)) return false;
  for (const j of q.joins ?? [])
    if (j.kind === 'relationship' && j.on) for (const used of aliasesIn(j.on)) if (!declared.has(used)) return false;
  return true;
}

/**
 * The standalone aggregate subqueries the outermost query reads at least twice (in its
 * outputs and filter), in order of first appearance. Grouped queries, and queries with a
 * qualify (already a WITH of their own), keep their subqueries inline.
 */
export function sharedValues(q: SelectQuery): SharedValue[] {
  if (isGrouped(q) || q.qualify !== undefined) return [];
  const seen = new Map<string, { query: SelectQuery; count: number }>();
  const count = (node: IrNode): boolean => {
    if (node.kind === 'scalarSubquery') {
      if (isStandaloneAggregate(node.query)) {
        const key = valueKey(node);
        const entry = seen.get(key) ?? { query: node.query, count: 0 };
        entry.count += 1;
        seen.set(key, entry);
      }
      return false;
    }
    // Subqueries of EXISTS and IN are levels of their own: their reads are not the outer query's.
    if (node.kind === 'inQuery') walk(node.expr, count);
    return node.kind !== 'exists' && node.kind !== 'inQuery';
  };
  for (const c of q.select) walk(c.expr, count);
  if (q.where) walk(q.where, count);
  for (const o of q.orderBy ?? []) if (o.expr.kind !== 'output') walk(o.expr, count);
  return [...seen].filter(([, v]) => v.count >= 2).map(([key, v]) => ({ key, query: v.query }));
}
