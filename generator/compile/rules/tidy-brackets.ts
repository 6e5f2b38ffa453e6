import type { SqlExpr, SqlQuery, SqlSelect } from '../sql-tree.ts';
import { rewriteQuery } from '../sql-tree-walk.ts';

/**
 * Brackets only where precedence needs them: every `paren` node goes (the printer brackets
 * what PostgreSQL would otherwise read another way), an AND inside a clause of ANDed
 * conditions becomes conditions of the clause, and an AND or OR inside another of its kind
 * joins it. So `WHERE (a OR b)` reads `WHERE a OR b`, `sum((a - b))` reads `sum(a - b)`.
 *
 * @example
 * // WHERE (p.price > 10 AND p.stock > 0)  →  WHERE p.price > 10
 * //                                            AND p.stock > 0
 */
export function tidyBrackets(tree: SqlQuery): SqlQuery {
  return rewriteQuery(tree, {
    expr: (e) => {
      if (e.kind === 'paren') return e.arg;
      if (e.kind === 'logic' && e.args.some((a) => a.kind === 'logic' && a.op === e.op))
        return { ...e, args: e.args.flatMap((a) => (a.kind === 'logic' && a.op === e.op ? a.args : [a])) };
      if (e.kind === 'call' && e.filter?.some(isAnd)) return { ...e, filter: flatten(e.filter) };
      return e;
    },
    select: (q: SqlSelect): SqlSelect => {
      if (!q.where.some(isAnd) && !q.having.some(isAnd) && !q.joins.some((j) => j.on.some(isAnd))) return q;
      return {
        ...q,
        where: flatten(q.where),
        having: flatten(q.having),
        joins: q.joins.map((j) => (j.on.some(isAnd) ? { ...j, on: flatten(j.on) } : j)),
      };
    },
  });
}

const isAnd = (e: SqlExpr): boolean => e.kind === 'logic' && e.op === 'AND';

function flatten(list: readonly SqlExpr[]): SqlExpr[] {
  return list.flatMap((c) => (c.kind === 'logic' && c.op === 'AND' ? flatten(c.args) : [c]));
}
