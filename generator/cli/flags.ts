import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ConfigError } from '../common/errors.ts';
import { escapeControl } from '../common/user-text.ts';

type Options = NonNullable<ParseArgsConfig['options']>;

/** A number as a flag value may be written (`-5`, `-0.5`, `-1e3`): a value, not a flag. */
const NEGATIVE_NUMBER = /^-(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/u;

/** How a flag is written on the command line: `-n`, `--max-depth`. */
export function flagName(flag: string): string {
  return flag.length === 1 ? `-${flag}` : `--${flag}`;
}

function known(options: Options): string {
  const names = Object.keys(options).map(flagName);
  return names.length === 0 ? 'it takes no flags' : `flags: ${names.join(', ')}`;
}

/**
 * Rewrites `--flag VALUE` and `-f VALUE` of value-taking flags as `--flag=VALUE`, so a value
 * that starts with a dash (`--seed -5`, `-n -5`) is read as the value and then validated by
 * the command, instead of being taken for a flag. A flag followed by another flag, or by
 * nothing, is refused here with a message that says how to write such a value.
 */
function attachValues(command: string, args: readonly string[], options: Options): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--') {
      out.push(...args.slice(i));
      break;
    }
    let key: string | undefined;
    if (/^--[^=]+$/u.test(arg)) key = arg.slice(2);
    else if (/^-[^-]$/u.test(arg)) key = Object.keys(options).find((k) => options[k]?.short === arg.slice(1));
    const option = key !== undefined && Object.hasOwn(options, key) ? options[key] : undefined;
    if (key === undefined || option?.type !== 'string') {
      out.push(arg);
      continue;
    }
    const value = args[i + 1];
    const shown = escapeControl(arg);
    if (value === undefined) throw new ConfigError(`${command}: ${shown} needs a value`);
    if (value.startsWith('-') && value !== '-' && !NEGATIVE_NUMBER.test(value)) {
      throw new ConfigError(
        `${command}: ${shown} needs a value, got the flag "${escapeControl(value)}" (write --${key}=${escapeControl(value)} for a value that starts with "-")`,
      );
    }
    out.push(`--${key}=${value}`);
    i++;
  }
  return out;
}

/** parseArgs' own errors, rewritten as one line that names the command and the flag. */
function flagError(command: string, error: unknown, options: Options): ConfigError {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: string }).code;
  const quoted = /'([^']*)'/u.exec(message)?.[1] ?? '';
  const flag = escapeControl(quoted.replace(/ <value>$/u, ''));
  switch (code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return new ConfigError(`${command}: unknown flag ${flag} (${known(options)})`);
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return new ConfigError(`${command}: unexpected argument "${flag}" (${known(options)})`);
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return /does not take an argument/u.test(message)
        ? new ConfigError(`${command}: ${flag} takes no value`)
        : new ConfigError(`${command}: ${escapeControl(message.replace(/\s*\n\s*/gu, ' '))}`);
    default:
      return new ConfigError(`${command}: ${escapeControl(message.replace(/\s*\n\s*/gu, ' '))}`);
  }
}

/** What parseCommandLine returns: parseArgs' values and positionals for these options (named, for the declarations). */
export type ParsedCommandLine<O extends Options> = Omit<
  ReturnType<typeof parseArgs<{ args: string[]; options: O; strict: true; allowPositionals: boolean; tokens: true }>>,
  'tokens'
>;

/**
 * Parses a command's flags and positional arguments strictly: an unknown flag, a missing
 * value or an unexpected argument is a one-line ConfigError naming the command and the flag.
 * A value may start with a dash (`--seed -5` is the value -5).
 *
 * @example
 * parseCommandLine('check', ['g.pcfg'], {}, { positionals: true }); // { values: {}, positionals: ['g.pcfg'] }
 */
export function parseCommandLine<O extends Options>(
  command: string,
  args: readonly string[],
  options: O,
  settings: { positionals?: boolean } = {},
): ParsedCommandLine<O> {
  const prepared = attachValues(command, args, options);
  let parsed;
  try {
    parsed = parseArgs({
      args: prepared,
      options,
      strict: true,
      allowPositionals: settings.positionals ?? false,
      tokens: true,
    });
  } catch (error) {
    throw flagError(command, error, options);
  }
  refuseRepeats(command, parsed.tokens, options);
  const { tokens: _tokens, ...result } = parsed;
  return result;
}

/**
 * A single-valued flag given twice is refused: taking the last value silently (as
 * parseArgs does) turns `--ratios train=0.8 … --ratios train=0.1` into a run the user did
 * not ask for. Flags declared `multiple` may repeat; so may a boolean switch.
 */
function refuseRepeats(command: string, tokens: readonly { kind: string; name?: string }[], options: Options): void {
  const seen = new Set<string>();
  for (const token of tokens) {
    if (token.kind !== 'option' || token.name === undefined) continue;
    const option = options[token.name];
    if (option?.type !== 'string' || option.multiple) continue;
    if (seen.has(token.name))
      throw new ConfigError(`${command}: ${flagName(token.name)} is given twice (give it once)`);
    seen.add(token.name);
  }
}

/**
 * Parses a command's flags strictly: an unknown flag or a missing value is a one-line
 * ConfigError naming the command and the flag.
 *
 * @example
 * parseFlags('suite', ['--dir', 'out', '--json'], { dir: { type: 'string' }, json: { type: 'boolean' } });
 * // { dir: 'out', json: true }
 */
export function parseFlags<O extends Options>(
  command: string,
  args: readonly string[],
  options: O,
): ParsedCommandLine<O>['values'] {
  return parseCommandLine(command, args, options).values;
}

/** A required flag's value, or a ConfigError naming it. */
export function required(command: string, flag: string, value: string | undefined): string {
  if (value === undefined || value === '') throw new ConfigError(`${command}: ${flagName(flag)} is required`);
  return value;
}
