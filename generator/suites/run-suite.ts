import type { ErIndex } from '../er-model/er-index.ts';
import type { Database } from '../database/database.ts';
import type { BuildManifest } from '../assemble/build-dataset.ts';
import { buildRelationalSchema } from '../variants/build-schema.ts';
import { compileQuery } from '../compile/compile-query.ts';
import { isOrdered } from '../query/conceptual-query.ts';
import type { SuiteQuestion } from './suite.ts';
import {
  compareResults,
  normalizeResult,
  runReadOnly,
  type GroupComparison,
  type NormalizedResult,
} from '../execute/run-query.ts';

export interface VariantAnswer {
  readonly question: string;
  readonly variant: string;
  readonly sql: string;
  readonly row_count: number;
  readonly result_hash: string;
  /** Milliseconds inside the database for this query. */
  readonly db_ms: number;
}

export interface QuestionOutcome {
  readonly question: string;
  readonly answers: readonly VariantAnswer[];
  readonly comparison: GroupComparison;
  /** Agreement and a non-empty answer. */
  readonly ok: boolean;
}

/**
 * Runs questions on every variant of a built directory: compile per variant, execute
 * read-only, normalize, compare. `onAnswer` sees each answer as it comes.
 */
export async function runQuestions(
  index: ErIndex,
  manifest: BuildManifest,
  db: Database,
  questions: readonly SuiteQuestion[],
  onAnswer?: (answer: VariantAnswer) => void,
): Promise<QuestionOutcome[]> {
  const schemas = manifest.variants.map((v) => ({ built: v, schema: buildRelationalSchema(index, v.spec) }));
  const outcomes: QuestionOutcome[] = [];
  for (const q of questions) {
    const answers: VariantAnswer[] = [];
    const results = new Map<string, NormalizedResult>();
    for (const { built, schema } of schemas) {
      const sql = compileQuery(index, schema, q.query);
      const started = performance.now();
      const result = await runReadOnly(db, built.pg_schema, sql);
      const dbMs = performance.now() - started;
      const normalized = normalizeResult(result, isOrdered(q.query));
      results.set(built.name, normalized);
      const answer = {
        question: q.id,
        variant: built.name,
        sql,
        row_count: normalized.rows.length,
        result_hash: normalized.hash,
        db_ms: dbMs,
      };
      answers.push(answer);
      onAnswer?.(answer);
    }
    const comparison = compareResults(results);
    outcomes.push({ question: q.id, answers, comparison, ok: comparison.agree && comparison.rowCount > 0 });
  }
  return outcomes;
}
