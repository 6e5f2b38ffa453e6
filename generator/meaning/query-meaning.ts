/**
 * A conceptual query as the meaning check reads it: every SELECT of it (set arms and
 * subqueries included), the nodes each one holds itself, and for each expression what it is
 * made of: the attribute it reads and that attribute's role, or the unit of the number it
 * computes. This module reads queries only; it shares nothing with the filler.
 */
import { roleOf } from '../er-model/attribute-roles.ts';
import type { ErIndex } from '../er-model/er-index.ts';
import type { Attribute, AttributeRole } from '../er-model/er-model.ts';
import type { Expr, Join, Predicate, Query, SelectQuery } from '../query/conceptual-query.ts';

/** What an alias stands for: an entity (joined through a relationship, or not), or a set's elements. */
export type AliasMeaning =
  | { readonly kind: 'entity'; readonly entity: string; readonly via?: Extract<Join, { kind: 'relationship' }> }
  | { readonly kind: 'elements'; readonly owner: string; readonly attribute: Attribute };

/** An attribute (of an entity, a relationship link, or a set's elements) read by an expression. */
export interface AttributeRef {
  readonly alias: string;
  readonly name: string;
  readonly attribute: Attribute | undefined;
  readonly role: AttributeRole;
  /** The entity or relationship declaring it. */
  readonly owner: string;
}

export interface QueryMeaning {
  readonly index: ErIndex;
  /** Every alias of the query (aliases are unique across a query, subqueries included). */
  readonly aliases: ReadonlyMap<string, AliasMeaning>;
  readonly query: Query;
  /** Every SELECT of the query, outermost first. */
  readonly selects: readonly SelectQuery[];
}

/** A query read for its meaning; the query is one the filler built or a suite checked, so it is valid. */
export function readQuery(index: ErIndex, query: Query): QueryMeaning {
  const selects: SelectQuery[] = [];
  visit(query, (n) => {
    if (n.kind === 'select') selects.push(n as unknown as SelectQuery);
  });
  const aliases = new Map<string, AliasMeaning>();
  for (const q of selects) {
    aliases.set(q.from.alias, { kind: 'entity', entity: q.from.entity });
    for (const j of q.joins ?? []) {
      if (j.kind === 'relationship') aliases.set(j.alias, { kind: 'entity', entity: j.entity, via: j });
      else {
        const of = aliases.get(j.of);
        const found =
          of?.kind === 'entity'
            ? index.allAttributes(of.entity).find((a) => a.attribute.name === j.attribute)
            : undefined;
        if (found) aliases.set(j.alias, { kind: 'elements', owner: found.owner.name, attribute: found.attribute });
      }
    }
  }
  return { index, aliases, query, selects };
}

type Node = { readonly kind: string } & Record<string, unknown>;

/** Calls `fn` on every object with a `kind` under `root` (root included), depth first. */
export function visit(root: unknown, fn: (node: Node) => void | 'skip'): void {
  const walk = (n: unknown): void => {
    if (Array.isArray(n)) return n.forEach(walk);
    if (n === null || typeof n !== 'object') return;
    const o = n as Record<string, unknown>;
    if (typeof o['kind'] === 'string' && fn(o as Node) === 'skip') return;
    for (const k of Object.keys(o)) walk(o[k]);
  };
  walk(root);
}

/** The nodes a SELECT holds itself, not those of its subqueries. */
export function ownNodes(q: SelectQuery, fn: (node: Node) => void): void {
  visit(q, (n) => {
    if (n !== (q as unknown) && (n.kind === 'select' || n.kind === 'set')) return 'skip';
    fn(n);
  });
}

const REF_KINDS = new Set(['attribute', 'element', 'linkAttribute']);

/** The attribute a plain reference reads, with its role; `id` is an identifier. */
export function refOf(m: QueryMeaning, e: Expr): AttributeRef | undefined {
  if (!REF_KINDS.has(e.kind)) return undefined;
  const info = m.aliases.get((e as { alias: string }).alias);
  if (!info) return undefined;
  if (e.kind === 'element') {
    if (info.kind !== 'elements') return undefined;
    const role = roleOf(m.index.domain, info.owner, info.attribute.name);
    return role
      ? { alias: e.alias, name: info.attribute.name, attribute: info.attribute, role, owner: info.owner }
      : undefined;
  }
  if (e.kind === 'linkAttribute') {
    if (info.kind !== 'entity' || !info.via) return undefined;
    const rel = m.index.relationship(info.via.relationship);
    const attribute = (rel.attributes ?? []).find((a) => a.name === e.attribute);
    const role = roleOf(m.index.domain, rel.name, e.attribute);
    return role ? { alias: e.alias, name: e.attribute, attribute, role, owner: rel.name } : undefined;
  }
  if (e.kind !== 'attribute' || info.kind !== 'entity') return undefined;
  if (e.attribute === 'id')
    return { alias: e.alias, name: 'id', attribute: undefined, role: { kind: 'identifier' }, owner: info.entity };
  const owner = m.index.allAttributes(info.entity).find((a) => a.attribute.name === e.attribute);
  if (!owner) return undefined;
  const role = roleOf(m.index.domain, owner.owner.name, e.attribute);
  return role
    ? { alias: e.alias, name: e.attribute, attribute: owner.attribute, role, owner: owner.owner.name }
    : undefined;
}

/** The attribute an expression shows, seen through wrappers that keep what it is (rounding, case, a default). */
export function shownRef(m: QueryMeaning, e: Expr): AttributeRef | undefined {
  switch (e.kind) {
    case 'round':
    case 'cast':
      return shownRef(m, e.arg);
    case 'coalesce':
      return e.args[0] ? shownRef(m, e.args[0]) : undefined;
    case 'textFunction':
      return e.fn === 'length' ? undefined : shownRef(m, e.arg);
    default:
      return refOf(m, e);
  }
}

/** The unit of a number: what it counts in; `scalar` for a bare number. */
export type Unit =
  | { readonly kind: 'unit'; readonly unit: string; readonly additive: boolean; readonly ref?: AttributeRef }
  | { readonly kind: 'scalar'; readonly value: number }
  | { readonly kind: 'none'; readonly why: string };

/** The unit of a numeric expression, or `none` with what it is instead (an id, a category). */
export function unitOf(m: QueryMeaning, e: Expr): Unit {
  switch (e.kind) {
    case 'literal':
      return typeof e.value === 'number' ? { kind: 'scalar', value: e.value } : { kind: 'none', why: 'a text literal' };
    case 'attribute':
    case 'element':
    case 'linkAttribute': {
      const ref = refOf(m, e);
      if (!ref) return { kind: 'none', why: 'an unknown attribute' };
      const r = ref.role;
      if (r.kind === 'measure') return { kind: 'unit', unit: r.unit, additive: r.additive, ref };
      if (r.kind === 'count') return { kind: 'unit', unit: `count of ${ref.name}`, additive: true, ref };
      if (r.kind === 'score') return { kind: 'unit', unit: `score ${ref.name}`, additive: false, ref };
      return { kind: 'none', why: `${ref.name}, a ${r.kind}` };
    }
    case 'aggregate':
      if (e.fn === 'count') return { kind: 'unit', unit: 'count', additive: true };
      return e.arg ? unitOf(m, e.arg) : { kind: 'none', why: 'an aggregate of nothing' };
    case 'window':
      if (e.fn === 'sum' || e.fn === 'avg' || e.fn === 'lag' || e.fn === 'lead')
        return e.arg ? unitOf(m, e.arg) : { kind: 'none', why: 'a window of nothing' };
      return { kind: 'unit', unit: e.fn === 'count' ? 'count' : 'position', additive: e.fn === 'count' };
    case 'round':
    case 'cast':
      return unitOf(m, e.arg);
    case 'coalesce':
      return e.args[0] ? unitOf(m, e.args[0]) : { kind: 'none', why: 'an empty coalesce' };
    case 'nullif':
      return unitOf(m, e.arg);
    case 'setSize':
      return { kind: 'unit', unit: 'count', additive: true };
    case 'arithmetic': {
      const l = unitOf(m, e.left);
      const r = unitOf(m, e.right);
      if (l.kind === 'none') return l;
      if (r.kind === 'none') return r;
      if (e.op === '*' || e.op === '/') {
        if (l.kind === 'unit' && r.kind === 'scalar') return l;
        if (l.kind === 'scalar' && r.kind === 'unit') return r;
        if (e.op === '/' && l.kind === 'unit' && r.kind === 'unit' && l.unit === r.unit)
          return { kind: 'unit', unit: 'ratio', additive: false };
        if (l.kind === 'unit' && r.kind === 'unit')
          return { kind: 'unit', unit: `${l.unit} ${e.op} ${r.unit}`, additive: l.additive && r.additive };
        return { kind: 'scalar', value: 0 };
      }
      return l.kind === 'unit' ? l : r;
    }
    case 'ratio':
      return { kind: 'unit', unit: e.percent ? 'percent' : 'ratio', additive: false };
    case 'extract':
      return { kind: 'unit', unit: `${e.field} of a date`, additive: false };
    case 'ageYears':
      return { kind: 'unit', unit: 'year', additive: false };
    case 'textFunction':
    case 'position':
      return { kind: 'unit', unit: 'characters', additive: false };
    case 'case':
    case 'simpleCase': {
      const thens = [...e.whens.map((w) => w.then), ...(e.else ? [e.else] : [])];
      // CASE … THEN 1 ELSE 0: a count of the rows meeting a condition.
      if (thens.every((t) => t.kind === 'literal' && (t.value === 0 || t.value === 1)))
        return { kind: 'unit', unit: 'count', additive: true };
      return { kind: 'none', why: 'a CASE' };
    }
    case 'scalarSubquery': {
      const only = e.query.select[0];
      return only ? unitOf(m, only.expr) : { kind: 'none', why: 'an empty subquery' };
    }
    default:
      return { kind: 'none', why: `a ${e.kind}` };
  }
}

/** The predicates of a conjunction, `and` flattened (a single predicate is a conjunction of one). */
export function conjuncts(p: Predicate | undefined): Predicate[] {
  if (!p) return [];
  if (p.kind === 'and') return p.args.flatMap(conjuncts);
  return [p];
}

/** A stable key of an expression, for finding two uses of one value. */
export function exprKey(e: unknown): string {
  return JSON.stringify(e);
}
