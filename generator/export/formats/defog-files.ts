/**
 * defog sql-eval's questions file for a split, `evaluators/defog/<split>.csv`: the columns
 * its `prepare_questions_df` reads (`db_name`, `query_category`, `query`, `question`,
 * `instructions`; `db_type` it sets from `--db_type`, given here for the reader), plus the
 * record's `id`. Fields are quoted as RFC 4180 says, so a comma, a quote or a line break in
 * a question or in the SQL reads back as written (pandas' `read_csv`, Python's `csv`).
 *
 * sql-eval reads its `query` column as a list of acceptable queries (split at every `;`) and
 * as a column template (`{a, b}` expanded into each subset of the columns): a record whose
 * SQL holds a `;` or a `{…}` would be read as other queries, so it is left out of the file.
 */
import type { ExportRecord } from '../../records/export-record.ts';
import type { SplitName } from '../split-assign.ts';
import { EVALUATOR_DIR, type EvaluatorFile } from './evaluator-file.ts';
import { dbId } from './gold-lines.ts';

export const DEFOG_COLUMNS = [
  'db_name',
  'db_type',
  'query_category',
  'query',
  'question',
  'instructions',
  'id',
] as const;

/**
 * One CSV field: quoted (and its quotes doubled) when it holds a comma, a quote, a line
 * break, or space at either end; as it is otherwise.
 *
 * @example
 * csvField('say "hi", then\nleave'); // '"say ""hi"", then\nleave"'
 */
export function csvField(value: string): string {
  return /[",\r\n]|^\s|\s$/u.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** One CSV record, ended by a line feed (as sql-eval's own files are). */
export function csvLine(values: readonly string[]): string {
  return `${values.map(csvField).join(',')}\n`;
}

/** Whether sql-eval reads `sql` as something else: several queries (`;`) or a column template (`{` … `}`). */
export function defogMisreads(sql: string): boolean {
  return sql.includes(';') || /\{[\s\S]*\}/u.test(sql);
}

/** The CSV fields of a record, in `DEFOG_COLUMNS` order. */
export function defogRow(r: ExportRecord): readonly string[] {
  return [dbId(r), 'postgres', r.difficulty, r.sql, r.question, r.evidence, r.id];
}

function* defogCsv(rows: readonly ExportRecord[]): Generator<string> {
  yield csvLine(DEFOG_COLUMNS);
  for (const r of rows) yield csvLine(defogRow(r));
}

/** sql-eval's questions file of one split, and how many records it leaves out (`defogMisreads`). */
export function defogFiles(
  split: SplitName,
  rows: readonly ExportRecord[],
): { files: EvaluatorFile[]; leftOut: number } {
  const kept = rows.filter((r) => !defogMisreads(r.sql));
  return {
    files: [
      {
        rel: `${EVALUATOR_DIR}/defog/${split}.csv`,
        lines: { [Symbol.iterator]: () => defogCsv(kept) },
        count: kept.length,
      },
    ],
    leftOut: rows.length - kept.length,
  };
}
