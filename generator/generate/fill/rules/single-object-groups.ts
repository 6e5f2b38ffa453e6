/**
 * single-object-groups, as the filler decides it: the aliases whose object is fixed once the
 * object of `grouped` is, following joins that reach at most one partner. Grouping by an
 * alias aggregates something only when some alias is left out of this set.
 */
import type { Join } from '../../../query/conceptual-query.ts';
import type { ErIndex } from '../../../er-model/er-index.ts';

export function determinedBy(index: ErIndex, grouped: string, joins: readonly Join[]): Set<string> {
  const fixed = new Set([grouped]);
  for (let changed = true; changed; ) {
    changed = false;
    for (const j of joins) {
      if (j.kind !== 'relationship') continue;
      const c = index.relationship(j.relationship).cardinality;
      const ahead = c === 'one-to-one' || (c === 'many-to-one' && j.direction === 'forward');
      const back = c === 'one-to-one' || (c === 'many-to-one' && j.direction === 'reverse');
      if (fixed.has(j.from) && ahead && !fixed.has(j.alias)) fixed.add(j.alias), (changed = true);
      if (fixed.has(j.alias) && back && !fixed.has(j.from)) fixed.add(j.from), (changed = true);
    }
  }
  return fixed;
}

/** Whether grouping by the objects of `grouped` leaves more than one row in some group. */
export function groupsAggregate(index: ErIndex, grouped: string, base: string, joins: readonly Join[]): boolean {
  const fixed = determinedBy(index, grouped, joins);
  return ![base, ...joins.map((j) => j.alias)].every((a) => fixed.has(a));
}
