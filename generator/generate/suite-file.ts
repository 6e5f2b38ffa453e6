/**
 * Users' own questions: a JSON Lines file, one conceptual query a line,
 * `{"id": "q1", "query": {...}, "question": "optional text"}`. `equisql suite --suite
 * FILE.jsonl` runs them on every variant like a built-in suite; `equisql generate
 * --from-suite FILE` turns each line into a group through the same checks as generated
 * candidates, so hand-written gold is verified like generated gold.
 */
import { existsSync } from 'node:fs';
import { ConfigError } from '../common/errors.ts';
import { readInputFile } from '../common/input-file.ts';
import type { Query } from '../query/conceptual-query.ts';

export interface SuiteEntry {
  readonly id: string;
  readonly query: Query;
  readonly question?: string;
}

/**
 * Reads a suite file; a bad line is a ConfigError naming the file and line. `flag` names the
 * flag that gave the path, for the message about a missing file.
 */
export function readSuiteFile(path: string, flag = '--from-suite'): SuiteEntry[] {
  if (!existsSync(path)) throw new ConfigError(`${flag}: no such file ${path}`);
  const entries: SuiteEntry[] = [];
  const ids = new Set<string>();
  readInputFile(path, flag)
    .split('\n')
    .forEach((line, i) => {
      if (line.trim() === '') return;
      const where = `${path}:${i + 1}`;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (error) {
        throw new ConfigError(`${where}: not JSON: ${(error as Error).message}`);
      }
      const o = value as Record<string, unknown>;
      if (typeof o !== 'object' || o === null || typeof o['id'] !== 'string' || o['id'] === '')
        throw new ConfigError(`${where}: expected an object with a non-empty string "id"`);
      const q = o['query'] as { kind?: unknown } | undefined;
      if (typeof q !== 'object' || q === null || (q.kind !== 'select' && q.kind !== 'set'))
        throw new ConfigError(`${where}: "query" must be a conceptual query (kind "select" or "set")`);
      if (o['question'] !== undefined && typeof o['question'] !== 'string')
        throw new ConfigError(`${where}: "question" must be a string`);
      if (ids.has(o['id'])) throw new ConfigError(`${where}: id "${o['id']}" appears twice`);
      ids.add(o['id']);
      entries.push({
        id: o['id'],
        query: q as Query,
        ...(typeof o['question'] === 'string' ? { question: o['question'] } : {}),
      });
    });
  return entries;
}
