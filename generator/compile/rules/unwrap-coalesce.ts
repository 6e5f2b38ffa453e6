import type { SqlQuery } from '../sql-tree.ts';
import { rewriteQuery } from '../sql-tree-walk.ts';

/**
 * `coalesce(x)` of one argument is `x`: the wrapper did nothing for PostgreSQL (it was there
 * for a third-party parser, which the SQL adapter now helps itself), so it goes.
 *
 * @example
 * // rank() OVER (PARTITION BY coalesce(CASE WHEN … END) ORDER BY …)  →  rank() OVER (PARTITION BY CASE WHEN … END ORDER BY …)
 */
export function unwrapCoalesce(tree: SqlQuery): SqlQuery {
  return rewriteQuery(tree, {
    expr: (e) =>
      e.kind === 'call' && e.name === 'coalesce' && e.args.length === 1 && !e.over && !e.filter
        ? (e.args[0] as typeof e)
        : e,
  });
}
