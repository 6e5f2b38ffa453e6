import type { SqlQuery, SqlSelect } from '../../sql-tree.ts';
import { emptySelect, STAR } from '../../sql-tree.ts';
import { childQueries } from '../../sql-tree-walk.ts';

/**
 * Set operations as SQLite composes them. SQLite takes no brackets around an arm of UNION,
 * INTERSECT or EXCEPT, no ORDER BY or LIMIT inside one, and reads a chain left to right with
 * one precedence (PostgreSQL binds INTERSECT tighter). An arm that needs any of that is
 * read from a derived table instead: `SELECT * FROM (… LIMIT 3) AS arm`. A left-leaning
 * chain of one operator stays as it is.
 */
export function compoundArms(tree: SqlQuery): SqlQuery {
  let n = 0;
  const fresh = (): string => `arm${++n === 1 ? '' : `_${n}`}`;
  const wrap = (q: SqlQuery): SqlSelect => ({
    ...emptySelect({ kind: 'derived', query: q, alias: fresh() }),
    columns: [{ expr: STAR }],
  });
  const visit = (q: SqlQuery): SqlQuery => {
    if (q.kind === 'set') {
      const left = visit(q.left);
      const right = visit(q.right);
      const chained = left.kind === 'set' && left.op === q.op && left.orderBy.length === 0 && left.limit === undefined;
      const needsWrap = (arm: SqlQuery, isLeft: boolean): boolean =>
        isLeft && chained
          ? false
          : arm.kind === 'set' || arm.orderBy.length > 0 || arm.limit !== undefined || (arm.with ?? []).length > 0;
      return {
        ...q,
        left: needsWrap(left, true) ? wrap(left) : left,
        right: needsWrap(right, false) ? wrap(right) : right,
      };
    }
    if (childQueries(q).length === 0) return q;
    return {
      ...q,
      ...(q.with ? { with: q.with.map((c) => ({ ...c, query: visit(c.query) })) } : {}),
      from: q.from.kind === 'derived' ? { ...q.from, query: visit(q.from.query) } : q.from,
      joins: q.joins.map((j) =>
        j.item.kind === 'derived' ? { ...j, item: { ...j.item, query: visit(j.item.query) } } : j,
      ),
    };
  };
  return visit(tree);
}
