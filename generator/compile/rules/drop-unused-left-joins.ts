import { printExpr } from '../print-sql.ts';
import type { SqlExpr, SqlJoin, SqlQuery, SqlSelect } from '../sql-tree.ts';
import { readsAlias, rewriteQuery, selectExprs } from '../sql-tree-walk.ts';

/**
 * A LEFT JOIN that meets at most one row (a join on a primary key: a subclass's table probed
 * for its rows) and whose alias nothing else reads changes no row and no value: it goes.
 * Its columns may still be grouped, there only because PostgreSQL cannot see that they
 * depend on the grouped id; they go with it when every outer column of its ON clause is
 * grouped.
 *
 * @example
 * // SELECT p.id, count(*) FROM product AS p LEFT JOIN apparel AS a ON a.id = p.id GROUP BY p.id, a.id
 * // → SELECT p.id, count(*) FROM product AS p GROUP BY p.id
 */
export function dropUnusedLeftJoins(tree: SqlQuery): SqlQuery {
  return rewriteQuery(tree, { select: dropFrom });
}

function dropFrom(q: SqlSelect): SqlSelect {
  let current = q;
  for (const join of q.joins) {
    if (join.type !== 'LEFT JOIN' || join.unique !== true || join.item.kind === 'derived') continue;
    const next = withoutJoin(current, join);
    if (next) current = next;
  }
  return current;
}

/** The SELECT without `join`, or undefined when its alias is read. */
function withoutJoin(q: SqlSelect, join: SqlJoin): SqlSelect | undefined {
  const alias = join.item.alias;
  const reads = (e: SqlExpr): boolean => readsAlias(e, alias);
  const grouped = new Set(q.groupBy.map(printExpr));
  const dependentGroups = q.groupBy.filter((g) => g.kind === 'column' && g.table === alias);
  const rest: SqlSelect = {
    ...q,
    joins: q.joins.filter((j) => j !== join),
    groupBy: q.groupBy.filter((g) => !dependentGroups.includes(g)),
  };
  if (selectExprs(rest).some(reads)) return undefined;
  if (dependentGroups.length > 0) {
    // The ON clause's outer columns must be grouped, so the dropped ones depended on them.
    const outer: SqlExpr[] = [];
    const collect = (e: SqlExpr): void => {
      if (e.kind === 'column') {
        if (e.table !== alias) outer.push(e);
        return;
      }
      if (e.kind === 'binary') collect(e.left), collect(e.right);
    };
    join.on.forEach(collect);
    if (!outer.every((c) => grouped.has(printExpr(c)))) return undefined;
  }
  return rest;
}
