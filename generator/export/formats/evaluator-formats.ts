/**
 * The files that standard text-to-SQL evaluators read, per split: BIRD's questions and gold
 * file, defog sql-eval's questions CSV, Spider's gold file. Each format is its own module.
 */
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../../common/errors.ts';
import type { ExportRecord } from '../../records/export-record.ts';
import type { SplitName } from '../split-assign.ts';
import { birdFiles } from './bird-files.ts';
import { defogFiles } from './defog-files.ts';
import { EVALUATOR_DIR, type EvaluatorFile } from './evaluator-file.ts';
import { spiderFiles } from './spider-files.ts';
import { SPIDER_FOLDER, SQLITE_FOLDER, sqliteFiles, type SqliteSource } from './sqlite-files.ts';

export const EVALUATOR_FORMATS = ['bird', 'defog', 'spider', 'sqlite'] as const;
export type EvaluatorFormat = (typeof EVALUATOR_FORMATS)[number];

/**
 * The files of `formats` for one split's rows, the records a format had to leave out, the
 * rows the SQLite layout holds (`sqlite`, which needs the run's SQLite source) and how many of
 * them Spider's evaluator can read.
 */
export function evaluatorFiles(
  split: SplitName,
  rows: readonly ExportRecord[],
  formats: readonly EvaluatorFormat[],
  sqlite?: SqliteSource,
): {
  files: EvaluatorFile[];
  leftOut: Partial<Record<EvaluatorFormat, number>>;
  sqliteRows: ExportRecord[];
  spiderRows: number;
} {
  const files: EvaluatorFile[] = [];
  const leftOut: Partial<Record<EvaluatorFormat, number>> = {};
  let held: ExportRecord[] = [];
  let spider = 0;
  for (const f of formats) {
    if (f === 'bird') files.push(...birdFiles(split, rows));
    else if (f === 'spider') files.push(...spiderFiles(split, rows));
    else if (f === 'sqlite') {
      if (!sqlite) throw new ConfigError("export: --formats sqlite needs the run's SQLite files");
      const s = sqliteFiles(split, rows, sqlite);
      files.push(...s.files);
      leftOut.sqlite = s.leftOut;
      held = s.rows;
      spider = s.spider;
    } else {
      const d = defogFiles(split, rows);
      files.push(...d.files);
      leftOut.defog = d.leftOut;
    }
  }
  return { files, leftOut, sqliteRows: held, spiderRows: spider };
}

/** Makes `evaluators/<format>/` for each format to be written. */
export function prepareEvaluatorDirs(dir: string, formats: readonly EvaluatorFormat[]): void {
  for (const f of formats) mkdirSync(join(dir, EVALUATOR_DIR, f), { recursive: true });
  if (formats.includes('sqlite'))
    mkdirSync(join(dir, EVALUATOR_DIR, SQLITE_FOLDER, SPIDER_FOLDER), { recursive: true });
}

/**
 * Removes what an earlier export left under `evaluators/` and this one did not write
 * (`written`: the export's files by relative path): the folder of a format not asked for,
 * a split's file no longer there, the whole folder when no evaluator format was asked for.
 */
export function removeStaleEvaluatorFiles(
  dir: string,
  formats: readonly EvaluatorFormat[],
  written: Readonly<Record<string, unknown>>,
): void {
  const root = join(dir, EVALUATOR_DIR);
  if (!existsSync(root)) return;
  if (formats.length === 0) {
    rmSync(root, { recursive: true, force: true });
    return;
  }
  for (const f of readdirSync(root)) {
    const sub = join(root, f);
    if (!(formats as readonly string[]).includes(f)) rmSync(sub, { recursive: true, force: true });
    else removeUnwritten(dir, `${EVALUATOR_DIR}/${f}`, written);
  }
}

/** Removes under `rel` every file `written` does not list, and the folders left empty. */
function removeUnwritten(dir: string, rel: string, written: Readonly<Record<string, unknown>>): void {
  for (const name of readdirSync(join(dir, rel))) {
    if (name.startsWith('.')) continue;
    const child = `${rel}/${name}`;
    if (statSync(join(dir, child)).isDirectory()) {
      removeUnwritten(dir, child, written);
      if (readdirSync(join(dir, child)).length === 0) rmSync(join(dir, child), { recursive: true, force: true });
    } else if (!Object.hasOwn(written, child)) rmSync(join(dir, child), { force: true });
  }
}

/** The progress line for the records a format had to leave out. */
export function leftOutNote(format: EvaluatorFormat, count: number): string {
  const why =
    format === 'defog'
      ? 'their SQL holds a ";" or a "{…}", which sql-eval reads as other queries'
      : format === 'sqlite'
        ? 'SQLite does not hold their variant, or their SQLite SQL needs a line break inside a literal'
        : 'the format cannot hold them';
  return `${format}: ${count} records left out (${why})`;
}
