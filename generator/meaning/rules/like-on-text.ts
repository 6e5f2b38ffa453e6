/** LIKE searches names and free text; a pattern on an email, a model number or a category asks nothing. */
import type { Predicate } from '../../query/conceptual-query.ts';
import type { MeaningCheck } from '../meaning-check.ts';
import { ownNodes, refOf } from '../query-meaning.ts';

export const likeOnText: MeaningCheck = {
  rule: 'like-on-text',
  select: (m, q) => {
    const out: string[] = [];
    ownNodes(q, (n) => {
      const p = n as unknown as Predicate;
      if (p.kind !== 'like') return;
      const ref = refOf(m, p.expr);
      if (ref && ref.role.kind !== 'name' && ref.role.kind !== 'description')
        out.push(`LIKE on ${ref.name}, a ${ref.role.kind}`);
    });
    return out;
  },
};
