/**
 * Our own reader of untrusted SQL, one of the guard's two (`query-guard.ts`): a small lexer
 * that splits the text as PostgreSQL's scanner does (standard strings, nested comments, a
 * `--` comment ended by a line feed or a carriage return) and checks every call against the
 * list. It shares no code with PostgreSQL's parser, so a text both read wrongly in the same
 * way is what an attack would need; and the extended protocol under both sends the text as
 * one statement whatever either reader thought.
 */
import { lineCommentEnd } from '../common/sql-text.ts';
import { READ_ONLY_FUNCTIONS, refuse } from './allowed-sql.ts';

/**
 * Words followed by `(` that are syntax, not a call (`IN (`, `EXISTS (`, `AS s(value)`),
 * and type names written with a size (`numeric(10, 2)`, `character varying(20)`). If
 * PostgreSQL has a function of such a name, it only computes (`left`, `numeric`).
 */
const SYNTAX_BEFORE_PARENTHESIS: ReadonlySet<string> = new Set([
  'select',
  'from',
  'where',
  'and',
  'or',
  'not',
  'in',
  'exists',
  'any',
  'some',
  'all',
  'array',
  'as',
  'on',
  'using',
  'join',
  'lateral',
  'values',
  'union',
  'intersect',
  'except',
  'distinct',
  'between',
  'like',
  'ilike',
  'similar',
  'is',
  'case',
  'when',
  'then',
  'else',
  'end',
  'having',
  'by',
  'limit',
  'offset',
  'over',
  'filter',
  'within',
  'group',
  'order',
  'row',
  'only',
  'asc',
  'desc',
  'nulls',
  'first',
  'last',
  'inner',
  'outer',
  'cross',
  'natural',
  'full',
  'cast',
  'ordinality',
  'with',
  'numeric',
  'decimal',
  'varchar',
  'char',
  'character',
  'varying',
  'bit',
  'timestamp',
  'time',
  'interval',
  'float',
]);

/** A token as PostgreSQL's scanner splits the text; strings and comments are dropped. */
interface Token {
  readonly kind: 'word' | 'quoted' | 'symbol' | 'other';
  /** Lower-cased for a bare word, as written for a quoted identifier. */
  readonly text: string;
  /** 1-based character offset, for messages. */
  readonly at: number;
}

/** The longest text guarded: the longest query of Spider has 577 characters, of BIRD 1,006. */
export const MAX_GUARDED_LENGTH = 100_000;
/** The deepest nesting of parentheses: the parser's tree, and every walk of it, recurse. */
export const MAX_GUARDED_DEPTH = 200;

/**
 * PostgreSQL's whitespace (scan.l's `space`: space, tab, line feed, carriage return, form
 * feed, and since PostgreSQL 16 vertical tab). Nothing else: a no-break space or a line
 * separator is a letter of an identifier to PostgreSQL, not a gap between tokens.
 */
const SPACE = /[ \t\n\r\f\v]/u;

/**
 * Splits SQL text as PostgreSQL with `standard_conforming_strings` on (the executor sets it)
 * does. A `--` comment ends at a line feed or a carriage return (scan.l's `non_newline` is
 * `[^\n\r]`): reading only the line feed as its end took `--\r'a\' …; COMMIT; …` for one
 * statement. Refuses the forms whose reading depends on more than that: `E'…'` and `U&'…'`
 * strings and dollar quoting.
 */
function lex(sql: string, pgSchema: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const n = sql.length;
  if (n > MAX_GUARDED_LENGTH) throw refuse(pgSchema, `query too long: ${n} characters (at most ${MAX_GUARDED_LENGTH})`);
  // The protocol ends a query's text at a NUL; PostgreSQL's text never holds one.
  const nul = sql.indexOf('\u0000');
  if (nul >= 0) throw refuse(pgSchema, `a NUL character at character ${nul + 1}`);
  let depth = 0;
  while (i < n) {
    const c = sql[i] as string;
    const next = sql[i + 1] ?? '';
    if (SPACE.test(c)) {
      i++;
    } else if (c === '-' && next === '-') {
      const end = lineCommentEnd(sql, i);
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
      if (/^\$([A-Za-z_][A-Za-z0-9_]*)?\$/u.test(sql.slice(i)))
        throw refuse(pgSchema, `dollar-quoted string at character ${i + 1}`);
      const m = /^\$[0-9]+/u.exec(sql.slice(i));
      tokens.push({ kind: 'other', text: m ? m[0] : '$', at: i + 1 });
      i += m ? m[0].length : 1;
    } else if (/[A-Za-z_\u0080-\uffff]/u.test(c)) {
      // Any non-ASCII character is a letter to PostgreSQL's scanner, astral ones included.
      const m = /^[A-Za-z_\u{80}-\u{10FFFF}][A-Za-z0-9_$\u{80}-\u{10FFFF}]*/u.exec(sql.slice(i)) as RegExpExecArray;
      const word = m[0];
      const after = sql[i + word.length];
      if (after === "'" && /^[eE]$/u.test(word)) throw refuse(pgSchema, `escape string E'…' at character ${i + 1}`);
      if (/^[uU]$/u.test(word) && after === '&')
        throw refuse(pgSchema, `Unicode-escaped name or string U&… at character ${i + 1}`);
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
      if (c === '(' && ++depth > MAX_GUARDED_DEPTH)
        throw refuse(
          pgSchema,
          `query nested too deeply: more than ${MAX_GUARDED_DEPTH} parentheses at character ${i + 1}`,
        );
      if (c === ')') depth = Math.max(0, depth - 1);
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
    if (end < 0)
      throw refuse(
        pgSchema,
        `unterminated ${quote === "'" ? 'string' : 'quoted identifier'} at character ${start + 1}`,
      );
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
  if (schema !== null && schema !== 'pg_catalog')
    throw refuse(pgSchema, `function ${qualified}${where}: only built-in functions may be called`);
  if (!READ_ONLY_FUNCTIONS.has(name))
    throw refuse(pgSchema, `function ${qualified}${where} is not on the list of read-only functions a query may call`);
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
  const is = (j: number, kind: Token['kind'], text: string): boolean =>
    tokens[j]?.kind === kind && tokens[j]?.text === text;
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
        throw refuse(
          pgSchema,
          `data-modifying WITH (${verb.text.toUpperCase()} at character ${verb.at}); only one SELECT is run`,
        );
      }
      if (withColumns) names.add(j);
      k = skipGroup(tokens, k);
      if (k < 0 || !is(k, 'symbol', ',')) break;
      j = k + 1;
    }
  }
  return names;
}

/** What the lexer read of a text it did not refuse. */
export interface LexerReading {
  /** Statements in the text: `;`-separated runs holding a token (trailing `;` end the last one). */
  readonly statements: number;
  /** 1-based position of the first `;` that separates two statements, when there are several. */
  readonly separatorAt?: number;
}

/**
 * Our own reading of a text, independent of PostgreSQL's parser: splits it as PostgreSQL's
 * scanner does, refuses what it cannot read for sure (`E'…'`, `U&…`, dollar quotes, an
 * unterminated string or comment), a text that does not start with SELECT or WITH, a call
 * of a function off the list (`READ_ONLY_FUNCTIONS`) and a data-modifying WITH; and counts
 * the statements, which the guard holds against the parser's count.
 *
 * @example
 * readByLexer('SELECT lower(name) FROM t;', 'v1');        // { statements: 1 }
 * readByLexer('SELECT 1 --\r; COMMIT; DELETE FROM t', 'v1'); // { statements: 3, separatorAt: 14 }
 * readByLexer('SELECT pg_sleep(1)', 'v1');                // ExecutionError: schema v1: refused: function pg_sleep at character 8 …
 */
export function readByLexer(sql: string, pgSchema: string): LexerReading {
  const tokens = lex(sql, pgSchema);
  const first = tokens.find((t) => !(t.kind === 'symbol' && t.text === '('));
  if (!first) throw refuse(pgSchema, 'empty query');
  if (first.kind !== 'word' || (first.text !== 'select' && first.text !== 'with')) {
    throw refuse(
      pgSchema,
      `only one SELECT is run, not ${first.kind === 'word' ? first.text.toUpperCase() : `"${first.text}"`}`,
    );
  }
  let end = tokens.length;
  while (end > 0 && tokens[end - 1]?.kind === 'symbol' && tokens[end - 1]?.text === ';') end--;
  let statements = 1;
  let separatorAt: number | undefined;
  for (let i = 0; i < end; i++) {
    const t = tokens[i] as Token;
    if (t.kind !== 'symbol' || t.text !== ';') continue;
    separatorAt ??= t.at;
    // `;;` separates no statement: PostgreSQL skips the empty one.
    if (!(tokens[i + 1]?.kind === 'symbol' && tokens[i + 1]?.text === ';')) statements++;
  }
  const cteNames = cteNameTokens(tokens, pgSchema);
  for (let i = 0; i < end; i++) {
    const token = tokens[i] as Token;
    const following = tokens[i + 1];
    if ((token.kind !== 'word' && token.kind !== 'quoted') || following?.kind !== 'symbol' || following.text !== '(')
      continue;
    const call = callName(tokens, i);
    if (call && !cteNames.has(i)) checkCall(pgSchema, call.schema, call.name, ` at character ${token.at}`);
  }
  return separatorAt === undefined ? { statements } : { statements, separatorAt };
}
