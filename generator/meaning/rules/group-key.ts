/**
 * GROUP BY what sorts objects into a few kinds (categories, flags, names, days, a date's
 * year or month, a subclass, a band) or an entity by its id, shown by its name. Not by a
 * price, a timestamp or free text.
 */
import type { Expr, SelectQuery } from '../../query/conceptual-query.ts';
import type { MeaningCheck } from '../meaning-check.ts';
import { refOf, shownRef, type QueryMeaning } from '../query-meaning.ts';

const KEY_ROLES = ['category', 'flag', 'name', 'date'];
const SHOWS = ['name', 'identifier', 'contact'];

function keyFault(m: QueryMeaning, q: SelectQuery, e: Expr): string | undefined {
  switch (e.kind) {
    case 'extract':
    case 'dateTrunc':
    case 'classOf':
    case 'case':
    case 'simpleCase':
      return undefined;
    case 'coalesce':
      return e.args[0] ? keyFault(m, q, e.args[0]) : undefined;
    default: {
      const ref = refOf(m, e);
      if (!ref) return `grouped by a ${e.kind}`;
      if (ref.role.kind === 'identifier') {
        if (ref.name !== 'id') return undefined;
        const shown = q.select.some((o) => {
          const s = shownRef(m, o.expr);
          return s !== undefined && s.alias === ref.alias && SHOWS.includes(s.role.kind);
        });
        return shown ? undefined : `grouped by the objects of ${ref.alias}, shown by no name`;
      }
      return KEY_ROLES.includes(ref.role.kind) ? undefined : `grouped by ${ref.name}, a ${ref.role.kind}`;
    }
  }
}

export const groupKey: MeaningCheck = {
  rule: 'group-key',
  select: (m, q) => (q.groupBy ?? []).map((e) => keyFault(m, q, e)).filter((x): x is string => x !== undefined),
};
