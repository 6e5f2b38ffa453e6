/**
 * Helpers for messages that quote what a user gave: text from a corpus, a flag, a file
 * name. A terminal obeys control bytes (ANSI escapes can recolour, move the cursor, retitle
 * the window or hide text) and bidi overrides reorder what is shown, so a message must show
 * such characters as escapes rather than pass them through.
 */

/** C0 and C1 controls, DEL, line and paragraph separators, and bidi embeddings/overrides/isolates. */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;
const SHORT: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f' };

/**
 * `text` with every control character written as a JSON-style escape, so it can be printed
 * on a terminal, inside a one-line message, as it is. Printable text, including non-ASCII
 * letters, is kept; a backslash is kept as it is (escapes are only made for controls).
 *
 * @example
 * escapeControl('a\u001b[31mb\n'); // 'a\\u001b[31mb\\n'
 */
export function escapeControl(text: string): string {
  return text.replace(UNSAFE, (c) => SHORT[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * `escapeControl` for text shown in lines of its own (SQL, a block of output): line feeds
 * stay line feeds, every other control character is escaped.
 *
 * @example
 * escapeControlKeepLines('SELECT 1\n-- \u001b[2J'); // 'SELECT 1\n-- \\u001b[2J'
 */
export function escapeControlKeepLines(text: string): string {
  return text.split('\n').map(escapeControl).join('\n');
}

/**
 * JSON text (from `JSON.stringify`) with the characters JSON leaves raw but a terminal obeys
 * (DEL, C1 controls such as CSI U+009B, line separators, bidi overrides) written as `\uXXXX`:
 * the same JSON value, safe to print. JSON.stringify already escapes U+0000–U+001F.
 *
 * @example
 * jsonForTerminal(JSON.stringify({ a: '\u009b2J' })); // '{"a":"\\u009b2J"}'
 */
export function jsonForTerminal(json: string): string {
  return json.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * `text` shortened to at most `max` characters (with the count of the rest), then escaped:
 * for messages that quote a line of input that may be megabytes long.
 *
 * @example
 * quoteInput('SELECT a FROM t', 8); // 'SELECT a… (7 more characters)'
 */
export function quoteInput(text: string, max = 200): string {
  const cut = text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters)` : text;
  return escapeControl(cut);
}

/**
 * The value `record` holds under `key` as its own property, or undefined: a lookup by a
 * name the user gave, where `__proto__`, `constructor` or `toString` must be unknown names
 * rather than whatever the object inherits.
 *
 * @example
 * ownValue({ paper: 1 }, 'paper'); // 1
 * ownValue({ paper: 1 }, '__proto__'); // undefined
 */
export function ownValue<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
