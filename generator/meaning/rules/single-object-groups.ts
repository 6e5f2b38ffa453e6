/**
 * No grouping whose every group is one object when the query aggregates: grouped by the
 * review, counting reviews, every count is 1. A group holds one row when every join from the
 * grouped objects reaches at most one partner (and no set's elements are joined).
 */
import type { Join, SelectQuery } from '../../query/conceptual-query.ts';
import { hasAggregate } from '../../query/query-scope.ts';
import type { MeaningCheck } from '../meaning-check.ts';
import { refOf, type QueryMeaning } from '../query-meaning.ts';

/** Whether following `j` from its `from` alias reaches at most one partner, and back from its alias at most one. */
function toOne(m: QueryMeaning, j: Extract<Join, { kind: 'relationship' }>): { ahead: boolean; back: boolean } {
  const c = m.index.relationship(j.relationship).cardinality;
  if (c === 'one-to-one') return { ahead: true, back: true };
  if (c === 'many-to-many') return { ahead: false, back: false };
  return j.direction === 'forward' ? { ahead: true, back: false } : { ahead: false, back: true };
}

function fault(m: QueryMeaning, q: SelectQuery): string | undefined {
  const keys = q.groupBy ?? [];
  if (keys.length === 0) return undefined;
  if (!q.select.some((o) => hasAggregate(o.expr)) && !q.having) return undefined;
  // Aliases whose object each group determines: those grouped by id, then those one step to-one away.
  const fixed = new Set(
    keys
      .map((k) => refOf(m, k))
      .filter((r) => r?.name === 'id')
      .map((r) => r?.alias as string),
  );
  if (fixed.size === 0) return undefined;
  const joins = q.joins ?? [];
  for (let changed = true; changed; ) {
    changed = false;
    for (const j of joins) {
      if (j.kind !== 'relationship') continue;
      const { ahead, back } = toOne(m, j);
      if (fixed.has(j.from) && ahead && !fixed.has(j.alias)) fixed.add(j.alias), (changed = true);
      if (fixed.has(j.alias) && back && !fixed.has(j.from)) fixed.add(j.from), (changed = true);
    }
  }
  const all = [q.from.alias, ...joins.map((j) => j.alias)];
  return all.every((a) => fixed.has(a))
    ? `every group is one object of ${[...keys.map((k) => (k as { alias?: string }).alias)].join(', ')}`
    : undefined;
}

export const singleObjectGroups: MeaningCheck = {
  rule: 'single-object-groups',
  select: (m, q) => {
    const x = fault(m, q);
    return x ? [x] : [];
  },
};
