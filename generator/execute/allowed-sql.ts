/**
 * What untrusted SQL may use: the functions it may call and the words that make a literal
 * read the clock. Both readers of the guard (`guard-lexer.ts`, ours; `guard-tree.ts`,
 * PostgreSQL's parser) hold a text to these lists.
 */
import { ExecutionError } from '../common/errors.ts';

/**
 * Functions a query may call: the ones the compiler emits (`unnest`, `round`, `coalesce`,
 * `cardinality`, `jsonb_array_elements_text`, `jsonb_array_length`, the aggregates) and the
 * read-only scalar, aggregate and set-returning functions analytic SQL uses. None writes,
 * waits, locks, reads files or settings, or runs SQL given as text (`query_to_xml`,
 * `ts_stat` do; they are absent). `random` and the clock (`now`) are absent too: an answer
 * that changes between runs cannot be verified.
 *
 * `generate_series` is allowed: it only reads, analytic SQL uses it for date and number
 * spines, and the cost of a huge series is bounded by the statement timeout (and its output
 * by the result caps) like that of any cartesian product.
 *
 * The last group are the names PostgreSQL's grammar gives SQL syntax it turns into calls
 * (`x AT TIME ZONE 'UTC'` is `pg_catalog.timezone('UTC', x)`, `a OVERLAPS b` is `overlaps`,
 * `s SIMILAR TO p` calls `similar_to_escape`, `s IS NFC NORMALIZED` is `is_normalized`).
 */
export const READ_ONLY_FUNCTIONS: ReadonlySet<string> = new Set([
  // aggregates
  'count',
  'sum',
  'avg',
  'min',
  'max',
  'array_agg',
  'string_agg',
  'bool_and',
  'bool_or',
  'every',
  'stddev',
  'stddev_pop',
  'stddev_samp',
  'variance',
  'var_pop',
  'var_samp',
  'corr',
  'covar_pop',
  'covar_samp',
  'percentile_cont',
  'percentile_disc',
  'mode',
  'jsonb_agg',
  'json_agg',
  'jsonb_object_agg',
  'json_object_agg',
  // window functions
  'row_number',
  'rank',
  'dense_rank',
  'percent_rank',
  'cume_dist',
  'ntile',
  'lag',
  'lead',
  'first_value',
  'last_value',
  'nth_value',
  // conditionals
  'coalesce',
  'nullif',
  'greatest',
  'least',
  // numbers
  'abs',
  'round',
  'trunc',
  'ceil',
  'ceiling',
  'floor',
  'sign',
  'sqrt',
  'cbrt',
  'power',
  'pow',
  'exp',
  'ln',
  'log',
  'log10',
  'mod',
  'div',
  'width_bucket',
  'pi',
  'degrees',
  'radians',
  'scale',
  'gcd',
  'lcm',
  'factorial',
  // text
  'lower',
  'upper',
  'initcap',
  'length',
  'char_length',
  'character_length',
  'octet_length',
  'concat',
  'concat_ws',
  'substring',
  'substr',
  'position',
  'strpos',
  'left',
  'right',
  'trim',
  'btrim',
  'ltrim',
  'rtrim',
  'lpad',
  'rpad',
  'replace',
  'reverse',
  'repeat',
  'split_part',
  'starts_with',
  'translate',
  'overlay',
  'md5',
  'ascii',
  'chr',
  'regexp_replace',
  'regexp_match',
  'regexp_matches',
  'regexp_split_to_array',
  'regexp_count',
  'regexp_like',
  'format',
  'to_char',
  'to_number',
  'to_date',
  'to_timestamp',
  // dates and times
  'date_trunc',
  'date_part',
  'extract',
  'age',
  'make_date',
  'make_time',
  'make_timestamp',
  'make_timestamptz',
  'make_interval',
  'justify_days',
  'justify_hours',
  'justify_interval',
  'isfinite',
  // arrays
  'unnest',
  'cardinality',
  'array_length',
  'array_lower',
  'array_upper',
  'array_ndims',
  'array_dims',
  'array_position',
  'array_positions',
  'array_to_string',
  'string_to_array',
  'array_remove',
  'array_replace',
  'array_append',
  'array_prepend',
  'array_cat',
  'generate_series',
  'generate_subscripts',
  // JSON
  'jsonb_array_elements',
  'jsonb_array_elements_text',
  'jsonb_array_length',
  'jsonb_typeof',
  'jsonb_each',
  'jsonb_each_text',
  'jsonb_object_keys',
  'jsonb_extract_path',
  'jsonb_extract_path_text',
  'jsonb_build_object',
  'jsonb_build_array',
  'to_jsonb',
  'json_array_elements',
  'json_array_elements_text',
  'json_array_length',
  'json_typeof',
  'json_build_object',
  'json_build_array',
  'to_json',
  'row_to_json',
  // SQL syntax the grammar turns into calls
  'timezone',
  'overlaps',
  'similar_to_escape',
  'is_normalized',
  'normalize',
]);

/**
 * The words PostgreSQL's date and time input reads as the clock (`'now'::timestamp`,
 * `date 'today'`, `'tomorrow 10:00'`), checked in every string literal: a literal has no
 * type until the query is planned, so `WHERE d < 'today'` reads the clock without a cast.
 */
const CLOCK_WORDS = /^(now|today|tomorrow|yesterday)$/u;
/** The other words a date or time literal may hold beside a clock word: numbers, separators, AM/PM, UTC. */
const TIME_WORD = /^([0-9:.+\-/]*|am|pm|at|z|utc|gmt|allballs)$/u;

/**
 * True when a string literal would read the clock as a date or time: a clock word with
 * nothing but numbers and time words beside it (`' NOW '`, `'today 10:00'`). Text that
 * merely contains such a word (`'Now and Then'`) is no date and stays a string.
 */
export function readsClock(literal: string): boolean {
  const words = literal
    .trim()
    .toLowerCase()
    .split(/[\s,]+/u)
    .filter((w) => w !== '');
  return words.some((w) => CLOCK_WORDS.test(w)) && words.every((w) => CLOCK_WORDS.test(w) || TIME_WORD.test(w));
}

/**
 * The one-line refusal of a text for a schema: `schema S: refused: WHAT`, with any control
 * or line-separating character of WHAT (a piece of the text, a parser's message) escaped.
 */
export function refuse(pgSchema: string, what: string): ExecutionError {
  const line = what.replace(
    /[\u0000-\u001f\u007f\u0085\u2028\u2029]/gu,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return new ExecutionError(`schema ${pgSchema}: refused: ${line}`);
}
