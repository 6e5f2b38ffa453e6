import type { CatalogColumn } from '../catalog.ts';

// A creation time is often a fact of the world (when an account was opened), so only
// the names of last changes and row versions count as bookkeeping.
const AUDIT_NAME =
  /^(last_update|last_updated|updated_at|updated_on|modified_at|modified_on|last_modified|row_version|rowversion)$/iu;

/**
 * Whether a column records the row's bookkeeping rather than a fact of the world
 * (`last_update`, `created_at`): it stays in the DDL but is never asked about.
 *
 * @example isAuditColumn({ name: 'last_update', … }) // true
 */
export function isAuditColumn(column: CatalogColumn): boolean {
  const kind = column.type.kind;
  return (
    AUDIT_NAME.test(column.name.replace(/([a-z])([A-Z])/gu, '$1_$2')) &&
    (kind === 'timestamp' ||
      kind === 'timestamptz' ||
      kind === 'date' ||
      kind === 'integer' ||
      kind === 'bigint' ||
      kind === 'opaque')
  );
}
