/**
 * SQL the compiler printed, as a value only the compiler makes: the executor's fast path
 * (several statements in one simple-protocol message, `run-query.ts`) takes nothing else.
 *
 * Why a type and not a text: the fast path is safe only for a text known to be one
 * statement, and the compiler knows that of its own output (it prints one SELECT, a set
 * operation or a WITH of them from its layout types, every name quoted by `quoteIdent` and
 * every literal by `quoteLiteral`). A string says nothing of where it came from: an SQL text
 * read back from `groups/*.jsonl`, typed by a user or written by a model is a string, and a
 * string is untrusted — it goes through the full guard and is sent alone by the extended
 * protocol (`untrusted-query.ts`). A `CompiledSql` cannot come out of `JSON.parse` (that
 * gives plain objects), nor out of a copy of one (the value is recognized by identity, not
 * by shape).
 *
 * Only modules of the compiler call `mintCompiledSql` (a test holds the imports to that).
 */

declare const compiled: unique symbol;

/** SQL text the compiler printed; `text` is what is stored and shown. */
export interface CompiledSql {
  readonly text: string;
  readonly [compiled]: true;
}

/** Every value `mintCompiledSql` made, so `isCompiledSql` recognizes them by identity. */
const minted = new WeakSet<object>();

/**
 * Wraps text the compiler itself printed. For the compiler's modules only: a text from
 * anywhere else wrapped here would reach the database unguarded.
 */
export function mintCompiledSql(text: string): CompiledSql {
  const value = Object.freeze({ text }) as CompiledSql;
  minted.add(value);
  return value;
}

/**
 * True only for a value `mintCompiledSql` returned in this process.
 *
 * @example
 * isCompiledSql(compileSql(index, schema, query));             // true
 * isCompiledSql({ text: 'SELECT 1' });                          // false
 * isCompiledSql(JSON.parse(JSON.stringify(compileSql(…))));     // false
 */
export function isCompiledSql(value: unknown): value is CompiledSql {
  return typeof value === 'object' && value !== null && minted.has(value);
}
