/**
 * `equisql check --dir DIR`: proves an export clean. Finds every leak a user could be hurt
 * by — a group in two splits, a question text or an SQL text in two splits — every row that
 * violates `record.schema.json`, and every file whose rows are not what the manifest says.
 * Reads the JSON Lines files (the Parquet files hold the same rows; the tests check that).
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync, readSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { ConfigError } from '../common/errors.ts';

/** The JSON Schema of a row, as shipped in `output/record.schema.json`. */
export const RECORD_SCHEMA_PATH = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'output', 'record.schema.json');

export interface CheckFinding {
  readonly kind: 'group-leak' | 'question-leak' | 'sql-leak' | 'schema' | 'row-count' | 'file' | 'parse' | 'empty';
  readonly detail: string;
}

export interface CheckReport {
  readonly rows: number;
  readonly files: number;
  readonly findings: readonly CheckFinding[];
}

/**
 * Checks an export; the report lists each problem found (at most 20 of each kind are
 * spelled out). An empty `findings` means the export is clean.
 *
 * @example
 * checkExport('output/social_media').findings.length; // 0
 */
export function checkExport(dir: string): CheckReport {
  const manifestPath = join(dir, 'manifest.json');
  if (!existsSync(manifestPath)) throw new ConfigError(`check: ${manifestPath}: no manifest (run equisql export --dir ${dir} first)`);
  let manifest: { export?: { files?: Record<string, { rows: number; sha256: string }> } };
  try {
    manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  } catch (error) {
    throw new ConfigError(`check: ${manifestPath}: not JSON: ${(error as Error).message}`);
  }
  const files = manifest.export?.files;
  if (!files) throw new ConfigError(`check: ${manifestPath}: no export section (run equisql export --dir ${dir} first)`);
  const ajv = new Ajv({ allErrors: true });
  const validate = ajv.compile(JSON.parse(readFileSync(RECORD_SCHEMA_PATH, 'utf8')));
  const findings: CheckFinding[] = [];
  const shown = new Map<string, number>();
  const find = (kind: CheckFinding['kind'], detail: string): void => {
    const n = (shown.get(kind) ?? 0) + 1;
    shown.set(kind, n);
    findings.push({ kind, detail: n <= 20 ? detail : '(more)' });
  };
  // Where each group, question text and SQL text was seen first: its split and place.
  const seen = { group: new Map<string, string>(), question: new Map<string, string>(), sql: new Map<string, string>() };
  const note = (map: Map<string, string>, key: string, split: string, where: string, kind: CheckFinding['kind'], what: string): void => {
    const first = map.get(key);
    if (first === undefined) map.set(key, `${split}\u0000${where}`);
    else if (!first.startsWith(`${split}\u0000`)) find(kind, `${what} in ${first.split('\u0000')[0]} (${first.split('\u0000')[1]}) and ${split} (${where})`);
  };
  let rows = 0;
  for (const [rel, entry] of Object.entries(files).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const path = join(dir, rel);
    if (!existsSync(path)) {
      find('file', `${rel}: listed in the manifest, missing`);
      continue;
    }
    const jsonl = rel.endsWith('.jsonl');
    const data = jsonl && rel.startsWith('data/');
    let count = 0;
    const { sha256: digest, unfinished } = readLines(path, jsonl, (line) => {
      count++;
      if (!data) return;
      const where = `${rel}:${count}`;
      let row: Record<string, unknown>;
      try {
        row = JSON.parse(line) as Record<string, unknown>;
      } catch {
        find('parse', `${where}: not JSON`);
        return;
      }
      rows++;
      if (!validate(row)) find('schema', `${where}: ${ajv.errorsText(validate.errors)}`);
      // The file's split, not the row's own word for it: a row moved into another split's file is in that split.
      const split = /^data\/([a-z]+)-/u.exec(rel)?.[1] ?? String(row['split']);
      if (row['split'] !== split) find('schema', `${where}: split "${String(row['split'])}" in the ${split} file`);
      note(seen.group, String(row['group_id']), split, where, 'group-leak', `group ${String(row['group_id']).slice(0, 12)}`);
      note(seen.question, String(row['question']).trim().toLowerCase(), split, where, 'question-leak', 'the same question');
      note(seen.sql, String(row['sql']).replace(/\s+/gu, ' ').trim(), split, where, 'sql-leak', 'the same SQL');
    });
    if (digest !== entry.sha256) find('file', `${rel}: sha256 differs from the manifest's`);
    if (!jsonl) continue;
    if (unfinished) find('parse', `${rel}: last line unfinished (no newline)`);
    if (count !== entry.rows) find('row-count', `${rel}: ${count} lines, the manifest says ${entry.rows}`);
  }
  // Nothing to leak is not a dataset: an export without rows is reported, not passed.
  if (rows === 0) find('empty', 'the export has no data rows (no questions for its groups?)');
  return { rows, files: Object.keys(files).length, findings };
}

/**
 * Reads a file a chunk at a time (an export's file can be larger than one string may be):
 * its SHA-256, and, when `lines` is set, each line (an unfinished last one included) to
 * `onLine`. `unfinished` is true when a non-empty file does not end with a newline.
 */
export function readLines(path: string, lines: boolean, onLine: (line: string) => void): { sha256: string; unfinished: boolean } {
  const hash = createHash('sha256');
  const decoder = new StringDecoder('utf8');
  const buffer = Buffer.alloc(1 << 22);
  const fd = openSync(path, 'r');
  let rest = '';
  try {
    for (;;) {
      const n = readSync(fd, buffer, 0, buffer.length, null);
      if (n === 0) break;
      const chunk = buffer.subarray(0, n);
      hash.update(chunk);
      if (!lines) continue;
      const parts = (rest + decoder.write(chunk)).split('\n');
      rest = parts.pop() as string;
      for (const line of parts) onLine(line);
    }
  } finally {
    closeSync(fd);
  }
  rest += decoder.end();
  if (lines && rest !== '') onLine(rest);
  return { sha256: hash.digest('hex'), unfinished: rest !== '' };
}
