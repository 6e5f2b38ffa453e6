import type {
  AggregateFunction,
  ComparisonOperator,
  Expr,
  Join,
  JoinType,
  OrderItem,
  Predicate,
  ScalarLiteral,
  SelectQuery,
} from './conceptual-query.ts';

/**
 * Small constructors for writing conceptual queries by hand (suites, tests). They build
 * plain data; nothing here is needed to read or compile a query.
 *
 * @example
 * select({ from: entity('LiveStream', 'l'), joins: [left('derived_from', 'l', 'reverse', 'c', 'Clip')],
 *          select: [out('live_stream_id', id('l')), out('clip_count', count(id('c')))], groupBy: [id('l')] })
 */
export const entity = (name: string, alias: string) => ({ entity: name, alias });
export const attr = (alias: string, attribute: string): Expr => ({ kind: 'attribute', alias, attribute });
export const id = (alias: string): Expr => attr(alias, 'id');
export const lit = (value: ScalarLiteral | null): Expr => ({ kind: 'literal', value });
export const element = (alias: string): Expr => ({ kind: 'element', alias });
export const agg = (fn: AggregateFunction, arg?: Expr, distinct = false): Expr =>
  arg
    ? distinct
      ? { kind: 'aggregate', fn, arg, distinct }
      : { kind: 'aggregate', fn, arg }
    : { kind: 'aggregate', fn };
export const count = (arg?: Expr): Expr => agg('count', arg);
export const countDistinct = (arg: Expr): Expr => agg('count', arg, true);
export const setSize = (alias: string, attribute: string): Expr => ({ kind: 'setSize', alias, attribute });
export const setArray = (alias: string, attribute: string): Expr => ({ kind: 'setArray', alias, attribute });
export const classOf = (alias: string, among: readonly string[]): Expr => ({ kind: 'classOf', alias, among });
export const round = (arg: Expr, digits: number): Expr => ({ kind: 'round', arg, digits });
export const arith = (op: '+' | '-' | '*' | '/' | '||', left: Expr, right: Expr): Expr => ({
  kind: 'arithmetic',
  op,
  left,
  right,
});
export const scalar = (query: SelectQuery): Expr => ({ kind: 'scalarSubquery', query });
export const out = (name: string, expr: Expr) => ({ name, expr });

export const cmp = (left: Expr, op: ComparisonOperator, right: Expr): Predicate => ({
  kind: 'compare',
  op,
  left,
  right,
});
export const and = (...args: Predicate[]): Predicate => ({ kind: 'and', args });
export const or = (...args: Predicate[]): Predicate => ({ kind: 'or', args });
export const not = (arg: Predicate): Predicate => ({ kind: 'not', arg });
export const exists = (query: SelectQuery, negated = false): Predicate =>
  negated ? { kind: 'exists', query, negated } : { kind: 'exists', query };
export const inQuery = (expr: Expr, query: SelectQuery, negated = false): Predicate =>
  negated ? { kind: 'inQuery', expr, query, negated } : { kind: 'inQuery', expr, query };
export const isA = (alias: string, name: string): Predicate => ({ kind: 'isA', alias, entity: name });
export const contains = (alias: string, attribute: string, value: ScalarLiteral): Predicate => ({
  kind: 'contains',
  alias,
  attribute,
  value,
});

const relJoin =
  (type: JoinType) =>
  (
    relationship: string,
    from: string,
    direction: 'forward' | 'reverse',
    alias: string,
    entityName: string,
    on?: Predicate,
  ): Join =>
    on
      ? { kind: 'relationship', type, relationship, from, direction, alias, entity: entityName, on }
      : { kind: 'relationship', type, relationship, from, direction, alias, entity: entityName };
export const inner = relJoin('inner');
export const left = relJoin('left');
export const elements = (type: JoinType, of: string, attribute: string, alias: string): Join => ({
  kind: 'elements',
  type,
  of,
  attribute,
  alias,
});

export const asc = (expr: Expr | string): OrderItem => ({
  expr: typeof expr === 'string' ? { kind: 'output', name: expr } : expr,
  direction: 'asc',
});
export const desc = (expr: Expr | string): OrderItem => ({
  expr: typeof expr === 'string' ? { kind: 'output', name: expr } : expr,
  direction: 'desc',
});

export function select(q: Omit<SelectQuery, 'kind'>): SelectQuery {
  return { kind: 'select', ...q };
}
