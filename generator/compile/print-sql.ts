/**
 * The one printer of the SQL tree. It lays out clauses one per line, with derived tables
 * and multi-line subqueries indented, and writes brackets where PostgreSQL's precedence
 * needs them (and where a `paren` node asks for them), so the output reads like SQL an
 * engineer writes by hand.
 *
 * @example
 * printSql({ ...emptySelect(table('product', 'p')), columns: [{ expr: column('p', 'title') }], where: [binary('>', column('p', 'price'), literal(10))] })
 * // SELECT p.title
 * // FROM product AS p
 * // WHERE p.price > 10
 */
import { quoteIdent, quoteLiteral } from '../common/sql-text.ts';
import { mintCompiledSql, type CompiledSql } from './compiled-sql.ts';
import type {
  SqlExpr,
  SqlFromItem,
  SqlLiteralValue,
  SqlOrderItem,
  SqlQuery,
  SqlSelect,
  SqlSubquery,
} from './sql-tree.ts';

const INDENT = '  ';

/** The SQL of a literal; strings are always quoted and escaped. */
export function printLiteral(value: SqlLiteralValue): string {
  if (value === null) return 'NULL';
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (typeof value === 'number') return String(value);
  return quoteLiteral(value);
}

function indent(text: string, by: string): string {
  return text
    .split('\n')
    .map((line) => (line ? by + line : line))
    .join('\n');
}

/**
 * How tightly an expression binds, after PostgreSQL's operator precedence table: OR 1, AND 2,
 * NOT 3, IS 4, comparisons 5, BETWEEN/IN/LIKE 6, other operators 7, + - 8, * / 9, and 10
 * for anything that stands alone (a column, a call, a bracket).
 */
export function precedence(e: SqlExpr): number {
  switch (e.kind) {
    case 'logic':
      return e.op === 'OR' ? 1 : 2;
    case 'not':
      return 3;
    case 'exists':
      return e.negated ? 3 : 10;
    case 'isNull':
      return 4;
    case 'binary':
      switch (e.op) {
        case '=':
        case '<>':
        case '<':
        case '<=':
        case '>':
        case '>=':
          return 5;
        case '+':
        case '-':
          return 8;
        case '*':
        case '/':
          return 9;
        default:
          return 7;
      }
    case 'in':
    case 'like':
    case 'between':
      return 6;
    default:
      return 10;
  }
}

/** An operand printed where it must bind at least as tightly as `level`. */
function operand(e: SqlExpr, level: number): string {
  const text = printExpr(e);
  return precedence(e) < level ? `(${text})` : text;
}

function orderItem(o: SqlOrderItem): string {
  return `${printExpr(o.expr)}${o.desc ? ' DESC' : ''}${o.nulls ? ` NULLS ${o.nulls.toUpperCase()}` : ''}`;
}

/** Conditions joined by AND, each bracketed if it is an OR (a lone condition needs none). */
function conjunction(list: readonly SqlExpr[], separator: string): string {
  if (list.length === 1) return printExpr(list[0] as SqlExpr);
  return list.map((c) => operand(c, 2)).join(separator);
}

/** Prints an expression on the lines it needs (a block subquery spans several). */
export function printExpr(e: SqlExpr): string {
  switch (e.kind) {
    case 'column':
      return e.table === undefined ? quoteIdent(e.name) : `${quoteIdent(e.table)}.${quoteIdent(e.name)}`;
    case 'literal':
      return e.text ?? printLiteral(e.value);
    case 'star':
      return '*';
    case 'call': {
      const args = e.args.map(printExpr).join(', ');
      let text = `${e.name}(${e.distinct ? 'DISTINCT ' : ''}${args})`;
      if (e.filter && e.filter.length > 0) text += ` FILTER (WHERE ${conjunction(e.filter, ' AND ')})`;
      if (e.over) {
        const over: string[] = [];
        if (e.over.partitionBy.length > 0) over.push(`PARTITION BY ${e.over.partitionBy.map(printExpr).join(', ')}`);
        if (e.over.orderBy.length > 0) over.push(`ORDER BY ${e.over.orderBy.map(orderItem).join(', ')}`);
        text += ` OVER (${over.join(' ')})`;
      }
      return text;
    }
    case 'binary': {
      const level = precedence(e);
      return `${operand(e.left, level)} ${e.op} ${operand(e.right, level + 1)}`;
    }
    case 'logic': {
      const level = precedence(e);
      return e.args.map((a) => operand(a, level)).join(` ${e.op} `);
    }
    case 'not':
      return `NOT ${operand(e.arg, 3)}`;
    case 'isNull':
      return `${operand(e.arg, 5)} IS ${e.negated ? 'NOT ' : ''}NULL`;
    case 'in': {
      const list = Array.isArray(e.values)
        ? `(${(e.values as readonly SqlExpr[]).map(printExpr).join(', ')})`
        : printExpr(e.values as SqlSubquery);
      return `${operand(e.arg, 7)} ${e.negated ? 'NOT IN' : 'IN'} ${list}`;
    }
    case 'like':
      return `${operand(e.arg, 7)} ${e.negated ? 'NOT ' : ''}${e.glob ? 'GLOB' : e.caseInsensitive ? 'ILIKE' : 'LIKE'} ${operand(e.pattern, 7)}`;
    case 'between':
      return `${operand(e.arg, 7)} ${e.negated ? 'NOT BETWEEN' : 'BETWEEN'} ${operand(e.low, 7)} AND ${operand(e.high, 7)}`;
    case 'any':
      return `ANY (${printExpr(e.arg)})`;
    case 'subquery':
      return printSubquery(e);
    case 'exists':
      return `${e.negated ? 'NOT ' : ''}EXISTS ${printSubquery(e.query)}`;
    case 'array':
      return `ARRAY${printSubquery(e.query)}`;
    case 'case': {
      const whens = e.whens.map((w) => `WHEN ${printExpr(w.when)} THEN ${printExpr(w.then)}`);
      return `CASE ${e.operand ? `${printExpr(e.operand)} ` : ''}${whens.join(' ')}${e.else ? ` ELSE ${printExpr(e.else)}` : ''} END`;
    }
    case 'cast':
      return e.colons ? `${operand(e.arg, 10)}::${e.type}` : `CAST(${printExpr(e.arg)} AS ${e.type})`;
    case 'extract':
      return `EXTRACT(${e.field.toUpperCase()} FROM ${printExpr(e.arg)})`;
    case 'interval':
      return `INTERVAL ${quoteLiteral(e.text)}`;
    case 'paren':
      return `(${printExpr(e.arg)})`;
  }
}

/** A subquery inside an expression, in brackets: on one line, or laid out and indented. */
function printSubquery(s: SqlSubquery): string {
  if (s.layout === 'line' && s.query.kind === 'select') return `(${printLine(s.query)})`;
  const text = printSql(s.query);
  if (!text.includes('\n')) return `(${text})`;
  return `(\n${indent(text, INDENT + INDENT)}\n${INDENT})`;
}

/** A short SELECT on one line: columns, FROM, WHERE. */
function printLine(q: SqlSelect): string {
  const where = q.where.length > 0 ? ` WHERE ${conjunction(q.where, ' AND ')}` : '';
  return `SELECT ${q.columns.map(printColumn).join(', ')} FROM ${printFrom(q.from, '')}${where}`;
}

function printColumn(c: { readonly expr: SqlExpr; readonly alias?: string }): string {
  return c.alias === undefined ? printExpr(c.expr) : `${printExpr(c.expr)} AS ${quoteIdent(c.alias)}`;
}

function printFrom(item: SqlFromItem, depth: string): string {
  switch (item.kind) {
    case 'table':
      return item.alias === item.name ? quoteIdent(item.name) : `${quoteIdent(item.name)} AS ${quoteIdent(item.alias)}`;
    case 'function':
      if (item.column === undefined)
        return item.alias === item.call.name
          ? printExpr(item.call)
          : `${printExpr(item.call)} AS ${quoteIdent(item.alias)}`;
      return `${printExpr(item.call)} AS ${quoteIdent(item.alias)}(${item.column})`;
    case 'derived':
      return `(\n${indent(printSql(item.query), depth + INDENT + INDENT)}\n${depth}${INDENT}) AS ${quoteIdent(item.alias)}`;
  }
}

/** Prints a query; the result has no trailing semicolon or newline. */
export function printSql(query: SqlQuery): string {
  if (query.kind === 'set') {
    const side = (q: SqlQuery, isLeft: boolean): string => {
      const text = printSql(q);
      // A chain of one operator reads left to right without parentheses.
      const chained =
        isLeft && q.kind === 'set' && q.op === query.op && q.orderBy.length === 0 && q.limit === undefined;
      const needsParens = !chained && (q.kind === 'set' || q.orderBy.length > 0 || q.limit !== undefined);
      return needsParens ? `(\n${indent(text, INDENT)}\n)` : text;
    };
    const lines = [side(query.left, true), query.op, side(query.right, false)];
    if (query.orderBy.length > 0) lines.push(`ORDER BY ${query.orderBy.map(orderItem).join(', ')}`);
    if (query.limit !== undefined) lines.push(`LIMIT ${query.limit}`);
    return lines.join('\n');
  }
  const lines: string[] = [];
  const ctes = query.with ?? [];
  ctes.forEach((c, i) =>
    lines.push(
      `${i === 0 ? 'WITH ' : ''}${quoteIdent(c.name)} AS (\n${indent(printSql(c.query), INDENT)}\n)${i < ctes.length - 1 ? ',' : ''}`,
    ),
  );
  const cols = query.columns.map(printColumn);
  const head = `SELECT ${query.distinct ? 'DISTINCT ' : ''}`;
  const oneLine = head + cols.join(', ');
  lines.push(
    oneLine.length <= 100 && !oneLine.includes('\n')
      ? oneLine
      : `${head.trimEnd()}\n${cols.map((c) => indent(c, INDENT)).join(',\n')}`,
  );
  lines.push(`FROM ${printFrom(query.from, '')}`);
  for (const j of query.joins) {
    const on = j.on.length > 0 ? ` ON ${conjunction(j.on, ' AND ')}` : j.type === 'LEFT JOIN' ? ' ON TRUE' : '';
    lines.push(`${INDENT}${j.type} ${printFrom(j.item, INDENT)}${on}`);
  }
  if (query.where.length > 0) lines.push(`WHERE ${conjunction(query.where, '\n  AND ')}`);
  if (query.groupBy.length > 0) lines.push(`GROUP BY ${query.groupBy.map(printExpr).join(', ')}`);
  if (query.having.length > 0) lines.push(`HAVING ${conjunction(query.having, ' AND ')}`);
  if (query.orderBy.length > 0) lines.push(`ORDER BY ${query.orderBy.map(orderItem).join(', ')}`);
  if (query.limit !== undefined) lines.push(`LIMIT ${query.limit}`);
  return lines.join('\n');
}

/**
 * Prints a tree as the executor's trusted value: only a tree the compiler built reaches this,
 * so the text is one statement the compiler laid out (see compiled-sql.ts).
 */
export function printCompiledSql(query: SqlQuery): CompiledSql {
  return mintCompiledSql(printSql(query));
}
