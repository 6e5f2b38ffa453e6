/**
 * SQL on one line, for the gold files that hold one `SQL\tdb_id` a line (BIRD's and
 * Spider's): their readers split the file at line breaks and each line at its tab. The text
 * is scanned as PostgreSQL scans it (standard strings, `E'…'` strings, quoted identifiers,
 * dollar quoting, nested block comments), so only what is whitespace to PostgreSQL is
 * changed: each run of whitespace between tokens becomes one space, a comment becomes a
 * space (a `--` comment would otherwise swallow the rest of the line), and a literal or a
 * quoted identifier that holds a line break or a tab is rewritten with escapes — `E'…\n…'`
 * and `U&"…\000A…"` — that spell the same characters. What it returns means what it was given.
 */
import { SqlParseError } from '../../common/errors.ts';

/** PostgreSQL's whitespace between tokens (scan.l's `space`). */
const SPACE = new Set([' ', '\t', '\n', '\r', '\f', '\v']);
/**
 * Characters a line-reading evaluator may take for a line break or a field separator:
 * Python's `readlines` (line feed, carriage return) and `splitlines` (also vertical tab,
 * form feed, the file, group and record separators, NEL, line and paragraph separators),
 * and the tab the gold line is split at.
 */
const BREAKING = /[\t\n\r\v\f\u001c\u001d\u001e\u0085\u2028\u2029]/u;

const isWordChar = (c: string | undefined): boolean => c !== undefined && /[\p{L}\p{N}_$]/u.test(c);
const code4 = (c: string): string => (c.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0');

/** The escape of one character inside `E'…'`: the usual letters, else `\uXXXX`. */
function eEscape(c: string): string {
  switch (c) {
    case '\n':
      return '\\n';
    case '\r':
      return '\\r';
    case '\t':
      return '\\t';
    case '\f':
      return '\\f';
    case '\\':
      return '\\\\';
    case "'":
      return "''";
    default:
      return BREAKING.test(c) ? `\\u${code4(c)}` : c;
  }
}

/** A string's characters as an `E'…'` literal. */
function eLiteral(value: string): string {
  return `E'${[...value].map(eEscape).join('')}'`;
}

interface Scanned {
  /** The token's text as it is to be written. */
  readonly text: string;
  /** Where the token ends (exclusive). */
  readonly end: number;
}

/** A quoted run from `start` (at the opening quote) to its closing quote; `''` (or `""`) is a quote inside. */
function quotedEnd(sql: string, start: number, quote: string, what: string): number {
  for (let i = start + 1; i < sql.length; i++) {
    if (sql[i] !== quote) continue;
    if (sql[i + 1] === quote) {
      i++;
      continue;
    }
    return i + 1;
  }
  throw new SqlParseError(`one-line SQL: unterminated ${what} at character ${start + 1}`);
}

/** A standard string `'…'` at `start`: kept, or as `E'…'` when it holds a breaking character. */
function standardString(sql: string, start: number, prefixed: boolean): Scanned {
  const end = quotedEnd(sql, start, "'", 'string');
  const raw = sql.slice(start, end);
  if (!BREAKING.test(raw)) return { text: raw, end };
  // B'…', X'…', N'…', U&'…' spell their contents otherwise; equisql's SQL holds none with a line break.
  if (prefixed)
    throw new SqlParseError(
      `one-line SQL: a prefixed string literal with a line break at character ${start + 1} cannot be put on one line`,
    );
  return { text: eLiteral(raw.slice(1, -1).replaceAll("''", "'")), end };
}

/** An escape string `E'…'` whose `E` is at `start`: breaking characters written as escapes. */
function escapeString(sql: string, start: number): Scanned {
  let out = sql.slice(start, start + 2);
  for (let i = start + 2; i < sql.length; i++) {
    const c = sql[i] as string;
    if (c === '\\') {
      const next = sql[i + 1];
      if (next === undefined) break;
      // A backslash before any other character is that character: `\` and a line feed is a line feed.
      out += BREAKING.test(next) ? eEscape(next) : `\\${next}`;
      i++;
    } else if (c === "'") {
      if (sql[i + 1] === "'") {
        out += "''";
        i++;
      } else return { text: `${out}'`, end: i + 1 };
    } else out += BREAKING.test(c) ? eEscape(c) : c;
  }
  throw new SqlParseError(`one-line SQL: unterminated string at character ${start + 1}`);
}

/** A quoted identifier `"…"` at `start`: kept, or as `U&"…"` with `\XXXX` escapes when it holds a breaking character. */
function quotedIdentifier(sql: string, start: number, prefixed: boolean): Scanned {
  const end = quotedEnd(sql, start, '"', 'quoted identifier');
  const raw = sql.slice(start, end);
  if (!BREAKING.test(raw)) return { text: raw, end };
  if (prefixed)
    throw new SqlParseError(
      `one-line SQL: a U&"…" identifier with a line break at character ${start + 1} cannot be put on one line`,
    );
  // Every breaking character is below U+10000: four hex digits each.
  const body = [...raw.slice(1, -1)]
    .map((c) => (c === '\\' ? '\\\\' : BREAKING.test(c) ? `\\${code4(c)}` : c))
    .join('');
  return { text: `U&"${body}"`, end };
}

/** A dollar-quoted string at `start` (`$tag$…$tag$`), or undefined when the `$` opens none (a `$1` parameter). */
function dollarString(sql: string, start: number): Scanned | undefined {
  const tag = /^\$(?:[\p{L}_][\p{L}\p{N}_]*)?\$/u.exec(sql.slice(start))?.[0];
  if (tag === undefined) return undefined;
  const close = sql.indexOf(tag, start + tag.length);
  if (close < 0) throw new SqlParseError(`one-line SQL: unterminated dollar-quoted string at character ${start + 1}`);
  const end = close + tag.length;
  const value = sql.slice(start + tag.length, close);
  return { text: BREAKING.test(value) ? eLiteral(value) : sql.slice(start, end), end };
}

/** Where the block comment opened at `start` ends (they nest). */
function blockCommentEnd(sql: string, start: number): number {
  let depth = 0;
  for (let i = start; i < sql.length; i++) {
    if (sql.startsWith('/*', i)) {
      depth++;
      i++;
    } else if (sql.startsWith('*/', i)) {
      depth--;
      i++;
      if (depth === 0) return i + 1;
    }
  }
  throw new SqlParseError(`one-line SQL: unterminated comment at character ${start + 1}`);
}

/**
 * `sql` on one line, meaning the same: no line break, no tab, no comment; whitespace
 * between tokens one space; the ends trimmed. A SqlParseError names the character at fault
 * when the text cannot be scanned (an unterminated string) or spans lines in a way only
 * lines can say (two string literals continued across a line break).
 *
 * @example
 * oneLineSql("SELECT p.name\nFROM products AS p\n  WHERE p.note = 'a\nb'");
 * // "SELECT p.name FROM products AS p WHERE p.note = E'a\\nb'"
 */
export function oneLineSql(sql: string): string {
  let out = '';
  // Whitespace (or a comment) seen since the last token, and whether it held a line break.
  let gap = false;
  let gapBreaks = false;
  let lastWasString = false;
  let i = 0;
  const emit = (text: string, isString: boolean): void => {
    if (gap && out !== '') out += ' ';
    out += text;
    gap = false;
    gapBreaks = false;
    lastWasString = isString;
  };
  while (i < sql.length) {
    const c = sql[i] as string;
    if (SPACE.has(c)) {
      gap = true;
      if (c === '\n' || c === '\r') gapBreaks = true;
      i++;
      continue;
    }
    if (sql.startsWith('--', i)) {
      let end = i;
      while (end < sql.length && sql[end] !== '\n' && sql[end] !== '\r') end++;
      gap = true;
      i = end;
      continue;
    }
    if (sql.startsWith('/*', i)) {
      gap = true;
      i = blockCommentEnd(sql, i);
      continue;
    }
    if (c === "'") {
      // PostgreSQL joins two string literals with a line break between them into one.
      if (lastWasString && gapBreaks)
        throw new SqlParseError(
          `one-line SQL: a string literal continued on the next line at character ${i + 1} cannot be put on one line`,
        );
      const s = standardString(sql, i, false);
      emit(s.text, true);
      i = s.end;
      continue;
    }
    if (c === '"') {
      const s = quotedIdentifier(sql, i, false);
      emit(s.text, false);
      i = s.end;
      continue;
    }
    if (c === '$') {
      const s = dollarString(sql, i);
      if (s) {
        emit(s.text, false);
        i = s.end;
        continue;
      }
    }
    if (isWordChar(c)) {
      let end = i;
      while (isWordChar(sql[end])) end++;
      const word = sql.slice(i, end);
      const next = sql[end];
      if (next === "'" && /^[eE]$/u.test(word)) {
        const s = escapeString(sql, i);
        emit(s.text, true);
        i = s.end;
      } else if (next === "'" && /^[bBxXnN]$/u.test(word)) {
        const s = standardString(sql, end, true);
        emit(`${word}${s.text}`, true);
        i = s.end;
      } else if (/^[uU]$/u.test(word) && next === '&' && (sql[end + 1] === "'" || sql[end + 1] === '"')) {
        const s = sql[end + 1] === "'" ? standardString(sql, end + 1, true) : quotedIdentifier(sql, end + 1, true);
        emit(`${word}&${s.text}`, sql[end + 1] === "'");
        i = s.end;
      } else {
        emit(word, false);
        i = end;
      }
      continue;
    }
    if (BREAKING.test(c))
      throw new SqlParseError(
        `one-line SQL: a line separator (U+${code4(c)}) outside any literal at character ${i + 1}`,
      );
    emit(c, false);
    i++;
  }
  return out;
}
