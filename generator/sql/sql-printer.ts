/**
 * Prints equisql's SQL AST as SQL text: keywords upper-case, single spaces, parentheses only
 * where precedence or tree shape needs them, so parse → print → parse gives the same tree.
 *
 * @example
 * printSql(parseSql("select  name from singer where age>30 and country='France'"));
 * // "SELECT name FROM singer WHERE age > 30 AND country = 'France'"
 */
import type {
  Dialect,
  Expr,
  FrameBound,
  FromClause,
  OrderItem,
  Query,
  SelectQuery,
  TableSource,
  WindowCall,
} from './sql-ast.ts';

export interface PrintOptions {
  /** Decides how identifiers that need quoting are quoted (default `postgresql`). */
  readonly dialect?: Dialect;
}

const RESERVED = new Set(
  (
    'all and any as asc between by case cast count cross desc distinct else end except exists false from full group having ' +
    'in inner intersect is join left like limit natural not null offset on or order outer right select table then true union ' +
    'using when where with'
  ).split(' '),
);

/** Prints a query. */
export function printSql(query: Query, options: PrintOptions = {}): string {
  return new Printer(options.dialect ?? 'postgresql').query(query);
}

/** Prints one expression. */
export function printExpr(expr: Expr, options: PrintOptions = {}): string {
  return new Printer(options.dialect ?? 'postgresql').expr(expr);
}

/** Binding strength of an expression's top operator; higher binds tighter. */
function precedence(expr: Expr): number {
  switch (expr.kind) {
    case 'logical':
      return expr.op === 'or' ? 1 : 2;
    case 'not':
      return 3;
    case 'comparison':
    case 'like':
    case 'in-list':
    case 'in-subquery':
    case 'between':
    case 'is-null':
      return 4;
    case 'arithmetic':
      return expr.op === '||' ? 5 : expr.op === '+' || expr.op === '-' ? 6 : 7;
    case 'operator':
      // PostgreSQL: "any other operator" binds looser than + and -, tighter than LIKE.
      return 5;
    case 'negate':
      return 8;
    default:
      return 9;
  }
}

class Printer {
  constructor(private readonly dialect: Dialect) {}

  query(query: Query): string {
    if (query.kind === 'with') {
      const ctes = query.ctes.map((cte) => {
        const columns = cte.columns.length === 0 ? '' : `(${cte.columns.map((c) => this.ident(c)).join(', ')})`;
        return `${this.ident(cte.name)}${columns} AS (${this.query(cte.query)})`;
      });
      return `WITH ${ctes.join(', ')} ${this.query(query.body)}`;
    }
    if (query.kind === 'select') return this.select(query);
    const arm = (select: SelectQuery): string => {
      const text = this.select(select);
      // An arm's own ORDER BY or LIMIT needs parentheses, or it would order the whole result.
      return select.orderBy.length > 0 || select.limit !== null || select.offset !== null ? `(${text})` : text;
    };
    const parts = [arm(query.head), ...query.tail.map((a) => `${a.op.toUpperCase()} ${arm(a.query)}`)];
    parts.push(...this.ordering(query));
    return parts.join(' ');
  }

  /** ORDER BY, LIMIT and OFFSET of a select or a compound, as clauses. */
  private ordering(query: {
    readonly orderBy: readonly OrderItem[];
    readonly limit: Expr | null;
    readonly offset: Expr | null;
  }): string[] {
    const parts: string[] = [];
    if (query.orderBy.length > 0) parts.push(this.orderBy(query.orderBy));
    if (query.limit) parts.push(`LIMIT ${this.expr(query.limit)}`);
    if (query.offset) parts.push(`OFFSET ${this.expr(query.offset)}`);
    return parts;
  }

  private select(select: SelectQuery): string {
    const parts = [select.distinct ? 'SELECT DISTINCT' : 'SELECT'];
    parts.push(
      select.columns
        .map((item) =>
          item.alias === null ? this.expr(item.expr) : `${this.expr(item.expr)} AS ${this.ident(item.alias)}`,
        )
        .join(', '),
    );
    if (select.from) parts.push(`FROM ${this.from(select.from)}`);
    if (select.where) parts.push(`WHERE ${this.expr(select.where)}`);
    if (select.groupBy.length > 0) parts.push(`GROUP BY ${select.groupBy.map((e) => this.expr(e)).join(', ')}`);
    if (select.having) parts.push(`HAVING ${this.expr(select.having)}`);
    parts.push(...this.ordering(select));
    return parts.join(' ');
  }

  private orderBy(items: readonly OrderItem[]): string {
    const item = (o: OrderItem): string =>
      [this.expr(o.expr), o.direction?.toUpperCase(), o.nulls ? `NULLS ${o.nulls.toUpperCase()}` : undefined]
        .filter((part) => part !== undefined)
        .join(' ');
    return `ORDER BY ${items.map(item).join(', ')}`;
  }

  private from(from: FromClause): string {
    let text = this.source(from.first);
    for (const join of from.joins) {
      if (join.kind === 'comma') {
        text += `, ${this.source(join.source)}`;
        continue;
      }
      const keyword = join.kind === 'inner' ? 'JOIN' : `${join.kind.toUpperCase()} JOIN`;
      text += ` ${keyword} ${this.source(join.source)}`;
      if (join.on) text += ` ON ${this.expr(join.on)}`;
    }
    return text;
  }

  private source(source: TableSource): string {
    if (source.kind === 'table-function') {
      const call = `${source.lateral ? 'LATERAL ' : ''}${this.expr(source.call)}`;
      if (source.alias === null) return call;
      const columns = source.columns.length === 0 ? '' : `(${source.columns.map((c) => this.ident(c)).join(', ')})`;
      return `${call} AS ${this.ident(source.alias)}${columns}`;
    }
    const base = source.kind === 'table' ? this.tableName(source.name) : `(${this.query(source.query)})`;
    return source.alias === null ? base : `${base} AS ${this.ident(source.alias)}`;
  }

  private tableName(name: string): string {
    return name
      .split('.')
      .map((part) => this.ident(part))
      .join('.');
  }

  private ident(name: string): string {
    if (/^[A-Za-z_][A-Za-z0-9_]*$/u.test(name) && !RESERVED.has(name.toLowerCase())) return name;
    // A double-quoted word is a string literal in SQLite and MySQL expressions, so those
    // dialects get backticks.
    return this.dialect === 'postgresql' ? `"${name.replaceAll('"', '""')}"` : `\`${name.replaceAll('`', '``')}\``;
  }

  /** Prints `child` under an operator of strength `parent`; `tight` also wraps equal strength. */
  private operand(child: Expr, parent: number, tight = false): string {
    const inner = this.expr(child);
    const p = precedence(child);
    return p < parent || (tight && p === parent) ? `(${inner})` : inner;
  }

  expr(expr: Expr): string {
    switch (expr.kind) {
      case 'column':
        return expr.table === null ? this.ident(expr.name) : `${this.tableName(expr.table)}.${this.ident(expr.name)}`;
      case 'star':
        return expr.table === null ? '*' : `${this.tableName(expr.table)}.*`;
      case 'number':
        return expr.text;
      case 'string':
        return `'${expr.value.replaceAll("'", "''")}'`;
      case 'null':
        return 'NULL';
      case 'boolean':
        return expr.value ? 'TRUE' : 'FALSE';
      case 'comparison':
      case 'arithmetic': {
        const p = precedence(expr);
        return `${this.operand(expr.left, p)} ${expr.op} ${this.operand(expr.right, p, true)}`;
      }
      case 'logical': {
        const p = precedence(expr);
        return `${this.operand(expr.left, p)} ${expr.op.toUpperCase()} ${this.operand(expr.right, p, true)}`;
      }
      case 'not':
        return `NOT ${this.operand(expr.operand, 4)}`;
      case 'negate': {
        // `-` before a negative literal would start a `--` comment.
        const operand = this.operand(expr.operand, 9);
        return operand.startsWith('-') ? `-(${operand})` : `-${operand}`;
      }
      case 'like': {
        const keyword = `${expr.negated ? 'NOT ' : ''}${expr.insensitive ? 'ILIKE' : 'LIKE'}`;
        return `${this.operand(expr.operand, 5)} ${keyword} ${this.operand(expr.pattern, 5)}`;
      }
      case 'operator':
        return `${this.operand(expr.left, 5)} ${expr.op} ${this.operand(expr.right, 5, true)}`;
      case 'case': {
        const parts = ['CASE'];
        if (expr.operand) parts.push(this.expr(expr.operand));
        for (const arm of expr.whens) parts.push(`WHEN ${this.expr(arm.when)} THEN ${this.expr(arm.then)}`);
        if (expr.else) parts.push(`ELSE ${this.expr(expr.else)}`);
        parts.push('END');
        return parts.join(' ');
      }
      case 'cast':
        return `CAST(${this.expr(expr.operand)} AS ${expr.type})`;
      case 'in-list':
        return `${this.operand(expr.operand, 5)} ${expr.negated ? 'NOT IN' : 'IN'} (${expr.values.map((v) => this.expr(v)).join(', ')})`;
      case 'in-subquery':
        return `${this.operand(expr.operand, 5)} ${expr.negated ? 'NOT IN' : 'IN'} (${this.query(expr.query)})`;
      case 'exists':
        return `${expr.negated ? 'NOT EXISTS' : 'EXISTS'} (${this.query(expr.query)})`;
      case 'between':
        return `${this.operand(expr.operand, 5)} ${expr.negated ? 'NOT BETWEEN' : 'BETWEEN'} ${this.operand(expr.low, 5)} AND ${this.operand(expr.high, 5)}`;
      case 'is-null':
        return `${this.operand(expr.operand, 5)} ${expr.negated ? 'IS NOT NULL' : 'IS NULL'}`;
      case 'subquery':
        return `(${this.query(expr.query)})`;
      case 'aggregate':
        return `${expr.name.toUpperCase()}(${expr.distinct ? 'DISTINCT ' : ''}${this.expr(expr.arg)})`;
      case 'function': {
        const args = expr.args.map((a) => this.expr(a)).join(', ');
        const order = expr.orderBy.length > 0 ? ` ${this.orderBy(expr.orderBy)}` : '';
        return `${expr.name.toUpperCase()}(${expr.distinct ? 'DISTINCT ' : ''}${args}${order})`;
      }
      case 'array':
        return `ARRAY[${expr.items.map((i) => this.expr(i)).join(', ')}]`;
      case 'array-subquery':
        return `ARRAY(${this.query(expr.query)})`;
      case 'window':
        return `${this.expr(expr.call)} OVER (${this.window(expr)})`;
      case 'filtered':
        return `${this.expr(expr.call)} FILTER (WHERE ${this.expr(expr.where)})`;
      case 'extract':
        return `EXTRACT(${expr.field} FROM ${this.expr(expr.source)})`;
      case 'interval':
        return `INTERVAL '${expr.value.replaceAll("'", "''")}'${expr.unit ? ` ${expr.unit}` : ''}`;
      case 'clock':
        return expr.name;
    }
  }

  /** What goes between the parentheses after OVER. */
  private window(w: WindowCall): string {
    const parts: string[] = [];
    if (w.partitionBy.length > 0) parts.push(`PARTITION BY ${w.partitionBy.map((e) => this.expr(e)).join(', ')}`);
    if (w.orderBy.length > 0) parts.push(this.orderBy(w.orderBy));
    if (w.frame) {
      const bound = (b: FrameBound): string =>
        b.offset ? `${this.expr(b.offset)} ${b.kind.toUpperCase()}` : b.kind.toUpperCase();
      const unit = w.frame.unit.toUpperCase();
      parts.push(
        w.frame.end
          ? `${unit} BETWEEN ${bound(w.frame.start)} AND ${bound(w.frame.end)}`
          : `${unit} ${bound(w.frame.start)}`,
      );
    }
    return parts.join(' ');
  }
}
