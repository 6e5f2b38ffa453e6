import type { Catalog } from '../../generator/import/catalog.ts';

/**
 * A catalog as the native variant must reproduce it: every table's columns (name, type as
 * normalized across engines, nullability), primary key, foreign keys and unique keys, of
 * the `tables` given (default all). Column order is the variant's own, so columns are sorted.
 */
export function catalogShape(catalog: Catalog, tables?: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const t of catalog.tables) {
    if (tables && !tables.includes(t.name)) continue;
    out[t.name] = {
      columns: [...t.columns]
        .sort((a, b) => (a.name < b.name ? -1 : 1))
        .map((c) => ({ name: c.name, type: c.type, nullable: c.nullable })),
      primaryKey: t.primaryKey ?? null,
      foreignKeys: t.foreignKeys
        .map((fk) => `${fk.columns.join(',')} -> ${fk.table}(${fk.references.join(',')})`)
        .sort(),
      uniques: t.uniques.map((u) => u.join(',')).sort(),
    };
  }
  return out;
}
