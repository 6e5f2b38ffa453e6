import type { CatalogForeignKey, CatalogTable } from '../catalog.ts';

/**
 * Rule `reference-attribute`: a column that a CHECK lets hold a value only where a
 * one-column foreign key holds one (`(ref IS NULL) = (c IS NULL)`, or `ref IS NOT NULL OR
 * c IS NULL`) describes the reference, not the row: it is an attribute of that relationship
 * (`borrowed_on` beside `borrower_id`). Read from the constraint alone.
 *
 * @example CHECK (((member_id IS NULL) = (since IS NULL))) makes `since` an attribute of the member_id reference
 */
export function referenceAttributeColumns(table: CatalogTable, fk: CatalogForeignKey): string[] {
  if (fk.columns.length !== 1) return [];
  const ref = fk.columns[0] as string;
  const out: string[] = [];
  for (const c of table.columns) {
    if (c.name === ref || !c.nullable || table.foreignKeys.some((k) => k.columns.includes(c.name))) continue;
    if (table.checks.some((k) => tiesTo(k.expression, ref, c.name))) out.push(c.name);
  }
  return out;
}

const ident = (name: string): string => `"?${name.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&')}"?`;

/** Whether a CHECK says that `column` is NULL wherever `ref` is. */
function tiesTo(expression: string, ref: string, column: string): boolean {
  const body = expression
    .trim()
    .replace(/^CHECK\s*/iu, '')
    .replace(/\s+/gu, ' ');
  const r = ident(ref);
  const c = ident(column);
  const forms = [
    new RegExp(`^\\(*${r} IS NULL\\)? = \\(?${c} IS NULL\\)*$`, 'iu'),
    new RegExp(`^\\(*${c} IS NULL\\)? = \\(?${r} IS NULL\\)*$`, 'iu'),
    new RegExp(`^\\(*${r} IS NOT NULL\\)? OR \\(?${c} IS NULL\\)*$`, 'iu'),
  ];
  return forms.some((f) => f.test(body));
}
