import type { Expr, Query, SelectQuery, SetQuery } from '../../query/conceptual-query.ts';
import { hasAggregate } from '../../query/query-scope.ts';
import { mention, type DescribeContext } from './context.ts';
import type { QueryFrame } from './describe-query.ts';
import { listing, words } from './english.ts';
import { expr } from './expressions.ts';
import { rows } from './joins.ts';
import { attributeNoun } from './nouns.ts';
import { limit, order } from './order.ts';
import { predicate } from './predicates.ts';

/** The frame of a UNION, INTERSECT or EXCEPT: the two lists, what of them the answer keeps. */
export function setFrame(d: DescribeContext, q: SetQuery): QueryFrame {
  const side = (s: Query, label: string): string => {
    if (s.kind === 'set') return `${label} (${setInline(d, s)})`;
    return `${label} ${sideText(d, s)}`;
  };
  const first = q.left.kind === 'select' ? q.left : undefined;
  // Columns of a row are matched by position across the lists: their order is part of the answer.
  const wide = (first?.select.length ?? 0) > 1;
  if (wide) d.covered.add('outputs');
  const values = first ? outputsOfSide(d, first) : 'values';
  const ops: Record<SetQuery['op'], string> = {
    union: `the distinct ${values} found in either list`,
    'union all': `the ${values} of both lists, repeats kept`,
    intersect: `the distinct ${values} found in both lists`,
    except: `the distinct ${values} of the first list that are not in the second`,
  };
  // Arms of one aggregate each give one number a list: the answer is those numbers.
  if (q.op === 'union all' && first && first.select.length === 1 && hasAggregate(first.select[0]?.expr as Expr)) {
    ops['union all'] = 'a number for each list, one row each, repeats kept (equal numbers are both listed)';
  }
  mention(d, `set:${q.op}`, [q.op === 'union all' ? 'repeats kept' : 'distinct']);
  for (const o of first?.select ?? []) d.outputsByName.set(o.name, o.expr);
  const ord = order(d, q.orderBy ?? []);
  const lim = limit(d, q.limit, (q.orderBy?.length ?? 0) > 0);
  return {
    outputs: ops[q.op],
    rows: `two lists: ${side(q.left, 'first,')}; and ${side(q.right, 'second,')}`,
    group: '',
    filter: '',
    condition: '',
    having: '',
    order: ord,
    limit: lim,
    notes: d.notes,
    topic: first ? d.index.entity(first.from.entity).lexicon.plural : 'records',
    covered: [...d.covered].sort(),
  };
}

function outputsOfSide(d: DescribeContext, s: SelectQuery): string {
  const names = s.select.map((o) =>
    o.expr.kind === 'attribute' ? attributeNoun(d, o.expr.alias, o.expr.attribute, true) : words(o.name),
  );
  return listing(names);
}

function setInline(d: DescribeContext, s: SetQuery): string {
  return `${s.op} of ${s.left.kind === 'select' ? sideText(d, s.left) : 'a combination'} and ${s.right.kind === 'select' ? sideText(d, s.right) : 'a combination'}`;
}

function sideText(d: DescribeContext, s: SelectQuery): string {
  const r = rows(d, s);
  const where = s.where ? `, where ${predicate(d, s.where)}` : '';
  const outs = listing(s.select.map((o) => expr(d, o.expr)));
  const saved = new Map(d.outputsByName);
  for (const o of s.select) d.outputsByName.set(o.name, o.expr);
  const ord = order(d, s.orderBy ?? []);
  const lim = limit(d, s.limit, (s.orderBy?.length ?? 0) > 0);
  d.outputsByName.clear();
  for (const [k, v] of saved) d.outputsByName.set(k, v);
  return `${outs} over ${r}${where}${ord}${lim}`;
}
