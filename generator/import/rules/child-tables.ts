import type { CatalogColumn, CatalogForeignKey, CatalogTable } from '../catalog.ts';
import { isAuditColumn } from './audit-columns.ts';
import { isKey, knownForeignKeys, type RuleContext } from './finding.ts';

/** A table read as the storage of a multi-valued attribute of the owner its foreign key names. */
export interface ChildTable {
  readonly table: CatalogTable;
  readonly owner: CatalogForeignKey;
  readonly value: CatalogColumn;
  readonly audit: readonly CatalogColumn[];
}

/**
 * Rule `owner-keyed-child`: a table of one foreign key to an entity table and one other
 * column, keyed by both, holds a set of values per owner: a multi-valued attribute of the
 * owner. `person_nicknames (person_id, nickname)` keyed by both is Person.nicknames.
 */
export function detectChildTable(table: CatalogTable, ctx: RuleContext): ChildTable | undefined {
  const fks = knownForeignKeys(table, ctx);
  if (fks.length !== 1 || table.foreignKeys.length !== 1) return undefined;
  const owner = fks[0] as CatalogForeignKey;
  const rest = table.columns.filter((c) => !owner.columns.includes(c.name) && !isAuditColumn(c));
  if (rest.length !== 1) return undefined;
  const value = rest[0] as CatalogColumn;
  if (value.nullable || value.type.kind === 'array' || value.type.kind === 'json' || value.type.kind === 'opaque')
    return undefined;
  if (!isKey(table, [...owner.columns, value.name])) return undefined;
  return {
    table,
    owner,
    value,
    audit: table.columns.filter(isAuditColumn).filter((c) => !owner.columns.includes(c.name)),
  };
}
