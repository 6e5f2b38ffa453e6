/**
 * The shape of the SQL the compiler writes, and its printer. Expressions arrive rendered;
 * this module only lays out clauses, one per line, with subqueries and derived tables
 * indented, so the output reads like SQL an engineer would write by hand.
 */

export interface FromTable {
  readonly kind: 'table';
  readonly name: string;
  readonly alias: string;
}

export interface FromDerived {
  readonly kind: 'derived';
  readonly query: SqlQuery;
  readonly alias: string;
}

/** A set-returning function in FROM (`unnest(…) AS x(value)`), implicitly lateral. */
export interface FromFunction {
  readonly kind: 'function';
  readonly call: string;
  readonly alias: string;
  readonly column: string;
}

export type FromItem = FromTable | FromDerived | FromFunction;

export interface SqlJoin {
  readonly type: 'JOIN' | 'LEFT JOIN' | 'CROSS JOIN';
  readonly item: FromItem;
  /** ON conditions, ANDed; absent for CROSS JOIN. */
  readonly on: readonly string[];
}

export interface SqlSelect {
  readonly kind: 'select';
  /** Common table expressions, printed before the SELECT (`WITH name AS (…)`). */
  readonly with?: readonly { readonly name: string; readonly query: SqlQuery }[];
  readonly distinct: boolean;
  readonly columns: readonly { readonly expr: string; readonly alias?: string }[];
  readonly from: FromItem;
  readonly joins: readonly SqlJoin[];
  readonly where: readonly string[];
  readonly groupBy: readonly string[];
  readonly having: readonly string[];
  readonly orderBy: readonly string[];
  readonly limit?: number;
}

export interface SqlSet {
  readonly kind: 'set';
  readonly op: string;
  readonly left: SqlQuery;
  readonly right: SqlQuery;
  readonly orderBy: readonly string[];
  readonly limit?: number;
}

export type SqlQuery = SqlSelect | SqlSet;

const INDENT = '  ';

function indent(text: string, by: string): string {
  return text.split('\n').map((line) => (line ? by + line : line)).join('\n');
}

function printFrom(item: FromItem, depth: string): string {
  switch (item.kind) {
    case 'table':
      return item.alias === item.name ? item.name : `${item.name} AS ${item.alias}`;
    case 'function':
      return `${item.call} AS ${item.alias}(${item.column})`;
    case 'derived':
      return `(\n${indent(printSql(item.query), depth + INDENT + INDENT)}\n${depth}${INDENT}) AS ${item.alias}`;
  }
}

/** Prints a query; the result has no trailing semicolon or newline. */
export function printSql(query: SqlQuery): string {
  if (query.kind === 'set') {
    const side = (q: SqlQuery, isLeft: boolean): string => {
      const text = printSql(q);
      // A chain of one operator reads left to right without parentheses.
      const chained = isLeft && q.kind === 'set' && q.op === query.op && q.orderBy.length === 0 && q.limit === undefined;
      const needsParens = !chained && (q.kind === 'set' || q.orderBy.length > 0 || q.limit !== undefined);
      return needsParens ? `(\n${indent(text, INDENT)}\n)` : text;
    };
    const lines = [side(query.left, true), query.op, side(query.right, false)];
    if (query.orderBy.length > 0) lines.push(`ORDER BY ${query.orderBy.join(', ')}`);
    if (query.limit !== undefined) lines.push(`LIMIT ${query.limit}`);
    return lines.join('\n');
  }
  const lines: string[] = [];
  const ctes = query.with ?? [];
  ctes.forEach((c, i) => lines.push(`${i === 0 ? 'WITH ' : ''}${c.name} AS (\n${indent(printSql(c.query), INDENT)}\n)${i < ctes.length - 1 ? ',' : ''}`));
  const cols = query.columns.map((c) => (c.alias ? `${c.expr} AS ${c.alias}` : c.expr));
  const head = `SELECT ${query.distinct ? 'DISTINCT ' : ''}`;
  const oneLine = head + cols.join(', ');
  lines.push(oneLine.length <= 100 && !oneLine.includes('\n') ? oneLine : `${head.trimEnd()}\n${cols.map((c) => indent(c, INDENT)).join(',\n')}`);
  lines.push(`FROM ${printFrom(query.from, '')}`);
  for (const j of query.joins) {
    const on = j.on.length > 0 ? ` ON ${j.on.join(' AND ')}` : j.type === 'LEFT JOIN' ? ' ON TRUE' : '';
    lines.push(`${INDENT}${j.type} ${printFrom(j.item, INDENT)}${on}`);
  }
  if (query.where.length > 0) lines.push(`WHERE ${query.where.join('\n  AND ')}`);
  if (query.groupBy.length > 0) lines.push(`GROUP BY ${query.groupBy.join(', ')}`);
  if (query.having.length > 0) lines.push(`HAVING ${query.having.join(' AND ')}`);
  if (query.orderBy.length > 0) lines.push(`ORDER BY ${query.orderBy.join(', ')}`);
  if (query.limit !== undefined) lines.push(`LIMIT ${query.limit}`);
  return lines.join('\n');
}

/** A subquery rendered for use inside an expression: parenthesized and indented. */
export function inlineSubquery(query: SqlQuery): string {
  const text = printSql(query);
  if (!text.includes('\n')) return `(${text})`;
  return `(\n${indent(text, INDENT + INDENT)}\n${INDENT})`;
}
