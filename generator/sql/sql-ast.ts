/**
 * equisql's own SQL AST: the subset of SELECT that text-to-SQL data uses, as readonly
 * discriminated unions. The parser adapter builds it, the printer prints it, and the
 * grammar and structure stages read it; nothing outside `parser-adapter.ts` sees the
 * parser's loose objects.
 *
 * Trees are never mutated: transforms (canonicalization) build new nodes.
 */

/**
 * A whole statement: one SELECT, a chain of SELECTs joined by set operators, or either of
 * them after a `WITH` list of common table expressions.
 */
export type Query = SelectQuery | CompoundQuery | WithQuery;

/**
 * `WITH a AS (…), b(x, y) AS (…) body`. Each CTE sees the ones listed before it (RECURSIVE
 * is not read), the body sees them all. A CTE body may itself be a compound or a WITH.
 */
export interface WithQuery {
  readonly kind: 'with';
  readonly ctes: readonly CommonTableExpression[];
  readonly body: SelectQuery | CompoundQuery;
}

export interface CommonTableExpression {
  readonly name: string;
  /** Column names after the CTE name: `b(x, y)`; empty when there are none. */
  readonly columns: readonly string[];
  readonly query: Query;
}

/** The SQL dialects the adapter can parse. */
export type Dialect = 'postgresql' | 'sqlite' | 'mysql';

export interface SelectQuery {
  readonly kind: 'select';
  readonly distinct: boolean;
  readonly columns: readonly SelectItem[];
  /** `null` for a FROM-less SELECT. */
  readonly from: FromClause | null;
  readonly where: Expr | null;
  readonly groupBy: readonly Expr[];
  readonly having: Expr | null;
  readonly orderBy: readonly OrderItem[];
  readonly limit: Expr | null;
  readonly offset: Expr | null;
}

export type SetOperator = 'union' | 'union all' | 'intersect' | 'except';

/**
 * `a UNION b EXCEPT c` kept as a flat chain in written order, which is how it is read
 * (left to right) and how it prints.
 *
 * A trailing ORDER BY / LIMIT / OFFSET orders and cuts the whole result, so it belongs to
 * the compound, not to the last arm. An arm's own ORDER BY or LIMIT exists only when the
 * arm is parenthesized (`(SELECT … LIMIT 1) UNION (SELECT … LIMIT 1)`), and prints so.
 */
export interface CompoundQuery {
  readonly kind: 'compound';
  readonly head: SelectQuery;
  readonly tail: readonly { readonly op: SetOperator; readonly query: SelectQuery }[];
  readonly orderBy: readonly OrderItem[];
  readonly limit: Expr | null;
  readonly offset: Expr | null;
}

export interface SelectItem {
  readonly expr: Expr;
  readonly alias: string | null;
}

export interface FromClause {
  readonly first: TableSource;
  readonly joins: readonly Join[];
}

export type TableSource = TableRef | DerivedTable | TableFunction;

export interface TableRef {
  readonly kind: 'table';
  readonly name: string;
  readonly alias: string | null;
}

export interface DerivedTable {
  readonly kind: 'derived';
  readonly query: Query;
  readonly alias: string | null;
}

/** A set-returning function in FROM: `unnest(p.tags) AS s(value)`, possibly LATERAL. */
export interface TableFunction {
  readonly kind: 'table-function';
  readonly call: FunctionCall;
  readonly alias: string | null;
  /** Column aliases after the alias: `s(value)`; empty when there are none. */
  readonly columns: readonly string[];
  readonly lateral: boolean;
}

/** `comma` is the old `FROM a, b` form. */
export type JoinKind = 'inner' | 'left' | 'right' | 'full' | 'cross' | 'comma';

export interface Join {
  readonly kind: JoinKind;
  readonly source: TableSource;
  readonly on: Expr | null;
}

export interface OrderItem {
  readonly expr: Expr;
  /** `null` when the query does not say (ascending by default). */
  readonly direction: 'asc' | 'desc' | null;
  /** `NULLS FIRST` / `NULLS LAST`, or `null` when the query does not say. */
  readonly nulls: 'first' | 'last' | null;
}

export type ComparisonOperator = '=' | '!=' | '<' | '>' | '<=' | '>=';
export type ArithmeticOperator = '+' | '-' | '*' | '/' | '%' | '||';
export type AggregateName = 'count' | 'sum' | 'avg' | 'min' | 'max';

export type Expr =
  | ColumnRef
  | Star
  | NumberLiteral
  | StringLiteral
  | NullLiteral
  | BooleanLiteral
  | Comparison
  | Arithmetic
  | Logical
  | Not
  | Negate
  | Like
  | InList
  | InSubquery
  | Exists
  | Between
  | IsNull
  | ScalarSubquery
  | Aggregate
  | FunctionCall
  | Case
  | Cast
  | Operator
  | ArraySubquery
  | ArrayLiteral
  | WindowCall
  | Filtered
  | Extract
  | IntervalLiteral
  | ClockValue;

export interface ColumnRef {
  readonly kind: 'column';
  readonly table: string | null;
  readonly name: string;
}

/** `*` or `t.*`, in a select list or inside `COUNT(*)`. */
export interface Star {
  readonly kind: 'star';
  readonly table: string | null;
}

export interface NumberLiteral {
  readonly kind: 'number';
  /** The literal as written (`56`, `1.5`, `-5`), so printing never changes it. */
  readonly text: string;
}

export interface StringLiteral {
  readonly kind: 'string';
  readonly value: string;
}

export interface NullLiteral {
  readonly kind: 'null';
}

export interface BooleanLiteral {
  readonly kind: 'boolean';
  readonly value: boolean;
}

export interface Comparison {
  readonly kind: 'comparison';
  readonly op: ComparisonOperator;
  readonly left: Expr;
  readonly right: Expr;
}

export interface Arithmetic {
  readonly kind: 'arithmetic';
  readonly op: ArithmeticOperator;
  readonly left: Expr;
  readonly right: Expr;
}

/** AND / OR as parsed: binary and left-nested. Canonicalization flattens it. */
export interface Logical {
  readonly kind: 'logical';
  readonly op: 'and' | 'or';
  readonly left: Expr;
  readonly right: Expr;
}

export interface Not {
  readonly kind: 'not';
  readonly operand: Expr;
}

export interface Negate {
  readonly kind: 'negate';
  readonly operand: Expr;
}

export interface Like {
  readonly kind: 'like';
  readonly negated: boolean;
  /** ILIKE (PostgreSQL's case-insensitive LIKE). */
  readonly insensitive: boolean;
  readonly operand: Expr;
  readonly pattern: Expr;
}

export interface InList {
  readonly kind: 'in-list';
  readonly negated: boolean;
  readonly operand: Expr;
  readonly values: readonly Expr[];
}

export interface InSubquery {
  readonly kind: 'in-subquery';
  readonly negated: boolean;
  readonly operand: Expr;
  readonly query: Query;
}

export interface Exists {
  readonly kind: 'exists';
  readonly negated: boolean;
  readonly query: Query;
}

export interface Between {
  readonly kind: 'between';
  readonly negated: boolean;
  readonly operand: Expr;
  readonly low: Expr;
  readonly high: Expr;
}

export interface IsNull {
  readonly kind: 'is-null';
  readonly negated: boolean;
  readonly operand: Expr;
}

export interface ScalarSubquery {
  readonly kind: 'subquery';
  readonly query: Query;
}

export interface Aggregate {
  readonly kind: 'aggregate';
  readonly name: AggregateName;
  readonly distinct: boolean;
  /** A `Star` only for `COUNT(*)`. */
  readonly arg: Expr;
}

/**
 * Any other function call. Aggregates outside the five core ones (`array_agg`,
 * `string_agg`, …) are calls too, with their DISTINCT and ORDER BY.
 */
export interface FunctionCall {
  readonly kind: 'function';
  /** Lower-case name (`lower`, `abs`, `array_agg`). */
  readonly name: string;
  readonly args: readonly Expr[];
  readonly distinct: boolean;
  /** `array_agg(x ORDER BY y)`; empty for ordinary calls. */
  readonly orderBy: readonly OrderItem[];
}

/** PostgreSQL's `ARRAY[a, b]`. */
export interface ArrayLiteral {
  readonly kind: 'array';
  readonly items: readonly Expr[];
}

/** `CASE [operand] WHEN … THEN … [ELSE …] END`. */
export interface Case {
  readonly kind: 'case';
  readonly operand: Expr | null;
  readonly whens: readonly { readonly when: Expr; readonly then: Expr }[];
  readonly else: Expr | null;
}

/** `CAST(x AS type)`, also written `x::type`. */
export interface Cast {
  readonly kind: 'cast';
  readonly operand: Expr;
  /** The type as the parser reads it, upper-case: `INTEGER`, `NUMERIC(10, 2)`, `TEXT[]`. */
  readonly type: string;
}

/** A PostgreSQL operator outside SQL's core set: `->>`, `@>`, `<@`, `?`, … */
export interface Operator {
  readonly kind: 'operator';
  readonly op: string;
  readonly left: Expr;
  readonly right: Expr;
}

/** PostgreSQL's `ARRAY(SELECT …)`. */
export interface ArraySubquery {
  readonly kind: 'array-subquery';
  readonly query: Query;
}

/**
 * A window function call: `ROW_NUMBER() OVER (PARTITION BY a ORDER BY b DESC)`,
 * `SUM(x) OVER (ORDER BY d ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)`. The call is
 * an aggregate (`SUM`, `COUNT(*)`) or a function (`row_number`, `lag`, …) as it would be
 * without OVER. Named windows (`OVER w … WINDOW w AS (…)`) are not read.
 */
export interface WindowCall {
  readonly kind: 'window';
  readonly call: Aggregate | FunctionCall | Filtered;
  readonly partitionBy: readonly Expr[];
  readonly orderBy: readonly OrderItem[];
  readonly frame: WindowFrame | null;
}

/** An aggregate with `FILTER (WHERE …)`: `COUNT(*) FILTER (WHERE o.paid)`. */
export interface Filtered {
  readonly kind: 'filtered';
  readonly call: Aggregate | FunctionCall;
  readonly where: Expr;
}

/** `EXTRACT(YEAR FROM d)`; the field upper-case as SQL writes it. */
export interface Extract {
  readonly kind: 'extract';
  readonly field: string;
  readonly source: Expr;
}

/** `INTERVAL '1 day'` or `INTERVAL '2' DAY`. */
export interface IntervalLiteral {
  readonly kind: 'interval';
  /** The quoted text. */
  readonly value: string;
  /** The unit after the string (upper-case), or `null` when the string holds it. */
  readonly unit: string | null;
}

/**
 * SQL's clock values written without parentheses: `CURRENT_DATE`, `CURRENT_TIMESTAMP`,
 * `CURRENT_TIME`, `LOCALTIMESTAMP`, `LOCALTIME`. The parser reads them; the guard refuses
 * them like `now()`, since an answer that changes between runs cannot be verified.
 */
export interface ClockValue {
  readonly kind: 'clock';
  readonly name: 'CURRENT_DATE' | 'CURRENT_TIMESTAMP' | 'CURRENT_TIME' | 'LOCALTIMESTAMP' | 'LOCALTIME';
}

/** `ROWS|RANGE <start>` or `ROWS|RANGE BETWEEN <start> AND <end>`. */
export interface WindowFrame {
  readonly unit: 'rows' | 'range';
  readonly start: FrameBound;
  /** `null` for the one-bound form (`ROWS UNBOUNDED PRECEDING`). */
  readonly end: FrameBound | null;
}

/** One end of a window frame; `offset` only for `n PRECEDING` / `n FOLLOWING`. */
export interface FrameBound {
  readonly kind: 'unbounded preceding' | 'preceding' | 'current row' | 'following' | 'unbounded following';
  readonly offset: NumberLiteral | null;
}

export type ExprKind = Expr['kind'];
