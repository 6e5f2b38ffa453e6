import type { SqlColumn, SqlExpr, SqlOrderItem, SqlQuery, SqlSelect } from '../sql-tree.ts';
import { rewriteExpr, rewriteQuery, someExpr } from '../sql-tree-walk.ts';

/**
 * A condition on a grouped query's aggregates is its HAVING. Lowering computes an output
 * that a condition or an ORDER BY reads again once, in a derived table, and filters outside
 * it; for a grouped query that filter is the groups' own condition, and an engineer writes
 * it as HAVING. So `SELECT … FROM (SELECT c.name, count(*) AS n … GROUP BY c.name) AS t
 * WHERE n = 13 ORDER BY n DESC` is unnested into `SELECT c.name, count(*) AS n … GROUP BY
 * c.name HAVING count(*) = 13 ORDER BY n DESC`: the outer conditions read the inner
 * expressions, the order keeps the output names (PostgreSQL takes a bare output name in ORDER
 * BY), a column carried out only to be sorted by is sorted by its expression instead.
 *
 * @example
 * // SELECT category, n FROM (SELECT c.name AS category, count(*) AS n FROM … GROUP BY c.name) AS t WHERE n >= 3
 * // → SELECT c.name AS category, count(*) AS n FROM … GROUP BY c.name HAVING count(*) >= 3
 */
export function keepHaving(tree: SqlQuery): SqlQuery {
  return rewriteQuery(tree, { select: unnest });
}

function unnest(outer: SqlSelect): SqlSelect {
  if (outer.from.kind !== 'derived' || outer.joins.length > 0 || outer.where.length === 0) return outer;
  if (outer.groupBy.length > 0 || outer.having.length > 0 || (outer.with ?? []).length > 0) return outer;
  const inner = outer.from.query;
  if (
    inner.kind !== 'select' ||
    (inner.with ?? []).length > 0 ||
    inner.distinct ||
    inner.orderBy.length > 0 ||
    inner.limit !== undefined
  )
    return outer;
  if (inner.groupBy.length === 0 && inner.having.length === 0) return outer;
  const alias = outer.from.alias;
  // What each output name of the inner query stands for.
  const outputs = new Map<string, SqlExpr>();
  for (const c of inner.columns) {
    const name = c.alias ?? (c.expr.kind === 'column' ? c.expr.name : undefined);
    if (name === undefined || outputs.has(name)) return outer;
    outputs.set(name, c.expr);
  }
  const outerNames = outer.columns.map((c) =>
    c.alias === undefined && c.expr.kind === 'column' && (c.expr.table === undefined || c.expr.table === alias)
      ? c.expr.name
      : undefined,
  );
  // The outer query shows the inner outputs, in their order, as they are.
  if (outerNames.some((n) => n === undefined) || outerNames.some((n, i) => n !== nameOf(inner.columns[i])))
    return outer;
  const shown = new Set(outerNames as string[]);
  const outerColumn = (e: SqlExpr): e is SqlColumn =>
    e.kind === 'column' && (e.table === undefined || e.table === alias);
  let unknown = false;
  const inline = (e: SqlExpr): SqlExpr =>
    rewriteExpr(e, {
      expr: (x) => {
        if (!outerColumn(x)) return x;
        if (outputs.has(x.name)) return outputs.get(x.name) as SqlExpr;
        unknown = true;
        return x;
      },
    });
  const having = outer.where.map(inline);
  const orderBy = outer.orderBy.map((o): SqlOrderItem => {
    if (outerColumn(o.expr) && shown.has(o.expr.name)) return { ...o, expr: { kind: 'column', name: o.expr.name } };
    return { ...o, expr: inline(o.expr) };
  });
  if (unknown || having.some((h) => someExpr(h, (x) => x.kind === 'column' && x.table === alias))) return outer;
  // SELECT DISTINCT sorts only by what it shows.
  if (
    outer.distinct &&
    orderBy.some((o) => !(o.expr.kind === 'column' && o.expr.table === undefined && shown.has(o.expr.name)))
  )
    return outer;
  return {
    ...inner,
    distinct: outer.distinct,
    columns: inner.columns.slice(0, outerNames.length),
    having: [...inner.having, ...having],
    orderBy,
    ...(outer.limit !== undefined ? { limit: outer.limit } : {}),
  };
}

function nameOf(c: { readonly expr: SqlExpr; readonly alias?: string } | undefined): string | undefined {
  if (!c) return undefined;
  return c.alias ?? (c.expr.kind === 'column' ? c.expr.name : undefined);
}
