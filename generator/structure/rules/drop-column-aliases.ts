/**
 * SQLStructEval's "remove simple column aliases": `SELECT name AS n` becomes `SELECT name`.
 * Where ORDER BY, GROUP BY or HAVING referred to a removed alias, the aliased expression
 * takes its place, so `SELECT count(*) AS c … ORDER BY c` and `SELECT count(*) … ORDER BY
 * count(*)` agree. An alias is a name in its own select only: a subquery's `c` is the
 * subquery's column, so references are resolved without entering nested queries.
 *
 * Aliases that name columns someone reads are kept: a derived table's select list (the
 * outer query reads its columns by those names) and the first arm of a compound whose
 * ORDER BY uses them.
 */
import type { Expr, Query, SelectQuery, TableSource } from '../../sql/sql-ast.ts';
import { transformExpr } from '../query-transform.ts';

export function dropColumnAliases(query: Query): Query {
  return dropInQuery(query, false);
}

function dropInQuery(query: Query, keepAliases: boolean): Query {
  if (query.kind === 'with') {
    // A CTE's select list names the columns its readers use, like a derived table's.
    const body = dropInQuery(query.body, keepAliases);
    return {
      ...query,
      ctes: query.ctes.map((cte) => ({ ...cte, query: dropInQuery(cte.query, true) })),
      body: body.kind === 'with' ? query.body : body,
    };
  }
  if (query.kind === 'select') return dropInSelect(query, keepAliases);
  const orderNames = new Set(
    query.orderBy.flatMap((o) =>
      o.expr.kind === 'column' && o.expr.table === null ? [o.expr.name.toLowerCase()] : [],
    ),
  );
  const headKeeps =
    keepAliases || query.head.columns.some((c) => c.alias !== null && orderNames.has(c.alias.toLowerCase()));
  const shallow = { nested: (q: Query) => dropInQuery(q, false) };
  return {
    ...query,
    head: dropInSelect(query.head, headKeeps),
    tail: query.tail.map((arm) => ({ op: arm.op, query: dropInSelect(arm.query, false) })),
    orderBy: query.orderBy.map((o) => ({ ...o, expr: transformExpr(o.expr, shallow) })),
  };
}

function dropInSelect(select: SelectQuery, keepAliases: boolean): SelectQuery {
  const shallow = { nested: (q: Query) => dropInQuery(q, false) };
  const inner = (e: Expr): Expr => transformExpr(e, shallow);
  const source = (s: TableSource): TableSource => {
    if (s.kind === 'derived') return { ...s, query: dropInQuery(s.query, true) };
    if (s.kind === 'table-function') {
      const call = inner(s.call);
      return call.kind === 'function' ? { ...s, call } : s;
    }
    return s;
  };
  const columns = select.columns.map((item) => ({ expr: inner(item.expr), alias: item.alias }));
  const aliased = new Map<string, Expr>();
  for (const item of columns) {
    if (item.alias === null) continue;
    const self = item.expr.kind === 'column' && item.expr.name.toLowerCase() === item.alias.toLowerCase();
    if (!self && !aliased.has(item.alias.toLowerCase())) aliased.set(item.alias.toLowerCase(), item.expr);
  }
  const resolve = (expr: Expr): Expr =>
    transformExpr(expr, {
      ...shallow,
      expr: (e) => (e.kind === 'column' && e.table === null ? (aliased.get(e.name.toLowerCase()) ?? e) : e),
    });
  return {
    ...select,
    columns: columns.map((item) => ({ expr: item.expr, alias: keepAliases ? item.alias : null })),
    from: select.from
      ? {
          first: source(select.from.first),
          joins: select.from.joins.map((j) => ({ ...j, source: source(j.source), on: j.on ? inner(j.on) : null })),
        }
      : null,
    where: select.where ? inner(select.where) : null,
    groupBy: select.groupBy.map(resolve),
    having: select.having ? resolve(select.having) : null,
    orderBy: select.orderBy.map((o) => ({ ...o, expr: resolve(o.expr) })),
    limit: select.limit ? inner(select.limit) : null,
    offset: select.offset ? inner(select.offset) : null,
  };
}
