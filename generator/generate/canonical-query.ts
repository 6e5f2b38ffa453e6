/**
 * The canonical form of a conceptual query, whose hash is a group's id: aliases renamed by
 * first appearance (t1, t2, …) and AND/OR arguments sorted, so two fillings that differ
 * only in alias names or conjunct order are one group.
 */
import { sha256, stableStringify } from '../common/hash.ts';
import type { Query } from '../query/conceptual-query.ts';

const ALIAS_FIELDS = new Set(['alias', 'from', 'of']);

/** Canonical JSON of a query (see the module comment). */
export function canonicalQueryText(query: Query): string {
  const names = new Map<string, string>();
  // First pass: aliases in the order they are introduced (FROM, then joins, depth-first).
  const introduce = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(introduce);
    if (node === null || typeof node !== 'object') return;
    const o = node as Record<string, unknown>;
    if ((o['kind'] === 'select' && typeof o['from'] === 'object') || o['kind'] === 'relationship' || o['kind'] === 'elements') {
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
    const o = node as Record<string, unknown>;
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
export function groupId(query: Query): string {
  return sha256(canonicalQueryText(query));
}
