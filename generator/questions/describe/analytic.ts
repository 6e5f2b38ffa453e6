import type { AnalyticExpr, DateField, DateUnit, Expr, Predicate } from '../../query/conceptual-query.ts';
import { analyticParts } from '../../query/analytic-expr.ts';

/** What the query describer lends the analytic phrasings. */
export interface AnalyticPhrasing<C> {
  expr(e: Expr, ctx: C): string;
  predicate(p: Predicate, ctx: C): string;
  nullable(e: Expr): boolean;
  /** Whether the expression reads a time of day (a timestamptz), whose date parts are taken in UTC. */
  isTime(e: Expr): boolean;
  /** Records an answer-deciding fact the question must state (any alternative, all its strings). */
  mention(construct: string, ...anyOf: (readonly string[])[]): void;
  cover(construct: string): void;
}

const FIELD: Record<DateField, string> = {
  year: 'the year of',
  quarter: 'the quarter (1 to 4) of',
  month: 'the month number (1 to 12) of',
  day: 'the day of the month of',
  dow: 'the day of the week (0 for Sunday to 6 for Saturday) of',
  hour: 'the hour (0 to 23) of',
};

const TRUNC: Record<DateUnit, string> = {
  year: 'the first day of the year of',
  quarter: 'the first day of the quarter of',
  month: 'the first day of the month of',
  week: 'the Monday that starts the week of',
  day: 'the date of',
};

/** A date literal as a question quotes it. */
function dateText(e: Expr, ctx: unknown, ph: AnalyticPhrasing<unknown>): string {
  return e.kind === 'literal' && typeof e.value === 'string' ? e.value : ph.expr(e, ctx);
}

/**
 * The English of an analytic value, stating what decides it: the fallback of a CASE, the
 * rounding of a cast or a ratio, what a division by zero gives, UTC for times of day,
 * whether a count of characters starts at 1. Compositional: parts are described by `ph`.
 */
export function describeAnalytic<C>(e: AnalyticExpr, ctx: C, ph: AnalyticPhrasing<C>): string {
  const x = (y: Expr): string => ph.expr(y, ctx);
  const utc = (y: Expr): string => (ph.isTime(y) ? ' (in UTC)' : '');
  const timeNote = (y: Expr): void => {
    if (ph.isTime(y)) ph.mention('utc', ['UTC']);
  };
  switch (e.kind) {
    case 'case': {
      const branches = e.whens.map((w) => `${x(w.then)} when ${ph.predicate(w.when, ctx)}`);
      const otherwise = e.else ? `${x(e.else)} otherwise` : 'empty otherwise';
      ph.mention('case', ['otherwise']);
      return `the value that is ${branches.join(', else ')}, and ${otherwise}`;
    }
    case 'simpleCase': {
      const operand = x(e.operand);
      const branches = e.whens.map(
        (w, i) => `${x(w.then)} when ${i === 0 ? operand : 'it'} is ${x({ kind: 'literal', value: w.value })}`,
      );
      const otherwise = e.else ? `${x(e.else)} otherwise` : 'empty otherwise';
      ph.mention('simple-case', ['otherwise']);
      return `the value that is ${branches.join(', ')}, and ${otherwise}`;
    }
    case 'cast': {
      ph.cover(`cast:${e.to}`);
      switch (e.to) {
        case 'numeric':
          return `${x(e.arg)} as an exact decimal number`;
        case 'real':
          ph.mention('cast-real', ['floating-point']);
          return `${x(e.arg)} as a floating-point number`;
        case 'integer':
          ph.mention('cast-integer', ['nearest whole number']);
          return `${x(e.arg)} rounded to the nearest whole number (halves away from zero)`;
        case 'text':
          return `${x(e.arg)} written as text`;
        case 'date':
          timeNote(e.arg);
          return `the calendar date of ${x(e.arg)}${utc(e.arg)}`;
      }
      break;
    }
    case 'nullif':
      ph.mention('nullif', ['left empty']);
      return `${x(e.arg)}, left empty where it equals ${x(e.value)}`;
    case 'coalesce': {
      ph.mention('coalesce', ['where', 'missing'], ['first known']);
      const [first, ...rest] = e.args.map(x);
      if (rest.length === 1) return `${first}, or ${rest[0]} where that is missing`;
      return `the first known value among ${[first, ...rest].join('; ')}`;
    }
    case 'ratio': {
      const places = `${e.digits} decimal place${e.digits === 1 ? '' : 's'}`;
      // A number other than 0 as the denominator is never 0: nothing to say about it.
      const constant =
        e.denominator.kind === 'literal' && typeof e.denominator.value === 'number' && e.denominator.value !== 0;
      // The concise style says "rounded to 2 decimals".
      ph.mention(
        'ratio',
        [`${e.digits} decimal place`],
        [`${e.digits} decimals`],
        ...(constant ? [] : [['empty when']]),
      );
      const den = x(e.denominator);
      const zero = constant ? '' : ` (empty when ${den.replace(/ \(0 when there are none\)$/u, '')} is 0)`;
      if (e.percent) {
        ph.mention('percentage', ['percent']);
        return `${x(e.numerator)} as a percent of ${den}, rounded to ${places}${zero}`;
      }
      return `${x(e.numerator)} divided by ${den}, rounded to ${places}${zero}`;
    }
    case 'extract':
      timeNote(e.arg);
      ph.cover('extract');
      return `${FIELD[e.field]} ${dateText(e.arg, ctx, ph as AnalyticPhrasing<unknown>)}${utc(e.arg)}`;
    case 'dateTrunc':
      timeNote(e.arg);
      ph.cover('date-trunc');
      return `${TRUNC[e.unit]} ${dateText(e.arg, ctx, ph as AnalyticPhrasing<unknown>)}${utc(e.arg)}`;
    case 'dateShift': {
      const n = Math.abs(e.amount);
      const unit = `${n} ${e.unit}${n === 1 ? '' : 's'}`;
      ph.mention('date-shift', [unit]);
      if (e.arg.kind === 'literal')
        return `the date ${unit} ${e.amount < 0 ? 'before' : 'after'} ${dateText(e.arg, ctx, ph as AnalyticPhrasing<unknown>)}`;
      return `${x(e.arg)} ${e.amount < 0 ? 'minus' : 'plus'} ${unit}`;
    }
    case 'ageYears':
      ph.mention('age', ['whole years']);
      return `the number of whole years from ${dateText(e.from, ctx, ph as AnalyticPhrasing<unknown>)} to ${dateText(e.to, ctx, ph as AnalyticPhrasing<unknown>)}`;
    case 'textFunction':
      ph.cover(`text:${e.fn}`);
      if (e.fn === 'length') return `the number of characters in ${x(e.arg)}`;
      return `${x(e.arg)} in ${e.fn === 'lower' ? 'lower' : 'upper'} case`;
    case 'substring':
      ph.mention('substring', ['character']);
      if (e.length === undefined) return `${x(e.arg)} from character ${e.start} on`;
      if (e.start === 1)
        return e.length === 1
          ? `the first character of ${x(e.arg)}`
          : `the first ${e.length} characters (or fewer) of ${x(e.arg)}`;
      return `the ${e.length === 1 ? 'character' : `${e.length} characters (or fewer)`} of ${x(e.arg)} starting at character ${e.start}`;
    case 'position':
      ph.mention('position', ['0 when']);
      return `the position of the first "${e.search}" in ${x(e.arg)} (counting from 1, 0 when it does not occur)`;
  }
  return x((e as { arg: Expr }).arg);
}

/** Whether an analytic value can be missing (NULL), given whether its parts can. */
export function analyticNullable(e: AnalyticExpr, nullable: (e: Expr) => boolean): boolean {
  switch (e.kind) {
    case 'case':
    case 'simpleCase':
      return e.else === undefined || analyticParts(e).exprs.some(nullable);
    case 'nullif':
    case 'ratio':
      return true;
    case 'coalesce':
      return e.args.every(nullable);
    default:
      return analyticParts(e).exprs.some(nullable);
  }
}
