import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ConfigError } from '../common/errors.ts';

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * Parses a command's flags strictly: an unknown flag or a missing value is a one-line
 * ConfigError naming the command and the flag.
 */
export function parseFlags<O extends Options>(command: string, args: readonly string[], options: O) {
  try {
    return parseArgs({ args: [...args], options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new ConfigError(`${command}: ${(error as Error).message.split('\n')[0]}`);
  }
}

/** A required flag's value, or a ConfigError naming it. */
export function required(command: string, flag: string, value: string | undefined): string {
  if (value === undefined || value === '') throw new ConfigError(`${command}: --${flag} is required`);
  return value;
}
