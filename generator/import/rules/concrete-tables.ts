import type { CatalogTable } from '../catalog.ts';
import { isAuditColumn } from './audit-columns.ts';

/**
 * Rule `same-columns` (concrete-table inheritance): tables that share at least three
 * non-key columns of the same names and types may be concrete tables of one class, each
 * holding a subtype with the shared columns copied down. Reported as a candidate only: two
 * tables with an address each are not always kinds of one thing.
 */
export function sameColumnGroups(
  tables: readonly CatalogTable[],
): { readonly tables: readonly string[]; readonly columns: readonly string[] }[] {
  const signature = (t: CatalogTable): Set<string> => {
    const keyCols = new Set([...(t.primaryKey ?? []), ...t.foreignKeys.flatMap((f) => f.columns)]);
    return new Set(
      t.columns.filter((c) => !keyCols.has(c.name) && !isAuditColumn(c)).map((c) => `${c.name}:${c.sqlType}`),
    );
  };
  const sigs = tables.map((t) => ({ name: t.name, sig: signature(t) }));
  const groups: { tables: string[]; columns: string[] }[] = [];
  const used = new Set<string>();
  for (const a of sigs) {
    if (used.has(a.name)) continue;
    const group = [a.name];
    let shared = [...a.sig];
    for (const b of sigs) {
      if (b.name === a.name || used.has(b.name)) continue;
      const common = shared.filter((s) => b.sig.has(s));
      if (common.length >= 3) {
        group.push(b.name);
        shared = common;
      }
    }
    if (group.length > 1) {
      for (const g of group) used.add(g);
      groups.push({ tables: group, columns: shared.map((s) => s.split(':')[0] as string) });
    }
  }
  return groups;
}
