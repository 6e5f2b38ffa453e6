/**
 * The instance as the filler reads it: the objects of each entity (subclasses included) and
 * the values an expression takes, cached per instance; literals and quantiles drawn from
 * them.
 */
import type { EntityObject, Scalar } from '../../instance/conceptual-instance.ts';
import type { ScalarLiteral } from '../../query/conceptual-query.ts';
import type { ElementAlias, EntityAlias, Fill, Typed } from './fill-context.ts';
import { VALUE_QUANTILES } from './fill-rates.ts';

/** Per instance: objects of each entity (subclasses included), and non-null values per column. */
const MEMBERS = new WeakMap<object, Map<string, readonly EntityObject[]>>();
const VALUES = new WeakMap<object, Map<string, Scalar[]>>();

/** Text a question should not quote: planted odd values belong to the edge-case instance. */
export const ODD_TEXT = /[\\\n\r\t"]|^\s|\s$|^$/u;

/** The objects of an entity, its subclasses' included. */
export function members(f: Fill, entity: string): readonly EntityObject[] {
  let cache = MEMBERS.get(f.ctx.instance);
  if (!cache) MEMBERS.set(f.ctx.instance, (cache = new Map()));
  let list = cache.get(entity);
  if (!list) {
    const index = f.graph.index;
    const root = index.root(entity).name;
    list = (f.ctx.instance.objects[root] ?? []).filter((o) => o.classes.some((c) => index.isAncestorOrSelf(entity, c)));
    cache.set(entity, list);
  }
  return list;
}

/** Values an expression takes in the instance (non-null, realistic). */
export function valuesOf(
  f: Fill,
  t: Typed,
  entities: readonly EntityAlias[],
  elements: readonly ElementAlias[],
): Scalar[] {
  const e = t.expr;
  // Values depend on the entity (or relationship) behind the alias, not on the alias name.
  const owner =
    e.kind === 'element'
      ? elements.find((x) => x.alias === e.alias)?.owner
      : e.kind === 'linkAttribute'
        ? entities.find((x) => x.alias === e.alias)?.via?.relationship
        : entities.find((x) => 'alias' in e && x.alias === e.alias)?.entity;
  const key = `${e.kind}|${owner}|${'attribute' in e ? e.attribute : (elements.find((x) => 'alias' in e && x.alias === e.alias)?.slot.name ?? '')}`;
  let cache = VALUES.get(f.ctx.instance);
  if (!cache) VALUES.set(f.ctx.instance, (cache = new Map()));
  const hit = cache.get(key);
  if (hit) return hit;
  const computed = computeValues(f, t, entities, elements);
  cache.set(key, computed);
  return computed;
}

function computeValues(
  f: Fill,
  t: Typed,
  entities: readonly EntityAlias[],
  elements: readonly ElementAlias[],
): Scalar[] {
  const e = t.expr;
  let raw: unknown[] = [];
  if (e.kind === 'attribute') {
    const a = entities.find((x) => x.alias === e.alias);
    if (a) raw = members(f, a.entity).map((o) => (e.attribute === 'id' ? o.id : o.values[e.attribute]));
  } else if (e.kind === 'element') {
    const el = elements.find((x) => x.alias === e.alias);
    if (el) raw = members(f, el.owner).flatMap((o) => (o.values[el.slot.name] as readonly Scalar[] | null) ?? []);
  } else if (e.kind === 'linkAttribute') {
    const a = entities.find((x) => x.alias === e.alias);
    if (a?.via) raw = (f.ctx.instance.links[a.via.relationship] ?? []).map((l) => l.values?.[e.attribute]);
  }
  return raw.filter(
    (v): v is Scalar =>
      v !== null && v !== undefined && !Array.isArray(v) && !(typeof v === 'string' && ODD_TEXT.test(v)),
  );
}

/** A value of the instance as a literal of the expression's kind. */
export function literal(kind: Typed['kind'], v: Scalar): ScalarLiteral {
  return kind === 'numeric' && typeof v === 'string' ? Number(v) : v;
}

/** Columns sorted for `quantile`, per values list (the lists are cached per instance) and kind. */
const SORTED = new WeakMap<readonly Scalar[], Map<Typed['kind'], readonly Scalar[]>>();

/** A value at a quantile of the column (sorted), away from both ends. */
export function quantile(f: Fill, values: Scalar[], kind: Typed['kind']): Scalar {
  let byKind = SORTED.get(values);
  if (!byKind) SORTED.set(values, (byKind = new Map()));
  let sorted = byKind.get(kind);
  if (!sorted) {
    sorted = [...values].sort((a, b) =>
      kind === 'numeric' ? Number(a) - Number(b) : String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0,
    );
    byKind.set(kind, sorted);
  }
  const q = f.rng.pick(VALUE_QUANTILES);
  return sorted[Math.floor(q * (sorted.length - 1))] as Scalar;
}

const SAFE = new WeakMap<readonly Scalar[], boolean>();
const ICU_LIKE = new Intl.Collator('en');

/**
 * Whether text values sort the same by code point (PostgreSQL's C collation) and by English
 * rules (ICU): an order by them is then the same on every server, and the check that refuses
 * orders the collation decides will not refuse it.
 */
export function orderSafe(values: readonly Scalar[]): boolean {
  let safe = SAFE.get(values);
  if (safe === undefined) {
    const texts = [...new Set(values.map(String))];
    const byCode = [...texts].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const byRules = [...texts].sort((a, b) => ICU_LIKE.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0));
    safe = byCode.every((v, i) => v === byRules[i]);
    SAFE.set(values, safe);
  }
  return safe;
}
