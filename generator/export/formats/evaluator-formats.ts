/**
 * The files that standard text-to-SQL evaluators read, per split: BIRD's questions and gold
 * file, defog sql-eval's questions CSV, Spider's gold file. Each format is its own module.
 */
import type { ExportRecord } from '../export-record.ts';
import type { SplitName } from '../split-assign.ts';
import { birdFiles } from './bird-files.ts';
import { defogFiles } from './defog-files.ts';
import type { EvaluatorFile } from './evaluator-file.ts';
import { spiderFiles } from './spider-files.ts';

export const EVALUATOR_FORMATS = ['bird', 'defog', 'spider'] as const;
export type EvaluatorFormat = (typeof EVALUATOR_FORMATS)[number];

/** The files of `formats` for one split's rows, and the records a format had to leave out. */
export function evaluatorFiles(split: SplitName, rows: readonly ExportRecord[], formats: readonly EvaluatorFormat[]): { files: EvaluatorFile[]; leftOut: Partial<Record<EvaluatorFormat, number>> } {
  const files: EvaluatorFile[] = [];
  const leftOut: Partial<Record<EvaluatorFormat, number>> = {};
  for (const f of formats) {
    if (f === 'bird') files.push(...birdFiles(split, rows));
    else if (f === 'spider') files.push(...spiderFiles(split, rows));
    else {
      const d = defogFiles(split, rows);
      files.push(...d.files);
      leftOut.defog = d.leftOut;
    }
  }
  return { files, leftOut };
}
