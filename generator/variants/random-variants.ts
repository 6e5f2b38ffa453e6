import type { ErIndex } from '../er-model/er-index.ts';
import type { Rng } from '../common/rng.ts';
import { stableStringify } from '../common/hash.ts';
import { ConfigError } from '../common/errors.ts';
import type { HierarchyChoice, MultiValuedEncoding, VariantSpec } from './variant-spec.ts';
import { partitionHierarchy } from './variant-presets.ts';

/**
 * What makes two variants different schemas: the shredding choices, not names. Groups are
 * compared as partitions (each class mapped to its group's top), so listing order is moot.
 */
export function variantSignature(variant: VariantSpec): string {
  const hierarchies = Object.fromEntries(
    Object.entries(variant.hierarchies).map(([root, choice]) => [
      root,
      {
        mode: choice.mode,
        registry: choice.registry === true,
        topOf: Object.fromEntries(choice.groups.flatMap((g) => g.map((c) => [c, g[0]]))),
      },
    ]),
  );
  // The native variant's names are part of its design: it is the source's schema, not a re-design.
  return stableStringify({
    hierarchies,
    multiValued: variant.multiValued,
    relationships: variant.relationships,
    ...(variant.native ? { native: true } : {}),
  });
}

/**
 * How many distinct designs (variant signatures) `drawRandomVariants` can draw for a domain:
 * per hierarchy of n classes, 2^(n-1) connected partitions nested, and as many again twice
 * (with and without a registry) as concrete tables where the hierarchy is disjoint; three
 * encodings per multi-valued attribute; two per many-to-one or one-to-one relationship.
 * Grows past Number.MAX_SAFE_INTEGER only as Infinity, which is as good for a bound.
 */
export function designSpaceSize(index: ErIndex): number {
  let size = 1;
  for (const root of index.hierarchyRoots) {
    const partitions = 2 ** (index.subtree(root.name).length - 1);
    size *= partitions * (index.hierarchyIsDisjoint(root.name) ? 3 : 1);
  }
  for (const entity of index.domain.entities)
    for (const attribute of entity.attributes) if (attribute.multiValued) size *= 3;
  for (const rel of index.domain.relationships) if (rel.cardinality !== 'many-to-many') size *= 2;
  return size;
}

/**
 * Draws `count` variants from the seed, each distinct from every variant in `exclude` and
 * from each other. Named `random_1`, `random_2`, … in draw order.
 */
export function drawRandomVariants(
  index: ErIndex,
  count: number,
  rng: Rng,
  exclude: readonly VariantSpec[],
): VariantSpec[] {
  const seen = new Set(exclude.map(variantSignature));
  const drawn: VariantSpec[] = [];
  const maxAttempts = 200 + count * 200;
  for (let attempt = 0; drawn.length < count && attempt < maxAttempts; attempt++) {
    const candidate = drawOne(index, rng, `random_${drawn.length + 1}`);
    const signature = variantSignature(candidate);
    if (seen.has(signature)) continue;
    seen.add(signature);
    drawn.push(candidate);
  }
  if (drawn.length < count) {
    throw new ConfigError(
      `random:${count}: domain ${index.domain.name} has only ${drawn.length} further distinct variants`,
    );
  }
  return drawn;
}

function drawOne(index: ErIndex, rng: Rng, name: string): VariantSpec {
  const hierarchies: Record<string, HierarchyChoice> = {};
  const parts: string[] = [];
  for (const root of index.hierarchyRoots) {
    const concrete = index.hierarchyIsDisjoint(root.name) && rng.chance(0.3);
    // A random connected partition: each class joins its parent's group or starts its own.
    const groups = partitionHierarchy(index, root.name, () => rng.chance(0.5));
    const registry = concrete && rng.chance(0.5);
    hierarchies[root.name] = concrete ? { mode: 'concrete', groups, registry } : { mode: 'nested', groups };
    parts.push(
      `${root.name}: ${concrete ? 'concrete' : 'nested'} in ${groups.length} tables${registry ? ' with a registry' : ''}`,
    );
  }
  const multiValued: Record<string, MultiValuedEncoding> = {};
  for (const entity of index.domain.entities) {
    for (const attribute of entity.attributes) {
      if (attribute.multiValued)
        multiValued[`${entity.name}.${attribute.name}`] = rng.pick(['array', 'jsonb', 'table'] as const);
    }
  }
  const relationships: Record<string, 'fk' | 'table'> = {};
  for (const rel of index.domain.relationships) {
    if (rel.cardinality !== 'many-to-many') relationships[rel.name] = rng.pick(['fk', 'table'] as const);
  }
  return {
    name,
    description: `drawn from the seed: ${parts.join('; ')}`,
    hierarchies,
    multiValued,
    relationships,
    naming: { tables: rng.pick(['singular', 'plural'] as const) },
  };
}
