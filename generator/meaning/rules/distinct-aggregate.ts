/** DISTINCT inside an aggregate only for COUNT: the total of the distinct prices answers nothing asked. */
import type { Expr } from '../../query/conceptual-query.ts';
import type { MeaningCheck } from '../meaning-check.ts';
import { ownNodes } from '../query-meaning.ts';

export const distinctAggregate: MeaningCheck = {
  rule: 'distinct-aggregate',
  select: (_m, q) => {
    const out: string[] = [];
    ownNodes(q, (n) => {
      const e = n as unknown as Expr;
      if (e.kind === 'aggregate' && e.distinct && e.fn !== 'count') out.push(`${e.fn}(DISTINCT …)`);
    });
    return out;
  },
};
