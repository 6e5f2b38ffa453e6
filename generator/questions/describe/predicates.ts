import type { Expr, Predicate, SelectQuery } from '../../query/conceptual-query.ts';
import { mention, note, type DescribeContext, type Grouping, type Handlers } from './context.ts';
import { article, listing, literalText } from './english.ts';
import { expr, isTemporal, nullable } from './expressions.ts';
import { attributeNoun, noun, ref } from './nouns.ts';
import { asReached, subqueryRows } from './subqueries.ts';

interface PredicateCtx extends Grouping {
  readonly d: DescribeContext;
}

/** " (rows with no value there do not match)" after a comparison on a value that may be missing. */
function nullNote(d: DescribeContext, e: Expr): string {
  if (!nullable(d, e) || e.kind === 'literal') return '';
  mention(d, 'null-handling', ['no value'], ['missing']);
  if (d.conventions === 'evidence') {
    note(d, `Rows with no value for ${expr(d, e)} do not match.`, 'null-handling');
    return '';
  }
  return ` (rows with no value there do not match)`;
}

const predicateHandlers: Handlers<Predicate, PredicateCtx, string> = {
  compare: (p, ctx) => {
    const { d } = ctx;
    const temporal = isTemporal(d, p.left) || isTemporal(d, p.right);
    const ops = temporal
      ? {
          '=': 'is',
          '<>': 'is not',
          '<': 'is earlier than',
          '<=': 'is at or before',
          '>': 'is later than',
          '>=': 'is at or after',
        }
      : {
          '=': 'is',
          '<>': 'is not',
          '<': 'is less than',
          '<=': 'is at most',
          '>': 'is greater than',
          '>=': 'is at least',
        };
    d.covered.add(`compare:${p.op}`);
    return `${expr(d, p.left, ctx)} ${ops[p.op]} ${expr(d, p.right, ctx)}${nullNote(d, p.left) || nullNote(d, p.right)}`;
  },
  in: (p, { d }) => {
    d.covered.add('in');
    const values = listing(p.values.map(literalText), 'or');
    const head = expr(d, p.expr);
    const body =
      p.values.length === 1
        ? p.negated
          ? `is not ${values}`
          : `is ${values}`
        : p.negated
          ? `is none of ${values}`
          : `is one of ${values}`;
    return `${head} ${body}${nullNote(d, p.expr)}`;
  },
  like: (p, { d }) => {
    d.covered.add('like');
    const head = expr(d, p.expr);
    const pat = p.pattern;
    const inner = pat.slice(1, -1);
    const plain = (s: string) => !/[%_\\]/u.test(s);
    let body: string;
    if (pat.endsWith('%') && !pat.startsWith('%') && plain(pat.slice(0, -1)))
      body = `${p.negated ? 'does not start' : 'starts'} with ${literalText(pat.slice(0, -1))}`;
    else if (pat.startsWith('%') && pat.endsWith('%') && pat.length > 2 && plain(inner))
      body = `${p.negated ? 'does not contain' : 'contains'} the text ${literalText(inner)}`;
    else if (plain(pat)) body = `${p.negated ? 'is not exactly' : 'is exactly'} ${literalText(pat)}`;
    else body = `${p.negated ? 'does not match' : 'matches'} the LIKE pattern ${literalText(pat)}`;
    const cs = p.caseInsensitive ? ', ignoring case' : ', matching case exactly';
    mention(d, 'like-case', [p.caseInsensitive ? 'ignoring case' : 'matching case']);
    return `${head} ${body}${cs}${nullNote(d, p.expr)}`;
  },
  between: (p, { d }) => {
    mention(d, 'between', ['inclusive']);
    return `${expr(d, p.expr)} is ${p.negated ? 'not ' : ''}between ${expr(d, p.low)} and ${expr(d, p.high)} (inclusive)${nullNote(d, p.expr)}`;
  },
  isNull: (p, { d }) => {
    mention(d, 'is-null', ...(p.negated ? [['recorded'], ['there is'], ['known']] : [['no'], ['missing']]));
    const e = p.expr;
    // "the bio of the streamer is recorded": "has bio recorded" lacks its article, and "has a
    // dimensions recorded" would have the wrong one.
    if (e.kind === 'attribute')
      return p.negated
        ? `the ${attributeNoun(d, e.alias, e.attribute)} of ${ref(d, e.alias)} is recorded`
        : `${ref(d, e.alias)} has no ${attributeNoun(d, e.alias, e.attribute)}`;
    if (e.kind === 'element')
      return p.negated ? `there is ${article(noun(d, e.alias))}` : `there is no ${noun(d, e.alias)}`;
    return `${expr(d, e)} is ${p.negated ? 'known' : 'missing'}`;
  },
  contains: (p, { d }) => {
    d.covered.add('contains');
    return `the ${attributeNoun(d, p.alias, p.attribute, true)} of ${ref(d, p.alias)} ${p.negated ? 'do not include' : 'include'} ${literalText(p.value)}`;
  },
  isA: (p, { d }) => {
    const n = d.index.entity(p.entity).lexicon.singular;
    mention(d, 'is-a', [n]);
    return `${ref(d, p.alias)} is ${p.negated ? 'not ' : ''}${article(n)}`;
  },
  // An OR inside an AND is bracketed, so "either A or B, and C" cannot be read as "A or (B and C)".
  and: (p, ctx) =>
    listing(p.args.map((a) => (a.kind === 'or' ? `(${predicate(ctx.d, a, ctx)})` : predicate(ctx.d, a, ctx)))),
  or: (p, ctx) => {
    ctx.d.covered.add('or');
    return `either ${listing(
      p.args.map((a) => (a.kind === 'and' ? `(${predicate(ctx.d, a, ctx)})` : predicate(ctx.d, a, ctx))),
      'or',
    )}`;
  },
  not: (p, ctx) => {
    mention(ctx.d, 'not', ['not the case']);
    return `it is not the case that ${predicate(ctx.d, p.arg, ctx)}`;
  },
  exists: (p, { d }) => {
    d.covered.add('exists');
    const sub = subqueryRows(d, p.query, 'a');
    return p.negated
      ? `there is no ${sub.replace(/^an? /u, '')}`
      : `there is at least ${sub.replace(/^an? /u, 'one ')}`;
  },
  inQuery: (p, { d }) => {
    d.covered.add('in-subquery');
    const q = p.query;
    if (q.kind === 'select' && q.select.length === 1) {
      const inner = q.select[0]?.expr as Expr;
      const target = expr(d, p.expr);
      // `x.id IN (SELECT b.id …)`: x is among the objects the subquery reaches.
      if (
        p.expr.kind === 'attribute' &&
        p.expr.attribute === 'id' &&
        inner.kind === 'attribute' &&
        inner.attribute === 'id'
      ) {
        return `${ref(d, p.expr.alias)} is ${asReached(d, q, inner.alias, p.negated === true)}`;
      }
      return `${target} is ${p.negated ? 'not ' : ''}among the values of ${expr(d, inner)} for ${subqueryRows(d, q, 'every')}`;
    }
    return `${expr(d, p.expr)} is ${p.negated ? 'not ' : ''}among the values of (${subqueryRows(d, q as SelectQuery, 'every')})`;
  },
};

/** A condition as a clause ("the age of the subscriber is at least 30"). */
export function predicate(d: DescribeContext, p: Predicate, g: Grouping = { grouped: false }): string {
  const handler = predicateHandlers[p.kind] as (node: Predicate, c: PredicateCtx) => string;
  return handler(p, { d, grouped: g.grouped });
}
