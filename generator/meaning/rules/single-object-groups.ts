/**
 * No grouping whose every group is one object when the query aggregates: grouped by the
 * review, counting reviews, every count is 1. A group holds one row when every join from the
 * grouped objects reaches at most one partner (and no set's elements are joined). The same
 * holds of an aggregate over the one object a WHERE clause picks by a unique value: "the
 * average age of viewers with the username Judah30" is that viewer's age.
 */
import type { Expr, Join, SelectQuery } from '../../query/conceptual-query.ts';
import { hasAggregate } from '../../query/query-scope.ts';
import type { MeaningCheck } from '../meaning-check.ts';
import { conjuncts, refOf, type QueryMeaning } from '../query-meaning.ts';

/** Whether following `j` from its `from` alias reaches at most one partner, and back from its alias at most one. */
function toOne(m: QueryMeaning, j: Extract<Join, { kind: 'relationship' }>): { ahead: boolean; back: boolean } {
  const c = m.index.relationship(j.relationship).cardinality;
  if (c === 'one-to-one') return { ahead: true, back: true };
  if (c === 'many-to-many') return { ahead: false, back: false };
  return j.direction === 'forward' ? { ahead: true, back: false } : { ahead: false, back: true };
}

/** Aliases the WHERE clause narrows to one object: its id or a unique attribute equal to one value. */
function pinned(m: QueryMeaning, q: SelectQuery): Map<string, string> {
  const out = new Map<string, string>();
  for (const c of conjuncts(q.where)) {
    const left = c.kind === 'compare' && c.op === '=' && c.right.kind === 'literal' ? c.left : undefined;
    const one = c.kind === 'in' && !c.negated && c.values.length === 1 ? c.expr : undefined;
    const r = (left ?? one) ? refOf(m, (left ?? one) as Expr) : undefined;
    if (r && (r.name === 'id' || (r.attribute?.hints?.unique === true && r.attribute.multiValued !== true)))
      out.set(r.alias, r.name);
  }
  return out;
}

function fault(m: QueryMeaning, q: SelectQuery): string | undefined {
  const keys = q.groupBy ?? [];
  if (!q.select.some((o) => hasAggregate(o.expr)) && !q.having) return undefined;
  const picked = pinned(m, q);
  if (keys.length === 0 && picked.size === 0) return undefined;
  // Aliases whose object each group determines: those grouped by id or picked by a unique
  // value, then those one step to-one away.
  const fixed = new Set([
    ...keys
      .map((k) => refOf(m, k))
      .filter((r) => r?.name === 'id')
      .map((r) => r?.alias as string),
    ...picked.keys(),
  ]);
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
  if (!all.every((a) => fixed.has(a))) return undefined;
  return picked.size > 0
    ? `the aggregate is over the one object ${[...picked].map(([a, n]) => `${a}.${n}`).join(', ')} picks`
    : `every group is one object of ${[...keys.map((k) => (k as { alias?: string }).alias)].join(', ')}`;
}

export const singleObjectGroups: MeaningCheck = {
  rule: 'single-object-groups',
  select: (m, q) => {
    const x = fault(m, q);
    return x ? [x] : [];
  },
};
