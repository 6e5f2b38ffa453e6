import type { SqlExpr, SqlOrderItem, SqlQuery, SqlSelect } from '../../sql-tree.ts';
import { rewriteExpr, rewriteQuery } from '../../sql-tree-walk.ts';
import type { RelationalSchema } from '../../../variants/relational-schema.ts';

/**
 * NULLs sorted where PostgreSQL sorts them. PostgreSQL puts NULL after every value going up
 * and first going down; SQLite does the opposite. So an ordering whose key can be NULL says
 * where NULLs go, in ORDER BY and in a window's ORDER BY (rank, lag and LIMIT depend on it):
 * `ORDER BY c.rating DESC NULLS FIRST`. A key that cannot be NULL is left as it is: a NOT
 * NULL column of a table the row must come from (not the inner side of a LEFT JOIN), a
 * count or a rank, a constant.
 */
export function nullsAsPostgres(tree: SqlQuery, schema: RelationalSchema): SqlQuery {
  const columnNullable = new Map<string, boolean>();
  for (const t of schema.tables) for (const c of t.columns) columnNullable.set(`${t.name}.${c.name}`, c.nullable);
  const explicit = (o: SqlOrderItem, canBeNull: (e: SqlExpr) => boolean): SqlOrderItem =>
    o.nulls !== undefined || !canBeNull(o.expr) ? o : { ...o, nulls: o.desc ? 'first' : 'last' };
  const rewritten = rewriteQuery(tree, {
    select: (q) => {
      const canBeNull = nullability(q, columnNullable);
      const windows = (e: SqlExpr): SqlExpr =>
        rewriteExpr(e, {
          expr: (x) =>
            x.kind === 'call' && x.over
              ? { ...x, over: { ...x.over, orderBy: x.over.orderBy.map((o) => explicit(o, canBeNull)) } }
              : x,
        });
      return {
        ...q,
        columns: q.columns.map((c) => ({ ...c, expr: windows(c.expr) })),
        orderBy: q.orderBy.map((o) => explicit(o, canBeNull)),
      };
    },
  });
  // A set operation's ORDER BY names output columns, whose NULL-ness is not known here.
  const sets = (q: SqlQuery): SqlQuery =>
    q.kind === 'set'
      ? { ...q, left: sets(q.left), right: sets(q.right), orderBy: q.orderBy.map((o) => explicit(o, () => true)) }
      : q;
  return sets(rewritten);
}

function nullability(q: SqlSelect, columnNullable: ReadonlyMap<string, boolean>): (e: SqlExpr) => boolean {
  // Alias → the table it reads, for tables every row of the query comes with.
  const required = new Map<string, string>();
  if (q.from.kind === 'table') required.set(q.from.alias, q.from.name);
  for (const j of q.joins)
    if (j.item.kind === 'table' && j.type !== 'LEFT JOIN') required.set(j.item.alias, j.item.name);
  const canBeNull = (e: SqlExpr, depth = 0): boolean => {
    switch (e.kind) {
      case 'literal':
        return e.value === null;
      case 'call':
        return !['count', 'row_number', 'rank', 'dense_rank'].includes(e.name);
      case 'column': {
        if (e.table !== undefined) {
          const t = required.get(e.table);
          return t === undefined || columnNullable.get(`${t}.${e.name}`) !== false;
        }
        // An output name: the column of the SELECT it names.
        const named = q.columns.find(
          (c) => c.alias === e.name || (c.alias === undefined && c.expr.kind === 'column' && c.expr.name === e.name),
        );
        return named === undefined || depth > 0 || canBeNull(named.expr, depth + 1);
      }
      default:
        return true;
    }
  };
  return (e) => canBeNull(e);
}
