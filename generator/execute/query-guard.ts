/**
 * What the executor lets through before a query reaches a database: one SELECT, calling
 * only functions that read, over the variant's own tables.
 *
 * Two readings of the text, on purpose. The parser adapter decides the statement's shape
 * (one SELECT, possibly after a WITH whose every part is a plain SELECT; no WITH RECURSIVE,
 * no data-modifying CTE, no SELECT … INTO, no FOR UPDATE) and gives the typed AST whose calls
 * and tables are checked. A small lexer that splits the text as PostgreSQL does (standard
 * strings, nested comments) checks every call again: node-sql-parser reads `'a\'` as an
 * unfinished string, so text it takes for a literal or a comment could be code to
 * PostgreSQL, and what the server runs is the text, not the AST.
 *
 * A text `compileQuery` printed in this process skips the parse (`compiled-texts.ts` says
 * why); the lexer reads every text.
 *
 * The reader role (`reader-role.ts`) is the layer under this one: a query that got past both
 * readings still runs as a role that can only read the variant's tables.
 */
import { ExecutionError, SqlParseError } from '../common/errors.ts';
import { parseSql } from '../sql/parser-adapter.ts';
import { wasCompiled } from '../compile/compiled-texts.ts';

/**
 * Functions a query may call: the ones the compiler emits (`unnest`, `round`, `coalesce`,
 * `cardinality`, `jsonb_array_elements_text`, `jsonb_array_length`, the aggregates) and the
 * read-only scalar, aggregate and set-returning functions analytic SQL uses. None writes,
 * waits, locks, reads files or settings, or runs SQL given as text (`query_to_xml`,
 * `ts_stat` do; they are absent). `random` and the clock (`now`) are absent too: an answer
 * that changes between runs cannot be verified.
 *
 * `generate_series` is allowed: it only reads, analytic SQL uses it for date and number
 * spines, and the cost of a huge series is bounded by the statement timeout like that of any
 * cartesian product.
 */
export const READ_ONLY_FUNCTIONS: ReadonlySet<string> = new Set([
  // aggregates
  'count', 'sum', 'avg', 'min', 'max', 'array_agg', 'string_agg', 'bool_and', 'bool_or', 'every',
  'stddev', 'stddev_pop', 'stddev_samp', 'variance', 'var_pop', 'var_samp', 'corr', 'covar_pop', 'covar_samp',
  'percentile_cont', 'percentile_disc', 'mode', 'jsonb_agg', 'json_agg', 'jsonb_object_agg', 'json_object_agg',
  // window functions
  'row_number', 'rank', 'dense_rank', 'percent_rank', 'cume_dist', 'ntile', 'lag', 'lead', 'first_value', 'last_value', 'nth_value',
  // conditionals
  'coalesce', 'nullif', 'greatest', 'least',
  // numbers
  'abs', 'round', 'trunc', 'ceil', 'ceiling', 'floor', 'sign', 'sqrt', 'cbrt', 'power', 'pow', 'exp', 'ln', 'log', 'log10',
  'mod', 'div', 'width_bucket', 'pi', 'degrees', 'radians', 'scale', 'gcd', 'lcm', 'factorial',
  // text
  'lower', 'upper', 'initcap', 'length', 'char_length', 'character_length', 'octet_length', 'concat', 'concat_ws',
  'substring', 'substr', 'position', 'strpos', 'left', 'right', 'trim', 'btrim', 'ltrim', 'rtrim', 'lpad', 'rpad',
  'replace', 'reverse', 'repeat', 'split_part', 'starts_with', 'translate', 'overlay', 'md5', 'ascii', 'chr',
  'regexp_replace', 'regexp_match', 'regexp_matches', 'regexp_split_to_array', 'regexp_count', 'regexp_like', 'format',
  'to_char', 'to_number', 'to_date', 'to_timestamp',
  // dates and times
  'date_trunc', 'date_part', 'extract', 'age', 'make_date', 'make_time', 'make_timestamp', 'make_timestamptz', 'make_interval',
  'justify_days', 'justify_hours', 'justify_interval', 'isfinite',
  // arrays
  'unnest', 'cardinality', 'array_length', 'array_lower', 'array_upper', 'array_ndims', 'array_dims', 'array_position',
  'array_positions', 'array_to_string', 'string_to_array', 'array_remove', 'array_replace', 'array_append', 'array_prepend',
  'array_cat', 'generate_series', 'generate_subscripts',
  // JSON
  'jsonb_array_elements', 'jsonb_array_elements_text', 'jsonb_array_length', 'jsonb_typeof', 'jsonb_each', 'jsonb_each_text',
  'jsonb_object_keys', 'jsonb_extract_path', 'jsonb_extract_path_text', 'jsonb_build_object', 'jsonb_build_array', 'to_jsonb',
  'json_array_elements', 'json_array_elements_text', 'json_array_length', 'json_typeof', 'json_build_object',
  'json_build_array', 'to_json', 'row_to_json',
]);

/**
 * Words followed by `(` that are syntax, not a call (`IN (`, `EXISTS (`, `AS s(value)`),
 * and type names written with a size (`numeric(10, 2)`, `character varying(20)`). If
 * PostgreSQL has a function of such a name, it only computes (`left`, `numeric`).
 */
const SYNTAX_BEFORE_PARENTHESIS: ReadonlySet<string> = new Set([
  'select', 'from', 'where', 'and', 'or', 'not', 'in', 'exists', 'any', 'some', 'all', 'array', 'as', 'on', 'using', 'join',
  'lateral', 'values', 'union', 'intersect', 'except', 'distinct', 'between', 'like', 'ilike', 'similar', 'is', 'case', 'when',
  'then', 'else', 'end', 'having', 'by', 'limit', 'offset', 'over', 'filter', 'within', 'group', 'order', 'row', 'only',
  'asc', 'desc', 'nulls', 'first', 'last', 'inner', 'outer', 'cross', 'natural', 'full', 'cast', 'ordinality', 'with',
  'numeric', 'decimal', 'varchar', 'char', 'character', 'varying', 'bit', 'timestamp', 'time', 'interval', 'float',
]);

/** A token as PostgreSQL's scanner splits the text; strings and comments are dropped. */
interface Token {
  readonly kind: 'word' | 'quoted' | 'symbol' | 'other';
  /** Lower-cased for a bare word, as written for a quoted identifier. */
  readonly text: string;
  /** 1-based character offset, for messages. */
  readonly at: number;
}

function refuse(pgSchema: string, what: string): ExecutionError {
  return new ExecutionError(`schema ${pgSchema}: refused: ${what}`);
}

/**
 * Splits SQL text as PostgreSQL with `standard_conforming_strings` on (the executor sets it)
 * does. Refuses the forms whose reading depends on more than that: `E'…'` and `U&'…'`
 * strings and dollar quoting.
 */
function lex(sql: string, pgSchema: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const c = sql[i] as string;
    const next = sql[i + 1] ?? '';
    if (/\s/u.test(c)) {
      i++;
    } else if (c === '-' && next === '-') {
      const end = sql.indexOf('\n', i);
      i = end < 0 ? n : end + 1;
    } else if (c === '/' && next === '*') {
      // PostgreSQL nests block comments.
      let depth = 0;
      while (i < n) {
        if (sql.startsWith('/*', i)) {
          depth++;
          i += 2;
        } else if (sql.startsWith('*/', i)) {
          depth--;
          i += 2;
          if (depth === 0) break;
        } else {
          i++;
        }
      }
      if (depth > 0) throw refuse(pgSchema, `unterminated comment at character ${n}`);
    } else if (c === "'") {
      i = skipQuoted(sql, i, "'", pgSchema);
    } else if (c === '"') {
      const start = i;
      i = skipQuoted(sql, i, '"', pgSchema);
      tokens.push({ kind: 'quoted', text: sql.slice(start + 1, i - 1).replaceAll('""', '"'), at: start + 1 });
    } else if (c === '$') {
      if (/^\$([A-Za-z_][A-Za-z0-9_]*)?\$/u.test(sql.slice(i))) throw refuse(pgSchema, `dollar-quoted string at character ${i + 1}`);
      const m = /^\$[0-9]+/u.exec(sql.slice(i));
      tokens.push({ kind: 'other', text: m ? m[0] : '$', at: i + 1 });
      i += m ? m[0].length : 1;
    } else if (/[A-Za-z_\u0080-\uffff]/u.test(c)) {
      // Any non-ASCII character is a letter to PostgreSQL's scanner, astral ones included.
      const m = /^[A-Za-z_\u{80}-\u{10FFFF}][A-Za-z0-9_$\u{80}-\u{10FFFF}]*/u.exec(sql.slice(i)) as RegExpExecArray;
      const word = m[0];
      const after = sql[i + word.length];
      if (after === "'" && /^[eE]$/u.test(word)) throw refuse(pgSchema, `escape string E'…' at character ${i + 1}`);
      if (/^[uU]$/u.test(word) && after === '&') throw refuse(pgSchema, `Unicode-escaped name or string U&… at character ${i + 1}`);
      // B'…', X'…' and N'…' are plain strings after a prefix: the quote is read next round.
      tokens.push({ kind: 'word', text: word.toLowerCase(), at: i + 1 });
      i += word.length;
    } else if (/[0-9.]/u.test(c)) {
      const m = /^(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9][0-9_]*)(?:[eE][+-]?[0-9]+)?/u.exec(sql.slice(i));
      if (m) {
        tokens.push({ kind: 'other', text: m[0], at: i + 1 });
        i += m[0].length;
      } else {
        tokens.push({ kind: 'symbol', text: '.', at: i + 1 });
        i++;
      }
    } else if (c === ':' && next === ':') {
      tokens.push({ kind: 'symbol', text: '::', at: i + 1 });
      i += 2;
    } else {
      tokens.push({ kind: 'symbol', text: c, at: i + 1 });
      i++;
    }
  }
  return tokens;
}

/** The index just past a quoted string or identifier starting at `start` (doubled quotes stay inside). */
function skipQuoted(sql: string, start: number, quote: string, pgSchema: string): number {
  let i = start + 1;
  for (;;) {
    const end = sql.indexOf(quote, i);
    if (end < 0) throw refuse(pgSchema, `unterminated ${quote === "'" ? 'string' : 'quoted identifier'} at character ${start + 1}`);
    if (sql[end + 1] === quote) {
      i = end + 2;
      continue;
    }
    return end + 1;
  }
}

/** The schema-qualified name of a call whose name token is tokens[i], or null when it is syntax. */
function callName(tokens: readonly Token[], i: number): { schema: string | null; name: string } | null {
  const token = tokens[i] as Token;
  const before = tokens[i - 1];
  if (before?.kind === 'symbol' && before.text === '::') return null;
  if (before?.kind === 'word' && before.text === 'as') return null;
  if (token.kind === 'word' && SYNTAX_BEFORE_PARENTHESIS.has(token.text)) return null;
  if (before?.kind === 'symbol' && before.text === '.') {
    const owner = tokens[i - 2];
    return { schema: owner && (owner.kind === 'word' || owner.kind === 'quoted') ? owner.text : '?', name: token.text };
  }
  return { schema: null, name: token.text };
}

function checkCall(pgSchema: string, schema: string | null, name: string, where: string): void {
  const qualified = schema === null ? name : `${schema}.${name}`;
  if (schema !== null && schema !== 'pg_catalog') throw refuse(pgSchema, `function ${qualified}${where}: only built-in functions may be called`);
  if (!READ_ONLY_FUNCTIONS.has(name)) throw refuse(pgSchema, `function ${qualified}${where} is not on the list of read-only functions a query may call`);
}

/** Statements a data-modifying CTE starts with. */
const WRITING_VERBS: ReadonlySet<string> = new Set(['insert', 'update', 'delete', 'merge']);

/** The index just past the parenthesized group opening at tokens[i], or -1 when it is not closed. */
function skipGroup(tokens: readonly Token[], i: number): number {
  let depth = 0;
  for (let j = i; j < tokens.length; j++) {
    const t = tokens[j] as Token;
    if (t.kind === 'symbol' && t.text === '(') depth++;
    else if (t.kind === 'symbol' && t.text === ')' && --depth === 0) return j + 1;
  }
  return -1;
}

/**
 * Indexes of the tokens that name a CTE with a column list (`WITH b(x, y) AS (…)`), which
 * look like calls. Each WITH list is walked as PostgreSQL reads it — name, optional column
 * list, AS, optional [NOT] MATERIALIZED, a parenthesized body, then a comma or the end of
 * the list — so a word is exempt only where the grammar puts a CTE name, never elsewhere
 * (`FROM f(1) AS (a int)` stays a call). A CTE whose body writes (`WITH d AS (DELETE …)`)
 * is refused here by name, before the parser's less telling syntax error.
 */
function cteNameTokens(tokens: readonly Token[], pgSchema: string): Set<number> {
  const names = new Set<number>();
  const is = (j: number, kind: Token['kind'], text: string): boolean => tokens[j]?.kind === kind && tokens[j]?.text === text;
  for (let i = 0; i < tokens.length; i++) {
    if (!is(i, 'word', 'with')) continue;
    let j = i + 1;
    for (;;) {
      const name = tokens[j];
      if (!name || (name.kind !== 'word' && name.kind !== 'quoted')) break;
      let k = j + 1;
      const withColumns = is(k, 'symbol', '(');
      if (withColumns) k = skipGroup(tokens, k);
      if (k < 0 || !is(k, 'word', 'as')) break;
      k++;
      if (is(k, 'word', 'not')) k++;
      if (is(k, 'word', 'materialized')) k++;
      if (!is(k, 'symbol', '(')) break;
      const verb = tokens[k + 1];
      if (verb?.kind === 'word' && WRITING_VERBS.has(verb.text)) {
        throw refuse(pgSchema, `data-modifying WITH (${verb.text.toUpperCase()} at character ${verb.at}); only one SELECT is run`);
      }
      if (withColumns) names.add(j);
      k = skipGroup(tokens, k);
      if (k < 0 || !is(k, 'symbol', ',')) break;
      j = k + 1;
    }
  }
  return names;
}

/**
 * Walks the adapter's AST for calls and table references. `ctes` holds the names of the
 * common table expressions in scope: reading one of them reads the CTE, not a table, so
 * its name may be anything (even `pg_…`, which then shadows the catalog).
 */
function checkTree(node: unknown, pgSchema: string, ctes: ReadonlySet<string> = new Set()): void {
  if (Array.isArray(node)) {
    for (const item of node) checkTree(item, pgSchema, ctes);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const n = node as Record<string, unknown>;
  if (n['kind'] === 'with' && Array.isArray(n['ctes'])) {
    // Without RECURSIVE (the adapter refuses it) each CTE sees the ones before it only.
    const visible = new Set(ctes);
    for (const cte of n['ctes'] as { name: string; query: unknown }[]) {
      checkTree(cte.query, pgSchema, visible);
      visible.add(cte.name.toLowerCase());
    }
    checkTree(n['body'], pgSchema, visible);
    return;
  }
  if (n['kind'] === 'function' && typeof n['name'] === 'string') {
    const parts = n['name'].split('.');
    const name = parts.pop() as string;
    // The adapter keeps `x = ANY (arr)` as a call of a function named ANY.
    if (parts.length > 0 || !SYNTAX_BEFORE_PARENTHESIS.has(name)) checkCall(pgSchema, parts.length > 0 ? parts.join('.') : null, name, '');
  }
  if (n['kind'] === 'clock') throw refuse(pgSchema, `${String(n['name'])}: an answer that changes between runs cannot be verified`);
  if (n['kind'] === 'table' && typeof n['name'] === 'string') {
    const name = n['name'];
    const dot = name.lastIndexOf('.');
    const owner = dot < 0 ? null : name.slice(0, dot);
    const table = dot < 0 ? name : name.slice(dot + 1);
    if (owner !== null && owner !== pgSchema) throw refuse(pgSchema, `table ${name}: a query reads only its variant's tables`);
    if (owner === null && ctes.has(table.toLowerCase())) return;
    if (/^(pg_|information_schema$)/iu.test(table)) throw refuse(pgSchema, `table ${name}: a query reads only its variant's tables, not the system catalogs`);
  }
  for (const [key, value] of Object.entries(n)) if (key !== 'kind') checkTree(value, pgSchema, ctes);
}

/**
 * Throws an ExecutionError naming what is refused unless `sql` is one SELECT (possibly after
 * a WITH of plain SELECTs) that calls only READ_ONLY_FUNCTIONS and reads only unqualified
 * tables (or tables of `pgSchema`, or the statement's own CTEs).
 *
 * @example
 * guardQuery("SELECT lower(name) FROM users", 'social__full_sti');   // passes
 * guardQuery("SELECT pg_reload_conf()", 'social__full_sti');
 * // ExecutionError: schema social__full_sti: refused: function pg_reload_conf is not on the list …
 * guardQuery("COPY users TO '/tmp/x'", 'social__full_sti');
 * // ExecutionError: schema social__full_sti: refused: only one SELECT is run, not COPY
 */
export function guardQuery(sql: string, pgSchema: string): void {
  const tokens = lex(sql, pgSchema);
  const first = tokens.find((t) => !(t.kind === 'symbol' && t.text === '('));
  if (!first) throw refuse(pgSchema, 'empty query');
  if (first.kind !== 'word' || (first.text !== 'select' && first.text !== 'with')) {
    throw refuse(pgSchema, `only one SELECT is run, not ${first.kind === 'word' ? first.text.toUpperCase() : `"${first.text}"`}`);
  }
  let end = tokens.length;
  while (end > 0 && tokens[end - 1]?.kind === 'symbol' && tokens[end - 1]?.text === ';') end--;
  const semicolon = tokens.slice(0, end).find((t) => t.kind === 'symbol' && t.text === ';');
  if (semicolon) throw refuse(pgSchema, `several statements (a ";" at character ${semicolon.at}); only one SELECT is run`);
  const cteNames = cteNameTokens(tokens, pgSchema);
  for (let i = 0; i < end; i++) {
    const token = tokens[i] as Token;
    const following = tokens[i + 1];
    if ((token.kind !== 'word' && token.kind !== 'quoted') || following?.kind !== 'symbol' || following.text !== '(') continue;
    const call = callName(tokens, i);
    if (call && !cteNames.has(i)) checkCall(pgSchema, call.schema, call.name, ` at character ${token.at}`);
  }
  // Our compiler's own text: its shape and tables are the compiler's (`compiled-texts.ts`).
  if (wasCompiled(sql)) return;
  let tree: unknown;
  try {
    tree = parseSql(sql, { dialect: 'postgresql' });
  } catch (error) {
    if (error instanceof SqlParseError) throw new ExecutionError(`schema ${pgSchema}: refused: ${error.message}`, { cause: error });
    throw error;
  }
  checkTree(tree, pgSchema);
}
