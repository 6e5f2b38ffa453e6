/**
 * The conceptual query: a typed, immutable, JSON-serializable query over the conceptual
 * schema of an E/R model, never over any variant's tables. Its relations are virtual:
 *
 * - an entity type, with every instance of it and of its subclasses, and all its
 *   single-valued attributes (inherited ones included) plus `id`;
 * - a relationship, traversed by a join from an entity alias to the entity at its other end;
 * - a multi-valued attribute, as a membership predicate, a set size, a sorted array, or a
 *   join that yields one row per element.
 *
 * Aliases are unique across the whole query, subqueries included, so a correlated
 * subquery names an outer alias directly. The compiler turns one conceptual query into the
 * SQL each variant needs; the question writer reads it to phrase the question.
 */

export type ScalarLiteral = string | number | boolean;

/** A value expression. */
export type Expr =
  /** A single-valued attribute of an entity alias, or its `id`. */
  | { readonly kind: 'attribute'; readonly alias: string; readonly attribute: string }
  /** The element of a set joined with an `elements` join. */
  | { readonly kind: 'element'; readonly alias: string }
  /** An attribute of the relationship link through which `alias` was joined. */
  | { readonly kind: 'linkAttribute'; readonly alias: string; readonly attribute: string }
  | { readonly kind: 'literal'; readonly value: ScalarLiteral | null }
  /**
   * COUNT(*) when `arg` is absent. `distinct` aggregates the distinct values of `arg`;
   * `filter` aggregates only the rows meeting it (`count(*) FILTER (WHERE …)`).
   */
  | {
      readonly kind: 'aggregate';
      readonly fn: AggregateFunction;
      readonly arg?: Expr;
      readonly distinct?: boolean;
      readonly filter?: Predicate;
    }
  /** The number of elements of a multi-valued attribute (0 for an empty set). */
  | { readonly kind: 'setSize'; readonly alias: string; readonly attribute: string }
  /** A multi-valued attribute as an array: a set, its elements in no particular order. */
  | { readonly kind: 'setArray'; readonly alias: string; readonly attribute: string }
  /** The name of the first class of `among` the object belongs to, or NULL. */
  | { readonly kind: 'classOf'; readonly alias: string; readonly among: readonly string[] }
  /** Arithmetic on numbers, or `||` to concatenate text. */
  | {
      readonly kind: 'arithmetic';
      readonly op: '+' | '-' | '*' | '/' | '||';
      readonly left: Expr;
      readonly right: Expr;
    }
  /** ROUND(arg, digits): numeric, so every variant prints the same scale. */
  | { readonly kind: 'round'; readonly arg: Expr; readonly digits: number }
  /** A subquery returning one column and at most one row. */
  | { readonly kind: 'scalarSubquery'; readonly query: SelectQuery }
  /** A window function over the rows of its query (its groups, when grouped): see WindowExpr. */
  | WindowExpr
  | AnalyticExpr;

/**
 * Window functions. `row_number`, `rank` and `dense_rank` number the rows of a partition in
 * the window's order; `lag`/`lead` read `arg` from the row `offset` (default 1) before or
 * after; `sum`, `avg`, `count` aggregate the partition, or with an order the rows up to and
 * including the current one and its ties (a running total).
 */
export type WindowFunction = 'row_number' | 'rank' | 'dense_rank' | 'lag' | 'lead' | 'sum' | 'avg' | 'count';

/**
 * `fn(arg) OVER (PARTITION BY partitionBy ORDER BY orderBy)`, allowed in the select list,
 * the query's ORDER BY and `qualify`. Where the answer depends on the order among ties
 * (`row_number`, `lag`, `lead`), the partition and order keys together must single out a
 * row: the id (or element) of every alias of the query, or every grouping key when grouped.
 */
export interface WindowExpr {
  readonly kind: 'window';
  readonly fn: WindowFunction;
  /** The value of lag/lead, sum and avg; count's argument (absent: every row). */
  readonly arg?: Expr;
  /** lag/lead: how many rows back or ahead, 1 if absent. */
  readonly offset?: number;
  readonly partitionBy?: readonly Expr[];
  readonly orderBy?: readonly WindowOrderItem[];
}

export interface WindowOrderItem {
  readonly expr: Expr;
  readonly direction: 'asc' | 'desc';
}
/**
 * Scalar analytics: conditionals, conversions, dates and text. Every one is deterministic:
 * dates are compared with fixed date literals, never with the clock.
 */
export type AnalyticExpr =
  /** Searched CASE: the `then` of the first `when` that holds, else `else` (NULL when absent). */
  | {
      readonly kind: 'case';
      readonly whens: readonly { readonly when: Predicate; readonly then: Expr }[];
      readonly else?: Expr;
    }
  /** Simple CASE: the `then` of the first `value` equal to `operand`, else `else` (NULL when absent). */
  | {
      readonly kind: 'simpleCase';
      readonly operand: Expr;
      readonly whens: readonly { readonly value: ScalarLiteral; readonly then: Expr }[];
      readonly else?: Expr;
    }
  | { readonly kind: 'cast'; readonly arg: Expr; readonly to: CastType }
  /** NULL when `arg` equals `value`, else `arg`. */
  | { readonly kind: 'nullif'; readonly arg: Expr; readonly value: Expr }
  /** The first of `args` that is not NULL. */
  | { readonly kind: 'coalesce'; readonly args: readonly Expr[] }
  /**
   * numerator / denominator as a numeric rounded to `digits` places, times 100 when
   * `percent`; NULL when the denominator is 0.
   */
  | {
      readonly kind: 'ratio';
      readonly numerator: Expr;
      readonly denominator: Expr;
      readonly percent: boolean;
      readonly digits: number;
    }
  /** A field of a date or time (in UTC): EXTRACT(YEAR FROM …). */
  | { readonly kind: 'extract'; readonly field: DateField; readonly arg: Expr }
  /** The date a date or time falls in, truncated to the start of its `unit` (in UTC). */
  | { readonly kind: 'dateTrunc'; readonly unit: DateUnit; readonly arg: Expr }
  /** A date or time moved by `amount` units (negative: earlier); a string `arg` is a date literal. */
  | { readonly kind: 'dateShift'; readonly arg: Expr; readonly amount: number; readonly unit: DateUnit }
  /** Whole years from `from` to `to` (an age); a string literal on either side is a date. */
  | { readonly kind: 'ageYears'; readonly from: Expr; readonly to: Expr }
  | { readonly kind: 'textFunction'; readonly fn: TextFunction; readonly arg: Expr }
  /** `length` characters of text from position `start` (1-based); to the end when `length` is absent. */
  | { readonly kind: 'substring'; readonly arg: Expr; readonly start: number; readonly length?: number }
  /** The 1-based position of `search` in the text, 0 when it does not occur. */
  | { readonly kind: 'position'; readonly search: string; readonly arg: Expr };

export type CastType = 'numeric' | 'real' | 'integer' | 'text' | 'date';
export type DateField = 'year' | 'quarter' | 'month' | 'day' | 'dow' | 'hour';
export type DateUnit = 'year' | 'quarter' | 'month' | 'week' | 'day';
export type TextFunction = 'lower' | 'upper' | 'length';

export type AggregateFunction = 'count' | 'sum' | 'avg' | 'min' | 'max';

export type ComparisonOperator = '=' | '<>' | '<' | '<=' | '>' | '>=';

/** A condition. */
export type Predicate =
  | { readonly kind: 'compare'; readonly op: ComparisonOperator; readonly left: Expr; readonly right: Expr }
  | { readonly kind: 'in'; readonly expr: Expr; readonly values: readonly ScalarLiteral[]; readonly negated?: boolean }
  | {
      readonly kind: 'like';
      readonly expr: Expr;
      readonly pattern: string;
      readonly caseInsensitive?: boolean;
      readonly negated?: boolean;
    }
  | {
      readonly kind: 'between';
      readonly expr: Expr;
      readonly low: Expr;
      readonly high: Expr;
      readonly negated?: boolean;
    }
  | { readonly kind: 'isNull'; readonly expr: Expr; readonly negated?: boolean }
  /** The multi-valued attribute of `alias` contains `value`. */
  | {
      readonly kind: 'contains';
      readonly alias: string;
      readonly attribute: string;
      readonly value: ScalarLiteral;
      readonly negated?: boolean;
    }
  /** The object of `alias` is an instance of `entity` (a subclass of the alias's type). */
  | { readonly kind: 'isA'; readonly alias: string; readonly entity: string; readonly negated?: boolean }
  | { readonly kind: 'and'; readonly args: readonly Predicate[] }
  | { readonly kind: 'or'; readonly args: readonly Predicate[] }
  | { readonly kind: 'not'; readonly arg: Predicate }
  | { readonly kind: 'exists'; readonly query: SelectQuery; readonly negated?: boolean }
  | { readonly kind: 'inQuery'; readonly expr: Expr; readonly query: SelectQuery; readonly negated?: boolean };

export type JoinType = 'inner' | 'left';

/** Extends the row with another relation. */
export type Join =
  /**
   * Follows a relationship from an existing entity alias to a new alias at the other end.
   * `forward` goes from the relationship's `from` end to its `to` end. `entity` is the
   * other end's type or one of its subclasses (then only partners of that subclass count).
   * `on` holds further conditions on the new alias; under a LEFT join they stay in the join.
   */
  | {
      readonly kind: 'relationship';
      readonly type: JoinType;
      readonly relationship: string;
      readonly from: string;
      readonly direction: 'forward' | 'reverse';
      readonly alias: string;
      readonly entity: string;
      readonly on?: Predicate;
    }
  /** One row per element of a multi-valued attribute of `of`; a LEFT join keeps empty sets as one NULL row. */
  | {
      readonly kind: 'elements';
      readonly type: JoinType;
      readonly of: string;
      readonly attribute: string;
      readonly alias: string;
    };

export interface OutputColumn {
  readonly name: string;
  readonly expr: Expr;
}

export interface OrderItem {
  /** An expression, or the name of an output column. */
  readonly expr: Expr | { readonly kind: 'output'; readonly name: string };
  readonly direction: 'asc' | 'desc';
  /** Where NULLs go; PostgreSQL's default (last ascending, first descending) when absent. */
  readonly nulls?: 'first' | 'last';
}

export interface SelectQuery {
  readonly kind: 'select';
  readonly distinct?: boolean;
  readonly select: readonly OutputColumn[];
  /** The base relation: all instances of an entity type. */
  readonly from: { readonly entity: string; readonly alias: string };
  readonly joins?: readonly Join[];
  readonly where?: Predicate;
  readonly groupBy?: readonly Expr[];
  readonly having?: Predicate;
  readonly orderBy?: readonly OrderItem[];
  readonly limit?: number;
  /**
   * Keeps the rows whose window value compares so with a number, after the windows are
   * computed and before DISTINCT, ORDER BY and LIMIT: top-N per group (`rank` <= 3).
   * Only on the outermost query; its ORDER BY then names output columns.
   */
  readonly qualify?: Qualify;
}

/** A filter on a window function's value (top-N per group). */
export interface Qualify {
  readonly window: WindowExpr;
  readonly op: ComparisonOperator;
  readonly value: number;
}

export type SetOperator = 'union' | 'union all' | 'intersect' | 'except';

export interface SetQuery {
  readonly kind: 'set';
  readonly op: SetOperator;
  readonly left: Query;
  readonly right: Query;
  /** By output column name only. */
  readonly orderBy?: readonly { readonly name: string; readonly direction: 'asc' | 'desc' }[];
  readonly limit?: number;
}

export type Query = SelectQuery | SetQuery;

/** Whether the order of a query's rows is part of its answer. */
export function isOrdered(query: Query): boolean {
  return (query.orderBy?.length ?? 0) > 0;
}

/**
 * A query as a JSON file (`compile --query FILE.json`): a Query, optionally naming its JSON
 * Schema for editors. `$schema` carries no meaning and is dropped on reading.
 */
export type QueryDocument = (SelectQuery & { readonly $schema?: string }) | (SetQuery & { readonly $schema?: string });

/** A query document without its `$schema` key, as the compiler takes it. */
export function queryOfDocument(document: QueryDocument): Query {
  if (typeof document !== 'object' || document === null || !('$schema' in document)) return document;
  const { $schema: _schema, ...query } = document;
  return query as Query;
}
