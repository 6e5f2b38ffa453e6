/**
 * What an instance will cost in memory, estimated from the counts before anything is
 * allocated: the instance, one variant's shredded rows and its dump are all held at once, so
 * ten million objects of a rich entity need far more memory than a process has. A build that
 * cannot fit is refused in one line at the start instead of running out of memory minutes in.
 */
import { getHeapStatistics } from 'node:v8';
import { totalmem } from 'node:os';
import type { Domain, Entity } from '../er-model/er-model.ts';

/**
 * Bytes a build holds per value of the instance (a cell of an object's attribute or of a
 * link), measured on social_media (300,000 accounts: 2.7 GB at the peak, about 43 values an
 * account with its links: 209 bytes a value).
 */
export const BYTES_PER_VALUE = 210;

/** The share of the heap limit a build may plan to fill; the rest is the program, the parser, the driver. */
const HEAP_SHARE = 0.75;

/** Values an object of `root`'s hierarchy holds: itself, each attribute of the hierarchy (a set counts its mean size). */
function valuesPerObject(domain: Domain, root: Entity): number {
  const inHierarchy = (e: Entity): boolean => {
    for (let at: Entity | undefined = e; at; at = domain.entities.find((x) => x.name === at?.parent))
      if (at === root) return true;
    return false;
  };
  let values = 1;
  for (const e of domain.entities.filter(inHierarchy)) {
    for (const a of e.attributes)
      values += a.multiValued ? ((a.hints?.setSize?.[0] ?? 0) + (a.hints?.setSize?.[1] ?? 4)) / 2 : 1;
  }
  return values;
}

function rootOf(domain: Domain, name: string): Entity | undefined {
  let e = domain.entities.find((x) => x.name === name);
  while (e?.parent !== undefined) e = domain.entities.find((x) => x.name === e?.parent);
  return e;
}

/**
 * Estimated bytes of a build with `counts` objects per root entity: values of the objects
 * and of the links (a many-to-many relationship's mean degree per `from` object, its two ends
 * and its attributes), times `BYTES_PER_VALUE`.
 *
 * @example estimateInstanceBytes(socialMedia, { Account: 10_000_000, … }) // about 9e10
 */
export function estimateInstanceBytes(domain: Domain, counts: Readonly<Record<string, number>>): number {
  let values = 0;
  for (const root of domain.entities.filter((e) => e.parent === undefined))
    values += (counts[root.name] ?? 0) * valuesPerObject(domain, root);
  for (const r of domain.relationships) {
    const from = rootOf(domain, r.from);
    const perObject = r.cardinality === 'many-to-many' ? (r.degree?.mean ?? 1) : 1;
    values += (from ? (counts[from.name] ?? 0) : 0) * perObject * (2 + (r.attributes?.length ?? 0));
  }
  return values * BYTES_PER_VALUE;
}

/** The memory a build may plan to use: a share of this process's heap limit, within the machine's memory. */
export function memoryBudgetBytes(): number {
  return Math.min(getHeapStatistics().heap_size_limit, totalmem()) * HEAP_SHARE;
}
