import type { CommandHelp } from './flag-table.ts';

/** What a CLI command sees of the process: its streams, and nothing else. */
export interface CliIo {
  /** Machine-readable output (results, JSON lines). */
  readonly out: (text: string) => void;
  /** Progress and diagnostics; silenced by `--quiet`. */
  readonly err: (text: string) => void;
  /** Standard input as text (read lazily, only by commands that want it). */
  readonly readStdin: () => Promise<string>;
  /**
   * Resolves once `out`'s buffered text has been taken by the reader: commands that write
   * without end await it now and then, so a slow reader slows them instead of filling memory.
   */
  readonly drain?: () => Promise<void>;
  /**
   * Raw stderr for progress displays (a bar redrawn in place needs text without a newline),
   * and whether it is a terminal; absent under --quiet and when commands run in tests,
   * where progress goes to `err` as plain lines.
   */
  readonly progress?: { readonly tty: boolean; readonly write: (text: string) => void; readonly columns?: number };
  /** Whether `out` is a terminal (text from data is then escaped where a format keeps it raw). */
  readonly terminal?: boolean;
  /**
   * Where the one line of a refused or failed command goes, printed past --quiet; stderr when
   * absent. Given when commands run in-process in tests.
   */
  readonly fail?: (text: string) => void;
  /** The process environment, passed in so commands can be run with another. */
  readonly env: Readonly<Record<string, string | undefined>>;
}

/**
 * One `equisql` subcommand. `run` returns the exit status and never calls `process.exit`.
 * Its flags are declared in `flags` (the table `--help` and docs/cli.md are printed from),
 * and `run` parses its arguments against that same table (`parseTable`).
 */
export interface Command extends CommandHelp {
  /** Subcommands (`grammar sample`), each with its own flags; `--help` shows them all. */
  readonly subcommands?: readonly CommandHelp[];
  run(args: readonly string[], io: CliIo): Promise<number>;
}

/**
 * The exit statuses of every command, documented in the README. A script can tell "the
 * data is wrong" (1) from "I was called wrong" (2) from "equisql has a bug" (3).
 */
export const EXIT = {
  /** Done; every check passed. */
  ok: 0,
  /** Ran to the end, and a check failed: variants disagree, a read-back differs, fewer samples than asked. */
  checkFailed: 1,
  /** Refused its input or environment (flag, file, model, query, grammar, database), named in one line. */
  badInput: 2,
  /** An internal error: a bug in equisql, printed as "internal error". */
  internal: 3,
} as const;
