/**
 * AVG, MIN and MAX of measures, counts, scores and dates; COUNT(DISTINCT) of what names or
 * sorts objects (names, categories, identifiers, contacts) and may repeat. Not the average
 * of an id, the smallest name, the number of distinct prices, nor the number of distinct
 * emails when each is one account's own: that is the number of accounts.
 */
import type { Expr } from '../../query/conceptual-query.ts';
import type { MeaningCheck } from '../meaning-check.ts';
import { ownNodes, refOf, unitOf } from '../query-meaning.ts';

const DISTINCT_COUNTABLE = ['identifier', 'name', 'category', 'contact'];

export const aggregateArgument: MeaningCheck = {
  rule: 'aggregate-argument',
  select: (m, q) => {
    const out: string[] = [];
    ownNodes(q, (n) => {
      const e = n as unknown as Expr;
      if (e.kind !== 'aggregate' && e.kind !== 'window') return;
      if (!e.arg) return;
      const fn = e.fn;
      if (fn === 'avg' || fn === 'min' || fn === 'max') {
        const ref = refOf(m, e.arg);
        if (ref && (ref.role.kind === 'date' || ref.role.kind === 'time') && fn !== 'avg') return;
        const u = unitOf(m, e.arg);
        if (u.kind === 'none') out.push(`${fn} of ${u.why}`);
      } else if (e.kind === 'aggregate' && fn === 'count' && e.distinct) {
        const ref = refOf(m, e.arg);
        if (ref && !DISTINCT_COUNTABLE.includes(ref.role.kind))
          out.push(`count of distinct ${ref.name}, a ${ref.role.kind}`);
        else if (ref?.attribute?.hints?.unique === true)
          out.push(`count of distinct ${ref.name}, unique to each object: a count of the objects`);
      }
    });
    return out;
  },
};
