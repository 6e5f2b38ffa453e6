/** SUM only of what adds up: additive measures (prices, durations) and counts; not ages, ratings or ids. */
import type { Expr } from '../../query/conceptual-query.ts';
import type { MeaningCheck } from '../meaning-check.ts';
import { ownNodes, unitOf } from '../query-meaning.ts';

export const additiveSum: MeaningCheck = {
  rule: 'additive-sum',
  select: (m, q) => {
    const out: string[] = [];
    ownNodes(q, (n) => {
      const e = n as unknown as Expr;
      if ((e.kind === 'aggregate' || e.kind === 'window') && e.fn === 'sum' && e.arg) {
        const u = unitOf(m, e.arg);
        if (u.kind === 'none') out.push(`sum of ${u.why}`);
        else if (u.kind === 'scalar') out.push('sum of a constant');
        else if (!u.additive) out.push(`sum of ${u.unit}, which does not add up`);
      }
    });
    return out;
  },
};
