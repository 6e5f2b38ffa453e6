import type { CatalogTable, DiscriminatorProfile } from '../catalog.ts';

/** A table read as a hierarchy in one table: a discriminator and the columns each subtype fills. */
export interface SingleTableHierarchy {
  readonly table: string;
  readonly discriminator: string;
  /** Per discriminator value, in the order of the rows' counts: the columns only its rows fill. */
  readonly subtypes: readonly { readonly value: string; readonly rows: number; readonly columns: readonly string[] }[];
  /**
   * Columns filled by the rows of several values but not all: an intermediate class of
   * those values. Only groups that nest or are apart (a tree) are kept, largest first.
   */
  readonly groups: readonly { readonly values: readonly string[]; readonly columns: readonly string[] }[];
}

/**
 * Rule `discriminator` (single-table inheritance): a required text or enum column named like
 * a type, with few values, where some nullable columns are filled only in the rows of one
 * value: each value is a subtype (named after the value), owning the columns only its rows
 * fill. Without such columns a few-valued column is a category, not a hierarchy.
 * The values and the subtypes' names come from the data, so the reading is flagged for review.
 */
export function detectSingleTableHierarchy(
  table: CatalogTable,
  discriminators: readonly DiscriminatorProfile[],
): SingleTableHierarchy | undefined {
  for (const d of discriminators) {
    const values = [...d.byValue.entries()].sort((a, b) => b[1].rows - a[1].rows || (a[0] < b[0] ? -1 : 1));
    const nullable = table.columns.filter((c) => c.nullable && c.name !== d.column);
    const owned = new Map<string, string[]>(values.map(([v]) => [v, []]));
    for (const c of nullable) {
      const filledBy = values.filter(([, s]) => (s.nonNull.get(c.name) ?? 0) > 0).map(([v]) => v);
      if (filledBy.length === 1) owned.get(filledBy[0] as string)?.push(c.name);
    }
    const grouped = new Map<string, { values: string[]; columns: string[] }>();
    for (const c of nullable) {
      const filledBy = values.filter(([, s]) => (s.nonNull.get(c.name) ?? 0) > 0).map(([v]) => v);
      if (filledBy.length < 2 || filledBy.length >= values.length) continue;
      const key = [...filledBy].sort().join('\u0000');
      const g = grouped.get(key) ?? { values: filledBy, columns: [] };
      g.columns.push(c.name);
      grouped.set(key, g);
    }
    const groups: { values: string[]; columns: string[] }[] = [];
    for (const g of [...grouped.values()].sort((a, b) => b.values.length - a.values.length)) {
      const fits = groups.every((o) => {
        const shared = g.values.filter((v) => o.values.includes(v)).length;
        return shared === 0 || shared === g.values.length;
      });
      if (fits) groups.push(g);
    }
    const owners = [...owned.values()].filter((cols) => cols.length > 0).length;
    if (owners === 0 && groups.length === 0) continue;
    return {
      table: table.name,
      discriminator: d.column,
      subtypes: values.map(([value, s]) => ({ value, rows: s.rows, columns: owned.get(value) ?? [] })),
      groups,
    };
  }
  return undefined;
}
