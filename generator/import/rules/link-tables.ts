import type { CatalogColumn, CatalogForeignKey, CatalogTable } from '../catalog.ts';
import { isAuditColumn } from './audit-columns.ts';
import { isKey, knownForeignKeys, type RuleContext } from './finding.ts';

/** A table read as a many-to-many relationship between the targets of two foreign keys. */
export interface LinkTable {
  readonly table: CatalogTable;
  readonly from: CatalogForeignKey;
  readonly to: CatalogForeignKey;
  /** The relationship's own attributes. */
  readonly attributes: readonly CatalogColumn[];
  /** Bookkeeping columns kept in the DDL and never asked about. */
  readonly audit: readonly CatalogColumn[];
}

/**
 * Rule `link-table`: a table whose key is exactly the columns of two foreign keys (to
 * entity tables) is a many-to-many relationship; its other columns are the relationship's
 * attributes, except audit columns. `film_actor (actor_id, film_id, last_update)` with key
 * (actor_id, film_id) links actors and films.
 */
export function detectLinkTable(table: CatalogTable, ctx: RuleContext): LinkTable | undefined {
  const fks = knownForeignKeys(table, ctx).filter((fk) =>
    fk.columns.every((c) => !table.columns.find((col) => col.name === c)?.nullable),
  );
  for (let i = 0; i < fks.length; i++) {
    for (let j = i + 1; j < fks.length; j++) {
      const a = fks[i] as CatalogForeignKey;
      const b = fks[j] as CatalogForeignKey;
      const both = [...a.columns, ...b.columns];
      if (new Set(both).size !== both.length || !isKey(table, both)) continue;
      // The end whose columns lead the key reads as `from`, as a key is written in order.
      const key = table.primaryKey ?? table.uniques.find((u) => u.length === both.length) ?? both;
      const [from, to] = key.indexOf(a.columns[0] as string) <= key.indexOf(b.columns[0] as string) ? [a, b] : [b, a];
      const rest = table.columns.filter((c) => !both.includes(c.name));
      if (
        rest.some(
          (c) =>
            fks.some((fk) => fk.columns.includes(c.name)) ||
            table.foreignKeys.some((fk) => fk.columns.includes(c.name)),
        )
      )
        continue;
      return { table, from, to, attributes: rest.filter((c) => !isAuditColumn(c)), audit: rest.filter(isAuditColumn) };
    }
  }
  return undefined;
}
