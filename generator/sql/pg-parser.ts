/**
 * PostgreSQL's own parser (`libpg-query`: the server's grammar and lexer compiled to
 * WebAssembly), behind one module like node-sql-parser is behind `parser-adapter.ts`.
 *
 * Why a second parser: node-sql-parser reads many dialects and none of them exactly as the
 * server does (where a `--` comment ends, what `ONLY` means, which backslashes escape). A
 * verdict about what the server will run has to come from the server's own reading of the
 * text. node-sql-parser stays for the corpora (SQLite among them); this one is for
 * PostgreSQL text: untrusted queries in the guard, and compiled SQL read back in tests.
 *
 * The module loads once per process (`loadPgParser`, asynchronous); after that every call is
 * synchronous.
 */
import { loadModule, parseSync } from 'libpg-query';
import { SqlParseError } from '../common/errors.ts';

/** One raw statement of the parse tree: the node, and where it sits in the text. */
export interface PgRawStatement {
  /** The statement node, keyed by its node type (`{ SelectStmt: {...} }`). */
  readonly stmt: Readonly<Record<string, unknown>>;
  /** Offset of the statement in the text, in bytes of UTF-8 (0 when it starts the text). */
  readonly stmt_location?: number;
  /** Length in bytes; absent for the last statement (it runs to the end). */
  readonly stmt_len?: number;
}

/** The parse tree of a text: the server's `List` of `RawStmt`. */
export interface PgParseTree {
  readonly version: number;
  readonly stmts: readonly PgRawStatement[];
}

let loading: Promise<void> | undefined;
let loaded = false;

/** Loads the parser's WebAssembly module; call (and await) once before `parsePostgres`. */
export function loadPgParser(): Promise<void> {
  loading ??= loadModule().then(() => {
    loaded = true;
  });
  return loading;
}

/** Whether `loadPgParser` has finished, so `parsePostgres` can be called. */
export function pgParserReady(): boolean {
  return loaded;
}

/**
 * Parses PostgreSQL text as the server would, into its raw parse tree. Throws
 * `SqlParseError` (with the line and column the server's parser gives) on text it refuses.
 *
 * @example
 * await loadPgParser();
 * parsePostgres('SELECT 1; COMMIT').stmts.map((s) => Object.keys(s.stmt)[0])
 * // ['SelectStmt', 'TransactionStmt']
 */
export function parsePostgres(sql: string): PgParseTree {
  if (!loaded) throw new Error('parsePostgres called before loadPgParser() finished');
  let tree: { version: number; stmts?: PgRawStatement[] };
  try {
    tree = parseSync(sql) as { version: number; stmts?: PgRawStatement[] };
  } catch (error) {
    const details = (error as { sqlDetails?: { cursorPosition?: number } }).sqlDetails;
    const message = error instanceof Error ? error.message : String(error);
    throw new SqlParseError(
      `PostgreSQL cannot parse the query: ${message}`,
      details?.cursorPosition === undefined ? undefined : position(sql, details.cursorPosition),
      { cause: error },
    );
  }
  return { version: tree.version, stmts: tree.stmts ?? [] };
}

/** Line and column (1-based) of a 0-based character offset. */
function position(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, offset)).split('\n');
  return { line: before.length, column: (before[before.length - 1]?.length ?? 0) + 1 };
}

/** The node type of each statement, in order (`['SelectStmt']` for one query). */
export function statementKinds(tree: PgParseTree): string[] {
  return tree.stmts.map((s) => Object.keys(s.stmt)[0] ?? '');
}
