/**
 * Labels quoted are labels returned: a value a question or its evidence puts in double
 * quotes is one a reader will type into SQL as it stands, so it must occur verbatim in the
 * group's SQL (as a literal, with SQL's doubled quotes) or in the data.
 */

/** The double-quoted values of a text, in order: `Titled "Emma" or "Dune"` → ['Emma', 'Dune']. */
export function quotedValues(text: string): string[] {
  return [...text.matchAll(/"([^"]+)"/gu)].map((m) => m[1] as string);
}

/**
 * The quoted values of a question and its evidence that no SQL text of the group holds
 * verbatim; values found only in the data are the caller's to look up.
 *
 * @example
 * quotedNotInSql('Clips in "live stream" format', '', ["SELECT … WHERE c.kind = 'LiveStream'"]);
 * // ['live stream']
 */
export function quotedNotInSql(question: string, evidence: string, sqlTexts: readonly string[]): string[] {
  return [...quotedValues(question), ...quotedValues(evidence)].filter(
    (v) => !sqlTexts.some((sql) => sql.includes(v.replace(/'/gu, "''"))),
  );
}
