/**
 * Spider's gold file for a split, `evaluators/spider/<split>_gold.sql`: one `SQL\tdb_id` a
 * line, the file the test-suite evaluator's `--gold` reads (no blank line: Spider's reader
 * takes one for the end of an interaction). Line i is row i of the split's records.
 */
import type { ExportRecord } from '../../records/export-record.ts';
import type { SplitName } from '../split-assign.ts';
import { EVALUATOR_DIR, type EvaluatorFile } from './evaluator-file.ts';
import { goldLines } from './gold-lines.ts';

/** Spider's gold file of one split. */
export function spiderFiles(split: SplitName, rows: readonly ExportRecord[]): EvaluatorFile[] {
  return [
    {
      rel: `${EVALUATOR_DIR}/spider/${split}_gold.sql`,
      lines: { [Symbol.iterator]: () => goldLines(rows) },
      count: rows.length,
    },
  ];
}
