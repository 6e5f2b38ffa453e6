import type { AttributeType } from '../er-model/er-model.ts';
import type { AnalyticExpr, Expr, ScalarLiteral } from './conceptual-query.ts';
import {
  CAST_TYPES,
  DATE_FIELDS,
  DATE_UNITS,
  TEXT_FUNCTIONS,
  isDateLiteral,
  valueKind,
  type ValueKind,
} from './analytic-expr.ts';

/** What the scope checker lends the analytic checks. */
export interface AnalyticCheckTools {
  checkExpr(e: unknown, path: string): void;
  checkPredicate(p: unknown, path: string): void;
  /** Throws a ConfigError naming `path`. */
  fail(path: string, message: string): never;
  oneOf(value: unknown, allowed: readonly string[], path: string): void;
  literal(value: unknown, path: string): void;
  literalFits(type: AttributeType | undefined, value: ScalarLiteral | null, path: string): void;
  typeOf(e: Expr): AttributeType | undefined;
  show(value: unknown): string;
}

/**
 * Checks an analytic expression (CASE, CAST, NULLIF, COALESCE, ratios, dates, text) read
 * from JSON: its fields, its parts, and the kinds of value its functions take, so a query
 * PostgreSQL would refuse ("function lower(integer) does not exist", "CASE types text and
 * integer cannot be matched") is refused here with the path at fault.
 */
export function checkAnalyticExpr(e: AnalyticExpr, path: string, t: AnalyticCheckTools): void {
  const kind = (x: Expr): ValueKind | undefined => valueKind(x, t.typeOf);
  const list = (value: unknown, at: string): unknown[] => {
    if (!Array.isArray(value) || value.length === 0) return t.fail(at, 'expected a non-empty list');
    return value;
  };
  const integer = (value: unknown, at: string, min: number, max: number): void => {
    if (!Number.isInteger(value) || (value as number) < min || (value as number) > max)
      t.fail(at, `expected an integer from ${min} to ${max}, got ${t.show(value)}`);
  };
  /** The branches of a CASE or COALESCE must give one kind of value. */
  const sameKind = (exprs: readonly Expr[], at: string): void => {
    const kinds = [...new Set(exprs.map(kind).filter((k) => k !== undefined))];
    if (kinds.length > 1)
      t.fail(at, `the values mix ${kinds.join(' and ')}: give every branch one kind of value (cast one)`);
  };
  const wants = (x: Expr, allowed: readonly ValueKind[], at: string, what: string): void => {
    const k = kind(x);
    if (k !== undefined && !allowed.includes(k)) t.fail(at, `${what} takes ${allowed.join(' or ')}, not ${k}`);
  };
  /** A date or time value; a string literal must be a date (YYYY-MM-DD). */
  const temporal = (x: Expr, at: string, what: string): void => {
    if (x.kind === 'literal') {
      if (!isDateLiteral(x.value)) t.fail(at, `${what} takes a date literal as YYYY-MM-DD, got ${t.show(x.value)}`);
      return;
    }
    wants(x, ['date', 'time'], at, what);
  };
  switch (e.kind) {
    case 'case': {
      list(e.whens, `${path}.whens`).forEach((w, i) => {
        if (typeof w !== 'object' || w === null) return void t.fail(`${path}.whens[${i}]`, 'expected {when, then}');
        t.checkPredicate((w as { when: unknown }).when, `${path}.whens[${i}].when`);
        t.checkExpr((w as { then: unknown }).then, `${path}.whens[${i}].then`);
      });
      if (e.else !== undefined) t.checkExpr(e.else, `${path}.else`);
      sameKind([...e.whens.map((w) => w.then), ...(e.else ? [e.else] : [])], path);
      return;
    }
    case 'simpleCase': {
      t.checkExpr(e.operand, `${path}.operand`);
      list(e.whens, `${path}.whens`).forEach((w, i) => {
        if (typeof w !== 'object' || w === null) return void t.fail(`${path}.whens[${i}]`, 'expected {value, then}');
        const value = (w as { value: unknown }).value;
        t.literal(value, `${path}.whens[${i}].value`);
        if (value === null)
          t.fail(`${path}.whens[${i}].value`, 'NULL never equals anything: use a searched case with isNull');
        t.literalFits(t.typeOf(e.operand), value as ScalarLiteral, `${path}.whens[${i}].value`);
        t.checkExpr((w as { then: unknown }).then, `${path}.whens[${i}].then`);
      });
      if (e.else !== undefined) t.checkExpr(e.else, `${path}.else`);
      sameKind([...e.whens.map((w) => w.then), ...(e.else ? [e.else] : [])], path);
      return;
    }
    case 'cast': {
      t.oneOf(e.to, CAST_TYPES, `${path}.to`);
      t.checkExpr(e.arg, `${path}.arg`);
      if (e.to === 'date') wants(e.arg, ['date', 'time', 'text'], `${path}.arg`, 'a cast to date');
      else if (e.to !== 'text') wants(e.arg, ['number', 'text'], `${path}.arg`, `a cast to ${e.to}`);
      return;
    }
    case 'nullif':
      t.checkExpr(e.arg, `${path}.arg`);
      t.checkExpr(e.value, `${path}.value`);
      sameKind([e.arg, e.value], path);
      return;
    case 'coalesce':
      if (!Array.isArray(e.args) || e.args.length < 2) t.fail(`${path}.args`, 'expected at least two expressions');
      e.args.forEach((a, i) => t.checkExpr(a, `${path}.args[${i}]`));
      sameKind(e.args, path);
      return;
    case 'ratio':
      integer(e.digits, `${path}.digits`, 0, 20);
      if (typeof e.percent !== 'boolean') t.fail(`${path}.percent`, 'expected true or false');
      t.checkExpr(e.numerator, `${path}.numerator`);
      t.checkExpr(e.denominator, `${path}.denominator`);
      wants(e.numerator, ['number'], `${path}.numerator`, 'a ratio');
      wants(e.denominator, ['number'], `${path}.denominator`, 'a ratio');
      return;
    case 'extract':
      t.oneOf(e.field, DATE_FIELDS, `${path}.field`);
      t.checkExpr(e.arg, `${path}.arg`);
      temporal(e.arg, `${path}.arg`, 'extract');
      // A date has no hour (PostgreSQL refuses EXTRACT(HOUR FROM a date)).
      if (e.field === 'hour') wants(e.arg, ['time'], `${path}.arg`, 'extract of the hour');
      return;
    case 'dateTrunc':
      t.oneOf(e.unit, DATE_UNITS, `${path}.unit`);
      t.checkExpr(e.arg, `${path}.arg`);
      temporal(e.arg, `${path}.arg`, 'dateTrunc');
      return;
    case 'dateShift':
      t.oneOf(e.unit, DATE_UNITS, `${path}.unit`);
      integer(e.amount, `${path}.amount`, -100_000, 100_000);
      t.checkExpr(e.arg, `${path}.arg`);
      temporal(e.arg, `${path}.arg`, 'dateShift');
      return;
    case 'ageYears':
      t.checkExpr(e.from, `${path}.from`);
      t.checkExpr(e.to, `${path}.to`);
      temporal(e.from, `${path}.from`, 'ageYears');
      temporal(e.to, `${path}.to`, 'ageYears');
      return;
    case 'textFunction':
      t.oneOf(e.fn, TEXT_FUNCTIONS, `${path}.fn`);
      t.checkExpr(e.arg, `${path}.arg`);
      wants(e.arg, ['text'], `${path}.arg`, e.fn);
      return;
    case 'substring':
      integer(e.start, `${path}.start`, 1, 1_000_000);
      if (e.length !== undefined) integer(e.length, `${path}.length`, 0, 1_000_000);
      t.checkExpr(e.arg, `${path}.arg`);
      wants(e.arg, ['text'], `${path}.arg`, 'substring');
      return;
    case 'position':
      if (typeof e.search !== 'string' || e.search.length === 0)
        t.fail(`${path}.search`, `expected a non-empty string, got ${t.show(e.search)}`);
      t.checkExpr(e.arg, `${path}.arg`);
      wants(e.arg, ['text'], `${path}.arg`, 'position');
      return;
  }
}
