/**
 * The SQL the compiler emits, as a typed tree: what lowering builds, what the rules in
 * `rules/` rewrite, and what `print-sql.ts` writes once. Every node is a readonly plain
 * object with a literal `kind`; nodes are never mutated, a rewrite returns new nodes (and
 * shares the parts it did not touch).
 *
 * The tree holds only what we emit: one SELECT (with WITH, joins, grouping, ordering), set
 * operations, and the expressions PostgreSQL spells for them. Names are stored bare and
 * quoted by the printer. Brackets are the printer's business, chosen by precedence; a
 * `paren` node asks for brackets that precedence would not need (the rule `tidy-brackets`
 * removes them).
 *
 * @example
 * // SELECT p.title FROM product AS p WHERE p.price > 10
 * const q: SqlSelect = { ...emptySelect(table('product', 'p')), columns: [{ expr: column('p', 'title') }], where: [binary('>', column('p', 'price'), literal(10))] };
 */

export type SqlLiteralValue = string | number | boolean | null;

/** `alias.name`, or a bare `name` (an output column of the query around). */
export interface SqlColumn {
  readonly kind: 'column';
  readonly table?: string;
  readonly name: string;
}

/** A constant; `text` spells a number as written (`100.0`) where the value alone would not. */
export interface SqlLiteral {
  readonly kind: 'literal';
  readonly value: SqlLiteralValue;
  readonly text?: string;
}

/** `*`, as the argument of count(*). */
export interface SqlStar {
  readonly kind: 'star';
}

export interface SqlWindowSpec {
  readonly partitionBy: readonly SqlExpr[];
  readonly orderBy: readonly SqlOrderItem[];
}

/** A function call: `round(x, 2)`, `count(DISTINCT x) FILTER (WHERE …)`, `rank() OVER (…)`. */
export interface SqlCall {
  readonly kind: 'call';
  readonly name: string;
  readonly args: readonly SqlExpr[];
  readonly distinct?: boolean;
  /** FILTER (WHERE …): its conjuncts. */
  readonly filter?: readonly SqlExpr[];
  readonly over?: SqlWindowSpec;
}

export type SqlBinaryOperator = '=' | '<>' | '<' | '<=' | '>' | '>=' | '+' | '-' | '*' | '/' | '||' | '@>';

export interface SqlBinary {
  readonly kind: 'binary';
  readonly op: SqlBinaryOperator;
  readonly left: SqlExpr;
  readonly right: SqlExpr;
}

/** AND or OR over two or more conditions. */
export interface SqlLogic {
  readonly kind: 'logic';
  readonly op: 'AND' | 'OR';
  readonly args: readonly SqlExpr[];
}

export interface SqlNot {
  readonly kind: 'not';
  readonly arg: SqlExpr;
}

export interface SqlIsNull {
  readonly kind: 'isNull';
  readonly arg: SqlExpr;
  readonly negated: boolean;
}

/** `x IN (1, 2)`, or `x IN (SELECT …)`. */
export interface SqlIn {
  readonly kind: 'in';
  readonly arg: SqlExpr;
  readonly values: readonly SqlExpr[] | SqlSubquery;
  readonly negated: boolean;
}

export interface SqlLike {
  readonly kind: 'like';
  readonly arg: SqlExpr;
  readonly pattern: SqlExpr;
  readonly caseInsensitive: boolean;
  readonly negated: boolean;
  /** SQLite's case-sensitive `GLOB` (its pattern written with `*` and `?`) instead of LIKE. */
  readonly glob?: boolean;
}

export interface SqlBetween {
  readonly kind: 'between';
  readonly arg: SqlExpr;
  readonly low: SqlExpr;
  readonly high: SqlExpr;
  readonly negated: boolean;
}

/** `ANY (array)`, the right side of `v = ANY (arr)`. */
export interface SqlAny {
  readonly kind: 'any';
  readonly arg: SqlExpr;
}

/**
 * A subquery as a value: `(SELECT …)`. `layout: 'line'` writes a short one on one line
 * (`(SELECT count(*) FROM t AS x WHERE x.a = y.id)`); `block` lays it out like a query.
 */
export interface SqlSubquery {
  readonly kind: 'subquery';
  readonly query: SqlQuery;
  readonly layout: 'line' | 'block';
}

export interface SqlExists {
  readonly kind: 'exists';
  readonly query: SqlSubquery;
  readonly negated: boolean;
}

/** `ARRAY(SELECT …)`. */
export interface SqlArray {
  readonly kind: 'array';
  readonly query: SqlSubquery;
}

export interface SqlCase {
  readonly kind: 'case';
  /** Simple CASE: compared with each `when`. */
  readonly operand?: SqlExpr;
  readonly whens: readonly { readonly when: SqlExpr; readonly then: SqlExpr }[];
  readonly else?: SqlExpr;
}

/** `CAST(x AS t)`, or `x::t` (`colons`). */
export interface SqlCast {
  readonly kind: 'cast';
  readonly arg: SqlExpr;
  readonly type: string;
  readonly colons?: boolean;
}

/** `EXTRACT(YEAR FROM x)`. */
export interface SqlExtract {
  readonly kind: 'extract';
  readonly field: string;
  readonly arg: SqlExpr;
}

/** `INTERVAL '3 months'`. */
export interface SqlInterval {
  readonly kind: 'interval';
  readonly text: string;
}

/** Brackets precedence does not need, kept as lowering wrote them until `tidy-brackets`. */
export interface SqlParen {
  readonly kind: 'paren';
  readonly arg: SqlExpr;
}

export type SqlExpr =
  | SqlColumn
  | SqlLiteral
  | SqlStar
  | SqlCall
  | SqlBinary
  | SqlLogic
  | SqlNot
  | SqlIsNull
  | SqlIn
  | SqlLike
  | SqlBetween
  | SqlAny
  | SqlSubquery
  | SqlExists
  | SqlArray
  | SqlCase
  | SqlCast
  | SqlExtract
  | SqlInterval
  | SqlParen;

export type SqlExprKind = SqlExpr['kind'];

export interface SqlOrderItem {
  readonly expr: SqlExpr;
  readonly desc?: boolean;
  readonly nulls?: 'first' | 'last';
}

export interface SqlFromTable {
  readonly kind: 'table';
  readonly name: string;
  readonly alias: string;
}

export interface SqlFromDerived {
  readonly kind: 'derived';
  readonly query: SqlQuery;
  readonly alias: string;
}

/** A set-returning function in FROM (`unnest(…) AS x(value)`), implicitly lateral. */
export interface SqlFromFunction {
  readonly kind: 'function';
  readonly call: SqlCall;
  readonly alias: string;
  /** The name given to its column; absent where the function names its own (SQLite's `json_each`). */
  readonly column?: string;
}

export type SqlFromItem = SqlFromTable | SqlFromDerived | SqlFromFunction;

export interface SqlJoin {
  readonly type: 'JOIN' | 'LEFT JOIN' | 'CROSS JOIN';
  readonly item: SqlFromItem;
  /** ON conditions, ANDed; empty for CROSS JOIN. */
  readonly on: readonly SqlExpr[];
  /**
   * Each row meets at most one row of the item, and the item's columns are determined by
   * the outer columns the ON clause reads (a join on a primary key). Such a LEFT JOIN adds
   * nothing when its alias is read nowhere else.
   */
  readonly unique?: boolean;
}

export interface SqlSelectColumn {
  readonly expr: SqlExpr;
  readonly alias?: string;
}

export interface SqlCte {
  readonly name: string;
  readonly query: SqlQuery;
}

export interface SqlSelect {
  readonly kind: 'select';
  /** Common table expressions, printed before the SELECT (`WITH name AS (…)`). */
  readonly with?: readonly SqlCte[];
  readonly distinct: boolean;
  readonly columns: readonly SqlSelectColumn[];
  readonly from: SqlFromItem;
  readonly joins: readonly SqlJoin[];
  /** WHERE conjuncts. */
  readonly where: readonly SqlExpr[];
  readonly groupBy: readonly SqlExpr[];
  /** HAVING conjuncts. */
  readonly having: readonly SqlExpr[];
  readonly orderBy: readonly SqlOrderItem[];
  readonly limit?: number;
}

export type SqlSetOperator = 'UNION' | 'UNION ALL' | 'INTERSECT' | 'EXCEPT';

export interface SqlSet {
  readonly kind: 'set';
  readonly op: SqlSetOperator;
  readonly left: SqlQuery;
  readonly right: SqlQuery;
  readonly orderBy: readonly SqlOrderItem[];
  readonly limit?: number;
}

export type SqlQuery = SqlSelect | SqlSet;

// ---- constructors ----

export const column = (table: string | undefined, name: string): SqlColumn =>
  table === undefined ? { kind: 'column', name } : { kind: 'column', table, name };
export const literal = (value: SqlLiteralValue): SqlLiteral => ({ kind: 'literal', value });
export const TRUE: SqlLiteral = literal(true);
export const FALSE: SqlLiteral = literal(false);
export const STAR: SqlStar = { kind: 'star' };
export const call = (name: string, ...args: SqlExpr[]): SqlCall => ({ kind: 'call', name, args });
export const binary = (op: SqlBinaryOperator, left: SqlExpr, right: SqlExpr): SqlBinary => ({
  kind: 'binary',
  op,
  left,
  right,
});
export const paren = (arg: SqlExpr): SqlParen => ({ kind: 'paren', arg });
export const not = (arg: SqlExpr): SqlNot => ({ kind: 'not', arg });
export const isNull = (arg: SqlExpr, negated: boolean): SqlIsNull => ({ kind: 'isNull', arg, negated });
export const table = (name: string, alias: string): SqlFromTable => ({ kind: 'table', name, alias });

/** A SELECT with nothing but its FROM item; spread it and set the clauses it has. */
export function emptySelect(from: SqlFromItem): SqlSelect {
  return {
    kind: 'select',
    distinct: false,
    columns: [],
    from,
    joins: [],
    where: [],
    groupBy: [],
    having: [],
    orderBy: [],
  };
}

/** Whether an expression is the literal TRUE (or FALSE, with `value` false). */
export function isBoolean(e: SqlExpr | undefined, value: boolean): boolean {
  return e !== undefined && e.kind === 'literal' && e.value === value;
}
