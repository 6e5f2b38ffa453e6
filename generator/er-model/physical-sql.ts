/**
 * The SQL a model's physical names may carry into the native variant's DDL: type names,
 * column defaults and generated-column expressions. A model file is input from outside, and
 * its DDL runs on the user's database, so only what a schema declares is let through: a
 * type name, a literal or a clock as a default, an expression of columns, literals,
 * operators and a few pure functions. Anything else is refused by the validator and never
 * written by the importer.
 */

const NAME = String.raw`(?:"(?:[^"\u0000]|"")+"|[A-Za-z_][A-Za-z0-9_$]*)`;
const TYPE = String.raw`${NAME}(?:\.${NAME})?(?: (?:varying|precision))?(?:\(\d+(?:,\s*\d+)?\))?(?: (?:without|with) time zone)?(?:\[\])*`;
const SQL_TYPE = new RegExp(String.raw`^${TYPE}$`, 'u');
const LITERAL = String.raw`(?:-?\d+(?:\.\d+)?|'(?:[^'\\\u0000]|'')*'|true|false|NULL)`;
const CLOCK = String.raw`(?:now\(\)|CURRENT_TIMESTAMP|CURRENT_DATE|LOCALTIMESTAMP|statement_timestamp\(\)|transaction_timestamp\(\))`;
const DEFAULT = new RegExp(String.raw`^\(?(?:${LITERAL}|${CLOCK})\)?(?:::${TYPE})?$`, 'iu');

/** Functions a generated column may call: pure, and unable to reach beyond the row. */
const PURE_FUNCTIONS = new Set([
  'length',
  'char_length',
  'octet_length',
  'lower',
  'upper',
  'trim',
  'btrim',
  'ltrim',
  'rtrim',
  'substr',
  'substring',
  'coalesce',
  'nullif',
  'greatest',
  'least',
  'round',
  'abs',
  'floor',
  'ceil',
  'concat',
  'concat_ws',
  'to_tsvector',
  'setweight',
  'date_part',
  'extract',
]);

/**
 * Whether a type name is one a column may be declared with: `smallint`, `character
 * varying(45)`, `numeric(4,2)`, `timestamp without time zone`, `public.mpaa_rating`, `text[]`.
 *
 * @example isSqlTypeName('integer); DROP TABLE x; --') // false
 */
export function isSqlTypeName(text: string): boolean {
  return text.length <= 200 && SQL_TYPE.test(text);
}

/**
 * Whether a default is a literal or a clock, optionally cast: `0`, `'{}'::text[]`, `now()`.
 *
 * @example isSafeDefault("nextval('x_seq'::regclass)") // false
 */
export function isSafeDefault(text: string): boolean {
  return text.length <= 1000 && DEFAULT.test(text.trim());
}

/**
 * Whether a generated column's expression reads only its row: columns, literals, casts,
 * operators and the pure functions above; no statement, comment, dollar quote or subquery.
 *
 * @example isSafeExpression('length("full ""name""")') // true
 * @example isSafeExpression('(SELECT pg_sleep(10))') // false
 */
export function isSafeExpression(text: string): boolean {
  // A comment could hide the rest of a statement; none is needed in an expression.
  if (text.length > 2000 || text.includes('--') || text.includes('/*')) return false;
  const token =
    /\s+|"(?:[^"\u0000]|"")+"|'(?:[^'\\\u0000]|'')*'|\d+(?:\.\d+)?|[A-Za-z_][A-Za-z0-9_$]*|::|[-+*/%|(),.<>=]/uy;
  let depth = 0;
  let previousWord: string | undefined;
  for (let at = 0; at < text.length; ) {
    token.lastIndex = at;
    const m = token.exec(text);
    if (!m) return false;
    const t = m[0];
    at = token.lastIndex;
    if (/^\s+$/u.test(t)) continue;
    if (t === '(') {
      if (previousWord !== undefined && !PURE_FUNCTIONS.has(previousWord.toLowerCase())) return false;
      depth++;
    } else if (t === ')') {
      if (--depth < 0) return false;
    }
    const word = /^[A-Za-z_]/u.test(t) ? t : undefined;
    if (word && /^(select|from|with|union|insert|update|delete|copy|do|execute|call)$/iu.test(word)) return false;
    previousWord = word;
  }
  return depth === 0;
}
