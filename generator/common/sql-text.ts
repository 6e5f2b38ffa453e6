/**
 * Quoting and escaping for PostgreSQL text: identifiers are quoted only where they must be
 * (keywords that cannot stand bare as a name, upper case, odd characters), literals always.
 */

/**
 * PostgreSQL keywords that are reserved, reserved except as function or type names, or
 * allowed only as column names. Any of them is quoted when used as an identifier; quoting a
 * word that would have been accepted bare is harmless, leaving one bare that is not fails.
 */
const KEYWORDS_NEEDING_QUOTES = new Set(
  `all analyse analyze and any array as asc asymmetric authorization between bigint binary bit
  boolean both case cast char character check coalesce collate collation column concurrently
  constraint create cross current_catalog current_date current_role current_schema current_time
  current_timestamp current_user dec decimal default deferrable desc distinct do else end except
  exists extract false fetch float for foreign freeze from full grant greatest group grouping
  having ilike in initially inner inout int integer intersect interval into is isnull join
  json json_array json_arrayagg json_exists json_object json_objectagg json_query json_scalar
  json_serialize json_table json_value lateral leading least left like limit localtime
  localtimestamp merge_action national natural nchar none normalize not notnull null nullif
  numeric offset on only or order out outer overlaps overlay placing position precision primary
  real references returning right row select session_user setof similar smallint some substring
  symmetric system_user table tablesample then time timestamp to trailing treat trim true union
  unique user using values varchar variadic verbose when where window with xmlattributes
  xmlconcat xmlelement xmlexists xmlforest xmlnamespaces xmlparse xmlpi xmlroot xmlserialize
  xmltable`.split(/\s+/),
);

/** Whether a name must be double-quoted to be read back as itself. */
export function identNeedsQuotes(name: string): boolean {
  return !/^[a-z_][a-z0-9_$]*$/.test(name) || KEYWORDS_NEEDING_QUOTES.has(name);
}

/**
 * An identifier as PostgreSQL must see it.
 * @example quoteIdent('live_stream') // live_stream
 * @example quoteIdent('user')        // "user"
 */
export function quoteIdent(name: string): string {
  return identNeedsQuotes(name) ? `"${name.replaceAll('"', '""')}"` : name;
}

/**
 * A string literal. Standard-conforming strings are on by default, so only single quotes
 * are doubled; backslashes stand for themselves.
 * @example quoteLiteral("O'Brien") // 'O''Brien'
 */
export function quoteLiteral(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/**
 * The index of the character that ends a `--` comment starting at `from`, or -1 when it runs
 * to the end of the text. PostgreSQL's scanner ends it at a line feed or a carriage return
 * (scan.l: `comment ("--"{non_newline}*)`, `non_newline [^\n\r]`); a reader that waits for
 * the line feed alone takes `--\r'…' …` for one comment where the server reads code.
 *
 * @example lineCommentEnd('SELECT 1 --x\r, 2', 9) // 12
 */
export function lineCommentEnd(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 13) return i;
  }
  return -1;
}
