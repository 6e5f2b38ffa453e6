/**
 * SQLStructEval's alias normalization: table aliases are renamed `t1`, `t2`, … in order of
 * first appearance, and every column reference through an alias follows, so
 * `FROM singer AS T1 JOIN concert AS T2 ON T1.id = T2.sid` and
 * `FROM singer AS s JOIN concert AS c ON s.id = c.sid` become the same text.
 *
 * Aliases are scoped like SQL: a select's FROM aliases are visible in that select and in
 * its subqueries (correlation), and an inner alias hides an outer one of the same name.
 * Numbering runs over the whole statement: a select's FROM items first (a derived table's
 * insides before its own alias), then the subqueries of its clauses in written order.
 * Tables without an alias keep their name, and references through a table name are kept.
 */
import type { Expr, FromClause, Query, SelectQuery, TableSource } from '../../sql/sql-ast.ts';
import { transformQuery } from '../query-transform.ts';

type Scope = ReadonlyMap<string, string>;

export function normalizeTableAliases(query: Query): Query {
  // A new alias must not be the name of a table the statement reads, or `t1.a` could mean
  // either (`FROM t1 JOIN t2 AS x` would print `FROM t1 JOIN t2 AS t1`).
  const taken = tableNames(query);
  let counter = 0;
  const fresh = (): string => {
    let name: string;
    do name = `t${++counter}`;
    while (taken.has(name));
    return name;
  };

  const renameQuery = (q: Query, outer: readonly Scope[]): Query => {
    if (q.kind === 'with') {
      // CTE names are relation names, not aliases: they stay, like table names.
      const body = renameQuery(q.body, outer);
      return {
        ...q,
        ctes: q.ctes.map((cte) => ({ ...cte, query: renameQuery(cte.query, outer) })),
        body: body.kind === 'with' ? q.body : body,
      };
    }
    return q.kind === 'select'
      ? renameSelect(q, outer)
      : {
          ...q,
          head: renameSelect(q.head, outer),
          tail: q.tail.map((arm) => ({ op: arm.op, query: renameSelect(arm.query, outer) })),
        };
  };

  const renameSelect = (select: SelectQuery, outer: readonly Scope[]): SelectQuery => {
    const scope = new Map<string, string>();
    const renameSource = (source: TableSource): TableSource => {
      // A derived table sees only the outer scopes, not its siblings; a table function's
      // arguments may refer to the tables before it (LATERAL), so they see this scope.
      const base: TableSource =
        source.kind === 'derived'
          ? { ...source, query: renameQuery(source.query, outer) }
          : source.kind === 'table-function'
            ? {
                ...source,
                call: renameExpr(source.call, [scope, ...outer], lookupIn([scope, ...outer])) as typeof source.call,
              }
            : source;
      if (base.alias === null) return base;
      const renamed = fresh();
      scope.set(base.alias.toLowerCase(), renamed);
      return { ...base, alias: renamed };
    };
    let from: FromClause | null = null;
    if (select.from) {
      const first = renameSource(select.from.first);
      const joins = select.from.joins.map((j) => ({ kind: j.kind, source: renameSource(j.source), on: j.on }));
      from = { first, joins };
    }
    const scopes = [scope, ...outer];
    const lookup = lookupIn(scopes);
    // Subqueries are renamed as they are met, so their aliases number in written order.
    const e = (expr: Expr): Expr => renameExpr(expr, scopes, lookup);
    const renamedFrom: FromClause | null = from
      ? { first: from.first, joins: from.joins.map((j) => ({ ...j, on: j.on ? e(j.on) : null })) }
      : null;
    return {
      ...select,
      columns: select.columns.map((c) => ({ expr: e(c.expr), alias: c.alias })),
      from: renamedFrom,
      where: select.where ? e(select.where) : null,
      groupBy: select.groupBy.map(e),
      having: select.having ? e(select.having) : null,
      orderBy: select.orderBy.map((o) => ({ ...o, expr: e(o.expr) })),
      limit: select.limit,
      offset: select.offset,
    };
  };

  const renameExpr = (expr: Expr, scopes: readonly Scope[], lookup: (t: string) => string | undefined): Expr => {
    // Top-down, unlike transformExpr, so each subquery gets this select's scope chain.
    switch (expr.kind) {
      case 'subquery':
      case 'exists':
      case 'array-subquery':
        return { ...expr, query: renameQuery(expr.query, scopes) };
      case 'in-subquery':
        return { ...expr, operand: renameExpr(expr.operand, scopes, lookup), query: renameQuery(expr.query, scopes) };
      case 'column':
      case 'star': {
        const renamed = expr.table === null ? undefined : lookup(expr.table);
        return renamed ? { ...expr, table: renamed } : expr;
      }
      default:
        return mapChildren(expr, (child) => renameExpr(child, scopes, lookup));
    }
  };

  return renameQuery(query, []);
}

/** Lower-case names of the tables a statement reads (whole and last part), at any depth. */
function tableNames(query: Query): Set<string> {
  const names = new Set<string>();
  transformQuery(query, {
    select: (select) => {
      const sources = select.from ? [select.from.first, ...select.from.joins.map((j) => j.source)] : [];
      for (const source of sources) {
        if (source.kind !== 'table') continue;
        names.add(source.name.toLowerCase());
        names.add((source.name.split('.').pop() as string).toLowerCase());
      }
      return select;
    },
  });
  return names;
}

function lookupIn(scopes: readonly Scope[]): (table: string) => string | undefined {
  return (table) => {
    for (const s of scopes) {
      const hit = s.get(table.toLowerCase());
      if (hit) return hit;
    }
    return undefined;
  };
}

/** Rebuilds an expression with `f` applied to its direct children (not nested queries). */
function mapChildren(expr: Expr, f: (child: Expr) => Expr): Expr {
  switch (expr.kind) {
    case 'comparison':
    case 'arithmetic':
    case 'logical':
    case 'operator':
      return { ...expr, left: f(expr.left), right: f(expr.right) } as Expr;
    case 'not':
    case 'negate':
    case 'is-null':
    case 'cast':
      return { ...expr, operand: f(expr.operand) };
    case 'case':
      return {
        ...expr,
        operand: expr.operand ? f(expr.operand) : null,
        whens: expr.whens.map((w) => ({ when: f(w.when), then: f(w.then) })),
        else: expr.else ? f(expr.else) : null,
      };
    case 'like':
      return { ...expr, operand: f(expr.operand), pattern: f(expr.pattern) };
    case 'in-list':
      return { ...expr, operand: f(expr.operand), values: expr.values.map(f) };
    case 'between':
      return { ...expr, operand: f(expr.operand), low: f(expr.low), high: f(expr.high) };
    case 'aggregate':
      return { ...expr, arg: f(expr.arg) };
    case 'function':
      return { ...expr, args: expr.args.map(f), orderBy: expr.orderBy.map((o) => ({ ...o, expr: f(o.expr) })) };
    case 'array':
      return { ...expr, items: expr.items.map(f) };
    default:
      return expr;
  }
}
