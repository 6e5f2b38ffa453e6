import type { Expr, OrderItem, Qualify, SelectQuery, WindowExpr, WindowFunction } from '../query/conceptual-query.ts';
/** The query is in canonical order (compileTree sees to it): its parts compare by their JSON. */
const canonical = (value: unknown): string => JSON.stringify(value);
import {
  binary,
  call,
  column,
  literal,
  STAR,
  table,
  type SqlCall,
  type SqlExpr,
  type SqlOrderItem,
  type SqlSelect,
} from './sql-tree.ts';

/**
 * Window functions and top-N per group in SQL. A window prints as PostgreSQL writes it; a
 * query with `qualify` becomes a common table expression that computes the window beside the
 * outputs, and a short outer query that keeps the rows by the window's value:
 *
 * ```sql
 * WITH ranked AS (
 *   SELECT p.title, c.name AS category, rank() OVER (PARTITION BY c.id ORDER BY p.price DESC) AS rnk
 *   FROM product AS p
 *     JOIN category AS c ON c.id = p.category_id
 * )
 * SELECT title, category
 * FROM ranked
 * WHERE rnk <= 3
 * ORDER BY category, title
 * ```
 */

/**
 * The SQL of a window function, its parts rendered by `sql`.
 * @example windowSql({ kind: 'window', fn: 'lag', arg: price, partitionBy: [cat], orderBy: [{ expr: id, direction: 'asc' }] }, render)
 * // lag(p.price) OVER (PARTITION BY p.category_id ORDER BY p.id)
 */
export function windowSql(w: WindowExpr, sql: (e: Expr) => SqlExpr): SqlCall {
  const args = w.arg === undefined ? (w.fn === 'count' ? [STAR] : []) : [sql(w.arg)];
  const offset = w.offset !== undefined && w.offset !== 1 ? [literal(w.offset)] : [];
  return {
    kind: 'call',
    name: w.fn,
    args: [...args, ...offset],
    over: {
      partitionBy: (w.partitionBy ?? []).map((k) => partitionKey(sql(k))),
      orderBy: (w.orderBy ?? []).map((o) => ({ expr: sql(o.expr), ...(o.direction === 'desc' ? { desc: true } : {}) })),
    },
  };
}

/**
 * A partition key as node-sql-parser once read it: only column references and function
 * calls after PARTITION BY, so any other expression (a CASE naming a subtype, arithmetic)
 * went inside a one-argument coalesce, which PostgreSQL returns unchanged. The rule
 * `unwrap-coalesce` takes the wrapper off again.
 */
function partitionKey(e: SqlExpr): SqlExpr {
  return e.kind === 'column' && e.table !== undefined ? e : call('coalesce', e);
}

/** The column name a window's value takes inside the CTE, as an engineer would call it. */
const WINDOW_COLUMN: Record<WindowFunction, string> = {
  row_number: 'rn',
  rank: 'rnk',
  dense_rank: 'rnk',
  lag: 'previous',
  lead: 'following',
  sum: 'running_total',
  avg: 'running_avg',
  count: 'running_count',
};

/**
 * Wraps a compiled SELECT that has a `qualify` into `WITH ranked AS (…) SELECT outputs FROM
 * ranked WHERE window op value`, with the query's DISTINCT, ORDER BY (by output name) and
 * LIMIT on the outer query. `inner` is the SELECT compiled without ORDER BY and LIMIT;
 * `window` is the qualify window's SQL; `taken` are names the CTE may not take (the
 * variant's tables).
 *
 * @example
 * // query: titles of each category's three most expensive products, ties included
 * // WITH ranked AS (SELECT …, rank() OVER (PARTITION BY … ORDER BY … DESC) AS rnk FROM …)
 * // SELECT title FROM ranked WHERE rnk <= 3 ORDER BY title
 */
export function qualifiedSelect(
  q: SelectQuery & { readonly qualify: Qualify },
  inner: SqlSelect,
  window: SqlExpr,
  taken: ReadonlySet<string>,
): SqlSelect {
  const outputs = q.select.map((c) => c.name);
  // The window may already be an output; else it is computed under a name of its own.
  const shown = q.select.find((c) => canonical(c.expr) === canonical(q.qualify.window));
  let windowColumn = shown?.name;
  // The compiled columns already carry the output names (a plain column keeps its own).
  const columns = [...inner.columns];
  if (windowColumn === undefined) {
    const base = WINDOW_COLUMN[q.qualify.window.fn];
    windowColumn = base;
    for (let i = 2; outputs.includes(windowColumn); i++) windowColumn = `${base}_${i}`;
    columns.push({ expr: window, alias: windowColumn });
  }
  let cte = 'ranked';
  for (let i = 2; taken.has(cte); i++) cte = `ranked_${i}`;
  const order = (o: OrderItem): SqlOrderItem => {
    const name =
      o.expr.kind === 'output'
        ? o.expr.name
        : (q.select.find((c) => canonical(c.expr) === canonical(o.expr))?.name as string);
    return { expr: column(undefined, name), ...(o.direction === 'desc' ? { desc: true } : {}) };
  };
  return {
    kind: 'select',
    with: [{ name: cte, query: { ...inner, distinct: false, columns, orderBy: [], limit: undefined } }],
    distinct: q.distinct === true,
    columns: outputs.map((name) => ({ expr: column(undefined, name) })),
    from: table(cte, cte),
    joins: [],
    where: [binary(q.qualify.op, column(undefined, windowColumn), literal(q.qualify.value))],
    groupBy: [],
    having: [],
    orderBy: (q.orderBy ?? []).map(order),
    limit: q.limit,
  };
}
