import type { CatalogColumn, CatalogTable, ColumnProfile } from '../catalog.ts';

/** Where a column's closed set of values comes from. */
export type ValueSet =
  | { readonly source: 'enum-type'; readonly name: string; readonly values: readonly string[] }
  | { readonly source: 'check-in'; readonly values: readonly string[] }
  /** Few distinct values in the rows: reported as a candidate, never assumed closed. */
  | { readonly source: 'low-cardinality'; readonly values: readonly string[] };

/** A text column with at most this many distinct values, repeated, is a category candidate. */
export const LOW_CARDINALITY = 12;

/**
 * Rule `value-set`: a column's values are a closed set when its type is an enum type or a
 * CHECK says `column IN (…)` (for an array or a JSON array, that every element is one of a list); a text column with few values, each repeated, is reported as a
 * candidate (a pool of values for the generator), not made an enum: the next row may bring
 * a new value.
 */
export function valueSet(
  column: CatalogColumn,
  table: CatalogTable,
  profile: ColumnProfile | undefined,
  enums: ReadonlyMap<string, readonly string[]>,
): ValueSet | undefined {
  const t = column.type.kind === 'array' ? column.type.element : column.type;
  if (t.kind === 'enum') return { source: 'enum-type', name: t.typeName, values: enums.get(t.typeName) ?? [] };
  const check = table.checks.find((c) => c.inList?.column === column.name);
  if (check?.inList) return { source: 'check-in', values: check.inList.values };
  if (column.type.kind === 'array') {
    // An array column's list may sit inside a larger CHECK (a subtype's column, required only for its rows).
    const contained = arrayContainedIn(
      column.name,
      table.checks.map((c) => c.expression),
    );
    if (contained) return { source: 'check-in', values: contained };
  }
  if (column.type.kind === 'json') {
    const contained = jsonContainedIn(
      column.name,
      table.checks.map((c) => c.expression),
    );
    if (contained) return { source: 'check-in', values: contained };
  }
  if (t.kind !== 'text' && t.kind !== 'char') return undefined;
  if (
    !profile?.values ||
    profile.values.length < 2 ||
    profile.values.length > LOW_CARDINALITY ||
    profile.rows - profile.nulls < 2 * profile.values.length
  )
    return undefined;
  return { source: 'low-cardinality', values: profile.values.map((v) => v.value) };
}

/** The strings of `col <@ '["a", "b"]'::jsonb` (a JSON array whose elements are all in the list) found anywhere in the checks. */
function jsonContainedIn(name: string, expressions: readonly string[]): string[] | undefined {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&');
  const pattern = new RegExp(`(?:^|[^\\w"])"?${escaped}"?\\s*<@\\s*'((?:[^']|'')*)'::jsonb`, 'u');
  for (const e of expressions) {
    const m = pattern.exec(e);
    if (!m) continue;
    try {
      const list: unknown = JSON.parse((m[1] as string).replaceAll("''", "'"));
      if (Array.isArray(list) && list.length > 0 && list.every((v) => typeof v === 'string')) return list as string[];
    } catch {
      // Not a JSON list: no value set.
    }
  }
  return undefined;
}

/** The list of `col <@ ARRAY['a', 'b']` found anywhere in the checks, when one names the column. */
function arrayContainedIn(name: string, expressions: readonly string[]): string[] | undefined {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&');
  const pattern = new RegExp(`(?:^|[^\\w"])"?${escaped}"?\\s*<@\\s*\\(?ARRAY\\[([^\\]]*)\\]`, 'u');
  for (const e of expressions) {
    const m = pattern.exec(e);
    if (!m) continue;
    const values = [...(m[1] as string).matchAll(/'((?:[^']|'')*)'/gu)].map((x) =>
      (x[1] as string).replaceAll("''", "'"),
    );
    if (values.length > 0) return values;
  }
  return undefined;
}
