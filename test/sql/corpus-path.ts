import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file is test/sql/corpus-path.ts). */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** `../shared/corpora/<relative>` beside the checkout; throws a clear message when missing. */
export function corpusPath(relative: string): string {
  const path = resolve(repoRoot, '..', 'shared', 'corpora', relative);
  if (!existsSync(path)) {
    throw new Error(
      `corpus file ${path} is missing: the tests expect the shared corpora checked out beside the repository (../shared/corpora)`,
    );
  }
  return path;
}

/** The Spider training queries, one per line. */
export function spiderQueries(): string[] {
  return readFileSync(corpusPath('spider/spider_train.sql'), 'utf8')
    .split(/\r?\n/u)
    .filter((line) => line.trim() !== '');
}

export function fixture(relative: string): string {
  return readFileSync(resolve(repoRoot, 'test', 'fixtures', relative), 'utf8');
}
