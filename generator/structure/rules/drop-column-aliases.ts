/**
 * SQLStructEval's "remove simple column aliases": `SELECT name AS n` becomes `SELECT name`.
 * Where ORDER BY or HAVING referred to a removed alias, the aliased expression takes its
 * place, so `SELECT count(*) AS c … ORDER BY c` and `SELECT count(*) … ORDER BY count(*)`
 * agree.
 */
import type { Expr, Query } from '../../sql/sql-ast.ts';
import { transformExpr, transformQuery } from '../query-transform.ts';

export function dropColumnAliases(query: Query): Query {
  return transformQuery(query, {
    select: (select) => {
      const aliased = new Map<string, Expr>();
      for (const item of select.columns) {
        if (item.alias === null) continue;
        const self = item.expr.kind === 'column' && item.expr.name.toLowerCase() === item.alias.toLowerCase();
        if (!self) aliased.set(item.alias.toLowerCase(), item.expr);
      }
      const resolve = (expr: Expr): Expr =>
        aliased.size === 0
          ? expr
          : transformExpr(expr, {
              expr: (e) => (e.kind === 'column' && e.table === null ? (aliased.get(e.name.toLowerCase()) ?? e) : e),
            });
      return {
        ...select,
        columns: select.columns.map((item) => ({ expr: item.expr, alias: null })),
        orderBy: select.orderBy.map((o) => ({ ...o, expr: resolve(o.expr) })),
        having: select.having ? resolve(select.having) : null,
      };
    },
  });
}
