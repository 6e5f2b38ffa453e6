import type { CatalogForeignKey, CatalogProfile, CatalogTable, Catalog } from '../catalog.ts';

/** One line of the import report: which rule concluded what about which table or column. */
export interface Finding {
  /** The rule's name (`link-table`, `enum-type`, …), or `left-out` for what the draft omits. */
  readonly rule: string;
  /** `table` or `table.column`. */
  readonly subject: string;
  readonly text: string;
  /** Worth a person's look before the draft is used (a guess, an approximation, a non-noun). */
  readonly review?: boolean;
}

/** What every rule may read: the catalog, the profiles of the rows, and tables by name. */
export interface RuleContext {
  readonly catalog: Catalog;
  readonly profile: CatalogProfile;
  readonly tables: ReadonlyMap<string, CatalogTable>;
}

export function ruleContext(catalog: Catalog, profile: CatalogProfile): RuleContext {
  return { catalog, profile, tables: new Map(catalog.tables.map((t) => [t.name, t])) };
}

export const sameColumns = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((c) => b.includes(c));

/** The foreign keys of a table that point at a table the import reads. */
export function knownForeignKeys(table: CatalogTable, ctx: RuleContext): CatalogForeignKey[] {
  return table.foreignKeys.filter((fk) => ctx.tables.has(fk.table));
}

/** Whether the columns are the table's primary key or one of its unique keys. */
export function isKey(table: CatalogTable, columns: readonly string[]): boolean {
  return (
    (table.primaryKey !== undefined && sameColumns(table.primaryKey, columns)) ||
    table.uniques.some((u) => sameColumns(u, columns))
  );
}
