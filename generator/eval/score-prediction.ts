/**
 * Scores one prediction with equisql's answer rules: it runs through the guarded executor on
 * the variant's main instance and, when it gave rows there, on the edge-case instance; each
 * answer is normalized as the gold was (`normalizeResult`: rows as tuples of PostgreSQL's
 * text, array values as sets, rows sorted unless the group is ordered, duplicates kept) and
 * its hash compared with the gold's on that instance. Correct only when right on both.
 *
 * The same text on the same schema with the same order rule is run once per scorer: the
 * paraphrases of a question, and a model that repeats itself, cost one execution.
 *
 * The gold answers are the recorded ones on PostgreSQL (`result_hash`, the edge instance's
 * from the groups file). On SQLite (`sqliteGold`) the recorded hashes are of PostgreSQL's
 * text, which SQLite does not print (`12.50` is `12.5`, `t` is `1`), so the gold is the
 * group's SQLite SQL run on the same file through the same executor and normalized by the
 * same rules; its row count must be the one recorded.
 */
import { ExecutionError } from '../common/errors.ts';
import { normalizeResult } from '../execute/run-query.ts';
import type { UntrustedExecutor, UntrustedOutcome } from '../execute/untrusted-query.ts';
import type { ExportRecord } from '../records/export-record.ts';
import { canonicalizeSql } from '../structure/canonical-structure.ts';
import type { EvalVariant } from './eval-inputs.ts';
import {
  ANSWER_ROWS_KEPT,
  type AnswerRows,
  type EvalEngine,
  type OutcomeKind,
  type PredictionLine,
  type WrongAnswer,
} from './eval-summary.ts';

/** One execution as scoring keeps it: the kind, the message, the normalized answer's hash and its first rows. */
export interface ScoredRun {
  readonly kind: OutcomeKind;
  readonly message: string | null;
  readonly hash: string | null;
  /** The answer's first rows and its row count, for a wrong answer's line. */
  readonly answer: AnswerRows | null;
}

export interface PredictionScorer {
  /** The line for `row` (its variant `variant`) with `sql`, all but `prompt_hash`. */
  score(
    row: ExportRecord,
    variant: EvalVariant,
    sql: string | null,
    edgeGold: string | undefined,
  ): Promise<Omit<PredictionLine, 'prompt_hash'>>;
}

/** An outcome reduced to what scoring keeps (the rows themselves are dropped after hashing). */
export function scoredRun(outcome: UntrustedOutcome, ordered: boolean): ScoredRun {
  if (outcome.kind === 'rows') {
    const normalized = normalizeResult({ columns: outcome.columns, rows: outcome.rows }, ordered);
    return {
      kind: 'rows',
      message: null,
      hash: normalized.hash,
      answer: {
        columns: outcome.columns,
        rows: normalized.rows.slice(0, ANSWER_ROWS_KEPT),
        count: normalized.rows.length,
      },
    };
  }
  return { kind: outcome.kind, message: outcome.message, hash: null, answer: null };
}

/**
 * Where two answers first differ: the first row index that differs among the rows kept, or
 * the shorter answer's length when the rows kept agree and the counts differ within them;
 * null when the difference lies past the rows kept.
 */
export function firstDifference(gold: AnswerRows, predicted: AnswerRows): number | null {
  const n = Math.min(gold.rows.length, predicted.rows.length);
  for (let i = 0; i < n; i++) if (JSON.stringify(gold.rows[i]) !== JSON.stringify(predicted.rows[i])) return i;
  const shorter = Math.min(gold.count, predicted.count);
  return gold.count !== predicted.count && shorter < ANSWER_ROWS_KEPT ? shorter : null;
}

/** SQLStructEval's structure hash of a text, or null when the parser cannot read it. */
export function structureHashOf(sql: string): string | null {
  try {
    return canonicalizeSql(sql).structureHash;
  } catch {
    return null;
  }
}

/** Where the gold answers come from: the recorded hashes (PostgreSQL), or the gold run on the same engine. */
export interface GoldSide {
  readonly engine: EvalEngine;
  /** The gold SQL of a row, as the engine runs it (shown beside a wrong answer, and run for a SQLite gold). */
  sql(row: ExportRecord): string;
  /** Whether the gold is run (true) or read from the record (false). */
  readonly run: boolean;
}

/** The recorded gold answers of PostgreSQL. */
export const RECORDED_GOLD: GoldSide = { engine: 'postgres', sql: (row) => row.sql, run: false };

/**
 * The gold on SQLite: `sql` gives each row's SQLite text of its group's gold (the record's
 * SQLite SQL where it has one).
 */
export function sqliteGold(sql: (row: ExportRecord) => string): GoldSide {
  return { engine: 'sqlite', sql, run: true };
}

/**
 * A scorer over an executor (the pool every prediction shares).
 *
 * @example
 * const scorer = createScorer(createUntrustedExecutor(pool, { timeoutMs: 10_000 }));
 * const line = await scorer.score(row, variant, 'SELECT id FROM streamer', edgeGold.get(row.group_id));
 * line.correct; // false
 */
export function createScorer(executor: UntrustedExecutor, gold: GoldSide = RECORDED_GOLD): PredictionScorer {
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
  /** The gold's hash on an instance: recorded, or run (a gold that fails is a fault of the export, thrown). */
  const goldHash = async (
    row: ExportRecord,
    schema: string,
    instance: 'main' | 'edge',
    recorded: string | undefined,
  ): Promise<string | undefined> => {
    if (!gold.run) return recorded;
    const answer = await run(schema, gold.sql(row), row.ordered);
    if (answer.hash === null || answer.answer === null)
      throw new ExecutionError(
        `group ${row.group_id}, variant ${row.variant}: the gold SQL does not run on ${schema}: ${answer.message ?? answer.kind}`,
      );
    if (instance === 'main' && answer.answer.count !== row.row_count) {
      throw new ExecutionError(
        `group ${row.group_id}, variant ${row.variant}: the gold SQL gives ${answer.answer.count} rows on ${schema}, ${row.row_count} recorded (the ${gold.engine} file is not of this build)`,
      );
    }
    return answer.hash;
  };
  return {
    score: async (row, variant, sql, edgeGold) => {
      const base = {
        id: row.id,
        dataset: row.dataset,
        question_id: row.question_id,
        group_id: row.group_id,
        variant: row.variant,
        engine: gold.engine,
        sql,
      };
      if (sql === null) {
        return {
          ...base,
          outcome: 'missing',
          message: 'no SQL was given for this row',
          result_hash: null,
          edge_result_hash: null,
          correct_main: false,
          correct_edge: false,
          correct: false,
          structure_hash: null,
        };
      }
      const main = await run(variant.mainSchema, sql, row.ordered);
      const edge =
        main.kind === 'rows' && variant.edgeSchema !== undefined
          ? await run(variant.edgeSchema, sql, row.ordered)
          : undefined;
      const correctMain =
        main.hash !== null && main.hash === (await goldHash(row, variant.mainSchema, 'main', row.result_hash));
      const correctEdge =
        variant.edgeSchema === undefined
          ? true
          : edge !== undefined &&
            edge.hash !== null &&
            edge.hash === (await goldHash(row, variant.edgeSchema, 'edge', edgeGold));
      const failed = main.kind !== 'rows' ? main : edge !== undefined && edge.kind !== 'rows' ? edge : undefined;
      // A wrong answer keeps both answers where it first went wrong: main, else edge.
      const wrongAnswer = async (): Promise<{ answers?: WrongAnswer }> => {
        if (failed !== undefined || (correctMain && correctEdge)) return {};
        const [instance, schema, predicted] = correctMain
          ? (['edge', variant.edgeSchema as string, edge] as const)
          : (['main', variant.mainSchema, main] as const);
        const goldRun = await run(schema, gold.sql(row), row.ordered);
        if (goldRun.answer === null || predicted?.answer == null) return {};
        return {
          answers: {
            instance,
            schema,
            gold: goldRun.answer,
            predicted: predicted.answer,
            first_difference: firstDifference(goldRun.answer, predicted.answer),
          },
        };
      };
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
        ...(await wrongAnswer()),
      };
    },
  };
}
