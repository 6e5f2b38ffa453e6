/**
 * The typed error hierarchy of equisql. Every error the library raises on bad input is one
 * of these, with a message that names the file, path or query at fault, so the CLI can print
 * it as a single line instead of a stack trace.
 */
export class EquisqlError extends Error {
  /** A stable, machine-readable code (`config`, `shred`, `load`, …). */
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}

/** A malformed E/R model, dataset config, flag or file given by the user. */
export class ConfigError extends EquisqlError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('config', message, options);
  }
}

/** A variant that cannot represent the model, or an instance that cannot be shredded. */
export class ShredError extends EquisqlError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('shred', message, options);
  }
}

/** A database that cannot be reached or refuses the DDL or data. */
export class LoadError extends EquisqlError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('load', message, options);
  }
}

/** A directory another equisql process is writing; names the directory and the holder. */
export class BusyError extends EquisqlError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('busy', message, options);
  }
}

/**
 * The file system refused (a full disk, a file where a directory must be, a symlink loop):
 * a fault of the place the user pointed at, not of equisql. Names the path.
 */
export class FileSystemError extends EquisqlError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('fs', message, options);
  }
}

/**
 * A fault of the run, not of its input: the database connection was lost or refused and
 * could not be reopened, a database worker died. A stage that meets one stops without
 * recording anything for the candidate at hand, so `--resume` continues where it stopped.
 */
export class RunFaultError extends EquisqlError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('fault', message, options);
  }
}

/** SQL text that does not parse; carries the position when the parser gives one. */
export class SqlParseError extends EquisqlError {
  readonly line: number | undefined;
  readonly column: number | undefined;

  constructor(message: string, position?: { line?: number; column?: number }, options?: { cause?: unknown }) {
    super('parse', message, options);
    this.line = position?.line;
    this.column = position?.column;
  }
}

/** A grammar file that is malformed or inconsistent; names the file and line. */
export class GrammarError extends EquisqlError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('grammar', message, options);
  }
}

/** A conceptual query that cannot be compiled for a variant. */
export class CompileError extends EquisqlError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('compile', message, options);
  }
}

/**
 * A construct one SQL dialect cannot say with the same meaning (`sqlite: ILIKE on a
 * non-ASCII pattern`): the query is refused for that dialect, never approximated.
 */
export class DialectError extends CompileError {
  readonly dialect: string;
  readonly construct: string;
  /** What was said of the construct, without the dialect and construct before it. */
  readonly why: string;
  /** The dialect rule that refused it (`no-rule` when no rule says it), once known. */
  readonly rule: string | undefined;
  constructor(dialect: string, construct: string, message: string, rule?: string) {
    super(`${dialect}: ${construct}: ${message}`);
    this.dialect = dialect;
    this.construct = construct;
    this.why = message;
    this.rule = rule;
  }
}

/** A query that fails or times out on a database. */
export class ExecutionError extends EquisqlError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('execution', message, options);
  }
}

/** An LLM endpoint that fails, times out or answers garbage. */
export class LlmError extends EquisqlError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('llm', message, options);
  }
}

/** The first line of any thrown value, for one-line reports. */
export function oneLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0] ?? text;
}

/**
 * True for V8's "Maximum call stack size exceeded": a tree walk that one huge or deeply
 * nested input drove too deep. Batch commands report it for that input and go on.
 */
export function isStackOverflow(error: unknown): boolean {
  return error instanceof RangeError && /call stack/iu.test(error.message);
}
