import type { CliIo, Command } from './command.ts';
import { EquisqlError, oneLine } from '../common/errors.ts';

/**
 * Every subcommand, loaded on demand so `equisql canon` does not pay for PGlite and
 * `equisql build` does not pay for the SQL parser.
 */
const COMMANDS: Record<string, () => Promise<{ command: Command }>> = {
  build: () => import('./build-command.ts'),
  verify: () => import('./verify-command.ts'),
  variants: () => import('./variants-command.ts'),
  compile: () => import('./compile-command.ts'),
  suite: () => import('./suite-command.ts'),
  grammar: () => import('./grammar-command.ts'),
  canon: () => import('./canon-command.ts'),
  structure: () => import('./structure-command.ts'),
  generate: () => import('./generate-command.ts'),
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
 * Runs the CLI on `argv` (without the node and script paths) and returns the exit status.
 * Errors are printed as one line on stderr; set EQUISQL_DEBUG=1 for the stack.
 */
export async function main(argv: readonly string[], io?: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  const quiet = rest.includes('--quiet');
  const streams = io ?? processIo(quiet);
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    streams.out(usage());
    return name === undefined ? 2 : 0;
  }
  const load = COMMANDS[name];
  if (!load) {
    process.stderr.write(`equisql: unknown command "${name}" (known: ${Object.keys(COMMANDS).join(', ')})\n`);
    return 2;
  }
  try {
    const { command } = await load();
    if (rest.includes('--help') || rest.includes('-h')) {
      streams.out(command.usage);
      return 0;
    }
    return await command.run(rest.filter((arg) => arg !== '--quiet'), streams);
  } catch (error) {
    if (streams.env['EQUISQL_DEBUG'] && error instanceof Error) process.stderr.write(`${error.stack}\n`);
    const prefix = error instanceof EquisqlError ? `equisql ${name}` : `equisql ${name}: internal error`;
    process.stderr.write(`${prefix}: ${oneLine(error)}\n`);
    return error instanceof EquisqlError && error.code === 'config' ? 2 : 1;
  }
}
