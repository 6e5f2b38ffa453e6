/** A LIMIT a person asks for: the top 1, 3, 5, 10, 20, 50 or 100. */
import type { Query } from '../../query/conceptual-query.ts';
import type { MeaningCheck } from '../meaning-check.ts';
import { visit } from '../query-meaning.ts';

export const ROUND_LIMITS: readonly number[] = [1, 3, 5, 10, 20, 50, 100];

export const roundLimit: MeaningCheck = {
  rule: 'round-limit',
  query: (m) => {
    const out: string[] = [];
    visit(m.query, (n) => {
      const q = n as unknown as Query;
      if ((q.kind === 'select' || q.kind === 'set') && q.limit !== undefined && !ROUND_LIMITS.includes(q.limit))
        out.push(`LIMIT ${q.limit}`);
    });
    return out;
  },
};
