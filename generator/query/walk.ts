/**
 * One typed walker and one equality for the conceptual query. Every part of a query (a
 * query, an expression, a condition, a join) has a `kind`, and no two parts share one, so
 * a part is an `IrNode` and `children` lists what it holds, in reading order, from its type
 * alone: never from the order of an object's keys. `canonicalKey` is the equality: two parts
 * are the same exactly when their keys are, however their JSON was written.
 *
 * @example
 * some(query, (n) => n.kind === 'aggregate')         // does the query aggregate anywhere?
 * aliasesIn(where)                                    // every alias a condition reads
 * canonicalKey({ b: 1, a: 2 }) === canonicalKey({ a: 2, b: 1 })   // true
 */
import { analyticParts, isAnalytic } from './analytic-expr.ts';
import type { Expr, Join, Predicate, Query, SelectQuery } from './conceptual-query.ts';

export type IrNode = Query | Expr | Predicate | Join;

/** The parts a node holds directly, in reading order (subqueries included, as queries). */
export function children(node: IrNode): readonly IrNode[] {
  switch (node.kind) {
    case 'select':
      return selectChildren(node);
    case 'set':
      return [node.left, node.right];
    case 'relationship':
      return node.on ? [node.on] : [];
    case 'elements':
    case 'attribute':
    case 'element':
    case 'linkAttribute':
    case 'literal':
    case 'setSize':
    case 'setArray':
    case 'classOf':
    case 'contains':
    case 'isA':
      return [];
    case 'aggregate':
      return [...(node.arg ? [node.arg] : []), ...(node.filter ? [node.filter] : [])];
    case 'arithmetic':
      return [node.left, node.right];
    case 'round':
      return [node.arg];
    case 'scalarSubquery':
      return [node.query];
    case 'window':
      return [...(node.arg ? [node.arg] : []), ...(node.partitionBy ?? []), ...(node.orderBy ?? []).map((o) => o.expr)];
    case 'compare':
      return [node.left, node.right];
    case 'in':
    case 'like':
    case 'isNull':
      return [node.expr];
    case 'between':
      return [node.expr, node.low, node.high];
    case 'and':
    case 'or':
      return node.args;
    case 'not':
      return [node.arg];
    case 'exists':
      return [node.query];
    case 'inQuery':
      return [node.expr, node.query];
    default: {
      if (!isAnalytic(node)) return [];
      if (node.kind === 'case') return node.whens.flatMap((w) => [w.when, w.then]).concat(node.else ? [node.else] : []);
      const { exprs, predicates } = analyticParts(node);
      return [...exprs, ...predicates];
    }
  }
}

function selectChildren(q: SelectQuery): IrNode[] {
  return [
    ...q.select.map((c) => c.expr),
    ...(q.joins ?? []),
    ...(q.where ? [q.where] : []),
    ...(q.groupBy ?? []),
    ...(q.having ? [q.having] : []),
    ...(q.orderBy ?? []).flatMap((o) => (o.expr.kind === 'output' ? [] : [o.expr])),
    ...(q.qualify ? [q.qualify.window] : []),
  ];
}

/** Whether a subquery starts at this node (its parts belong to another query level). */
export function opensQuery(node: IrNode): node is Extract<IrNode, { kind: 'scalarSubquery' | 'exists' | 'inQuery' }> {
  return node.kind === 'scalarSubquery' || node.kind === 'exists' || node.kind === 'inQuery';
}

/**
 * Visits `node` and every part under it, parents first. `visit` returning false skips the
 * parts under that node.
 */
export function walk(node: IrNode, visit: (n: IrNode) => boolean | void): void {
  const stack: IrNode[] = [node];
  while (stack.length > 0) {
    const n = stack.pop() as IrNode;
    if (visit(n) === false) continue;
    const kids = children(n);
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i] as IrNode);
  }
}

/** Whether `node` or some part under it meets `test`. */
export function some(node: IrNode, test: (n: IrNode) => boolean): boolean {
  let found = false;
  walk(node, (n) => {
    if (found) return false;
    if (test(n)) found = true;
    return !found;
  });
  return found;
}

/** The alias a part names (reads, or declares for a join), if it names one. */
export function aliasOf(node: IrNode): string | undefined {
  return 'alias' in node && typeof node.alias === 'string' ? node.alias : undefined;
}

/** The aliases whose kind the query itself speaks of: a `classOf` output or an `isA` test on them, anywhere. */
export function aliasesOfKind(query: Query): Set<string> {
  const out = new Set<string>();
  walk(query, (n) => {
    if (n.kind === 'isA' || n.kind === 'classOf') out.add(n.alias);
  });
  return out;
}

/** Every alias a part mentions, subqueries included (those it declares among them). */
export function aliasesIn(node: IrNode): Set<string> {
  const out = new Set<string>();
  walk(node, (n) => {
    const alias = aliasOf(n);
    if (alias !== undefined) out.add(alias);
  });
  return out;
}

/** The aliases a part declares (FROM and joins), its subqueries' included, in order of appearance. */
export function declaredAliases(node: IrNode): string[] {
  const out: string[] = [];
  walk(node, (n) => {
    if (n.kind !== 'select') return;
    if (!out.includes(n.from.alias)) out.push(n.from.alias);
    for (const j of n.joins ?? []) if (!out.includes(j.alias)) out.push(j.alias);
  });
  return out;
}

/**
 * The same value with every object's keys in sorted order (and keys whose value is
 * undefined left out): the canonical form. Its JSON is `canonicalKey`; a part of a value in
 * canonical form is in canonical form too, so code that canonicalizes a query once (the
 * compiler does) may key its parts with plain `JSON.stringify`.
 */
export function inCanonicalOrder<T>(value: T): T {
  if (Array.isArray(value)) return value.map(inCanonicalOrder) as T;
  if (typeof value !== 'object' || value === null) return value;
  const keys = Object.keys(value).sort();
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    const v = (value as Record<string, unknown>)[k];
    if (v !== undefined) out[k] = inCanonicalOrder(v);
  }
  return out as T;
}

/**
 * A key for a value that ignores the order its object keys were written in (and keys whose
 * value is undefined): equal keys, equal values.
 *
 * @example canonicalKey({ kind: 'literal', value: 1 }) === canonicalKey({ value: 1, kind: 'literal' }) // true
 */
export function canonicalKey(value: unknown): string {
  return JSON.stringify(inCanonicalOrder(value)) ?? 'undefined';
}

/** Whether two parts are the same, however their keys are ordered. */
export function sameNode(a: IrNode, b: IrNode): boolean {
  return a === b || canonicalKey(a) === canonicalKey(b);
}

/** Fields that hold an alias's name, in any part. */
const ALIAS_FIELDS = new Set(['alias', 'from', 'of']);

/**
 * A part's key up to the names of the aliases it declares itself: two copies of one
 * correlated count, written over `o1` and over `o2`, have the same key. Aliases from outside
 * (the row a subquery correlates with) keep their names, so counts correlated with
 * different rows differ. `canonical` says the part is in canonical order already (see
 * inCanonicalOrder), which saves putting it there.
 */
export function keyUpToAliases(node: IrNode, { canonical = false } = {}): string {
  const ordered = canonical ? node : inCanonicalOrder(node);
  const declared = declaredAliases(ordered);
  if (declared.length === 0) return JSON.stringify(ordered);
  const renamed = new Map(declared.map((a, i) => [a, `#${i}`]));
  return JSON.stringify(ordered, (key, value: unknown) =>
    typeof value === 'string' && ALIAS_FIELDS.has(key) ? (renamed.get(value) ?? value) : value,
  );
}

/**
 * Rebuilds a part bottom-up: every part under it first, then `f` on the part itself (a
 * part `f` returns unchanged is kept as it was, so an unchanged query is the same object).
 */
export function mapParts<T extends IrNode>(node: T, f: (n: IrNode) => IrNode): T {
  return rebuildParts(node, f) as T;
}

function rebuildParts(value: unknown, f: (n: IrNode) => IrNode): unknown {
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const x = rebuildParts(value[i], f);
      if (x !== value[i]) (out ??= value.slice())[i] = x;
    }
    return out ?? value;
  }
  if (typeof value !== 'object' || value === null) return value;
  let copy: Record<string, unknown> | undefined;
  for (const k in value) {
    const v = (value as Record<string, unknown>)[k];
    const x = rebuildParts(v, f);
    if (x !== v) (copy ??= { ...(value as Record<string, unknown>) })[k] = x;
  }
  const result = copy ?? value;
  return typeof (result as { kind?: unknown }).kind === 'string' ? f(result as IrNode) : result;
}
