import { ConfigError } from '../common/errors.ts';
import { createRng } from '../common/rng.ts';
import type { ErIndex } from '../er-model/er-index.ts';
import type { ConceptualInstance, EntityObject, Link } from './conceptual-instance.ts';

/**
 * A sample of an instance that keeps every foreign key closed: up to `size` objects of each
 * root entity drawn from the seed, then every object a kept object refers to (the `to` end
 * of each of its many-to-one and one-to-one links), until nothing more is needed. Links are
 * kept where both ends are; sets and values go with their objects. The same instance, size
 * and seed give the same sample.
 *
 * @example sampleInstance(index, pagila, 100, 7).objects.Rental.length // 100
 */
export function sampleInstance(
  index: ErIndex,
  instance: ConceptualInstance,
  size: number,
  seed: string | number,
): ConceptualInstance {
  if (!Number.isInteger(size) || size < 1)
    throw new ConfigError(`--sample: expected a whole number of objects of at least 1, got ${size}`);
  const rng = createRng(seed).fork('sample');
  const kept = new Map<string, Set<number>>();
  for (const root of index.roots) {
    const objects = instance.objects[root.name] ?? [];
    const chosen = objects.length <= size ? objects : rng.fork(root.name).shuffle(objects).slice(0, size);
    kept.set(root.name, new Set(chosen.map((o) => o.id)));
  }
  // Close under references: a kept `from` object keeps its partner at the `to` end.
  const toOne = index.domain.relationships.filter((r) => r.cardinality !== 'many-to-many');
  for (let changed = true; changed; ) {
    changed = false;
    for (const rel of toOne) {
      const from = kept.get(index.root(rel.from).name) as Set<number>;
      const to = kept.get(index.root(rel.to).name) as Set<number>;
      for (const link of instance.links[rel.name] ?? []) {
        if (from.has(link.from) && !to.has(link.to)) {
          to.add(link.to);
          changed = true;
        }
      }
    }
  }
  const objects: Record<string, EntityObject[]> = {};
  for (const root of index.roots) {
    const ids = kept.get(root.name) as Set<number>;
    objects[root.name] = (instance.objects[root.name] ?? []).filter((o) => ids.has(o.id));
  }
  const links: Record<string, Link[]> = {};
  for (const rel of index.domain.relationships) {
    const from = kept.get(index.root(rel.from).name) as Set<number>;
    const to = kept.get(index.root(rel.to).name) as Set<number>;
    links[rel.name] = (instance.links[rel.name] ?? []).filter((l) => from.has(l.from) && to.has(l.to));
  }
  return { domain: instance.domain, objects, links };
}
