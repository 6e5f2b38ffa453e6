import { EXIT, type CliIo, type Command } from './command.ts';
import { EquisqlError, FileSystemError, oneLine } from '../common/errors.ts';
import { describeFileSystemError, isFileSystemError } from '../common/input-file.ts';
import { escapeControl, ownValue } from '../common/user-text.ts';
import { helpText } from './flag-table.ts';

/**
 * Every subcommand, loaded on demand so `equisql canon` does not pay for PGlite and
 * `equisql build` does not pay for the SQL parser.
 */
export const COMMANDS: Readonly<Record<string, () => Promise<{ command: Command }>>> = {
  build: () => import('./build-command.ts'),
  verify: () => import('./verify-command.ts'),
  variants: () => import('./variants-command.ts'),
  compile: () => import('./compile-command.ts'),
  suite: () => import('./suite-command.ts'),
  run: () => import('./run-command.ts'),
  grammar: () => import('./grammar-command.ts'),
  canon: () => import('./canon-command.ts'),
  structure: () => import('./structure-command.ts'),
  generate: () => import('./generate-command.ts'),
  questions: () => import('./questions-command.ts'),
  show: () => import('./show-command.ts'),
  export: () => import('./export-command.ts'),
  check: () => import('./check-command.ts'),
  merge: () => import('./merge-command.ts'),
  eval: () => import('./eval-command.ts'),
  import: () => import('./import-command.ts'),
};

function processIo(quiet: boolean): CliIo {
  return {
    out: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
    err: quiet ? () => {} : (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
    drain: () =>
      process.stdout.writableNeedDrain
        ? new Promise((done) => process.stdout.once('drain', done))
        : new Promise((done) => setImmediate(done)),
    ...(quiet
      ? {}
      : {
          progress: {
            tty: process.stderr.isTTY === true,
            write: (text: string) => void process.stderr.write(text),
            ...(process.stderr.columns ? { columns: process.stderr.columns } : {}),
          },
        }),
    terminal: process.stdout.isTTY === true,
    env: process.env,
  };
}

function usage(): string {
  return [
    'usage: equisql <command> [options]',
    '',
    'commands:',
    ...Object.keys(COMMANDS).map((name) => `  ${name}`),
    '',
    'Run `equisql <command> --help` for the options of one command.',
  ].join('\n');
}

/**
 * The one line a failed command prints: `equisql <cmd>: <message>`, with "internal error"
 * for anything that is not an EquisqlError (a bug, not bad input). Messages of library
 * functions that name their command (`suite: --dir is required`) do not repeat it.
 */
export function errorLine(name: string, error: unknown): string {
  if (!(error instanceof EquisqlError) && isFileSystemError(error))
    error = new FileSystemError(describeFileSystemError(error), { cause: error });
  let message = escapeControl(oneLine(error));
  if (message.startsWith(`${name}: `)) message = message.slice(name.length + 2);
  return error instanceof EquisqlError ? `equisql ${name}: ${message}` : `equisql ${name}: internal error: ${message}`;
}

/**
 * Runs the CLI on `argv` (without the node and script paths) and returns the exit status
 * (`EXIT`: 0 ok, 1 a check failed, 2 bad input, 3 internal error). Errors are printed as one
 * line on stderr, also under --quiet; set EQUISQL_DEBUG=1 for the stack.
 */
export async function main(argv: readonly string[], io?: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  const quiet = rest.includes('--quiet');
  const streams = io ?? processIo(quiet);
  const fail = streams.fail ?? ((text: string) => void process.stderr.write(text));
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    streams.out(usage());
    return name === undefined ? EXIT.badInput : EXIT.ok;
  }
  const load = ownValue(COMMANDS, name);
  if (!load) {
    fail(`equisql: unknown command "${escapeControl(name)}" (known: ${Object.keys(COMMANDS).join(', ')})\n`);
    return EXIT.badInput;
  }
  try {
    const { command } = await load();
    if (rest.includes('--help') || rest.includes('-h')) {
      streams.out(helpText(command, command.subcommands));
      return 0;
    }
    return await command.run(
      rest.filter((arg) => arg !== '--quiet'),
      streams,
    );
  } catch (error) {
    if (streams.env['EQUISQL_DEBUG'] && error instanceof Error) fail(`${error.stack}\n`);
    // Printed past --quiet: a failing command must always say why.
    fail(`${errorLine(name, error)}\n`);
    // A file system that refuses (ENOSPC, EEXIST, ELOOP, …) is the place's fault, not a bug.
    return error instanceof EquisqlError || isFileSystemError(error) ? EXIT.badInput : EXIT.internal;
  }
}

/** Every command, loaded, in the order `equisql --help` lists them (for the CLI reference). */
export async function loadCommands(): Promise<Command[]> {
  return Promise.all(Object.values(COMMANDS).map(async (load) => (await load()).command));
}
