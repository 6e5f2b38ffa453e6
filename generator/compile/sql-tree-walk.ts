/**
 * Walking and rewriting the SQL tree: the children of a node, a search, and a bottom-up
 * rewrite that rebuilds only what changed. The rules in `rules/` are written with these.
 */
import type { SqlExpr, SqlFromItem, SqlJoin, SqlOrderItem, SqlQuery, SqlSelect, SqlSubquery } from './sql-tree.ts';

/** The direct sub-expressions of an expression (a subquery's query is not one: see `someExpr`). */
export function exprChildren(e: SqlExpr): readonly SqlExpr[] {
  switch (e.kind) {
    case 'column':
    case 'literal':
    case 'star':
    case 'interval':
    case 'subquery':
      return [];
    case 'call':
      return [...e.args, ...(e.filter ?? []), ...(e.over ? [...e.over.partitionBy, ...e.over.orderBy.map((o) => o.expr)] : [])];
    case 'binary':
      return [e.left, e.right];
    case 'logic':
      return e.args;
    case 'not':
    case 'isNull':
    case 'any':
    case 'cast':
    case 'extract':
    case 'paren':
      return [e.arg];
    case 'in':
      return Array.isArray(e.values) ? [e.arg, ...(e.values as readonly SqlExpr[])] : [e.arg, e.values as SqlSubquery];
    case 'like':
      return [e.arg, e.pattern];
    case 'between':
      return [e.arg, e.low, e.high];
    case 'exists':
    case 'array':
      return [e.query];
    case 'case':
      return [...(e.operand ? [e.operand] : []), ...e.whens.flatMap((w) => [w.when, w.then]), ...(e.else ? [e.else] : [])];
  }
}

/** The expressions a SELECT holds directly, in every clause (not those of its nested queries). */
export function selectExprs(q: SqlSelect): SqlExpr[] {
  return [
    ...q.columns.map((c) => c.expr),
    ...q.joins.flatMap((j) => [...j.on, ...(j.item.kind === 'function' ? [j.item.call] : [])]),
    ...(q.from.kind === 'function' ? [q.from.call] : []),
    ...q.where,
    ...q.groupBy,
    ...q.having,
    ...q.orderBy.map((o) => o.expr),
  ];
}

/** The queries nested directly in a query: CTEs, derived tables, set arms (not subquery expressions). */
export function childQueries(q: SqlQuery): SqlQuery[] {
  if (q.kind === 'set') return [q.left, q.right];
  const items = [q.from, ...q.joins.map((j) => j.item)];
  return [...(q.with ?? []).map((c) => c.query), ...items.flatMap((i) => (i.kind === 'derived' ? [i.query] : []))];
}

/** Whether some expression in `e` (subqueries included) meets `test`. */
export function someExpr(e: SqlExpr, test: (e: SqlExpr) => boolean): boolean {
  if (test(e)) return true;
  if (e.kind === 'subquery') return someInQuery(e.query, test);
  return exprChildren(e).some((c) => someExpr(c, test));
}

/** Whether some expression anywhere in `q` (nested queries included) meets `test`. */
export function someInQuery(q: SqlQuery, test: (e: SqlExpr) => boolean): boolean {
  if (q.kind === 'set') return someInQuery(q.left, test) || someInQuery(q.right, test) || q.orderBy.some((o) => someExpr(o.expr, test));
  return selectExprs(q).some((e) => someExpr(e, test)) || childQueries(q).some((c) => someInQuery(c, test));
}

/** What a rewrite does at each node, bottom-up: children first, then the node itself. */
export interface TreeRewrite {
  expr?(e: SqlExpr): SqlExpr;
  select?(q: SqlSelect): SqlSelect;
}

function same<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** Rewrites every expression and every SELECT of a query, nested ones first. */
export function rewriteQuery(q: SqlQuery, r: TreeRewrite): SqlQuery {
  if (q.kind === 'set') {
    const left = rewriteQuery(q.left, r);
    const right = rewriteQuery(q.right, r);
    const orderBy = rewriteOrder(q.orderBy, r);
    return left === q.left && right === q.right && orderBy === q.orderBy ? q : { ...q, left, right, orderBy };
  }
  return rewriteSelect(q, r);
}

function rewriteOrder(items: readonly SqlOrderItem[], r: TreeRewrite): readonly SqlOrderItem[] {
  const out = items.map((o) => {
    const expr = rewriteExpr(o.expr, r);
    return expr === o.expr ? o : { ...o, expr };
  });
  return same(out, items) ? items : out;
}

function rewriteList(list: readonly SqlExpr[], r: TreeRewrite): readonly SqlExpr[] {
  const out = list.map((e) => rewriteExpr(e, r));
  return same(out, list) ? list : out;
}

function rewriteItem(item: SqlFromItem, r: TreeRewrite): SqlFromItem {
  if (item.kind === 'derived') {
    const query = rewriteQuery(item.query, r);
    return query === item.query ? item : { ...item, query };
  }
  if (item.kind === 'function') {
    const c = rewriteExpr(item.call, r);
    return c === item.call || c.kind !== 'call' ? item : { ...item, call: c };
  }
  return item;
}

/** Rewrites one SELECT: its nested queries and expressions, then the SELECT itself. */
export function rewriteSelect(q: SqlSelect, r: TreeRewrite): SqlSelect {
  const withs = q.with?.map((c) => {
    const query = rewriteQuery(c.query, r);
    return query === c.query ? c : { ...c, query };
  });
  const columns = q.columns.map((c) => {
    const expr = rewriteExpr(c.expr, r);
    return expr === c.expr ? c : { ...c, expr };
  });
  const from = rewriteItem(q.from, r);
  const joins = q.joins.map((j): SqlJoin => {
    const item = rewriteItem(j.item, r);
    const on = rewriteList(j.on, r);
    return item === j.item && on === j.on ? j : { ...j, item, on };
  });
  const where = rewriteList(q.where, r);
  const groupBy = rewriteList(q.groupBy, r);
  const having = rewriteList(q.having, r);
  const orderBy = rewriteOrder(q.orderBy, r);
  const changed =
    (withs !== undefined && !same(withs, q.with ?? [])) ||
    !same(columns, q.columns) ||
    from !== q.from ||
    !same(joins, q.joins) ||
    where !== q.where ||
    groupBy !== q.groupBy ||
    having !== q.having ||
    orderBy !== q.orderBy;
  const rebuilt: SqlSelect = changed ? { ...q, ...(withs ? { with: withs } : {}), columns, from, joins, where, groupBy, having, orderBy } : q;
  return r.select ? r.select(rebuilt) : rebuilt;
}

/** Rewrites an expression bottom-up, subqueries included. */
export function rewriteExpr(e: SqlExpr, r: TreeRewrite): SqlExpr {
  const inner = rewriteChildren(e, r);
  return r.expr ? r.expr(inner) : inner;
}

function rewriteChildren(e: SqlExpr, r: TreeRewrite): SqlExpr {
  const x = (c: SqlExpr): SqlExpr => rewriteExpr(c, r);
  switch (e.kind) {
    case 'column':
    case 'literal':
    case 'star':
    case 'interval':
      return e;
    case 'subquery': {
      const query = rewriteQuery(e.query, r);
      return query === e.query ? e : { ...e, query };
    }
    case 'call': {
      const args = rewriteList(e.args, r);
      const filter = e.filter ? rewriteList(e.filter, r) : undefined;
      const partitionBy = e.over ? rewriteList(e.over.partitionBy, r) : undefined;
      const orderBy = e.over ? rewriteOrder(e.over.orderBy, r) : undefined;
      if (args === e.args && filter === e.filter && partitionBy === e.over?.partitionBy && orderBy === e.over?.orderBy) return e;
      return { ...e, args, ...(filter ? { filter } : {}), ...(e.over ? { over: { partitionBy: partitionBy!, orderBy: orderBy! } } : {}) };
    }
    case 'binary': {
      const left = x(e.left);
      const right = x(e.right);
      return left === e.left && right === e.right ? e : { ...e, left, right };
    }
    case 'logic': {
      const args = rewriteList(e.args, r);
      return args === e.args ? e : { ...e, args };
    }
    case 'not':
    case 'isNull':
    case 'any':
    case 'cast':
    case 'extract':
    case 'paren': {
      const arg = x(e.arg);
      return arg === e.arg ? e : ({ ...e, arg } as SqlExpr);
    }
    case 'in': {
      const arg = x(e.arg);
      const values = Array.isArray(e.values) ? rewriteList(e.values as readonly SqlExpr[], r) : x(e.values as SqlSubquery);
      return arg === e.arg && values === e.values ? e : ({ ...e, arg, values } as SqlExpr);
    }
    case 'like': {
      const arg = x(e.arg);
      const pattern = x(e.pattern);
      return arg === e.arg && pattern === e.pattern ? e : { ...e, arg, pattern };
    }
    case 'between': {
      const arg = x(e.arg);
      const low = x(e.low);
      const high = x(e.high);
      return arg === e.arg && low === e.low && high === e.high ? e : { ...e, arg, low, high };
    }
    case 'exists':
    case 'array': {
      const query = x(e.query);
      return query === e.query || query.kind !== 'subquery' ? e : { ...e, query };
    }
    case 'case': {
      const operand = e.operand ? x(e.operand) : undefined;
      const whens = e.whens.map((w) => {
        const when = x(w.when);
        const then = x(w.then);
        return when === w.when && then === w.then ? w : { when, then };
      });
      const els = e.else ? x(e.else) : undefined;
      if (operand === e.operand && same(whens, e.whens) && els === e.else) return e;
      return { kind: 'case', ...(operand ? { operand } : {}), whens, ...(els ? { else: els } : {}) };
    }
  }
}

/** The table aliases an expression reads (`alias.column`), subqueries included. */
export function aliasesRead(e: SqlExpr, out = new Set<string>()): Set<string> {
  someExpr(e, (x) => {
    if (x.kind === 'column' && x.table !== undefined) out.add(x.table);
    return false;
  });
  return out;
}

/** Whether an expression reads a column of `alias`. */
export function readsAlias(e: SqlExpr, alias: string): boolean {
  return someExpr(e, (x) => x.kind === 'column' && x.table === alias);
}

/** Whether two expressions are the same tree. */
export function sameSqlExpr(a: SqlExpr, b: SqlExpr): boolean {
  if (a === b) return true;
  if (a.kind === 'column' && b.kind === 'column') return a.table === b.table && a.name === b.name;
  return JSON.stringify(a) === JSON.stringify(b);
}
