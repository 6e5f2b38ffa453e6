/**
 * The canonical form of a conceptual query, whose hash is a group's id: aliases renamed by
 * first appearance (t1, t2, …) and AND/OR arguments sorted, so two fillings that differ
 * only in alias names or conjunct order are one group. Modifiers that cannot change the
 * answer are dropped first, so two fillings that differ only by them are one group too
 * (the same answer under the same questions): NULLS FIRST/LAST on an order key that is never
 * NULL (`count(…)`, a set's size, an `id`, a required attribute of an inner-joined alias or its
 * year, when the caller says which are required), and DISTINCT on a query over one entity with no
 * join or grouping that returns its `id` (every row is already distinct).
 */
import { sha256, stableStringify } from '../common/hash.ts';
import type { Query } from '../query/conceptual-query.ts';

const ALIAS_FIELDS = new Set(['alias', 'from', 'of']);

type Node = Record<string, unknown>;

/** Whether an alias's attribute always has a value (a required attribute of an inner-joined alias). */
export type RequiredAttribute = (alias: string, attribute: string) => boolean;

/** An expression that is never NULL: a count, a set's size, an entity's id, a required attribute or its year. */
function neverNull(expr: unknown, select: readonly Node[], required: RequiredAttribute): boolean {
  const e = expr as Node | undefined;
  if (!e || typeof e !== 'object') return false;
  if (e['kind'] === 'aggregate') return e['fn'] === 'count';
  if (e['kind'] === 'setSize') return true;
  if (e['kind'] === 'attribute')
    return e['attribute'] === 'id' || required(e['alias'] as string, e['attribute'] as string);
  if (e['kind'] === 'extract') return neverNull(e['arg'], [], required);
  if (e['kind'] === 'output') return neverNull(select.find((c) => c['name'] === e['name'])?.['expr'], [], required);
  return false;
}

/** One SELECT node without the modifiers that cannot change its answer (see the module comment). */
function withoutIdleModifiers(o: Node, required: RequiredAttribute): Node {
  if (o['kind'] !== 'select' || !Array.isArray(o['select'])) return o;
  const select = o['select'] as Node[];
  let out = o;
  const order = o['orderBy'] as Node[] | undefined;
  if (
    Array.isArray(order) &&
    order.some((item) => item['nulls'] !== undefined && neverNull(item['expr'], select, required))
  ) {
    out = {
      ...out,
      orderBy: order.map((item) =>
        item['nulls'] !== undefined && neverNull(item['expr'], select, required)
          ? Object.fromEntries(Object.entries(item).filter(([k]) => k !== 'nulls'))
          : item,
      ),
    };
  }
  const from = o['from'] as { alias?: unknown } | undefined;
  const alone =
    (o['joins'] === undefined || (o['joins'] as unknown[]).length === 0) &&
    o['groupBy'] === undefined &&
    o['qualify'] === undefined;
  const keyed = select.some((c) => {
    const e = c['expr'] as Node | undefined;
    return e?.['kind'] === 'attribute' && e['attribute'] === 'id' && e['alias'] === from?.alias;
  });
  if (
    o['distinct'] === true &&
    alone &&
    keyed &&
    !select.some((c) => (c['expr'] as Node | undefined)?.['kind'] === 'aggregate')
  ) {
    out = Object.fromEntries(Object.entries(out).filter(([k]) => k !== 'distinct'));
  }
  return out;
}

/** Canonical JSON of a query (see the module comment). */
export function canonicalQueryText(query: Query, required: RequiredAttribute = () => false): string {
  const names = new Map<string, string>();
  // First pass: aliases in the order they are introduced (FROM, then joins, depth-first).
  const introduce = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(introduce);
    if (node === null || typeof node !== 'object') return;
    const o = node as Record<string, unknown>;
    if (
      (o['kind'] === 'select' && typeof o['from'] === 'object') ||
      o['kind'] === 'relationship' ||
      o['kind'] === 'elements'
    ) {
      const from = o['from'] as { alias?: string } | string;
      if (typeof from === 'object' && from.alias && !names.has(from.alias)) names.set(from.alias, `t${names.size + 1}`);
      if (typeof o['alias'] === 'string' && !names.has(o['alias'])) names.set(o['alias'], `t${names.size + 1}`);
    }
    for (const key of Object.keys(o)) introduce(o[key]);
  };
  introduce(query);
  const rename = (node: unknown, key?: string): unknown => {
    if (Array.isArray(node)) return node.map((n) => rename(n));
    if (typeof node === 'string') return key && ALIAS_FIELDS.has(key) ? (names.get(node) ?? node) : node;
    if (node === null || typeof node !== 'object') return node;
    const o = withoutIdleModifiers(node as Node, required);
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(o)) out[k] = rename(o[k], k);
    if ((out['kind'] === 'and' || out['kind'] === 'or') && Array.isArray(out['args'])) {
      out['args'] = [...(out['args'] as unknown[])].sort((a, b) => (stableStringify(a) < stableStringify(b) ? -1 : 1));
    }
    return out;
  };
  return stableStringify(rename(query));
}

/** The group id: sha256 of the canonical query. */
export function groupId(query: Query, required?: RequiredAttribute): string {
  return sha256(canonicalQueryText(query, required));
}
