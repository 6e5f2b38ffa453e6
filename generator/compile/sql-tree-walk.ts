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
      return [
        ...e.args,
        ...(e.filter ?? []),
        ...(e.over ? [...e.over.partitionBy, ...e.over.orderBy.map((o) => o.expr)] : []),
      ];
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
      return [
        ...(e.operand ? [e.operand] : []),
        ...e.whens.flatMap((w) => [w.when, w.then]),
        ...(e.else ? [e.else] : []),
      ];
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
  if (q.kind === 'set')
    return someInQuery(q.left, test) || someInQuery(q.right, test) || q.orderBy.some((o) => someExpr(o.expr, test));
  return selectExprs(q).some((e) => someExpr(e, test)) || childQueries(q).some((c) => someInQuery(c, test));
}

/** What a rewrite does at each node, bottom-up: children first, then the node itself. */
export interface TreeRewrite {
  expr?(e: SqlExpr): SqlExpr;
  select?(q: SqlSelect): SqlSelect;
}

/** `list` with `f` applied to each item: the same array when no item changed (nothing allocated). */
function mapSame<T>(list: readonly T[], f: (item: T) => T): readonly T[] {
  let out: T[] | undefined;
  for (let i = 0; i < list.length; i++) {
    const item = list[i] as T;
    const x = f(item);
    if (x !== item) (out ??= list.slice())[i] = x;
  }
  return out ?? list;
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
  return mapSame(items, (o) => {
    const expr = rewriteExpr(o.expr, r);
    return expr === o.expr ? o : { ...o, expr };
  });
}

function rewriteList(list: readonly SqlExpr[], r: TreeRewrite): readonly SqlExpr[] {
  return mapSame(list, (e) => rewriteExpr(e, r));
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
  const withs = q.with
    ? mapSame(q.with, (c) => {
        const query = rewriteQuery(c.query, r);
        return query === c.query ? c : { ...c, query };
      })
    : undefined;
  const columns = mapSame(q.columns, (c) => {
    const expr = rewriteExpr(c.expr, r);
    return expr === c.expr ? c : { ...c, expr };
  });
  const from = rewriteItem(q.from, r);
  const joins = mapSame(q.joins, (j): SqlJoin => {
    const item = rewriteItem(j.item, r);
    const on = rewriteList(j.on, r);
    return item === j.item && on === j.on ? j : { ...j, item, on };
  });
  const where = rewriteList(q.where, r);
  const groupBy = rewriteList(q.groupBy, r);
  const having = rewriteList(q.having, r);
  const orderBy = rewriteOrder(q.orderBy, r);
  const changed =
    withs !== q.with ||
    columns !== q.columns ||
    from !== q.from ||
    joins !== q.joins ||
    where !== q.where ||
    groupBy !== q.groupBy ||
    having !== q.having ||
    orderBy !== q.orderBy;
  const rebuilt: SqlSelect = changed
    ? { ...q, ...(withs ? { with: withs } : {}), columns, from, joins, where, groupBy, having, orderBy }
    : q;
  return r.select ? r.select(rebuilt) : rebuilt;
}

/** Rewrites an expression bottom-up, subqueries included. */
export function rewriteExpr(e: SqlExpr, r: TreeRewrite): SqlExpr {
  const inner = rewriteChildren(e, r);
  return r.expr ? r.expr(inner) : inner;
}

function rewriteChildren(e: SqlExpr, r: TreeRewrite): SqlExpr {
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
      if (args === e.args && filter === e.filter && partitionBy === e.over?.partitionBy && orderBy === e.over?.orderBy)
        return e;
      return {
        ...e,
        args,
        ...(filter ? { filter } : {}),
        ...(e.over ? { over: { partitionBy: partitionBy!, orderBy: orderBy! } } : {}),
      };
    }
    case 'binary': {
      const left = rewriteExpr(e.left, r);
      const right = rewriteExpr(e.right, r);
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
      const arg = rewriteExpr(e.arg, r);
      return arg === e.arg ? e : ({ ...e, arg } as SqlExpr);
    }
    case 'in': {
      const arg = rewriteExpr(e.arg, r);
      const values = Array.isArray(e.values)
        ? rewriteList(e.values as readonly SqlExpr[], r)
        : rewriteExpr(e.values as SqlSubquery, r);
      return arg === e.arg && values === e.values ? e : ({ ...e, arg, values } as SqlExpr);
    }
    case 'like': {
      const arg = rewriteExpr(e.arg, r);
      const pattern = rewriteExpr(e.pattern, r);
      return arg === e.arg && pattern === e.pattern ? e : { ...e, arg, pattern };
    }
    case 'between': {
      const arg = rewriteExpr(e.arg, r);
      const low = rewriteExpr(e.low, r);
      const high = rewriteExpr(e.high, r);
      return arg === e.arg && low === e.low && high === e.high ? e : { ...e, arg, low, high };
    }
    case 'exists':
    case 'array': {
      const query = rewriteExpr(e.query, r);
      return query === e.query || query.kind !== 'subquery' ? e : { ...e, query };
    }
    case 'case': {
      const operand = e.operand ? rewriteExpr(e.operand, r) : undefined;
      const whens = mapSame(e.whens, (w) => {
        const when = rewriteExpr(w.when, r);
        const then = rewriteExpr(w.then, r);
        return when === w.when && then === w.then ? w : { when, then };
      });
      const els = e.else ? rewriteExpr(e.else, r) : undefined;
      if (operand === e.operand && whens === e.whens && els === e.else) return e;
      return { kind: 'case', ...(operand ? { operand } : {}), whens, ...(els ? { else: els } : {}) };
    }
  }
}

/** Whether an expression reads a column of `alias`. */
export function readsAlias(e: SqlExpr, alias: string): boolean {
  return someExpr(e, (x) => x.kind === 'column' && x.table === alias);
}

/** What a tree holds that some rule rewrites: the runner skips a rule whose features are absent. */
export interface TreeFeatures {
  /** A searched CASE with an arm whose condition is TRUE or FALSE. */
  constantCase: boolean;
  /** A LEFT JOIN marked unique. */
  uniqueLeftJoin: boolean;
  /** A SELECT from a derived table with a WHERE. */
  filteredDerived: boolean;
  not: boolean;
  /** A coalesce of one argument. */
  singleCoalesce: boolean;
  /** A bracket node, or an AND/OR. */
  brackets: boolean;
  /** A clause (WHERE, HAVING, ON, FILTER) of two conditions or more. */
  conditionList: boolean;
  /** A column aliased to its own name. */
  selfAlias: boolean;
}

export type TreeFeature = keyof TreeFeatures;

/** One pass over a tree, noting its features. */
export function treeFeatures(q: SqlQuery): TreeFeatures {
  const f: TreeFeatures = {
    constantCase: false,
    uniqueLeftJoin: false,
    filteredDerived: false,
    not: false,
    singleCoalesce: false,
    brackets: false,
    conditionList: false,
    selfAlias: false,
  };
  scanQuery(q, f);
  return f;
}

function scanQuery(q: SqlQuery, f: TreeFeatures): void {
  if (q.kind === 'set') {
    scanQuery(q.left, f);
    scanQuery(q.right, f);
    for (const o of q.orderBy) scanExpr(o.expr, f);
    return;
  }
  for (const c of q.with ?? []) scanQuery(c.query, f);
  for (const c of q.columns) {
    if (c.alias !== undefined && c.expr.kind === 'column' && c.expr.name === c.alias) f.selfAlias = true;
    scanExpr(c.expr, f);
  }
  scanItem(q.from, f);
  if (q.from.kind === 'derived' && q.where.length > 0) f.filteredDerived = true;
  for (const j of q.joins) {
    if (j.type === 'LEFT JOIN' && j.unique === true) f.uniqueLeftJoin = true;
    if (j.on.length > 1) f.conditionList = true;
    scanItem(j.item, f);
    for (const e of j.on) scanExpr(e, f);
  }
  if (q.where.length > 1 || q.having.length > 1) f.conditionList = true;
  for (const e of q.where) scanExpr(e, f);
  for (const e of q.groupBy) scanExpr(e, f);
  for (const e of q.having) scanExpr(e, f);
  for (const o of q.orderBy) scanExpr(o.expr, f);
}

function scanItem(item: SqlFromItem, f: TreeFeatures): void {
  if (item.kind === 'derived') scanQuery(item.query, f);
  else if (item.kind === 'function') scanExpr(item.call, f);
}

function scanExpr(e: SqlExpr, f: TreeFeatures): void {
  switch (e.kind) {
    case 'subquery':
      scanQuery(e.query, f);
      return;
    case 'case':
      if (
        e.operand === undefined &&
        e.whens.some((w) => w.when.kind === 'literal' && typeof w.when.value === 'boolean')
      )
        f.constantCase = true;
      break;
    case 'not':
      f.not = true;
      break;
    case 'paren':
    case 'logic':
      f.brackets = true;
      break;
    case 'call':
      if (e.name === 'coalesce' && e.args.length === 1) f.singleCoalesce = true;
      if ((e.filter?.length ?? 0) > 1) f.conditionList = true;
      break;
    default:
      break;
  }
  for (const c of exprChildren(e)) scanExpr(c, f);
}
