import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createDatabase } from './postgres.ts';
import { REPO_ROOT } from './run-cli.ts';

/** The real databases beside the checkout (../shared/databases), read in place, never copied. */
const SHARED_DATABASES = resolve(REPO_ROOT, '../shared/databases');
export const PAGILA_DIR = join(SHARED_DATABASES, 'pagila');
export const CHINOOK_SQLITE = join(SHARED_DATABASES, 'chinook/Chinook_Sqlite.sqlite');
export const hasPagila =
  existsSync(join(PAGILA_DIR, 'pagila-schema.sql')) && existsSync(join(PAGILA_DIR, 'pagila-data.sql'));
export const hasChinook = existsSync(CHINOOK_SQLITE);

/** Pagila's own schema and data files loaded with psql into a fresh database of the test server. */
export async function loadPagila(
  serverUrl: string,
  label: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const db = await createDatabase(serverUrl, label);
  for (const file of ['pagila-schema.sql', 'pagila-data.sql'])
    execFileSync('psql', ['-q', '-v', 'ON_ERROR_STOP=1', '-d', db.url, '-f', join(PAGILA_DIR, file)], {
      stdio: 'ignore',
    });
  return db;
}
