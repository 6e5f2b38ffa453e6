/**
 * Scores one prediction with equisql's answer rules: it runs through the guarded executor on
 * the variant's main instance and, when it gave rows there, on the edge-case instance; each
 * answer is normalized as the gold was (`normalizeResult`: rows as tuples of PostgreSQL's
 * text, array values as sets, rows sorted unless the group is ordered, duplicates kept) and
 * its hash compared with the gold's on that instance. Correct only when right on both.
 *
 * The same text on the same schema with the same order rule is run once per scorer: the
 * paraphrases of a question, and a model that repeats itself, cost one execution.
 */
import { normalizeResult } from '../execute/run-query.ts';
import type { UntrustedExecutor, UntrustedOutcome } from '../execute/untrusted-query.ts';
import type { ExportRecord } from '../export/export-record.ts';
import { canonicalizeSql } from '../structure/canonical-structure.ts';
import type { EvalVariant } from './eval-inputs.ts';
import type { OutcomeKind, PredictionLine } from './eval-summary.ts';

/** One execution as scoring keeps it: the kind, the message, the normalized answer's hash. */
export interface ScoredRun {
  readonly kind: OutcomeKind;
  readonly message: string | null;
  readonly hash: string | null;
}

export interface PredictionScorer {
  /** The line for `row` (its variant `variant`) with `sql`, all but `prompt_hash`. */
  score(row: ExportRecord, variant: EvalVariant, sql: string | null, edgeGold: string | undefined): Promise<Omit<PredictionLine, 'prompt_hash'>>;
}

/** An outcome reduced to what scoring keeps (the rows themselves are dropped after hashing). */
export function scoredRun(outcome: UntrustedOutcome, ordered: boolean): ScoredRun {
  if (outcome.kind === 'rows') return { kind: 'rows', message: null, hash: normalizeResult({ columns: outcome.columns, rows: outcome.rows }, ordered).hash };
  return { kind: outcome.kind, message: outcome.message, hash: null };
}

/** SQLStructEval's structure hash of a text, or null when the parser cannot read it. */
export function structureHashOf(sql: string): string | null {
  try {
    return canonicalizeSql(sql).structureHash;
  } catch {
    return null;
  }
}

/**
 * A scorer over an executor (the pool every prediction shares).
 *
 * @example
 * const scorer = createScorer(createUntrustedExecutor(pool, { timeoutMs: 10_000 }));
 * const line = await scorer.score(row, variant, 'SELECT id FROM streamer', edgeGold.get(row.group_id));
 * line.correct; // false
 */
export function createScorer(executor: UntrustedExecutor): PredictionScorer {
  const runs = new Map<string, Promise<ScoredRun>>();
  const structures = new Map<string, string | null>();
  const run = (schema: string, sql: string, ordered: boolean): Promise<ScoredRun> => {
    const key = `${schema}\u0000${ordered ? 1 : 0}\u0000${sql}`;
    let scored = runs.get(key);
    if (!scored) {
      scored = executor.run(schema, sql).then((o) => scoredRun(o, ordered));
      runs.set(key, scored);
      // A fault of the run (thrown) is not kept: it says nothing of the text.
      scored.catch(() => runs.delete(key));
    }
    return scored;
  };
  return {
    score: async (row, variant, sql, edgeGold) => {
      const base = { id: row.id, dataset: row.dataset, question_id: row.question_id, group_id: row.group_id, variant: row.variant, sql };
      if (sql === null) {
        return { ...base, outcome: 'missing', message: 'no SQL was given for this row', result_hash: null, edge_result_hash: null, correct_main: false, correct_edge: false, correct: false, structure_hash: null };
      }
      const main = await run(variant.mainSchema, sql, row.ordered);
      const edge = main.kind === 'rows' && variant.edgeSchema !== undefined ? await run(variant.edgeSchema, sql, row.ordered) : undefined;
      const correctMain = main.hash === row.result_hash;
      const correctEdge = variant.edgeSchema === undefined ? true : edge !== undefined && edge.hash === edgeGold;
      const failed = main.kind !== 'rows' ? main : edge !== undefined && edge.kind !== 'rows' ? edge : undefined;
      let structure = structures.get(sql);
      if (structure === undefined) structures.set(sql, (structure = structureHashOf(sql)));
      return {
        ...base,
        outcome: failed?.kind ?? 'rows',
        message: failed?.message ?? null,
        result_hash: main.hash,
        edge_result_hash: edge?.hash ?? null,
        correct_main: correctMain,
        correct_edge: correctEdge,
        correct: correctMain && correctEdge,
        structure_hash: structure,
      };
    },
  };
}
