import { quoteLiteral } from '../common/sql-text.ts';
import type { AnalyticExpr, DateUnit, Expr, Predicate, ScalarLiteral } from '../query/conceptual-query.ts';
import type { ValueKind } from '../query/analytic-expr.ts';

/** What the query compiler lends the analytic expression cases. */
export interface ExpressionCompiler {
  expr(e: Expr): string;
  predicate(p: Predicate): string;
  literal(value: ScalarLiteral | null): string;
  /** The kind of value an expression gives, when known. */
  kindOf(e: Expr): ValueKind | undefined;
}

/**
 * `EXTRACT(YEAR FROM …)`, `count(*) FILTER (WHERE …)` and `INTERVAL '3 months'` print as
 * PostgreSQL writes them. `position('x' IN …)` is the one standard spelling our SQL parser
 * adapter, and so the executor's guard, cannot read yet: it prints as `strpos(…, 'x')`,
 * which gives the same value; set POSITION_IN when the adapter reads it.
 */
export const STANDARD_SPELLINGS = true;
const POSITION_IN = false;

const UNIT_PLURAL: Record<DateUnit, string> = { year: 'years', quarter: 'months', month: 'months', week: 'weeks', day: 'days' };

/**
 * The SQL of an analytic expression, the same on every variant: the parts are compiled for
 * the variant by `c`, the construct around them is plain PostgreSQL as an engineer writes
 * it. Dates are UTC (the executor's session setting) and date literals are typed with a
 * CAST, so answers never depend on the clock or the server's time zone.
 */
export function compileAnalyticExpr(e: AnalyticExpr, c: ExpressionCompiler): string {
  const date = (x: Expr): string => (x.kind === 'literal' ? `CAST(${c.literal(x.value)} AS date)` : c.expr(x));
  switch (e.kind) {
    case 'case': {
      const whens = e.whens.map((w) => `WHEN ${c.predicate(w.when)} THEN ${c.expr(w.then)}`);
      return `CASE ${whens.join(' ')}${e.else ? ` ELSE ${c.expr(e.else)}` : ''} END`;
    }
    case 'simpleCase': {
      const whens = e.whens.map((w) => `WHEN ${c.literal(w.value)} THEN ${c.expr(w.then)}`);
      return `CASE ${c.expr(e.operand)} ${whens.join(' ')}${e.else ? ` ELSE ${c.expr(e.else)}` : ''} END`;
    }
    case 'cast':
      return `CAST(${c.expr(e.arg)} AS ${e.to})`;
    case 'nullif':
      return `nullif(${c.expr(e.arg)}, ${c.expr(e.value)})`;
    case 'coalesce':
      return `coalesce(${e.args.map((a) => c.expr(a)).join(', ')})`;
    case 'ratio': {
      // numeric arithmetic (100.0, 1.0) keeps integer counts from dividing to an integer,
      // and round() fixes the scale, so every variant prints the same digits. A float part
      // (a cast to real) is brought back to numeric, which round(…, n) needs.
      const scale = e.percent ? '100.0' : '1.0';
      // A number other than 0 as the denominator needs no guard.
      const constant = e.denominator.kind === 'literal' && typeof e.denominator.value === 'number' && e.denominator.value !== 0;
      const quotient = `${scale} * ${c.expr(e.numerator)} / ${constant ? c.expr(e.denominator) : `nullif(${c.expr(e.denominator)}, 0)`}`;
      const float = [e.numerator, e.denominator].some((x) => x.kind === 'cast' && x.to === 'real');
      return `round(${float ? `CAST(${quotient} AS numeric)` : quotient}, ${e.digits})`;
    }
    case 'extract':
      return STANDARD_SPELLINGS ? `EXTRACT(${e.field.toUpperCase()} FROM ${date(e.arg)})` : `date_part(${quoteLiteral(e.field)}, ${date(e.arg)})`;
    case 'dateTrunc':
      return `CAST(date_trunc(${quoteLiteral(e.unit)}, ${date(e.arg)}) AS date)`;
    case 'dateShift': {
      const n = e.unit === 'quarter' ? 3 * Math.abs(e.amount) : Math.abs(e.amount);
      const text = quoteLiteral(`${n} ${n === 1 ? UNIT_PLURAL[e.unit].replace(/s$/u, '') : UNIT_PLURAL[e.unit]}`);
      const interval = STANDARD_SPELLINGS ? `INTERVAL ${text}` : `CAST(${text} AS interval)`;
      const shifted = `${date(e.arg)} ${e.amount < 0 ? '-' : '+'} ${interval}`;
      // date ± interval gives a timestamp; a date stays a date. A timestamptz stays one.
      const isDate = e.arg.kind === 'literal' || c.kindOf(e.arg) === 'date';
      return isDate ? `CAST(${shifted} AS date)` : `(${shifted})`;
    }
    case 'ageYears': {
      const age = `age(${date(e.to)}, ${date(e.from)})`;
      return STANDARD_SPELLINGS ? `EXTRACT(YEAR FROM ${age})` : `date_part('year', ${age})`;
    }
    case 'textFunction':
      return `${e.fn}(${c.expr(e.arg)})`;
    case 'substring':
      return `substring(${c.expr(e.arg)}, ${e.start}${e.length === undefined ? '' : `, ${e.length}`})`;
    case 'position':
      return POSITION_IN ? `position(${quoteLiteral(e.search)} IN ${c.expr(e.arg)})` : `strpos(${c.expr(e.arg)}, ${quoteLiteral(e.search)})`;
  }
}

/**
 * An aggregate call: `count(*)`, `sum(DISTINCT (x))`, and with a filter the rows it
 * aggregates narrowed to those meeting it. DISTINCT's argument is bracketed for all but
 * count, which our parser adapter needs and PostgreSQL does not mind.
 */
export function compileAggregate(e: Extract<Expr, { kind: 'aggregate' }>, c: ExpressionCompiler, conditions: (p: Predicate) => string[]): string {
  const filter = e.filter ? conditions(e.filter) : [];
  if (STANDARD_SPELLINGS || filter.length === 0) {
    // Arithmetic compiles in brackets of its own, which a call's parentheses make needless: sum(a - b).
    const arg = !e.arg ? '*' : e.arg.kind === 'arithmetic' && !e.distinct ? withoutOuterBrackets(c.expr(e.arg)) : c.expr(e.arg);
    const call = e.distinct ? `${e.fn}(DISTINCT ${e.fn === 'count' || /^\(.*\)$/su.test(arg) ? arg : `(${arg})`})` : `${e.fn}(${arg})`;
    return filter.length > 0 ? `${call} FILTER (WHERE ${filter.join(' AND ')})` : call;
  }
  // The aggregate ignores the NULL a CASE without ELSE gives on the other rows.
  const when = filter.length === 1 ? (filter[0] as string) : filter.join(' AND ');
  const inner = `CASE WHEN ${when} THEN ${e.arg ? c.expr(e.arg) : '1'} END`;
  return `${e.fn}(${e.distinct ? 'DISTINCT ' : ''}${inner})`;
}

/** `(a - b)` as `a - b`; any text not wholly inside one pair of brackets is returned as it is. */
function withoutOuterBrackets(sql: string): string {
  if (!sql.startsWith('(') || !sql.endsWith(')')) return sql;
  let depth = 0;
  let quote: string | null = null;
  for (let i = 0; i < sql.length; i++) {
    const ch = sql[i] as string;
    if (quote) {
      if (ch === quote) quote = null;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
    } else if (ch === '(') {
      depth++;
    } else if (ch === ')' && --depth === 0 && i < sql.length - 1) {
      return sql;
    }
  }
  return sql.slice(1, -1);
}
