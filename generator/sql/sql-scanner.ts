/**
 * A quick pass over SQL text before the parser sees it: it bounds the work (length, tokens,
 * nesting), and it hides the quoted text node-sql-parser reads differently from the engines.
 *
 * node-sql-parser takes a backslash inside '…' as an escape in every dialect, so
 * `'x\' OR 1=1 --'` becomes one string for it, while PostgreSQL (standard strings) and
 * SQLite end the string at the second quote and read `OR 1=1` as a condition. Its PostgreSQL
 * grammar also stops a quoted identifier at a doubled quote, so `"a""b"` becomes the column
 * `a` aliased `b`. Such literals are replaced by placeholders of the same length (positions
 * in errors stay right) made of private-use characters, and the parser's output is given the
 * written text back (`restoreMasked`).
 */
import { SqlParseError } from '../common/errors.ts';
import { lineCommentEnd } from '../common/sql-text.ts';
import type { Dialect } from './sql-ast.ts';

/** The most characters one query may have; Spider's longest has 577, BIRD's 1,006. */
export const MAX_SQL_LENGTH = 100_000;
/** The most tokens one query may have: the parser's memory grows much faster than the text. */
export const MAX_SQL_TOKENS = 10_000;
/** The deepest nesting of parentheses: the parser and every tree walk after it recurse. */
export const MAX_SQL_DEPTH = 100;

/** Placeholders: one private-use character naming the literal, padded to the written length. */
const FIRST_MARK = 0xe000;
const PAD = '\uf8ff';
const MARKS = 0xf8ff - FIRST_MARK;
const PLACEHOLDER = /[\ue000-\uf8fe]\uf8ff*/gu;
const WORD = /[\w$.]+/uy;

export interface ScannedSql {
  /** The text to hand to the parser. */
  readonly text: string;
  /** What each placeholder stands for, by its index: the value the AST must hold. */
  readonly masked: readonly MaskedLiteral[];
}

export interface MaskedLiteral {
  readonly kind: 'string' | 'identifier';
  /**
   * For a string, the body as written (doubled quotes kept, as the parser keeps them); for
   * an identifier, its name (doubled quotes made single).
   */
  readonly value: string;
}

function position(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: (before[before.length - 1]?.length ?? 0) + 1 };
}

/** Index just past a quoted run starting at `start` (the opening quote), or the text's end. */
function closeQuote(text: string, start: number, quote: string, backslashEscapes: boolean): number {
  let i = start + 1;
  while (i < text.length) {
    const c = text[i];
    if (backslashEscapes && c === '\\') i += 2;
    else if (c === quote && text[i + 1] === quote) i += 2;
    else if (c === quote) return i + 1;
    else i++;
  }
  return text.length;
}

/**
 * Checks `sql`'s size and nesting (a SqlParseError naming the limit otherwise) and masks the
 * literals the parser would misread for `source`, the dialect the text is written in.
 *
 * @example
 * scanSql(`SELECT * FROM t WHERE a = 'x\\' OR b = 1`, 'postgresql').text;
 * // "SELECT * FROM t WHERE a = '\ue000\uf8ff' OR b = 1"
 */
export function scanSql(sql: string, source: Dialect): ScannedSql {
  if (sql.length > MAX_SQL_LENGTH) {
    throw new SqlParseError(`query too long: ${sql.length} characters (at most ${MAX_SQL_LENGTH})`, {
      line: 1,
      column: MAX_SQL_LENGTH + 1,
    });
  }
  const standardStrings = source !== 'mysql';
  const masked: MaskedLiteral[] = [];
  const parts: string[] = [];
  let copied = 0;
  let tokens = 0;
  let depth = 0;
  let rewritten = false;
  const mask = (start: number, end: number, literal: MaskedLiteral): void => {
    const length = end - start - 2;
    if (length < 1) return;
    // Left unmasked, the parser would misread it: refuse rather than read another query.
    if (masked.length >= MARKS)
      throw new SqlParseError(
        `more than ${MARKS} quoted strings or names with a backslash or doubled quote`,
        position(sql, start),
      );
    parts.push(sql.slice(copied, start + 1), String.fromCharCode(FIRST_MARK + masked.length) + PAD.repeat(length - 1));
    copied = end - 1;
    masked.push(literal);
  };
  let i = 0;
  while (i < sql.length) {
    const c = sql[i] as string;
    const next = sql[i + 1];
    if (/\s/u.test(c)) {
      i++;
      continue;
    }
    if (c === '-' && next === '-') {
      // A carriage return ends the comment too, as in PostgreSQL's scanner; the parser, which
      // waits for a line feed, is handed one in its place (same length, positions stay right).
      const end = lineCommentEnd(sql, i);
      if (end >= 0 && sql[end] === '\r') {
        parts.push(sql.slice(copied, end), '\n');
        copied = end + 1;
        rewritten = true;
      }
      i = end < 0 ? sql.length : end;
      continue;
    }
    if (c === '/' && next === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? sql.length : end + 2;
      continue;
    }
    if (++tokens > MAX_SQL_TOKENS) {
      const at = position(sql, i);
      throw new SqlParseError(
        `query too large: more than ${MAX_SQL_TOKENS} tokens at line ${at.line}, column ${at.column}`,
        at,
      );
    }
    if (c === "'") {
      // E'…' (PostgreSQL) and every MySQL string take backslash escapes; standard strings do not.
      const escaped =
        !standardStrings ||
        (source === 'postgresql' && /[eE]/u.test(sql[i - 1] ?? '') && !/[\w$]/u.test(sql[i - 2] ?? ''));
      const end = closeQuote(sql, i, "'", escaped);
      const body = sql.slice(i + 1, end - 1);
      if (!escaped && body.includes('\\')) mask(i, end, { kind: 'string', value: body });
      i = end;
      continue;
    }
    if (c === '"' || c === '`') {
      const end = closeQuote(sql, i, c, false);
      const body = sql.slice(i + 1, end - 1);
      if (c === '"' && standardStrings && body.includes('""'))
        mask(i, end, { kind: 'identifier', value: body.replaceAll('""', '"') });
      i = end;
      continue;
    }
    if (c === '(') {
      if (++depth > MAX_SQL_DEPTH) {
        const at = position(sql, i);
        throw new SqlParseError(
          `query nested too deeply: more than ${MAX_SQL_DEPTH} parentheses at line ${at.line}, column ${at.column}`,
          at,
        );
      }
    } else if (c === ')') {
      depth = Math.max(0, depth - 1);
    }
    // A word or number is one token; anything else is one character.
    WORD.lastIndex = i;
    i = WORD.test(sql) ? WORD.lastIndex : i + 1;
  }
  if (masked.length === 0 && !rewritten) return { text: sql, masked };
  parts.push(sql.slice(copied));
  return { text: parts.join(''), masked };
}

/**
 * The parser's output with every placeholder replaced by what it stands for: a deep copy of
 * the plain objects and arrays the parser returns.
 */
export function restoreMasked(raw: unknown, masked: readonly MaskedLiteral[]): unknown {
  if (masked.length === 0) return raw;
  const walk = (value: unknown): unknown => {
    if (typeof value === 'string')
      return value.replace(PLACEHOLDER, (mark) => masked[mark.charCodeAt(0) - FIRST_MARK]?.value ?? mark);
    if (Array.isArray(value)) return value.map(walk);
    if (value !== null && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v)]));
    return value;
  };
  return walk(raw);
}
