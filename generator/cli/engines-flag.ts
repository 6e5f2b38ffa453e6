import { ConfigError } from '../common/errors.ts';

export type Engine = 'postgres' | 'sqlite';

/**
 * `--engines postgres,sqlite`: PostgreSQL is always built and checked on, SQLite on request.
 *
 * @example
 * parseEngines('generate', 'sqlite'); // ['postgres', 'sqlite']
 */
export function parseEngines(command: string, text: string | undefined): Engine[] {
  const names = (text ?? 'postgres').split(',').map((n) => n.trim());
  for (const n of names)
    if (n !== 'postgres' && n !== 'sqlite')
      throw new ConfigError(`${command}: --engines takes postgres and sqlite, got "${n}"`);
  return ['postgres', ...(names.includes('sqlite') ? (['sqlite'] as const) : [])];
}
