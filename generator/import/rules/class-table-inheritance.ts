import type { CatalogForeignKey, CatalogTable } from '../catalog.ts';
import { knownForeignKeys, sameColumns, type RuleContext } from './finding.ts';

/**
 * Rule `shared-key-subtable` (class-table inheritance): a table whose primary key is
 * entirely a foreign key to another table's primary key holds a subclass of that table's
 * class: its rows are some of the parent's objects, with more attributes.
 * `student_member (id → member.id, school)` makes StudentMember a Member.
 */
export function detectSubclassTable(table: CatalogTable, ctx: RuleContext): CatalogForeignKey | undefined {
  const key = table.primaryKey;
  if (!key) return undefined;
  return knownForeignKeys(table, ctx).find((fk) => {
    const target = ctx.tables.get(fk.table);
    return (
      fk.table !== table.name &&
      sameColumns(fk.columns, key) &&
      target?.primaryKey !== undefined &&
      sameColumns(target.primaryKey, fk.references)
    );
  });
}

/**
 * Rule `relationship-table`: a table keyed by a foreign key to X, holding one more foreign
 * key and nothing else but attributes, and named after X (`post_author`), stores a
 * many-to-one (or one-to-one) relationship of X apart from X's rows. A subclass table
 * (above) is told apart by its name.
 */
export function detectRelationshipTable(
  table: CatalogTable,
  ctx: RuleContext,
): { readonly from: CatalogForeignKey; readonly to: CatalogForeignKey } | undefined {
  const key = detectSubclassTable(table, ctx);
  if (!key) return undefined;
  const others = knownForeignKeys(table, ctx).filter((fk) => fk !== key);
  if (others.length !== 1 || table.foreignKeys.length !== 2) return undefined;
  const stem = key.table.replace(/s$/u, '');
  if (!table.name.startsWith(`${stem}_`) && !table.name.startsWith(`${key.table}_`)) return undefined;
  return { from: key, to: others[0] as CatalogForeignKey };
}
