import type { Expr } from '../../query/conceptual-query.ts';
import { mention, note, type DescribeContext, type Grouping } from './context.ts';
import { article } from './english.ts';
import { expr, nullable } from './expressions.ts';
import { canonical, info, noun, related } from './nouns.ts';
import { predicate } from './predicates.ts';

type Aggregate = Extract<Expr, { kind: 'aggregate' }>;

/** An aggregate; a filter narrows the rows it reads (conditional aggregation). */
export function aggregate(d: DescribeContext, e: Aggregate, g: Grouping): string {
  if (!e.filter) return aggregateOf(d, e, g);
  const { filter, ...plain } = e;
  mention(d, 'aggregate-filter', ['only the rows where']);
  return `${aggregateOf(d, plain, g)}, ${e.fn === 'count' ? 'counting' : 'taking'} only the rows where ${predicate(d, filter, g)}`;
}

function aggregateOf(d: DescribeContext, e: Aggregate, g: Grouping): string {
  // "for each creator", or an aggregate of every row, already says what an aggregate ranges over.
  const scope = '';
  if (e.fn === 'count') {
    if (!e.arg) {
      const lefts = [...d.currentLeft];
      if (lefts.length > 0) {
        mention(d, 'count-star-left', ['still counts as one']);
        return `the number of ${d.currentRows} (${article(noun(d, d.currentBase))} with no ${noun(d, lefts[0] as string)} still counts as one)`;
      }
      d.covered.add('count');
      return `the number of ${d.currentRows}`;
    }
    const arg = e.arg;
    let counted: string;
    let alias: string | undefined;
    if (arg.kind === 'attribute' && arg.attribute === 'id' && d.collapsed?.alias === arg.alias) {
      // "the number of channels owned by the creator": the pairing the count runs over, said here.
      alias = arg.alias;
      counted = related(d, d.collapsed, true, '');
    } else if (arg.kind === 'attribute' && arg.attribute === 'id') {
      alias = arg.alias;
      counted = noun(d, arg.alias, true);
    } else if (arg.kind === 'element') {
      alias = arg.alias;
      counted = noun(d, arg.alias, true);
    } else {
      counted = `known values of ${expr(d, arg, g)}`;
      mention(d, 'null-handling', ['known']);
    }
    // Known values of a partner's attribute are none, so 0, when the partner is missing.
    const owner = alias ?? (arg.kind === 'attribute' ? arg.alias : undefined);
    const optional = owner !== undefined && info(d, owner).optional;
    let scope2 = scope;
    if (e.distinct) {
      mention(d, 'distinct-count', ['distinct']);
      counted = `distinct ${counted}`;
    } else if (alias !== undefined && d.repeats.has(canonical(d, alias))) {
      mention(d, 'count-repeats', ['repeats']);
      counted = `${counted}${scope}, repeats included`;
      scope2 = '';
    }
    if (optional) {
      mention(d, 'zero-count', ['0'], ['zero']);
      if (d.conventions === 'evidence') {
        note(d, `The number of ${counted.replace(/, repeats included$/u, '')} is 0 when there are none.`, 'zero-count');
        return `the number of ${counted}${scope2}`;
      }
      return `the number of ${counted}${scope2} (0 when there are none)`;
    }
    d.covered.add('count');
    return `the number of ${counted}${scope2}`;
  }
  const arg = e.arg as Expr;
  let what = expr(d, arg, g);
  if (e.distinct) {
    // Each value counts once: "the total of the distinct values of …".
    mention(d, 'distinct-aggregate', ['distinct values']);
    what = `the distinct values of ${what}`;
  }
  const fn = { sum: 'the total of', avg: 'the average of', min: 'the smallest value of', max: 'the largest value of' }[
    e.fn
  ];
  d.covered.add(`aggregate:${e.fn}`);
  if (arg.kind === 'arithmetic') {
    // "the total of a minus b" could be the total of a, less b: the arithmetic comes first, row by row.
    // In brackets, as below: in a list of outputs a comma would start another column.
    mention(d, 'aggregate-of-arithmetic', ['for each row']);
    const nulls = nullable(d, arg) ? ', ignoring rows where it is missing' : '';
    if (nulls) mention(d, 'null-handling', ['ignoring rows where it is missing']);
    return `${fn} ${what}${scope} (worked out for each row${nulls})`;
  }
  if (nullable(d, arg)) {
    mention(d, 'null-handling', ['missing values are ignored'], ['ignoring missing']);
    // In brackets: in a list of outputs, ", ignoring missing values," would read as a column.
    return `${fn} ${what}${scope} (ignoring missing values)`;
  }
  return `${fn} ${what}${scope}`;
}
