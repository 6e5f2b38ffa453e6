/**
 * Bottom-up rewriting of a query: every nested query, select and expression is rebuilt
 * with the callbacks applied after their children. Canonicalization rules are written with
 * it, so each rule states only what it changes.
 */
import type { CompoundQuery, Expr, FromClause, Query, SelectQuery, TableSource } from '../sql/sql-ast.ts';

export interface Transform {
  readonly select?: (select: SelectQuery) => SelectQuery;
  readonly expr?: (expr: Expr) => Expr;
  /** Applied to each compound after its arms (a compound has its own ORDER BY). */
  readonly compound?: (compound: CompoundQuery) => CompoundQuery;
  /**
   * Replaces the walk into a query nested in an expression: with it, `transformExpr` stays
   * in the expression's own select and hands each nested query to this function instead.
   */
  readonly nested?: (query: Query) => Query;
}

/**
 * Rebuilds `query` bottom-up with `t` applied to every select and expression.
 *
 * @example
 * // Drop every DISTINCT:
 * transformQuery(query, { select: (s) => ({ ...s, distinct: false }) });
 */
export function transformQuery(query: Query, t: Transform): Query {
  if (query.kind === 'with') {
    const body = transformQuery(query.body, t);
    return {
      kind: 'with',
      ctes: query.ctes.map((cte) => ({ ...cte, query: transformQuery(cte.query, t) })),
      // A callback may not turn the body into a WITH of its own; then it stays as it was.
      body: body.kind === 'with' ? query.body : body,
    };
  }
  if (query.kind === 'select') return transformSelect(query, t);
  const e = (x: Expr): Expr => transformExpr(x, t);
  const rebuilt: CompoundQuery = {
    kind: 'compound',
    head: transformSelect(query.head, t),
    tail: query.tail.map((arm) => ({ op: arm.op, query: transformSelect(arm.query, t) })),
    orderBy: query.orderBy.map((o) => ({ ...o, expr: e(o.expr) })),
    limit: query.limit ? e(query.limit) : null,
    offset: query.offset ? e(query.offset) : null,
  };
  return t.compound ? t.compound(rebuilt) : rebuilt;
}

function transformSelect(select: SelectQuery, t: Transform): SelectQuery {
  const e = (x: Expr): Expr => transformExpr(x, t);
  const rebuilt: SelectQuery = {
    ...select,
    columns: select.columns.map((c) => ({ expr: e(c.expr), alias: c.alias })),
    from: select.from ? transformFrom(select.from, t) : null,
    where: select.where ? e(select.where) : null,
    groupBy: select.groupBy.map(e),
    having: select.having ? e(select.having) : null,
    orderBy: select.orderBy.map((o) => ({ ...o, expr: e(o.expr) })),
    limit: select.limit ? e(select.limit) : null,
    offset: select.offset ? e(select.offset) : null,
  };
  return t.select ? t.select(rebuilt) : rebuilt;
}

function transformFrom(from: FromClause, t: Transform): FromClause {
  return {
    first: transformSource(from.first, t),
    joins: from.joins.map((j) => ({
      kind: j.kind,
      source: transformSource(j.source, t),
      on: j.on ? transformExpr(j.on, t) : null,
    })),
  };
}

function transformSource(source: TableSource, t: Transform): TableSource {
  switch (source.kind) {
    case 'table':
      return source;
    case 'derived':
      return { ...source, query: transformQuery(source.query, t) };
    case 'table-function': {
      const call = transformExpr(source.call, t);
      // A callback that turns the call into something else leaves the source as it was.
      return call.kind === 'function' ? { ...source, call } : source;
    }
  }
}

/** Rebuilds one expression bottom-up, nested queries included. */
export function transformExpr(expr: Expr, t: Transform): Expr {
  const e = (x: Expr): Expr => transformExpr(x, t);
  let out: Expr;
  switch (expr.kind) {
    case 'column':
    case 'star':
    case 'interval':
    case 'clock':
    case 'number':
    case 'string':
    case 'null':
    case 'boolean':
      out = expr;
      break;
    case 'comparison':
    case 'arithmetic':
    case 'logical':
    case 'operator':
      out = { ...expr, left: e(expr.left), right: e(expr.right) } as Expr;
      break;
    case 'case':
      out = {
        ...expr,
        operand: expr.operand ? e(expr.operand) : null,
        whens: expr.whens.map((w) => ({ when: e(w.when), then: e(w.then) })),
        else: expr.else ? e(expr.else) : null,
      };
      break;
    case 'cast':
      out = { ...expr, operand: e(expr.operand) };
      break;
    case 'not':
    case 'negate':
      out = { ...expr, operand: e(expr.operand) };
      break;
    case 'like':
      out = { ...expr, operand: e(expr.operand), pattern: e(expr.pattern) };
      break;
    case 'in-list':
      out = { ...expr, operand: e(expr.operand), values: expr.values.map(e) };
      break;
    case 'in-subquery':
      out = {
        ...expr,
        operand: e(expr.operand),
        query: t.nested ? t.nested(expr.query) : transformQuery(expr.query, t),
      };
      break;
    case 'exists':
    case 'subquery':
    case 'array-subquery':
      out = { ...expr, query: t.nested ? t.nested(expr.query) : transformQuery(expr.query, t) };
      break;
    case 'between':
      out = { ...expr, operand: e(expr.operand), low: e(expr.low), high: e(expr.high) };
      break;
    case 'is-null':
      out = { ...expr, operand: e(expr.operand) };
      break;
    case 'aggregate':
      out = { ...expr, arg: e(expr.arg) };
      break;
    case 'function':
      out = { ...expr, args: expr.args.map(e), orderBy: expr.orderBy.map((o) => ({ ...o, expr: e(o.expr) })) };
      break;
    case 'array':
      out = { ...expr, items: expr.items.map(e) };
      break;
    case 'filtered': {
      const call = e(expr.call);
      out = {
        ...expr,
        call: call.kind === 'aggregate' || call.kind === 'function' ? call : expr.call,
        where: e(expr.where),
      };
      break;
    }
    case 'extract':
      out = { ...expr, source: e(expr.source) };
      break;
    case 'window': {
      const call = e(expr.call);
      out = {
        ...expr,
        // A callback that turns the call into something else leaves the call as it was.
        call: call.kind === 'aggregate' || call.kind === 'function' || call.kind === 'filtered' ? call : expr.call,
        partitionBy: expr.partitionBy.map(e),
        orderBy: expr.orderBy.map((o) => ({ ...o, expr: e(o.expr) })),
      };
      break;
    }
  }
  return t.expr ? t.expr(out) : out;
}
