/**
 * The SQL texts `compileQuery` printed in this process, so the query guard can tell our own
 * compiler's output from text that came from anywhere else.
 *
 * Why it matters: the guard reads a text twice, with a lexer (every call, string, comment and
 * statement end, as PostgreSQL splits them) and with the SQL parser (the statement's shape
 * and the tables it reads). The parse is the dearest step of running generated SQL, and for
 * a compiled text it can tell nothing new: the compiler prints one SELECT (or a set
 * operation, or a WITH of them) from its own layout types, which have no place for INTO,
 * RECURSIVE, row locks or a schema-qualified table, and it names only the variant's tables.
 * So a text found here is read by the lexer alone (which still checks every call and
 * everything a literal could smuggle); any other text, a model's included, is also parsed.
 * A text equal byte for byte to one the compiler printed is that text, whoever sent it.
 */

/** Bounded: the set is cleared when full (a cleared text is parsed again, nothing worse). */
const LIMIT = 50_000;
const texts = new Set<string>();

/** Records a text the compiler printed. */
export function rememberCompiled(sql: string): string {
  if (texts.size >= LIMIT) texts.clear();
  texts.add(sql);
  return sql;
}

/** Whether `compileQuery` printed exactly this text in this process. */
export function wasCompiled(sql: string): boolean {
  return texts.has(sql);
}
