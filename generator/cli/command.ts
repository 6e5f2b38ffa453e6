/** What a CLI command sees of the process: its streams, and nothing else. */
export interface CliIo {
  /** Machine-readable output (results, JSON lines). */
  readonly out: (text: string) => void;
  /** Progress and diagnostics; silenced by `--quiet`. */
  readonly err: (text: string) => void;
  /** Standard input as text (read lazily, only by commands that want it). */
  readonly readStdin: () => Promise<string>;
  /** The process environment, passed in so commands can be run with another. */
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** One `equisql` subcommand. `run` returns the exit status and never calls `process.exit`. */
export interface Command {
  readonly name: string;
  readonly summary: string;
  readonly usage: string;
  run(args: readonly string[], io: CliIo): Promise<number>;
}
