/**
 * No count or total over two unrelated lists at once: per content item, its tags joined and
 * its quality options joined give tags × options rows, and `count(*)` counts the product.
 * Seen from the grouped object (or the FROM entity), the joins that reach many partners must
 * lie on one path; two on different branches multiply each other.
 */
import type { Join, SelectQuery } from '../../query/conceptual-query.ts';
import { hasAggregate } from '../../query/query-scope.ts';
import type { MeaningCheck } from '../meaning-check.ts';
import { refOf, type QueryMeaning } from '../query-meaning.ts';

/** Whether walking `j` away from `at` reaches many partners. */
function fansOut(m: QueryMeaning, j: Join, at: string): boolean {
  if (j.kind === 'elements') return true;
  const c = m.index.relationship(j.relationship).cardinality;
  const forward = (j.from === at) === (j.direction === 'forward');
  return c === 'many-to-many' || (c === 'many-to-one' && !forward);
}

export function branchesThatMultiply(m: QueryMeaning, q: SelectQuery, root: string): string[] {
  const joins = q.joins ?? [];
  // The join tree seen from `root`: each alias's parent, and whether reaching it fans out.
  const parent = new Map<string, { via: string; many: boolean }>();
  const reached = new Set([root]);
  for (let changed = true; changed; ) {
    changed = false;
    for (const j of joins) {
      const a = j.kind === 'relationship' ? j.from : j.of;
      const b = j.alias;
      if (reached.has(a) && !reached.has(b))
        parent.set(b, { via: a, many: fansOut(m, j, a) }), reached.add(b), (changed = true);
      else if (reached.has(b) && !reached.has(a))
        parent.set(a, { via: b, many: fansOut(m, j, b) }), reached.add(a), (changed = true);
    }
  }
  const ancestors = (x: string): string[] => {
    const out: string[] = [];
    for (let p = parent.get(x); p; p = parent.get(p.via)) out.push(p.via);
    return out;
  };
  const many = [...parent].filter(([, p]) => p.many).map(([x]) => x);
  for (const [i, a] of many.entries())
    for (const b of many.slice(i + 1)) if (!ancestors(a).includes(b) && !ancestors(b).includes(a)) return [a, b];
  return [];
}

export const crossProduct: MeaningCheck = {
  rule: 'cross-product',
  select: (m, q) => {
    if (!q.select.some((o) => hasAggregate(o.expr)) && !q.having) return [];
    const key = (q.groupBy ?? []).map((k) => refOf(m, k)).find((r) => r?.name === 'id');
    const pair = branchesThatMultiply(m, q, key?.alias ?? q.from.alias);
    return pair.length > 0 ? [`aggregates over ${pair.join(' × ')}, two lists that multiply`] : [];
  },
};
