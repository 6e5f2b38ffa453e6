/**
 * The filler's first step: the entity of FROM and the joins, each an edge of the schema graph
 * from an alias already in the query (a relationship, or a multi-valued attribute's element
 * relation), weighted towards paths whose storage differs between variants.
 */
import type { Join } from '../../query/conceptual-query.ts';
import { reject } from '../../records/group-record.ts';
import { type ElementAlias, type EntityAlias, type Fill, newAlias, weight } from './fill-context.ts';
import { FILL_RATES } from './fill-rates.ts';
import { members } from './instance-values.ts';

/** An entity with instances, among `candidates` (default: all), weighted by variation. */
export function pickEntity(f: Fill, candidates?: readonly string[]): string {
  const names = candidates ?? [...f.graph.entities.keys()];
  const usable = names.filter((n) => members(f, n).length > 0);
  if (usable.length === 0) reject('no-fitting-slot', 'no entity with instances');
  return usable[f.rng.weighted(usable.map((n) => weight(f.graph.entities.get(n)?.variation ?? 1)))] as string;
}

/** Joins `count` edges onto the aliases, each from an alias already there. */
export function drawJoins(
  f: Fill,
  base: EntityAlias,
  count: number,
  before: readonly Join[] = [],
): { entities: EntityAlias[]; elements: ElementAlias[]; joins: Join[] } {
  const entities: EntityAlias[] = [base];
  const elements: ElementAlias[] = [];
  const joins: Join[] = [];
  // A relationship walked a second time the same way pairs an object with itself (self-pairing),
  // unless the walk goes on from where the first one ended (a prequel's prequel).
  const pairsWithItself = (from: EntityAlias, relationship: string, direction: string): boolean =>
    [...before, ...joins].some(
      (j) =>
        j.kind === 'relationship' &&
        j.relationship === relationship &&
        j.direction === direction &&
        j.alias !== from.alias,
    );
  for (let i = 0; i < count; i++) {
    type Option = { weight: number; make: () => void };
    const options: Option[] = [];
    for (const from of entities) {
      for (const edge of f.graph.walksFrom(from.entity)) {
        // Walking straight back over the edge just taken repeats the same objects.
        if (from.via && from.via.relationship === edge.relationship && from.via.direction !== edge.direction) continue;
        if (pairsWithItself(from, edge.relationship, edge.direction)) continue;
        options.push({
          weight: weight(edge.variation),
          make: () => {
            const subtypes = f.graph.index
              .subtree(edge.to)
              .map((e) => e.name)
              .filter((n) => members(f, n).length > 0);
            const entity =
              subtypes.length > 1 && f.rng.chance(FILL_RATES.subtypeJoin) ? f.rng.pick(subtypes.slice(1)) : edge.to;
            const alias = newAlias(f, entity);
            joins.push({
              kind: 'relationship',
              type: 'inner',
              relationship: edge.relationship,
              from: from.alias,
              direction: edge.direction,
              alias,
              entity,
            });
            entities.push({ alias, entity, via: edge });
          },
        });
      }
      if (!elements.some((e) => e.owner === from.entity)) {
        for (const edge of f.graph.elementsOf(from.entity)) {
          options.push({
            weight: weight(edge.variation) * FILL_RATES.elementEdgeWeight,
            make: () => {
              const alias = newAlias(f, edge.attribute.name.replace(/s$/u, ''));
              joins.push({ kind: 'elements', type: 'inner', of: from.alias, attribute: edge.attribute.name, alias });
              elements.push({ alias, owner: from.entity, slot: edge.attribute });
            },
          });
        }
      }
    }
    if (options.length === 0)
      reject('no-fitting-slot', `no edge to join from ${entities.map((e) => e.entity).join(', ')}`);
    (options[f.rng.weighted(options.map((o) => o.weight))] as Option).make();
  }
  return { entities, elements, joins };
}
