/**
 * What a sampled skeleton asks for, as the filler reads it: per SELECT, its items, how many
 * joins, its conditions as an OR of ANDs of predicate slots, grouping, ordering and limit.
 *
 * The skeleton is instantiated with neutral names (`skeleton-instantiator.ts`) and read by
 * the SQL adapter, so this module sees equisql's SQL AST, never raw tokens. Slot types come
 * from the neutral names: `n1` was `<column:numeric>`, `s1` `<column:text>`, `c1` `<column>`.
 * Aggregate names are free (`<agg>`), except `COUNT(*)` and `COUNT(DISTINCT …)`.
 */
import { instantiateSkeleton } from '../grammar/skeleton-instantiator.ts';
import { parseSql } from '../sql/parser-adapter.ts';
import type * as Sql from '../sql/sql-ast.ts';
import { reject } from '../records/group-record.ts';

export type ColumnType = 'any' | 'numeric' | 'text';

export interface ColumnSlot {
  readonly kind: 'column';
  readonly type: ColumnType;
}

export interface AggregateSlot {
  readonly kind: 'aggregate';
  /** `star`: COUNT(*); `distinct`: COUNT(DISTINCT col); `free`: any aggregate of a column. */
  readonly mode: 'star' | 'distinct' | 'free';
  readonly arg?: ColumnSlot;
  /** A free aggregate of arithmetic on numbers (`SUM(a - b)`, `AVG(x * 2)`): its operator. */
  readonly argOp?: '+' | '-' | '*' | '/';
}

/** Arithmetic on numeric columns (`a - b`, `a + 7`). */
export interface ArithmeticSlot {
  readonly kind: 'arithmetic';
  readonly op: '+' | '-' | '*' | '/';
}

/**
 * `SELECT *`: every attribute of the query's one entity, id first. Over a join it would list
 * the columns of every table, which differ between variants, so it is read only without one.
 */
export interface StarSlot {
  readonly kind: 'star';
}

/**
 * Arithmetic on aggregates (`MAX(x) - MIN(x)`, `SUM(a) + SUM(b)`, `AVG(x) * 2`): each side an
 * aggregate or a number, at least one an aggregate.
 */
export interface AggregateArithmeticSlot {
  readonly kind: 'aggregateArithmetic';
  readonly op: '+' | '-' | '*' | '/';
  readonly left: AggregateSlot | { readonly kind: 'number' };
  readonly right: AggregateSlot | { readonly kind: 'number' };
}

export type ItemSlot = ColumnSlot | AggregateSlot | ArithmeticSlot | StarSlot | AggregateArithmeticSlot;

/** Whether an item is computed over the rows of a group (an aggregate, or arithmetic on some). */
export function isAggregateItem(item: ItemSlot): item is AggregateSlot | AggregateArithmeticSlot {
  return item.kind === 'aggregate' || item.kind === 'aggregateArithmetic';
}

export type ComparisonOp = '=' | '<>' | '<' | '<=' | '>' | '>=';

export type PredicateSlot =
  | {
      readonly kind: 'compareValue';
      readonly op: ComparisonOp;
      readonly column: ColumnSlot;
      readonly valueType: 'number' | 'text';
    }
  | { readonly kind: 'compareColumn'; readonly op: ComparisonOp; readonly column: ColumnSlot }
  | {
      readonly kind: 'compareSubquery';
      readonly op: ComparisonOp;
      readonly column: ColumnSlot;
      readonly query: SelectShape;
    }
  | { readonly kind: 'compareAggregate'; readonly op: ComparisonOp; readonly aggregate: AggregateSlot }
  | { readonly kind: 'like'; readonly negated: boolean; readonly column: ColumnSlot }
  | { readonly kind: 'between'; readonly column: ColumnSlot }
  | { readonly kind: 'inSubquery'; readonly negated: boolean; readonly column: ColumnSlot; readonly query: SelectShape }
  | { readonly kind: 'exists'; readonly negated: boolean; readonly query: SelectShape }
  | { readonly kind: 'isNull'; readonly negated: boolean; readonly column: ColumnSlot }
  | { readonly kind: 'inList'; readonly negated: boolean; readonly column: ColumnSlot; readonly size: number };

/** OR of ANDs. */
export type ConditionShape = readonly (readonly PredicateSlot[])[];

export interface SelectShape {
  readonly kind: 'select';
  readonly distinct: boolean;
  readonly items: readonly ItemSlot[];
  readonly joins: number;
  /** Which of the joins (0-based) are LEFT joins. */
  readonly leftJoins: readonly number[];
  readonly where: ConditionShape | null;
  readonly groupBy: readonly ColumnSlot[];
  readonly having: ConditionShape | null;
  readonly orderBy: readonly { readonly key: ItemSlot; readonly direction: 'asc' | 'desc' }[];
  /** `one` for LIMIT 1, `n` for LIMIT <value:number>. */
  readonly limit: 'one' | 'n' | null;
}

export interface SetShape {
  readonly kind: 'set';
  readonly op: 'union' | 'union all' | 'intersect' | 'except';
  readonly left: QueryShape;
  readonly right: SelectShape;
  readonly orderBy: readonly { readonly key: ItemSlot; readonly direction: 'asc' | 'desc' }[];
  readonly limit: 'one' | 'n' | null;
}

export type QueryShape = SelectShape | SetShape;

/**
 * Reads a skeleton's tokens into its shape, or rejects it (`unsupported-skeleton`,
 * `meaningless-skeleton`) with the construct at fault.
 *
 * @example
 * readSkeleton('SELECT <column> FROM <table> WHERE <column:numeric> > <value:number>'.split(' '))
 * // { kind: 'select', items: [{ kind: 'column', type: 'any' }], joins: 0,
 * //   where: [[{ kind: 'compareValue', op: '>', column: { type: 'numeric' }, valueType: 'number' }]], … }
 */
export function readSkeleton(tokens: readonly string[]): QueryShape {
  let ast: Sql.Query;
  try {
    ast = parseSql(instantiateSkeleton(tokens), { dialect: 'postgresql', fallback: true });
  } catch (error) {
    reject('unsupported-skeleton', `does not parse: ${(error as Error).message.split('\n')[0]}`);
  }
  return readQuery(ast);
}

/** `existsBody`: the select list of an EXISTS subquery, which says nothing, so `*` is read anywhere in it. */
function readQuery(q: Sql.Query, existsBody = false): QueryShape {
  if (q.kind === 'with') reject('unsupported-skeleton', 'WITH (common table expressions) is not filled');
  if (q.kind === 'select') return readSelect(q, existsBody);
  let shape: QueryShape = readSelect(q.head);
  for (const arm of q.tail) {
    shape = { kind: 'set', op: arm.op, left: shape, right: readSelect(arm.query), orderBy: [], limit: null };
  }
  const orderBy = q.orderBy.map((o) => ({ key: readOrderKey(o), direction: o.direction ?? 'asc' }) as const);
  return { ...(shape as SetShape), orderBy, limit: readLimit(q.limit) };
}

/** An ORDER BY key; NULLS FIRST/LAST is a choice the shape cannot carry, so it is refused, not dropped. */
function readOrderKey(o: Sql.OrderItem): ItemSlot {
  if (o.nulls !== null) reject('unsupported-skeleton', `NULLS ${o.nulls.toUpperCase()} in ORDER BY`);
  return readItem(o.expr);
}

function readLimit(limit: Sql.Expr | null): 'one' | 'n' | null {
  if (limit === null) return null;
  return limit.kind === 'number' && limit.text === '1' ? 'one' : 'n';
}

function columnSlot(e: Sql.Expr): ColumnSlot {
  if (e.kind !== 'column') reject('unsupported-skeleton', `expected a column, got ${e.kind}`);
  const type: ColumnType = e.name.startsWith('n') ? 'numeric' : e.name.startsWith('s') ? 'text' : 'any';
  return { kind: 'column', type };
}

function readItem(e: Sql.Expr): ItemSlot {
  switch (e.kind) {
    case 'column':
      return columnSlot(e);
    case 'aggregate':
      if (e.arg.kind === 'star') return { kind: 'aggregate', mode: 'star' };
      if (e.arg.kind === 'arithmetic') {
        const { op, left, right } = e.arg;
        const plain = (x: Sql.Expr): boolean => x.kind === 'column' || x.kind === 'number';
        if (
          op === '%' ||
          op === '||' ||
          !plain(left) ||
          !plain(right) ||
          (left.kind === 'number' && right.kind === 'number')
        )
          reject('unsupported-skeleton', 'aggregate of an expression other than arithmetic on columns');
        if (e.distinct) reject('unsupported-skeleton', 'an aggregate of distinct values of arithmetic');
        return { kind: 'aggregate', mode: 'free', arg: { kind: 'column', type: 'numeric' }, argOp: op };
      }
      if (e.arg.kind !== 'column') reject('unsupported-skeleton', 'aggregate of an expression');
      return { kind: 'aggregate', mode: e.distinct ? 'distinct' : 'free', arg: columnSlot(e.arg) };
    case 'arithmetic': {
      if (e.op === '%' || e.op === '||') reject('unsupported-skeleton', `operator ${e.op}`);
      if (e.left.kind === 'arithmetic' || e.right.kind === 'arithmetic')
        reject('unsupported-skeleton', 'nested arithmetic');
      if (e.left.kind === 'aggregate' || e.right.kind === 'aggregate') {
        const side = (x: Sql.Expr): AggregateArithmeticSlot['left'] => {
          if (x.kind === 'number') return { kind: 'number' };
          if (x.kind === 'aggregate') return readItem(x) as AggregateSlot;
          return reject('unsupported-skeleton', `arithmetic of an aggregate and a ${x.kind}`);
        };
        return { kind: 'aggregateArithmetic', op: e.op, left: side(e.left), right: side(e.right) };
      }
      return { kind: 'arithmetic', op: e.op };
    }
    case 'star':
      return { kind: 'star' };
    default:
      reject('unsupported-skeleton', `select item ${e.kind}`);
  }
}

function op(o: Sql.ComparisonOperator): ComparisonOp {
  return o === '!=' ? '<>' : o;
}

function readPredicate(e: Sql.Expr, inHaving: boolean): PredicateSlot {
  switch (e.kind) {
    case 'comparison': {
      if (e.left.kind === 'aggregate') {
        if (!inHaving) reject('meaningless-skeleton', 'an aggregate in WHERE');
        const aggregate = readItem(e.left) as AggregateSlot;
        if (e.right.kind !== 'number') reject('unsupported-skeleton', 'HAVING compared with a non-number');
        return { kind: 'compareAggregate', op: op(e.op), aggregate };
      }
      if (e.left.kind !== 'column') reject('unsupported-skeleton', `comparison of ${e.left.kind}`);
      const column = columnSlot(e.left);
      if (inHaving) reject('meaningless-skeleton', 'HAVING on a plain column');
      if (e.right.kind === 'number' || e.right.kind === 'string')
        return { kind: 'compareValue', op: op(e.op), column, valueType: e.right.kind === 'number' ? 'number' : 'text' };
      if (e.right.kind === 'column') return { kind: 'compareColumn', op: op(e.op), column };
      if (e.right.kind === 'subquery') {
        const sub = readQuery(e.right.query);
        if (sub.kind !== 'select') reject('unsupported-skeleton', 'a set operation as a scalar subquery');
        return { kind: 'compareSubquery', op: op(e.op), column, query: sub };
      }
      reject('unsupported-skeleton', `comparison with ${e.right.kind}`);
    }
    case 'like':
      return { kind: 'like', negated: e.negated, column: columnSlot(e.operand) };
    case 'between':
      if (e.operand.kind === 'aggregate') reject('unsupported-skeleton', 'BETWEEN on an aggregate');
      return { kind: 'between', column: columnSlot(e.operand) };
    case 'in-subquery': {
      const sub = readQuery(e.query);
      if (sub.kind !== 'select') reject('unsupported-skeleton', 'IN over a set operation');
      return { kind: 'inSubquery', negated: e.negated, column: columnSlot(e.operand), query: sub };
    }
    case 'exists': {
      const sub = readQuery(e.query, true);
      if (sub.kind !== 'select') reject('unsupported-skeleton', 'EXISTS over a set operation');
      return { kind: 'exists', negated: e.negated, query: sub };
    }
    case 'is-null':
      return { kind: 'isNull', negated: e.negated, column: columnSlot(e.operand) };
    case 'in-list':
      return { kind: 'inList', negated: e.negated, column: columnSlot(e.operand), size: e.values.length };
    default:
      reject('unsupported-skeleton', `predicate ${e.kind}`);
  }
}

function readCondition(e: Sql.Expr | null, inHaving: boolean): ConditionShape | null {
  if (e === null) return null;
  const disjuncts: Sql.Expr[] = [];
  const splitOr = (x: Sql.Expr): void => {
    if (x.kind === 'logical' && x.op === 'or') {
      splitOr(x.left);
      splitOr(x.right);
    } else disjuncts.push(x);
  };
  splitOr(e);
  return disjuncts.map((d) => {
    const conjuncts: PredicateSlot[] = [];
    const splitAnd = (x: Sql.Expr): void => {
      if (x.kind === 'logical' && x.op === 'and') {
        splitAnd(x.left);
        splitAnd(x.right);
      } else if (x.kind === 'logical') reject('unsupported-skeleton', 'OR nested inside AND');
      else conjuncts.push(readPredicate(x, inHaving));
    };
    splitAnd(d);
    return conjuncts;
  });
}

function readSelect(q: Sql.SelectQuery, existsBody = false): SelectShape {
  if (q.from === null) reject('unsupported-skeleton', 'SELECT without FROM');
  if (q.from.first.kind !== 'table') reject('unsupported-skeleton', 'a derived table in FROM');
  const leftJoins: number[] = [];
  for (const [i, j] of q.from.joins.entries()) {
    if (j.source.kind !== 'table') reject('unsupported-skeleton', 'a derived table in a JOIN');
    if (j.kind === 'cross' || j.kind === 'comma')
      reject('meaningless-skeleton', 'a CROSS JOIN pairs every row with every row');
    if (j.kind === 'left') leftJoins.push(i);
    else if (j.kind !== 'inner') reject('unsupported-skeleton', `${j.kind} join`);
  }
  if (q.offset !== null) reject('unsupported-skeleton', 'OFFSET');
  const items = q.columns.map((c) => readItem(c.expr));
  const groupBy = q.groupBy.map(columnSlot);
  const hasAggregate = items.some(isAggregateItem);
  const hasPlain = items.some((i) => !isAggregateItem(i));
  const stars = items.filter((i) => i.kind === 'star').length;
  if (stars > 0 && !existsBody) {
    if (q.from.joins.length > 0)
      reject('meaningless-skeleton', "SELECT * over a join lists every table's columns, which differ between variants");
    if (stars > 1) reject('meaningless-skeleton', 'SELECT * twice lists every attribute twice');
    if (groupBy.length > 0)
      reject(
        'meaningless-skeleton',
        'SELECT * in a grouped query over one table: one group per object, nothing to aggregate',
      );
  }
  if (groupBy.length === 0 && hasAggregate && hasPlain)
    reject('meaningless-skeleton', 'columns beside aggregates without GROUP BY');
  if (q.distinct && groupBy.length > 0 && !hasPlain)
    reject('meaningless-skeleton', 'SELECT DISTINCT of aggregates over groups');
  if (q.distinct && groupBy.length === 0 && hasAggregate)
    reject('meaningless-skeleton', 'SELECT DISTINCT of a single aggregate row');
  if (q.having !== null && groupBy.length === 0) reject('meaningless-skeleton', 'HAVING without GROUP BY');
  const orderBy = q.orderBy.map((o) => ({ key: readOrderKey(o), direction: o.direction ?? 'asc' }) as const);
  if (groupBy.length === 0 && !hasAggregate && orderBy.some((o) => isAggregateItem(o.key)))
    reject('meaningless-skeleton', 'ORDER BY an aggregate without GROUP BY');
  if (groupBy.length === 0 && hasAggregate && (orderBy.length > 0 || q.limit !== null))
    reject('meaningless-skeleton', 'ORDER BY or LIMIT on a single aggregate row');
  return {
    kind: 'select',
    distinct: q.distinct,
    items,
    joins: q.from.joins.length,
    leftJoins,
    where: readCondition(q.where, false),
    groupBy,
    having: readCondition(q.having, true),
    orderBy,
    limit: readLimit(q.limit),
  };
}
