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
 * (above) is told apart by its name and by the other key, which a link's row always holds.
 * Named after a kind of X (`live_stream_hosted_by` of `content` whose `type` holds
 * `live_stream`), it is that kind's relationship: `kindsOf` gives the values X's rows take in
 * a column that may tell their kind.
 */
export function detectRelationshipTable(
  table: CatalogTable,
  ctx: RuleContext,
  kindsOf: (table: string) => ReadonlySet<string> = () => new Set(),
): { readonly from: CatalogForeignKey; readonly to: CatalogForeignKey } | undefined {
  const key = detectSubclassTable(table, ctx);
  if (!key) return undefined;
  const others = knownForeignKeys(table, ctx).filter((fk) => fk !== key);
  if (others.length !== 1 || table.foreignKeys.length !== 2) return undefined;
  const to = others[0] as CatalogForeignKey;
  // Named after X's table (`post_author` of `posts`), or after its key where X's table ends
  // in that word (`card_holds` keyed by `card_id` of `library_cards`; `person_students` keyed
  // by `person_id` of `people` stays a subclass); a link held apart from X is never empty.
  const keyStems = key.columns
    .map((c) => c.replace(/_id$/u, ''))
    .filter(
      (stem) =>
        new RegExp(`(^|_)${stem.replace(/[^a-z0-9_]/giu, '')}s?$`, 'u').test(key.table) ||
        key.table.startsWith(`${stem}_`) ||
        kindsOf(key.table).has(stem),
    );
  const stems = [key.table, key.table.replace(/s$/u, ''), ...keyStems];
  if (!stems.some((stem) => stem !== 'id' && table.name.startsWith(`${stem}_`))) return undefined;
  const linked = to.columns.every((c) => table.columns.find((col) => col.name === c)?.nullable === false);
  if (!linked) return undefined;
  return { from: key, to };
}
