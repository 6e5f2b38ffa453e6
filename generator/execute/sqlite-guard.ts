/**
 * Our own reader of untrusted SQL for SQLite: a lexer that splits the text as SQLite's
 * tokenizer does (strings, the three quoted identifier forms, blobs, both comment forms) and
 * holds it to one SELECT (or WITH … SELECT) that writes nothing, attaches nothing, sets no
 * PRAGMA, loads no extension, reads no clock and builds no value past a bound.
 *
 * It is one of two readers, on purpose: SQLite's own prepare (in the executor's child,
 * `sqlite-child.js`) must also find exactly one statement, and that statement must be a
 * reader and read-only by SQLite's own judgement (`stmt.reader`, `stmt.readonly`). The file
 * is opened read-only with `query_only` set besides; no verdict rests on one reader alone.
 */
import { ExecutionError } from '../common/errors.ts';

/**
 * Functions a query may not call. Extensions and files (`load_extension`, `readfile`,
 * `writefile`, `edit`, the tokenizer hook); values built to a size given as a number
 * (`randomblob`, `zeroblob`: `randomblob(1e9)` is a gigabyte before any cap can count it);
 * answers that change from run to run (`random`, the connection's counters).
 */
export const SQLITE_DENIED_FUNCTIONS: ReadonlySet<string> = new Set([
  'load_extension',
  'readfile',
  'writefile',
  'edit',
  'fts3_tokenizer',
  'sqlite_offset',
  'randomblob',
  'zeroblob',
  'random',
  'changes',
  'total_changes',
  'last_insert_rowid',
]);

/** Words that begin or make a statement that is not a read, wherever they stand outside quotes. */
const DENIED_WORDS: ReadonlySet<string> = new Set([
  'attach',
  'detach',
  'pragma',
  'vacuum',
  'insert',
  'update',
  'delete',
  'create',
  'drop',
  'alter',
  'reindex',
  'analyze',
  'begin',
  'commit',
  'rollback',
  'savepoint',
  'release',
  'returning',
]);

/** Keywords that read the clock. */
const CLOCK_WORDS: ReadonlySet<string> = new Set(['current_date', 'current_time', 'current_timestamp']);
/** String literals that make a date function read the clock or the process's time zone. */
const CLOCK_STRINGS: ReadonlySet<string> = new Set(['now', 'localtime', 'utc']);
/** SQLite's date and time functions, where those strings are read so. */
const DATE_FUNCTIONS: ReadonlySet<string> = new Set([
  'date',
  'time',
  'datetime',
  'julianday',
  'unixepoch',
  'strftime',
  'timediff',
]);

/** The widest `printf`/`format` field: it pads without a bound of its own. */
export const MAX_FORMAT_WIDTH = 10_000;
/** The text is read no further than this (SQLite's own limit on a statement is far larger). */
const MAX_TEXT_LENGTH = 1_000_000;

type TokenKind = 'word' | 'string' | 'identifier' | 'blob' | 'number' | 'semicolon' | 'open' | 'other';

interface Token {
  readonly kind: TokenKind;
  /** The word lowercased, the string's or identifier's value, or the character. */
  readonly text: string;
  /** 1-based character offset, for messages. */
  readonly at: number;
}

function refuse(where: string, what: string): ExecutionError {
  return new ExecutionError(`${where}: refused: ${what}`);
}

const isWordStart = (c: string): boolean => /[A-Za-z_]/u.test(c) || c.charCodeAt(0) >= 0x80;
const isWordPart = (c: string): boolean => /[A-Za-z0-9_$]/u.test(c) || c.charCodeAt(0) >= 0x80;

/** The text's tokens, comments and whitespace dropped; an unterminated literal is refused. */
function tokenize(sql: string, where: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const c = sql[i] as string;
    const at = i + 1;
    if (/\s/u.test(c)) {
      i++;
    } else if (c === '-' && sql[i + 1] === '-') {
      // SQLite ends a line comment at a newline only.
      const end = sql.indexOf('\n', i);
      i = end < 0 ? n : end + 1;
    } else if (c === '/' && sql[i + 1] === '*') {
      // An unterminated block comment runs to the end of the text, as in SQLite.
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? n : end + 2;
    } else if (c === "'" || ((c === 'x' || c === 'X') && sql[i + 1] === "'")) {
      const blob = c !== "'";
      let j = blob ? i + 2 : i + 1;
      let value = '';
      for (;;) {
        if (j >= n) throw refuse(where, `a string at character ${at} is not closed`);
        if (sql[j] === "'") {
          if (sql[j + 1] === "'") {
            value += "'";
            j += 2;
            continue;
          }
          break;
        }
        value += sql[j];
        j++;
      }
      tokens.push({ kind: blob ? 'blob' : 'string', text: value, at });
      i = j + 1;
    } else if (c === '"' || c === '`' || c === '[') {
      const close = c === '[' ? ']' : c;
      let j = i + 1;
      let value = '';
      for (;;) {
        if (j >= n) throw refuse(where, `a quoted name at character ${at} is not closed`);
        if (sql[j] === close) {
          if (close !== ']' && sql[j + 1] === close) {
            value += close;
            j += 2;
            continue;
          }
          break;
        }
        value += sql[j];
        j++;
      }
      tokens.push({ kind: 'identifier', text: value, at });
      i = j + 1;
    } else if (isWordStart(c)) {
      let j = i + 1;
      while (j < n && isWordPart(sql[j] as string)) j++;
      tokens.push({ kind: 'word', text: sql.slice(i, j).toLowerCase(), at });
      i = j;
    } else if (/[0-9]/u.test(c) || (c === '.' && /[0-9]/u.test(sql[i + 1] ?? ''))) {
      let j = i + 1;
      while (j < n && /[0-9A-Za-z_.]/u.test(sql[j] as string)) {
        // An exponent's sign belongs to the number.
        if (/[eE]/u.test(sql[j] as string) && /[-+]/u.test(sql[j + 1] ?? '')) j++;
        j++;
      }
      tokens.push({ kind: 'number', text: sql.slice(i, j), at });
      i = j;
    } else if (c === ';') {
      tokens.push({ kind: 'semicolon', text: c, at });
      i++;
    } else if (c === '(') {
      tokens.push({ kind: 'open', text: c, at });
      i++;
    } else {
      tokens.push({ kind: 'other', text: c, at });
      i++;
    }
  }
  return tokens;
}

/** The widths and precisions of a printf format: each at most MAX_FORMAT_WIDTH, none given as `*`. */
function checkFormat(format: string, where: string, at: number): void {
  const spec = /%([-+ #0,!]*)(\*|\d*)(?:\.(\*|\d*))?/gu;
  for (const m of format.matchAll(spec)) {
    const width = m[2] ?? '';
    const precision = m[3] ?? '';
    if (width === '*' || precision === '*')
      throw refuse(
        where,
        `a printf width given as * at character ${at}; widths are literal, at most ${MAX_FORMAT_WIDTH}`,
      );
    if (
      (width !== '' && Number(width) > MAX_FORMAT_WIDTH) ||
      (precision !== '' && Number(precision) > MAX_FORMAT_WIDTH)
    ) {
      throw refuse(where, `a printf width or precision past ${MAX_FORMAT_WIDTH} at character ${at}`);
    }
  }
}

/**
 * Throws an ExecutionError (`<where>: refused: …`, one line) unless our lexer reads `sql` as
 * one SELECT or WITH statement (a `;` may end it, with only comments after) that names no
 * word of a write, an attachment, a PRAGMA or a transaction, calls no denied function, reads
 * no clock (the clock's keywords; `'now'`, `'localtime'`, `'utc'` inside a date function's
 * call), and gives `printf`/`format` a literal format with bounded widths. A string the
 * query builds (`date('n' || 'ow')`) is not read: the clock through it is not refused.
 *
 * @example
 * guardSqlite('SELECT name FROM streamer;', 'sqlite/full_cti.sqlite');  // passes
 * guardSqlite("SELECT 1; ATTACH 'x' AS y", 'sqlite/full_cti.sqlite');
 * // ExecutionError: sqlite/full_cti.sqlite: refused: several statements (a ";" at character 9); only one SELECT is run
 */
export function guardSqlite(sql: string, where: string): void {
  if (sql.length > MAX_TEXT_LENGTH)
    throw refuse(where, `the text is longer than ${MAX_TEXT_LENGTH.toLocaleString('en-US')} characters`);
  if (sql.includes('\u0000')) throw refuse(where, 'the text holds a NUL character');
  const tokens = tokenize(sql, where);
  const end = tokens.findIndex((t) => t.kind === 'semicolon');
  // One `;` may end the statement; anything after it but comments is a second statement.
  if (end >= 0 && end < tokens.length - 1)
    throw refuse(where, `several statements (a ";" at character ${(tokens[end] as Token).at}); only one SELECT is run`);
  const body = end >= 0 ? tokens.slice(0, end) : tokens;
  const first = body[0];
  if (first === undefined) throw refuse(where, 'no statement');
  if (first.kind !== 'word' || (first.text !== 'select' && first.text !== 'with')) {
    throw refuse(
      where,
      `${first.kind === 'word' ? first.text.toUpperCase() : JSON.stringify(first.text.slice(0, 20))} at character ${first.at}; only one SELECT (or WITH … SELECT) is run`,
    );
  }
  // The functions whose parentheses enclose each token (a call's name, or '' for a bare parenthesis).
  const calls: string[] = [];
  body.forEach((t, i) => {
    const next = body[i + 1];
    if (t.kind === 'open') calls.push(body[i - 1]?.kind === 'word' ? (body[i - 1] as Token).text : '');
    else if (t.kind === 'other' && t.text === ')') calls.pop();
    if (t.kind === 'word') {
      const call = next?.kind === 'open';
      if (call && SQLITE_DENIED_FUNCTIONS.has(t.text))
        throw refuse(where, `function ${t.text} at character ${t.at} is not allowed`);
      // replace() is a function; REPLACE alone begins a write.
      if (t.text === 'replace' && !call) throw refuse(where, `REPLACE at character ${t.at}; only one SELECT is run`);
      if (DENIED_WORDS.has(t.text))
        throw refuse(where, `${t.text.toUpperCase()} at character ${t.at}; only one SELECT is run`);
      if (CLOCK_WORDS.has(t.text)) throw refuse(where, `${t.text.toUpperCase()} at character ${t.at} reads the clock`);
      if (call && (t.text === 'printf' || t.text === 'format')) {
        const format = body[i + 2];
        if (format?.kind !== 'string')
          throw refuse(where, `${t.text} at character ${t.at} takes its format as a string literal`);
        checkFormat(format.text, where, format.at);
      }
    } else if (
      t.kind === 'string' &&
      CLOCK_STRINGS.has(t.text.trim().toLowerCase()) &&
      calls.some((c) => DATE_FUNCTIONS.has(c))
    ) {
      throw refuse(where, `'${t.text.trim()}' at character ${t.at} reads the clock or the local time zone`);
    }
  });
}
