/** Ranges (<, <=, >, >=, BETWEEN) on what is ordered: measures, counts, scores, dates and times. */
import type { Expr, Predicate } from '../../query/conceptual-query.ts';
import type { MeaningCheck } from '../meaning-check.ts';
import { ownNodes, refOf, type QueryMeaning } from '../query-meaning.ts';

const ORDERED = ['measure', 'count', 'score', 'date', 'time'];

function fault(m: QueryMeaning, e: Expr): string | undefined {
  const ref = refOf(m, e);
  return ref && !ORDERED.includes(ref.role.kind) ? `a range on ${ref.name}, a ${ref.role.kind}` : undefined;
}

export const rangeOnQuantity: MeaningCheck = {
  rule: 'range-on-quantity',
  select: (m, q) => {
    const out: string[] = [];
    ownNodes(q, (n) => {
      const p = n as unknown as Predicate;
      let x: string | undefined;
      if (p.kind === 'compare' && p.op !== '=' && p.op !== '<>')
        x = fault(m, p.left) ?? (p.left.kind === 'literal' ? fault(m, p.right) : undefined);
      else if (p.kind === 'between') x = fault(m, p.expr);
      if (x) out.push(x);
    });
    return out;
  },
};
