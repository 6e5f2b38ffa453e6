import type { AnalyticExpr, DateUnit, Expr, Predicate, ScalarLiteral } from '../query/conceptual-query.ts';
import type { ValueKind } from '../query/analytic-expr.ts';
import { binary, call, literal, paren, STAR, type SqlExpr, type SqlLiteral } from './sql-tree.ts';

/** What the query compiler lends the analytic expression cases. */
export interface ExpressionCompiler {
  expr(e: Expr): SqlExpr;
  predicate(p: Predicate): SqlExpr;
  literal(value: ScalarLiteral | null): SqlExpr;
  /** The kind of value an expression gives, when known. */
  kindOf(e: Expr): ValueKind | undefined;
}

const UNIT_PLURAL: Record<DateUnit, string> = {
  year: 'years',
  quarter: 'months',
  month: 'months',
  week: 'weeks',
  day: 'days',
};

/** A number spelled as written: `100.0` keeps numeric arithmetic numeric. */
const decimal = (text: string): SqlLiteral => ({ kind: 'literal', value: Number(text), text });

/**
 * The SQL of an analytic expression, the same on every variant: the parts are compiled for
 * the variant by `c`, the construct around them is plain PostgreSQL as an engineer writes
 * it (`EXTRACT(YEAR FROM …)`, `INTERVAL '3 months'`). Dates are UTC (the executor's session
 * setting) and date literals are typed with a CAST, so answers never depend on the clock or
 * the server's time zone.
 */
export function compileAnalyticExpr(e: AnalyticExpr, c: ExpressionCompiler): SqlExpr {
  const date = (x: Expr): SqlExpr =>
    x.kind === 'literal' ? { kind: 'cast', arg: c.literal(x.value), type: 'date' } : c.expr(x);
  switch (e.kind) {
    case 'case':
      return {
        kind: 'case',
        whens: e.whens.map((w) => ({ when: c.predicate(w.when), then: c.expr(w.then) })),
        ...(e.else ? { else: c.expr(e.else) } : {}),
      };
    case 'simpleCase':
      return {
        kind: 'case',
        operand: c.expr(e.operand),
        whens: e.whens.map((w) => ({ when: c.literal(w.value), then: c.expr(w.then) })),
        ...(e.else ? { else: c.expr(e.else) } : {}),
      };
    case 'cast':
      return { kind: 'cast', arg: c.expr(e.arg), type: e.to };
    case 'nullif':
      return call('nullif', c.expr(e.arg), c.expr(e.value));
    case 'coalesce':
      return call('coalesce', ...e.args.map((a) => c.expr(a)));
    case 'ratio': {
      // numeric arithmetic (100.0, 1.0) keeps integer counts from dividing to an integer,
      // and round() fixes the scale, so every variant prints the same digits. A float part
      // (a cast to real) is brought back to numeric, which round(…, n) needs.
      const scale = decimal(e.percent ? '100.0' : '1.0');
      // A number other than 0 as the denominator needs no guard.
      const constant =
        e.denominator.kind === 'literal' && typeof e.denominator.value === 'number' && e.denominator.value !== 0;
      const denominator = constant ? c.expr(e.denominator) : call('nullif', c.expr(e.denominator), literal(0));
      const quotient = binary('/', binary('*', scale, c.expr(e.numerator)), denominator);
      const float = [e.numerator, e.denominator].some((x) => x.kind === 'cast' && x.to === 'real');
      return call('round', float ? { kind: 'cast', arg: quotient, type: 'numeric' } : quotient, literal(e.digits));
    }
    case 'extract':
      return { kind: 'extract', field: e.field, arg: date(e.arg) };
    case 'dateTrunc':
      return { kind: 'cast', arg: call('date_trunc', literal(e.unit), date(e.arg)), type: 'date' };
    case 'dateShift': {
      const n = e.unit === 'quarter' ? 3 * Math.abs(e.amount) : Math.abs(e.amount);
      const text = `${n} ${n === 1 ? UNIT_PLURAL[e.unit].replace(/s$/u, '') : UNIT_PLURAL[e.unit]}`;
      const shifted = binary(e.amount < 0 ? '-' : '+', date(e.arg), { kind: 'interval', text });
      // date ± interval gives a timestamp; a date stays a date. A timestamptz stays one.
      const isDate = e.arg.kind === 'literal' || c.kindOf(e.arg) === 'date';
      return isDate ? { kind: 'cast', arg: shifted, type: 'date' } : paren(shifted);
    }
    case 'ageYears':
      return { kind: 'extract', field: 'year', arg: call('age', date(e.to), date(e.from)) };
    case 'textFunction':
      return call(e.fn, c.expr(e.arg));
    case 'substring':
      return call('substring', c.expr(e.arg), literal(e.start), ...(e.length === undefined ? [] : [literal(e.length)]));
    case 'position':
      // strpos(text, 'x') is position('x' IN text), in the spelling every reader takes.
      return call('strpos', c.expr(e.arg), literal(e.search));
  }
}

/**
 * An aggregate call: `count(*)`, `sum(DISTINCT (x))`, and with a filter the rows it
 * aggregates narrowed to those meeting it (`count(*) FILTER (WHERE …)`).
 */
export function compileAggregate(
  e: Extract<Expr, { kind: 'aggregate' }>,
  c: ExpressionCompiler,
  conditions: (p: Predicate) => SqlExpr[],
): SqlExpr {
  const filter = e.filter ? conditions(e.filter) : [];
  // Arithmetic compiles in brackets of its own, which a call's parentheses make needless: sum(a - b).
  const compiled = e.arg ? c.expr(e.arg) : STAR;
  const arg = e.arg?.kind === 'arithmetic' && !e.distinct && compiled.kind === 'paren' ? compiled.arg : compiled;
  const bracketed = arg.kind === 'paren' || arg.kind === 'subquery';
  const node: SqlExpr = e.distinct
    ? { kind: 'call', name: e.fn, args: [e.fn === 'count' || bracketed ? arg : paren(arg)], distinct: true }
    : call(e.fn, arg);
  return filter.length > 0 ? { ...node, filter } : node;
}
