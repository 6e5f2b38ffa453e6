import type { Expr, Predicate } from '../../query/conceptual-query.ts';
import { hasAggregate } from '../../query/query-scope.ts';
import { aggregate } from './aggregates.ts';
import { analyticNullable, describeAnalytic, type AnalyticPhrasing } from './analytic.ts';
import { mention, type DescribeContext, type Grouping, type Handlers } from './context.ts';
import { article, listing, literalText, words } from './english.ts';
import { attribute, attributeNoun, info, ref } from './nouns.ts';
import { predicate } from './predicates.ts';
import { subqueryValue } from './subqueries.ts';
import { describeWindow, type WindowWords } from './window.ts';

interface ExprCtx extends Grouping {
  readonly d: DescribeContext;
}

/** Whether an expression may be missing (NULL) in a row. */
export function nullable(d: DescribeContext, e: Expr): boolean {
  switch (e.kind) {
    case 'attribute':
      return (
        info(d, e.alias).optional || (e.attribute !== 'id' && attribute(d, e.alias, e.attribute)?.optional === true)
      );
    case 'element':
      return info(d, e.alias).optional;
    case 'linkAttribute':
      return true;
    case 'classOf':
      return true;
    case 'aggregate':
      return e.fn !== 'count';
    case 'arithmetic':
      return nullable(d, e.left) || nullable(d, e.right);
    case 'round':
      return nullable(d, e.arg);
    case 'setSize':
    case 'setArray':
      return info(d, e.alias).optional;
    case 'scalarSubquery': {
      // A COUNT subquery always gives a number (0 for no rows); other aggregates can be NULL.
      const out = e.query.kind === 'select' ? e.query.select[0]?.expr : undefined;
      return !(out?.kind === 'aggregate' && out.fn === 'count' && (e.query.groupBy?.length ?? 0) === 0);
    }
    case 'literal':
      return e.value === null;
    case 'window':
      return e.fn === 'lag' || e.fn === 'lead' || ((e.fn === 'sum' || e.fn === 'avg') && nullable(d, e.arg as Expr));
    default:
      return analyticNullable(e, (x) => nullable(d, x));
  }
}

/** Whether an expression reads a time of day (a timestamptz attribute or element). */
export function isTime(d: DescribeContext, e: Expr): boolean {
  if (e.kind === 'attribute' && e.attribute !== 'id')
    return attribute(d, e.alias, e.attribute)?.type.kind === 'timestamptz';
  if (e.kind === 'element') return info(d, e.alias).element?.attribute.type.kind === 'timestamptz';
  return false;
}

/** Whether an expression is a date or a time (its comparisons read "earlier", "later"). */
export function isTemporal(d: DescribeContext, e: Expr): boolean {
  if (e.kind === 'dateShift' || e.kind === 'dateTrunc' || (e.kind === 'cast' && e.to === 'date')) return true;
  if (e.kind === 'attribute' && e.attribute !== 'id') {
    const k = attribute(d, e.alias, e.attribute)?.type.kind;
    return k === 'date' || k === 'timestamptz' || k === 'timestamp';
  }
  if (e.kind === 'element') {
    const k = info(d, e.alias).element?.attribute.type.kind;
    return k === 'date' || k === 'timestamptz' || k === 'timestamp';
  }
  return false;
}

/** What the window phrasings need of the describer. */
export function windowWords(d: DescribeContext): WindowWords {
  return {
    expr: (e) => expr(d, e, { grouped: d.windowUnit === 'group' && hasAggregate(e) }),
    nullable: (e) => nullable(d, e),
    mention: (construct, ...anyOf) => mention(d, construct, ...anyOf),
    unit: () => d.windowUnit,
  };
}

/** The describer's helpers, lent to the analytic phrasings (CASE, CAST, dates, text). */
function phrasing(d: DescribeContext): AnalyticPhrasing<Grouping> {
  return {
    expr: (e, g) => expr(d, e, g),
    predicate: (p: Predicate, g) => predicate(d, p, g),
    nullable: (e) => nullable(d, e),
    isTime: (e) => isTime(d, e),
    mention: (construct, ...anyOf) => mention(d, construct, ...anyOf),
    cover: (construct) => d.covered.add(construct),
  };
}

const analytic =
  <K extends Expr['kind']>(_kind: K) =>
  (e: Extract<Expr, { kind: K }>, ctx: ExprCtx): string =>
    describeAnalytic(e as never, { grouped: ctx.grouped }, phrasing(ctx.d));

const exprHandlers: Handlers<Expr, ExprCtx, string> = {
  attribute: (e, { d }) => `the ${attributeNoun(d, e.alias, e.attribute)} of ${ref(d, e.alias)}`,
  element: (e, { d }) => ref(d, e.alias),
  linkAttribute: (e, { d }) => {
    const i = info(d, e.alias);
    const rel = d.index.relationship(i.relationship ?? '');
    const a = rel.attributes?.find((x) => x.name === e.attribute);
    const n = a?.lexicon?.singular ?? words(e.attribute);
    return `the ${n} recorded on the link to ${ref(d, e.alias)}`;
  },
  literal: (e) => literalText(e.value),
  aggregate: (e, ctx) => aggregate(ctx.d, e, { grouped: ctx.grouped }),
  setSize: (e, { d }) => {
    const plural = attributeNoun(d, e.alias, e.attribute, true);
    mention(d, 'set-size', ['0 when'], ['0 if none']);
    return `the number of ${plural} of ${ref(d, e.alias)} (0 when it has none)`;
  },
  setArray: (e, { d }) => {
    mention(d, 'set-array', ['any order']);
    return `the list of ${attributeNoun(d, e.alias, e.attribute, true)} of ${ref(d, e.alias)} (in any order)`;
  },
  classOf: (e, { d }) => {
    const names = e.among.map((n) => d.index.entity(n).lexicon.singular);
    mention(d, 'class-of', ['in that order'], ['empty']);
    // The quoted labels are the ones the answer holds (the kinds' names as the model spells them), each with the kind in words.
    const shown = d.shown.includes(JSON.stringify(e));
    const labelled = e.among.map((x, i) =>
      shown ? `"${x}" for ${article(names[i] as string)}` : (names[i] as string),
    );
    if (!shown)
      return `the first that applies of ${listing(labelled, 'or')} (in that order) that ${ref(d, e.alias)} is (empty if none)`;
    return e.among.length === 1
      ? `${labelled[0]} (empty otherwise)`.replace(/ for /u, ` when ${ref(d, e.alias)} is `)
      : `the first that applies of ${listing(labelled, 'or')} (in that order), for ${ref(d, e.alias)} (empty if none)`;
  },
  arithmetic: (e, ctx) => {
    const l = expr(ctx.d, e.left, ctx);
    const r = expr(ctx.d, e.right, ctx);
    // "the text" introduces a quoted value only: "followed by the text the last name" is not English.
    const op = {
      '+': 'plus',
      '-': 'minus',
      '*': 'times',
      '/': 'divided by',
      '||': e.right.kind === 'literal' ? 'followed by the text' : 'followed by',
    }[e.op];
    return `${l} ${op} ${r}`;
  },
  round: (e, ctx) => `${expr(ctx.d, e.arg, ctx)} rounded to ${e.digits} decimal place${e.digits === 1 ? '' : 's'}`,
  scalarSubquery: (e, { d }) => subqueryValue(d, e.query),
  window: (e, { d }) => describeWindow(e, windowWords(d)),
  case: analytic('case'),
  simpleCase: analytic('simpleCase'),
  cast: analytic('cast'),
  nullif: analytic('nullif'),
  coalesce: analytic('coalesce'),
  ratio: analytic('ratio'),
  extract: analytic('extract'),
  dateTrunc: analytic('dateTrunc'),
  dateShift: analytic('dateShift'),
  ageYears: analytic('ageYears'),
  textFunction: analytic('textFunction'),
  substring: analytic('substring'),
  position: analytic('position'),
};

/** An expression as a noun phrase ("the username of the creator"). */
export function expr(d: DescribeContext, e: Expr, g: Grouping = { grouped: false }): string {
  const handler = exprHandlers[e.kind] as (node: Expr, c: ExprCtx) => string;
  return handler(e, { d, grouped: g.grouped });
}
