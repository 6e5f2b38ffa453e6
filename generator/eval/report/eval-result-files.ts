/**
 * Reads one finished evaluation back for the report: `EVALDIR/summary.json`,
 * `EVALDIR/predictions.jsonl`, `EVALDIR/run.json` (the model's label and the export it
 * scored), and from that export the gold SQL of the rows the report shows. A malformed file
 * is a one-line `ConfigError` naming it; a missing export only leaves the gold SQL out.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { ConfigError } from '../../common/errors.ts';
import { readLines } from '../../export/check-export.ts';
import { dataFile } from '../../export/export-dataset.ts';
import type { SplitName } from '../../export/split-assign.ts';
import { EVAL_SUMMARY_VERSION, type EvalRun, type EvalSummary, type PredictionLine } from '../eval-summary.ts';

export interface FinishedEval {
  /** The evaluation directory, as given. */
  readonly dir: string;
  /** The model's short name: run.json's `label`, else the directory's name. */
  readonly label: string;
  readonly run: EvalRun | null;
  readonly summary: EvalSummary;
  readonly predictions: readonly PredictionLine[];
}

function readJsonFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(
      `${path}: cannot read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); is it an equisql eval --out directory?`,
    );
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${path}: not JSON: ${(error as Error).message}`);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The fields the report reads, checked so a hand-edited or older file fails with its path. */
function checkSummary(value: unknown, path: string): EvalSummary {
  if (!isObject(value)) throw new ConfigError(`${path}: not a summary object`);
  if (value.version !== EVAL_SUMMARY_VERSION)
    throw new ConfigError(
      `${path}: version ${JSON.stringify(value.version)}, this equisql reads version ${EVAL_SUMMARY_VERSION}`,
    );
  if (!Array.isArray(value.datasets)) throw new ConfigError(`${path}: "datasets" is not a list`);
  value.datasets.forEach((d: unknown, i: number) => {
    const at = `${path}: datasets[${i}]`;
    if (!isObject(d) || typeof d.dataset !== 'string') throw new ConfigError(`${at}: no dataset name`);
    if (!Array.isArray(d.variants) || !Array.isArray(d.ex_by_variant) || !Array.isArray(d.questions)) {
      throw new ConfigError(`${at} (${d.dataset}): "variants", "ex_by_variant" or "questions" is not a list`);
    }
    const pss = d.pss;
    if (!isObject(pss) || !Array.isArray(pss.variants) || !Array.isArray(pss.matrix) || !Array.isArray(pss.n)) {
      throw new ConfigError(`${at} (${d.dataset}): "pss" has no variants, matrix or n`);
    }
  });
  return value as unknown as EvalSummary;
}

function readPredictions(path: string): PredictionLine[] {
  if (!existsSync(path)) throw new ConfigError(`${path}: missing; is it an equisql eval --out directory?`);
  const lines: PredictionLine[] = [];
  let number = 0;
  readLines(path, true, (line) => {
    number += 1;
    if (line === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new ConfigError(`${path}:${number}: not a JSON line`);
    }
    if (
      !isObject(value) ||
      typeof value.id !== 'string' ||
      typeof value.question_id !== 'string' ||
      typeof value.variant !== 'string'
    ) {
      throw new ConfigError(`${path}:${number}: not a prediction (needs string id, question_id and variant)`);
    }
    lines.push(value as unknown as PredictionLine);
  });
  return lines;
}

/**
 * Reads an evaluation directory.
 *
 * @example
 * const result = readFinishedEval('eval/gpt-4o');
 * result.summary.datasets[0].pss.matrix; // the heatmap's numbers
 */
export function readFinishedEval(dir: string): FinishedEval {
  const summary = checkSummary(readJsonFile(join(dir, 'summary.json')), join(dir, 'summary.json'));
  const predictions = readPredictions(join(dir, 'predictions.jsonl'));
  const runPath = join(dir, 'run.json');
  const run = existsSync(runPath) ? (readJsonFile(runPath) as EvalRun) : null;
  const label = run && typeof run.label === 'string' && run.label !== '' ? run.label : basename(resolve(dir));
  return { dir, label, run, summary, predictions };
}

/** The gold SQL of some export rows, or why there is none. */
export type GoldSql =
  | { readonly kind: 'found'; readonly file: string; readonly sql: ReadonlyMap<string, string> }
  | { readonly kind: 'unavailable'; readonly reason: string };

/**
 * The gold SQL of the rows `ids` from the export the evaluation scored (`run.json`'s `dir`,
 * its `data/<split>` JSON Lines file); `unavailable`, with the reason, when that export is
 * not there any more. A row of the file that is not JSON is an error naming its line.
 *
 * @example
 * readGoldSql(result, new Set(['3f1c…'])); // { kind: 'found', file: 'output/retail/data/test-00000-of-00001.jsonl', sql: Map(1) }
 */
export function readGoldSql(result: FinishedEval, ids: ReadonlySet<string>): GoldSql {
  if (!result.run || typeof result.run.dir !== 'string')
    return { kind: 'unavailable', reason: `${join(result.dir, 'run.json')} does not name the export` };
  const file = join(result.run.dir, dataFile(result.summary.split as SplitName, 'jsonl'));
  if (!existsSync(file)) return { kind: 'unavailable', reason: `${file} is not there` };
  const sql = new Map<string, string>();
  let number = 0;
  readLines(file, true, (line) => {
    number += 1;
    if (line === '') return;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch {
      throw new ConfigError(`${file}:${number}: not a JSON line`);
    }
    if (isObject(row) && typeof row.id === 'string' && typeof row.sql === 'string' && ids.has(row.id))
      sql.set(row.id, row.sql);
  });
  return { kind: 'found', file, sql };
}
