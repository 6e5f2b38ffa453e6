import type { Attribute, Domain, Entity, Relationship } from '../er-model/er-model.ts';
import { indexDomain, type ErIndex } from '../er-model/er-index.ts';
import { MODEL_LIMITS } from '../er-model/validate-domain.ts';
import { createRng, type Rng } from '../common/rng.ts';
import { ConfigError } from '../common/errors.ts';
import type {
  ConceptualInstance,
  EntityObject,
  InstanceOptions,
  InstanceProfile,
  Link,
  Scalar,
  Value,
} from './conceptual-instance.ts';
import { canonicalSet } from './canonical-instance.ts';
import { ODD_TEXTS, ValueGenerator, distinctCapacity, type GenerationRates } from './value-generator.ts';

import { estimateInstanceBytes, memoryBudgetBytes } from './memory-estimate.ts';

const DEFAULT_COUNTS = { tiny: 20, small: 500, paper: 5000, large: 50000 } as const;

const RATES: Record<InstanceProfile, GenerationRates & { noneRate: number }> = {
  default: {
    nullRate: 0.1,
    oddTextRate: 0,
    oddTexts: [],
    tieRate: 0.05,
    emptySetRate: 0.1,
    noneRate: 0.15,
  },
  edge: { nullRate: 0.35, oddTextRate: 0.3, oddTexts: ODD_TEXTS, tieRate: 0.4, emptySetRate: 0.35, noneRate: 0.4 },
};

/**
 * Generates the conceptual instance of a domain from a seed: objects with subclass
 * memberships and attribute values, then relationship links. Every stage draws from its own
 * forked stream, so the same options always give the same instance.
 *
 * Whatever the rates, each instance holds the cases that break naive SQL wherever the model
 * allows them: a NULL in every optional attribute, an empty set in every optional
 * multi-valued attribute, an object without partner at every partial end of a relationship,
 * odd text in every text attribute on the edge-case profile (`ODD_TEXTS`; the main instance
 * has none, so its text reads like real data and a question quotes what a person would), and
 * tied values.
 *
 * @example
 * const inst = generateInstance(socialMedia, { seed: 7, scale: 'tiny' });
 * inst.objects.Account.length // 60
 */
export function generateInstance(domain: Domain, options: InstanceOptions): ConceptualInstance {
  return generateInstanceReport(domain, options).instance;
}

/** An instance, and what the user should know about how it was drawn. */
export interface InstanceReport {
  readonly instance: ConceptualInstance;
  /** One line each, naming the attribute: e.g. a unique hint that draws from too few values. */
  readonly warnings: readonly string[];
}

/**
 * `generateInstance`, with its warnings: the same instance, and one line for each unique
 * attribute whose hint repeats itself so often that many values had to be changed.
 */
export function generateInstanceReport(domain: Domain, options: InstanceOptions): InstanceReport {
  const warnings: string[] = [];
  const index = indexDomain(domain);
  const profile = options.profile ?? 'default';
  const rates = RATES[profile];
  const rng = createRng(`${options.seed}`).fork(`instance/${profile}`);
  checkCounts(domain, options);

  // 1. Objects and their classes.
  const members = new Map<string, EntityObject[]>();
  const objects: Record<string, EntityObject[]> = {};
  const classesOf = new Map<string, Map<number, string[]>>();
  for (const root of index.roots) {
    const override = options.counts?.[root.name];
    const count = override ?? (root.counts ?? DEFAULT_COUNTS)[options.scale];
    if (!Number.isInteger(count) || count < 0)
      throw new ConfigError(`counts.${root.name}: expected a non-negative integer, got ${count}`);
    const classes = assignClasses(index, root, count, rng.fork(`classes/${root.name}`));
    classesOf.set(root.name, classes);
    const list: EntityObject[] = [];
    for (let id = 1; id <= count; id++) {
      list.push({ id, classes: (classes.get(id) ?? [root.name]).slice().sort(), values: {} });
    }
    objects[root.name] = list;
  }
  // Members of every class (instances that are-a the class), in id order.
  for (const root of index.roots) {
    for (const entity of index.subtree(root.name)) {
      const list = (objects[root.name] ?? []).filter((o) =>
        o.classes.some((c) => index.isAncestorOrSelf(entity.name, c)),
      );
      members.set(entity.name, list);
    }
  }

  // 2. Attribute values.
  const values = new Map<EntityObject, Record<string, Value>>();
  for (const list of Object.values(objects)) for (const o of list) values.set(o, {});
  for (const entity of domain.entities) {
    for (const attribute of entity.attributes) {
      const path = `domains.${domain.name}.entities.${entity.name}.attributes.${attribute.name}`;
      // Split by subclass, the column still plants its odd text once, in its largest part.
      const parts = subclassParts(index, attribute, members.get(entity.name) ?? []);
      const planted = parts.reduce((a, b) => (b.owners.length > a.owners.length ? b : a));
      for (const part of parts) {
        const generated = generateColumn(
          part.attribute,
          part.owners.length,
          path,
          rng.fork(`attr/${entity.name}.${attribute.name}${part.subclass ? `/${part.subclass}` : ''}`),
          rates,
          warnings,
          part === planted,
        );
        part.owners.forEach((o, i) => {
          (values.get(o) as Record<string, Value>)[attribute.name] = generated[i] as Value;
        });
      }
    }
  }
  for (const [root, list] of Object.entries(objects)) {
    objects[root] = list.map((o) => ({ ...o, values: values.get(o) as Record<string, Value> }));
  }
  for (const root of index.roots) {
    for (const entity of index.subtree(root.name)) {
      const ids = new Set((members.get(entity.name) ?? []).map((o) => o.id));
      members.set(
        entity.name,
        (objects[root.name] ?? []).filter((o) => ids.has(o.id)),
      );
    }
  }

  // 3. Relationship links.
  const links: Record<string, Link[]> = {};
  for (const rel of domain.relationships) {
    const from = (members.get(rel.from) ?? []).map((o) => o.id);
    const to = (members.get(rel.to) ?? []).map((o) => o.id);
    const relRng = rng.fork(`links/${rel.name}`);
    const pairs = generateLinks(rel, from, to, relRng, rates.noneRate, domain.name);
    const attrs = rel.attributes ?? [];
    const columns = attrs.map((a) =>
      generateColumn(
        a,
        pairs.length,
        `domains.${domain.name}.relationships.${rel.name}.attributes.${a.name}`,
        relRng.fork(`attr/${a.name}`),
        rates,
        warnings,
      ),
    );
    links[rel.name] = pairs.map(([f, t], i) =>
      attrs.length === 0
        ? { from: f, to: t }
        : { from: f, to: t, values: Object.fromEntries(attrs.map((a, j) => [a.name, columns[j]?.[i] as Value])) },
    );
  }
  return { instance: { domain: domain.name, objects, links }, warnings };
}

/**
 * Checks the counts an instance will have, overrides included, against the caps before
 * anything is allocated: a billion objects would crash the process, not fail with a message.
 *
 * @example
 * checkCounts(socialMedia, { seed: 1, scale: 'tiny', counts: { Account: 1e20 } })
 * // throws ConfigError: counts.Account: at most 10000000 objects per entity, got 100000000000000000000
 */
export function checkCounts(domain: Domain, options: InstanceOptions): void {
  for (const name of Object.keys(options.counts ?? {})) {
    const entity = domain.entities.find((e) => e.name === name);
    if (!entity || entity.parent !== undefined) {
      const roots = domain.entities.filter((e) => e.parent === undefined).map((e) => e.name);
      throw new ConfigError(`counts.${name}: not a root entity of domain ${domain.name} (roots: ${roots.join(', ')})`);
    }
  }
  let total = 0;
  for (const root of domain.entities.filter((e) => e.parent === undefined)) {
    const override = options.counts?.[root.name];
    const count = override ?? (root.counts ?? DEFAULT_COUNTS)[options.scale];
    const where =
      override === undefined
        ? `domains.${domain.name}.entities.${root.name}.counts.${options.scale}`
        : `counts.${root.name}`;
    if (typeof count !== 'number' || !Number.isInteger(count) || count < 0)
      throw new ConfigError(`${where}: expected a non-negative integer, got ${String(count)}`);
    if (count > MODEL_LIMITS.countPerEntity)
      throw new ConfigError(`${where}: at most ${MODEL_LIMITS.countPerEntity} objects per entity, got ${count}`);
    total += count;
  }
  if (total > MODEL_LIMITS.countTotal) {
    throw new ConfigError(
      `counts: ${total} objects at scale ${options.scale}, more than the cap of ${MODEL_LIMITS.countTotal}`,
    );
  }
  // The caps above hold for a small model; what a rich one can hold is the machine's to say.
  const counts = Object.fromEntries(
    domain.entities
      .filter((e) => e.parent === undefined)
      .map((r) => [r.name, options.counts?.[r.name] ?? (r.counts ?? DEFAULT_COUNTS)[options.scale]]),
  );
  const needed = estimateInstanceBytes(domain, counts);
  const budget = memoryBudgetBytes();
  if (needed > budget) {
    const biggest = Object.entries(counts).sort((a, b) => b[1] - a[1])[0] as [string, number];
    const fits = Math.floor((biggest[1] * budget) / needed);
    const gb = (bytes: number): string => (bytes / 1e9).toFixed(1);
    throw new ConfigError(
      `counts: ${total} objects (${biggest[1]} ${biggest[0]}) need about ${gb(needed)} GB of memory, more than the ${gb(budget)} GB this process may use; lower the counts (about ${fits} ${biggest[0]} fit) or give node more memory (NODE_OPTIONS=--max-old-space-size=MB)`,
    );
  }
}

/**
 * Splits `count` objects of a hierarchy into classes by the subclasses' fractions, with
 * quotas rather than coin flips so every class with a positive fraction gets members
 * whenever there are enough objects. Returns each object's most specific classes.
 */
function assignClasses(index: ErIndex, root: Entity, count: number, rng: Rng): Map<number, string[]> {
  const result = new Map<number, string[]>();
  const ids = Array.from({ length: count }, (_, i) => i + 1);
  const walk = (entity: Entity, pool: number[]): void => {
    const children = index.children(entity.name);
    if (children.length === 0) {
      for (const id of pool)
        result.set(id, [...(result.get(id) ?? []).filter((c) => !index.isAncestorOrSelf(c, entity.name)), entity.name]);
      return;
    }
    const spec = entity.specialization ?? { disjoint: true, total: false };
    const fractions = children.map((c) => c.fraction ?? 1 / (children.length + (spec.total ? 0 : 1)));
    const sum = fractions.reduce((a, b) => a + b, 0);
    const shares = spec.total && spec.disjoint ? fractions.map((f) => f / sum) : fractions;
    const m = pool.length;
    if (spec.disjoint) {
      const quotas = shares.map((s) => (m >= children.length ? Math.max(1, Math.round(s * m)) : Math.round(s * m)));
      // Partial: leave at least one direct member when there is room; total: use every object.
      const room = spec.total ? m : Math.max(0, m - 1);
      let total = quotas.reduce((a, b) => a + b, 0);
      for (let i = quotas.length - 1; total > room && i >= 0; i = i === 0 ? quotas.length - 1 : i - 1) {
        if ((quotas[i] as number) > 0) {
          quotas[i] = (quotas[i] as number) - 1;
          total--;
        }
        if (quotas.every((q) => q === 0)) break;
      }
      if (spec.total) {
        const biggest = shares.indexOf(Math.max(...shares));
        quotas[biggest] = (quotas[biggest] as number) + (m - total);
      }
      const shuffled = rng.shuffle(pool);
      let offset = 0;
      children.forEach((child, i) => {
        const q = quotas[i] as number;
        walk(
          child,
          shuffled.slice(offset, offset + q).sort((a, b) => a - b),
        );
        offset += q;
      });
      const direct = shuffled.slice(offset);
      for (const id of direct) result.set(id, [...(result.get(id) ?? []), entity.name]);
    } else {
      const chosen = new Set<number>();
      children.forEach((child, i) => {
        const picked = rng
          .sample(pool, Math.max(m > 0 ? 1 : 0, Math.round((shares[i] as number) * m)))
          .sort((a, b) => a - b);
        for (const id of picked) chosen.add(id);
        walk(child, picked);
      });
      for (const id of pool) {
        if (chosen.has(id)) continue;
        if (spec.total && children.length > 0) {
          const child = rng.pick(children);
          walk(child, [id]);
        } else {
          result.set(id, [...(result.get(id) ?? []), entity.name]);
        }
      }
    }
  };
  walk(root, ids);
  // Overlapping memberships can record an ancestor and its descendant; keep the deepest.
  for (const [id, classes] of result) {
    const deepest = classes.filter((c) => !classes.some((d) => d !== c && index.isAncestorOrSelf(c, d)));
    result.set(id, [...new Set(deepest)].sort());
  }
  return result;
}

/**
 * The owners of an attribute split by `hints.bySubclass`: each listed subclass's objects with
 * its source of values, then the rest with the attribute's own (the whole list when it has none).
 */
function subclassParts(
  index: ErIndex,
  attribute: Attribute,
  owners: readonly EntityObject[],
): { readonly subclass?: string; readonly attribute: Attribute; readonly owners: EntityObject[] }[] {
  const bySubclass = attribute.hints?.bySubclass;
  if (!bySubclass) return [{ attribute, owners: [...owners] }];
  const { bySubclass: _by, ...own } = attribute.hints ?? {};
  const { faker: _faker, pool: _pool, ...common } = own;
  const subclasses = Object.keys(bySubclass);
  const parts = new Map<string | undefined, EntityObject[]>([
    ...subclasses.map((c): [string, EntityObject[]] => [c, []]),
    [undefined, []],
  ]);
  for (const o of owners) {
    const first = subclasses.find((c) => o.classes.some((k) => index.isAncestorOrSelf(c, k)));
    parts.get(first)?.push(o);
  }
  return [...parts].map(([subclass, list]) =>
    subclass === undefined
      ? { attribute: { ...attribute, hints: own }, owners: list }
      : { subclass, attribute: { ...attribute, hints: { ...common, ...bySubclass[subclass] } }, owners: list },
  );
}

/**
 * Values of one attribute for `n` owners: NULLs (optional), sets (multi-valued), odd text
 * and ties as the rates say, and at least one NULL or empty set where the attribute is
 * optional and there are two or more owners.
 */
function generateColumn(
  attribute: Attribute,
  n: number,
  path: string,
  rng: Rng,
  rates: GenerationRates,
  warnings: string[],
  plantOdd = true,
): Value[] {
  const unique = attribute.hints?.unique === true && attribute.multiValued !== true;
  if (unique) checkUniqueCapacity(attribute, n, path);
  const gen = new ValueGenerator(attribute, path, rng.fork('values'), rates);
  const out = fillColumn(attribute, n, gen, rng, rates, plantOdd);
  // A tenth of the values changed away from what the hint drew means the hint's source is
  // far too small for this many objects: the data no longer looks like the hint says.
  if (unique && gen.collisions > 0 && gen.collisions * 10 > n) {
    const source = attribute.hints?.faker
      ? `faker method "${attribute.hints.faker}"`
      : `${attribute.type.kind} generator`;
    warnings.push(
      `${path}.hints.unique: ${gen.collisions} of ${n} values repeated an earlier one and were made unique (${attribute.type.kind === 'text' ? 'a number suffix' : 'the next free value'}); the ${source} draws from too few values`,
    );
  }
  return out;
}

/** A unique attribute with a closed set of values needs one value per object. */
function checkUniqueCapacity(attribute: Attribute, n: number, path: string): void {
  const capacity = distinctCapacity(attribute);
  if (capacity >= n) return;
  const hints = attribute.hints;
  const source =
    attribute.type.kind === 'enum'
      ? `its enum has ${capacity} value${capacity === 1 ? '' : 's'}`
      : attribute.type.kind === 'text'
        ? `hints.pool has ${capacity} distinct values`
        : `its range (hints.min ${hints?.min ?? 'default'} to hints.max ${hints?.max ?? 'default'}) holds ${capacity}`;
  throw new ConfigError(`${path}.hints.unique: ${n} objects need ${n} distinct values, but ${source}`);
}

function fillColumn(
  attribute: Attribute,
  n: number,
  gen: ValueGenerator,
  rng: Rng,
  rates: GenerationRates,
  plantOdd: boolean,
): Value[] {
  const optional = attribute.optional === true;
  const out: Value[] = [];
  if (attribute.multiValued) {
    const [lo, hi] = attribute.hints?.setSize ?? [optional ? 0 : 1, 4];
    for (let i = 0; i < n; i++) {
      const forcedEmpty = optional && rng.chance(rates.emptySetRate);
      out.push(
        forcedEmpty ? [] : canonicalSet(gen.nextSet(optional ? lo : Math.max(1, lo), Math.max(hi, optional ? lo : 1))),
      );
    }
    if (optional && n >= 2 && !out.some((v) => Array.isArray(v) && v.length === 0)) out[rng.int(0, n - 1)] = [];
    if (n >= 2 && !out.some((v) => Array.isArray(v) && v.length > 0))
      out[0] = canonicalSet(gen.nextSet(1, Math.max(1, hi)));
    return out;
  }
  const nullRate = attribute.hints?.nullRate ?? rates.nullRate;
  for (let i = 0; i < n; i++) out.push(optional && rng.chance(nullRate) ? null : gen.next());
  if (optional && n >= 2 && !out.includes(null)) out[rng.int(0, n - 1)] = null;
  if (optional && n >= 2 && !out.some((v) => v !== null)) out[0] = gen.next();
  if (attribute.type.kind === 'text' && n >= 2 && attribute.hints?.unique !== true) {
    // Plant odd text and a tie in each text attribute, whatever the rates drew.
    const slots = out.map((v, i) => (v !== null ? i : -1)).filter((i) => i >= 0);
    if (slots.length >= 3) {
      // Odd text only where the profile has some (the edge-case instance).
      let oddSlot = -1;
      if (plantOdd && rates.oddTexts.length > 0) {
        const odd = out.findIndex((v) => typeof v === 'string' && rates.oddTexts.includes(v));
        oddSlot = odd >= 0 ? odd : rng.pick(slots);
        if (odd < 0) out[oddSlot] = rng.pick(rates.oddTexts);
      }
      if (new Set(slots.map((i) => out[i])).size === slots.length) {
        const [a, b] = rng.sample(
          slots.filter((i) => i !== oddSlot),
          2,
        ) as [number, number];
        out[b] = out[a] as Scalar;
      }
    }
  }
  return out;
}

/** Zipf-like weights over a random order of the targets, as a cumulative table. */
function zipfTable(size: number, skew: number): Float64Array {
  const cdf = new Float64Array(size);
  let total = 0;
  for (let i = 0; i < size; i++) {
    total += 1 / (i + 1) ** skew;
    cdf[i] = total;
  }
  for (let i = 0; i < size; i++) cdf[i] = (cdf[i] as number) / total;
  return cdf;
}

function drawIndex(cdf: Float64Array, rng: Rng): number {
  const r = rng.next();
  let lo = 0;
  let hi = cdf.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((cdf[mid] as number) < r) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Links of one relationship: degrees from the hints (the partner count of a `from` object),
 * partners drawn with Zipf skew so some targets are popular and some have none.
 */
function generateLinks(
  rel: Relationship,
  from: number[],
  to: number[],
  rng: Rng,
  defaultNone: number,
  domain: string,
): [number, number][] {
  const pairs: [number, number][] = [];
  if (from.length === 0 || to.length === 0) {
    if (rel.participation?.from === 'total' && from.length > 0) {
      throw new ConfigError(
        `domains.${domain}.relationships.${rel.name}: every ${rel.from} needs a ${rel.to}, but there are none`,
      );
    }
    return pairs;
  }
  const degree = rel.degree ?? {};
  const fromTotal = rel.participation?.from === 'total';
  const noneRate = fromTotal ? 0 : (degree.noneRate ?? defaultNone);
  const order = rng.shuffle(to);
  const cdf = zipfTable(order.length, degree.skew ?? 0.8);
  const selfLink = rel.from === rel.to;
  const single = rel.cardinality !== 'many-to-many';
  const taken = new Set<number>();
  const free = rel.cardinality === 'one-to-one' ? rng.shuffle(to) : [];
  const noneForced = !fromTotal && from.length >= 2 ? rng.pick(from) : undefined;
  for (const f of from) {
    if (f === noneForced || rng.chance(noneRate)) continue;
    if (rel.cardinality === 'one-to-one') {
      const t = free.pop();
      if (t === undefined) {
        if (fromTotal)
          throw new ConfigError(
            `domains.${domain}.relationships.${rel.name}: not enough ${rel.to} objects for one each`,
          );
        continue;
      }
      pairs.push([f, t]);
      continue;
    }
    const mean = degree.mean ?? (single ? 1 : 2);
    const max = Math.min(degree.max ?? Math.max(1, Math.ceil(mean * 3)), order.length - (selfLink ? 1 : 0));
    let k = single ? 1 : Math.min(max, 1 + poisson(Math.max(0, mean - 1), rng));
    const chosen = new Set<number>();
    for (let tries = 0; chosen.size < k && tries < k * 20; tries++) {
      const t = order[drawIndex(cdf, rng)] as number;
      if (selfLink && t === f) continue;
      chosen.add(t);
    }
    if (chosen.size === 0) k = 0;
    for (const t of [...chosen].sort((a, b) => a - b)) {
      pairs.push([f, t]);
      taken.add(t);
    }
  }
  // Every partial `to` end keeps at least one object without partner.
  if (rel.participation?.to !== 'total' && to.length >= 2 && taken.size === to.length) {
    const lonely = order[order.length - 1] as number;
    const counts = new Map<number, number>();
    for (const [f] of pairs) counts.set(f, (counts.get(f) ?? 0) + 1);
    for (let i = pairs.length - 1; i >= 0; i--) {
      const [f, t] = pairs[i] as [number, number];
      if (t === lonely && (!fromTotal || (counts.get(f) ?? 0) > 1)) {
        pairs.splice(i, 1);
        counts.set(f, (counts.get(f) ?? 1) - 1);
      }
    }
  }
  // Total participation on the `to` end of a many-to-many: give each lonely target a partner.
  if (rel.participation?.to === 'total' && rel.cardinality === 'many-to-many') {
    const linked = new Set(pairs.map(([, t]) => t));
    for (const t of to) if (!linked.has(t)) pairs.push([rng.pick(from), t]);
  }
  pairs.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  return pairs.filter(
    (p, i) =>
      i === 0 || p[0] !== (pairs[i - 1] as [number, number])[0] || p[1] !== (pairs[i - 1] as [number, number])[1],
  );
}

function poisson(lambda: number, rng: Rng): number {
  if (lambda <= 0) return 0;
  const limit = Math.exp(-lambda);
  let k = 0;
  let p = rng.next();
  while (p > limit && k < 1000) {
    k++;
    p *= rng.next();
  }
  return k;
}
