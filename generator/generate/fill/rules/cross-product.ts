/**
 * cross-product, as the filler decides it: whether the joins of an aggregating query reach
 * many partners on two different branches from `root` (the grouped object, or the FROM
 * entity), so that counts and totals count their product.
 */
import type { ErIndex } from '../../../er-model/er-index.ts';
import type { Join } from '../../../query/conceptual-query.ts';

export function multiplies(index: ErIndex, joins: readonly Join[], root: string): boolean {
  // Walk the joins outwards from root; an edge is "many" when its far end has many partners per near end.
  const depthOfMany = new Map<string, string[]>([[root, []]]);
  for (let changed = true; changed; ) {
    changed = false;
    for (const j of joins) {
      const near = j.kind === 'relationship' ? j.from : j.of;
      for (const [a, b] of [
        [near, j.alias],
        [j.alias, near],
      ] as const) {
        const path = depthOfMany.get(a);
        if (path === undefined || depthOfMany.has(b)) continue;
        let many = true;
        if (j.kind === 'relationship') {
          const c = index.relationship(j.relationship).cardinality;
          const forward = (a === j.from) === (j.direction === 'forward');
          many = c === 'many-to-many' || (c === 'many-to-one' && !forward);
        } else many = a === near;
        depthOfMany.set(b, many ? [...path, b] : path);
        changed = true;
      }
    }
  }
  // The "many" steps of each alias's path from root: two paths that diverge multiply.
  const paths = [...new Set([...depthOfMany.values()].map((p) => p.join('/')))].filter((p) => p !== '');
  return paths.some((a) => paths.some((b) => a !== b && !a.startsWith(`${b}/`) && !b.startsWith(`${a}/`)));
}
