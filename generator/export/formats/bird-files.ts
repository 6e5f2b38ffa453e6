/**
 * BIRD's files for a split: `evaluators/bird/<split>.json`, the questions as BIRD's
 * `dev.json` holds them, and `evaluators/bird/<split>_gold.sql`, the gold file its
 * evaluator reads (`--data_mode <split>`). Item i of the JSON, line i of the gold file and
 * row i of `data/<split>-00000-of-00001.jsonl` are the same record.
 */
import type { Difficulty } from '../../records/group-record.ts';
import type { ExportRecord } from '../../records/export-record.ts';
import type { SplitName } from '../split-assign.ts';
import { EVALUATOR_DIR, type EvaluatorFile } from './evaluator-file.ts';
import { dbId, goldLines } from './gold-lines.ts';

/**
 * BIRD's three levels: its evaluator reports accuracy for exactly these (and divides by each
 * one's count), so Spider's four hardness levels are folded into them.
 */
export const BIRD_DIFFICULTY: Readonly<Record<Difficulty, 'simple' | 'moderate' | 'challenging'>> = {
  easy: 'simple',
  medium: 'moderate',
  hard: 'challenging',
  extra: 'challenging',
};

/** One item of `<split>.json`, keys in this order. */
export interface BirdItem {
  /** The item's place in the file (and the gold file's line), from 0, as in BIRD's own files. */
  readonly question_id: number;
  readonly db_id: string;
  readonly question: string;
  readonly evidence: string;
  readonly SQL: string;
  readonly difficulty: 'simple' | 'moderate' | 'challenging';
  /** The record's `id`, for `equisql eval --predictions`. */
  readonly id: string;
}

/** The BIRD item of the record at `index` of its split. */
export function birdItem(r: ExportRecord, index: number): BirdItem {
  return {
    question_id: index,
    db_id: dbId(r),
    question: r.question,
    evidence: r.evidence,
    SQL: r.sql,
    difficulty: BIRD_DIFFICULTY[r.difficulty],
    id: r.id,
  };
}

function* birdJson(rows: readonly ExportRecord[]): Generator<string> {
  yield '[\n';
  for (let i = 0; i < rows.length; i++)
    yield `  ${JSON.stringify(birdItem(rows[i] as ExportRecord, i))}${i + 1 < rows.length ? ',' : ''}\n`;
  yield ']\n';
}

/** BIRD's two files of one split, in the records' order, under `evaluators/<folder>/`. */
export function birdFiles(split: SplitName, rows: readonly ExportRecord[], folder = 'bird'): EvaluatorFile[] {
  return [
    {
      rel: `${EVALUATOR_DIR}/${folder}/${split}.json`,
      lines: { [Symbol.iterator]: () => birdJson(rows) },
      count: rows.length,
    },
    {
      rel: `${EVALUATOR_DIR}/${folder}/${split}_gold.sql`,
      lines: { [Symbol.iterator]: () => goldLines(rows) },
      count: rows.length,
    },
  ];
}
