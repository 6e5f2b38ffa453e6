import type { AttributeType } from '../er-model/er-model.ts';
import type {
  AnalyticExpr,
  CastType,
  DateField,
  DateUnit,
  Expr,
  Predicate,
  ScalarLiteral,
  TextFunction,
} from './conceptual-query.ts';

/** The analytic expression kinds (CASE, CAST, dates, text…), for dispatch. */
export const ANALYTIC_KINDS: ReadonlySet<string> = new Set<AnalyticExpr['kind']>([
  'case',
  'simpleCase',
  'cast',
  'nullif',
  'coalesce',
  'ratio',
  'extract',
  'dateTrunc',
  'dateShift',
  'ageYears',
  'textFunction',
  'substring',
  'position',
]);

export const CAST_TYPES: readonly CastType[] = ['numeric', 'real', 'integer', 'text', 'date'];
export const DATE_FIELDS: readonly DateField[] = ['year', 'quarter', 'month', 'day', 'dow', 'hour'];
export const DATE_UNITS: readonly DateUnit[] = ['year', 'quarter', 'month', 'week', 'day'];
export const TEXT_FUNCTIONS: readonly TextFunction[] = ['lower', 'upper', 'length'];

/** Whether an expression is one of the analytic kinds. */
export function isAnalytic(e: Expr): e is AnalyticExpr {
  return ANALYTIC_KINDS.has(e.kind);
}

/** The sub-expressions and conditions of an analytic expression, in reading order. */
export function analyticParts(e: AnalyticExpr): {
  readonly exprs: readonly Expr[];
  readonly predicates: readonly Predicate[];
} {
  switch (e.kind) {
    case 'case':
      return {
        exprs: [...e.whens.map((w) => w.then), ...(e.else ? [e.else] : [])],
        predicates: e.whens.map((w) => w.when),
      };
    case 'simpleCase':
      return { exprs: [e.operand, ...e.whens.map((w) => w.then), ...(e.else ? [e.else] : [])], predicates: [] };
    case 'nullif':
      return { exprs: [e.arg, e.value], predicates: [] };
    case 'coalesce':
      return { exprs: e.args, predicates: [] };
    case 'ratio':
      return { exprs: [e.numerator, e.denominator], predicates: [] };
    case 'ageYears':
      return { exprs: [e.from, e.to], predicates: [] };
    case 'cast':
    case 'extract':
    case 'dateTrunc':
    case 'dateShift':
    case 'textFunction':
    case 'substring':
    case 'position':
      return { exprs: [e.arg], predicates: [] };
  }
}

/** What kind of value an expression gives, as far as the checks need to know. */
export type ValueKind = 'text' | 'number' | 'date' | 'time' | 'boolean' | 'array';

/** The value kind of an attribute type. */
export function kindOfType(type: AttributeType): ValueKind {
  switch (type.kind) {
    case 'integer':
    case 'bigint':
    case 'numeric':
      return 'number';
    case 'text':
    case 'enum':
      return 'text';
    case 'boolean':
      return 'boolean';
    case 'date':
      return 'date';
    case 'timestamptz':
    case 'timestamp':
      return 'time';
  }
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/u;

/** Whether a literal is a date as the analytic date expressions take it (YYYY-MM-DD, a real day). */
export function isDateLiteral(value: ScalarLiteral | null): value is string {
  if (typeof value !== 'string' || !ISO_DATE.test(value)) return false;
  const d = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === value;
}

/**
 * The value kind of an expression, or undefined when it cannot be told (a literal NULL, a
 * subquery, a CASE of mixed branches). `typeOf` gives the type of what an attribute or an
 * element reads.
 */
export function valueKind(e: Expr, typeOf: (e: Expr) => AttributeType | undefined): ValueKind | undefined {
  const of = (x: Expr): ValueKind | undefined => valueKind(x, typeOf);
  switch (e.kind) {
    case 'attribute':
    case 'element': {
      const t = typeOf(e);
      return t === undefined ? undefined : kindOfType(t);
    }
    case 'literal':
      // A string literal is untyped, as in PostgreSQL: '12.50' may be a number, '2024-01-01' a date.
      return typeof e.value === 'number' ? 'number' : typeof e.value === 'boolean' ? 'boolean' : undefined;
    case 'aggregate':
      if (e.fn === 'count' || e.fn === 'sum' || e.fn === 'avg') return 'number';
      return e.arg ? of(e.arg) : undefined;
    case 'setSize':
    case 'ratio':
    case 'extract':
    case 'ageYears':
    case 'position':
    case 'round':
      return 'number';
    case 'setArray':
      return 'array';
    case 'classOf':
      return 'text';
    case 'arithmetic':
      return e.op === '||' ? 'text' : 'number';
    case 'cast':
      return e.to === 'text' ? 'text' : e.to === 'date' ? 'date' : 'number';
    case 'textFunction':
      return e.fn === 'length' ? 'number' : 'text';
    case 'substring':
      return 'text';
    case 'dateTrunc':
      return 'date';
    case 'dateShift':
      return e.arg.kind === 'literal' ? 'date' : of(e.arg);
    case 'nullif':
      return of(e.arg);
    case 'coalesce': {
      const kinds = new Set(e.args.map(of).filter((k) => k !== undefined));
      return kinds.size === 1 ? [...kinds][0] : undefined;
    }
    case 'case':
    case 'simpleCase': {
      const thens = [...e.whens.map((w) => w.then), ...(e.else ? [e.else] : [])];
      const kinds = new Set(thens.map(of).filter((k) => k !== undefined));
      return kinds.size === 1 ? [...kinds][0] : undefined;
    }
    case 'scalarSubquery':
      return undefined;
  }
}
