/**
 * `equisql check --dir DIR`: proves an export clean. Finds every leak a user could be hurt
 * by — a group in two splits, a question text or an SQL text in two splits, and under the
 * `database` split a database (`db_id`) or a schema (`schema_id`) in two — every row that
 * violates `record.schema.json`, and every file whose rows are not what the manifest says.
 * Reads the JSON Lines files (the Parquet files hold the same rows; the tests check that).
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { ConfigError, oneLine } from '../common/errors.ts';
import { manifestSeals, readManifestObject, sealMismatch } from '../common/file-seal.ts';

/** The JSON Schema of a row, as shipped in `output/record.schema.json`. */
export const RECORD_SCHEMA_PATH = resolve(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'output',
  'record.schema.json',
);

export interface CheckFinding {
  readonly kind:
    | 'group-leak'
    | 'question-leak'
    | 'sql-leak'
    | 'database-leak'
    | 'schema-leak'
    | 'schema'
    | 'duplicate'
    | 'row-count'
    | 'file'
    | 'parse'
    | 'empty';
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
  const dirStat = statSync(dir, { throwIfNoEntry: false });
  if (dirStat && !dirStat.isDirectory()) throw new ConfigError(`check: --dir ${dir}: not a directory`);
  if (!existsSync(manifestPath))
    throw new ConfigError(`check: ${manifestPath}: no manifest (run equisql export --dir ${dir} first)`);
  let manifest: Record<string, unknown>;
  try {
    manifest = readManifestObject(dir) as Record<string, unknown>;
  } catch (error) {
    throw new ConfigError(`check: ${oneLine(error)}`);
  }
  const files = manifestFiles(manifest, manifestPath, dir);
  const seals = (() => {
    try {
      return manifestSeals(manifest, manifestPath) ?? {};
    } catch (error) {
      throw new ConfigError(`check: ${oneLine(error)}`);
    }
  })();
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
  const seen = {
    group: new Map<string, string>(),
    question: new Map<string, string>(),
    sql: new Map<string, string>(),
    database: new Map<string, string>(),
    schema: new Map<string, string>(),
  };
  // Under the database split a database, and so each of its schemas, belongs to one split.
  const byDatabase = (manifest['export'] as { split?: unknown } | undefined)?.split === 'database';
  const note = (
    map: Map<string, string>,
    key: string,
    split: string,
    where: string,
    kind: CheckFinding['kind'],
    what: string,
  ): void => {
    const first = map.get(key);
    if (first === undefined) map.set(key, `${split}\u0000${where}`);
    else if (!first.startsWith(`${split}\u0000`))
      find(kind, `${what} in ${first.split('\u0000')[0]} (${first.split('\u0000')[1]}) and ${split} (${where})`);
  };
  // Every file the card's subsets would read (everything under data/ and finetune/) must be
  // one the manifest records: a copy of another split saved under a shard name would be read
  // as this split.
  for (const rel of listFolder(dir, ['data', 'finetune'])) {
    if (rel.endsWith('/'))
      find('file', `${rel}: a folder the manifest does not record, where the card's subsets read files`);
    else if (!Object.hasOwn(files, rel))
      find('file', `${rel}: not recorded in the manifest, but where the card's subsets read files`);
  }
  // The stage files the export was made from, and the card, as their stages sealed them.
  for (const [rel, seal] of Object.entries(seals).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const path = join(dir, rel);
    if (!existsSync(path)) {
      // The stages' inputs may be left out (a Hub folder holds no questions); the card may not.
      if (seal.lines > 0 && (rel === 'README.md' || rel === 'hub-files.txt'))
        find('file', `${rel}: sealed in the manifest, missing`);
      continue;
    }
    refuseDirectory(path, 'sealed');
    const problem = sealMismatch(path, seal);
    if (problem !== undefined) find('file', `${rel}: differs from its seal in the manifest (${problem})`);
  }
  const buildProblem = sameBuild(dir, manifest);
  if (buildProblem) find('file', buildProblem);
  const ids = new Map<string, string>();
  let rows = 0;
  for (const [rel, entry] of Object.entries(files).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const path = join(dir, rel);
    if (!existsSync(path)) {
      find('file', `${rel}: listed in the manifest, missing`);
      continue;
    }
    refuseDirectory(path, 'listed');
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
      // A row's id is its question and variant: one seen twice is a row written twice.
      const id = String(row['id']);
      const first = ids.get(id);
      if (first !== undefined) find('duplicate', `${where}: row ${id.slice(0, 12)} again (first at ${first})`);
      else ids.set(id, where);
      // The file's split, not the row's own word for it: a row moved into another split's file is in that split.
      const split = /^data\/([a-z]+)-/u.exec(rel)?.[1] ?? String(row['split']);
      if (row['split'] !== split) find('schema', `${where}: split "${String(row['split'])}" in the ${split} file`);
      note(
        seen.group,
        String(row['group_id']),
        split,
        where,
        'group-leak',
        `group ${String(row['group_id']).slice(0, 12)}`,
      );
      note(
        seen.question,
        String(row['question']).trim().toLowerCase(),
        split,
        where,
        'question-leak',
        'the same question',
      );
      note(seen.sql, String(row['sql']).replace(/\s+/gu, ' ').trim(), split, where, 'sql-leak', 'the same SQL');
      if (byDatabase) {
        note(seen.database, String(row['db_id']), split, where, 'database-leak', `database ${String(row['db_id'])}`);
        note(seen.schema, String(row['schema_id']), split, where, 'schema-leak', `schema ${String(row['schema_id'])}`);
      }
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

/** The manifest's `export.files`, each entry checked to be {rows, sha256}; a one-line ConfigError otherwise. */
function manifestFiles(
  manifest: Readonly<Record<string, unknown>>,
  manifestPath: string,
  dir: string,
): Record<string, { rows: number; sha256: string }> {
  const section = manifest['export'];
  const files =
    section !== null && typeof section === 'object' ? (section as Record<string, unknown>)['files'] : undefined;
  if (files === undefined || files === null)
    throw new ConfigError(`check: ${manifestPath}: no export section (run equisql export --dir ${dir} first)`);
  if (typeof files !== 'object' || Array.isArray(files))
    throw new ConfigError(`check: ${manifestPath}: export.files must be an object of {rows, sha256} by file`);
  for (const [rel, entry] of Object.entries(files as Record<string, unknown>)) {
    const e = entry as { rows?: unknown; sha256?: unknown } | null;
    if (
      e === null ||
      typeof e !== 'object' ||
      !Number.isSafeInteger(e.rows) ||
      (e.rows as number) < 0 ||
      typeof e.sha256 !== 'string' ||
      !/^[0-9a-f]{64}$/u.test(e.sha256)
    ) {
      throw new ConfigError(
        `check: ${manifestPath}: export.files["${rel}"] must be {"rows": a whole number, "sha256": 64 hex digits}, got ${JSON.stringify(entry)?.slice(0, 80)}`,
      );
    }
    if (rel.split('/').includes('..') || rel.startsWith('/'))
      throw new ConfigError(`check: ${manifestPath}: export.files["${rel}"] names a file outside ${dir}`);
  }
  return files as Record<string, { rows: number; sha256: string }>;
}

/** A directory (or other non-file) where the manifest names a file: not a finding but a surprise, in one line. */
function refuseDirectory(path: string, how: 'listed' | 'sealed'): void {
  const stat = statSync(path);
  if (!stat.isFile())
    throw new ConfigError(
      `check: ${path}: ${stat.isDirectory() ? 'a directory' : 'not a regular file'}, where the manifest ${how === 'listed' ? 'lists' : 'seals'} a file`,
    );
}

/** Every entry under the folders `subs` of `dir`, relative, folders ending in `/` (not descended into). */
function listFolder(dir: string, subs: readonly string[]): string[] {
  const out: string[] = [];
  for (const sub of subs) {
    const stat = statSync(join(dir, sub), { throwIfNoEntry: false });
    if (!stat) continue;
    if (!stat.isDirectory()) {
      out.push(sub);
      continue;
    }
    for (const name of readdirSync(join(dir, sub)).sort()) {
      const rel = `${sub}/${name}`;
      out.push(statSync(join(dir, rel)).isDirectory() ? `${rel}/` : rel);
    }
  }
  return out;
}

/** Why the build in `dir` is not the one the groups were verified on, or undefined. */
function sameBuild(dir: string, manifest: Readonly<Record<string, unknown>>): string | undefined {
  const instances = manifest['instances'] as { main?: unknown } | undefined;
  const path = join(dir, 'build.json');
  if (instances?.main === undefined || !existsSync(path)) return undefined;
  let build: { instance_hash?: unknown; variants?: { name?: unknown }[] };
  try {
    build = JSON.parse(readFileSync(path, 'utf8')) as typeof build;
  } catch {
    return 'build.json: not JSON';
  }
  if (build.instance_hash !== instances.main)
    return `build.json: another build than the one the groups were verified on (instance ${String(build.instance_hash).slice(0, 12)}…, the manifest's ${String(instances.main).slice(0, 12)}…)`;
  const names = Array.isArray(build.variants) ? build.variants.map((v) => v?.name) : [];
  if (Array.isArray(manifest['variants']) && JSON.stringify(manifest['variants']) !== JSON.stringify(names))
    return `build.json: variants ${names.join(',')}, the groups were verified on ${(manifest['variants'] as unknown[]).join(',')}`;
  return undefined;
}

/**
 * Reads a file a chunk at a time (an export's file can be larger than one string may be):
 * its SHA-256, and, when `lines` is set, each line (an unfinished last one included) to
 * `onLine`. `unfinished` is true when a non-empty file does not end with a newline.
 */
export function readLines(
  path: string,
  lines: boolean,
  onLine: (line: string) => void,
): { sha256: string; unfinished: boolean } {
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
