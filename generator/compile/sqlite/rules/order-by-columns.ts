import type { SqlQuery, SqlOrderItem } from '../../sql-tree.ts';
import { rewriteQuery } from '../../sql-tree-walk.ts';

/**
 * ORDER BY an output named by its column. PostgreSQL reads a bare `ORDER BY id` as the output
 * column `id`; SQLite takes a bare name as an output only when an `AS` gave it, and otherwise
 * as a column of the tables, ambiguous when two have one. So an ORDER BY name that is an
 * unaliased output `u.id` orders by `u.id`.
 *
 * @example
 * // SELECT u.id FROM users AS u JOIN orders AS o ON … ORDER BY id  →  … ORDER BY u.id
 */
export function orderByColumns(tree: SqlQuery): SqlQuery {
  return rewriteQuery(tree, {
    select: (q) => {
      if (!q.orderBy.some((o) => o.expr.kind === 'column' && o.expr.table === undefined)) return q;
      const orderBy = q.orderBy.map((o): SqlOrderItem => {
        if (o.expr.kind !== 'column' || o.expr.table !== undefined) return o;
        const name = o.expr.name;
        if (q.columns.some((c) => c.alias === name)) return o;
        const output = q.columns.find((c) => c.alias === undefined && c.expr.kind === 'column' && c.expr.name === name);
        return output ? { ...o, expr: output.expr } : o;
      });
      return { ...q, orderBy };
    },
  });
}
