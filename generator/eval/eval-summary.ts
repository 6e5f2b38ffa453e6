/**
 * The files `equisql eval` writes, as types: `EVALDIR/predictions.jsonl` (one
 * `PredictionLine` per (question, variant)), `EVALDIR/summary.json` (an `EvalSummary`) and
 * `EVALDIR/run.json` (an `EvalRun`: which model, tokens and cost).
 *
 * `predictions.jsonl` and `summary.json` depend only on the export and the SQL scored, not on
 * where the SQL came from: an endpoint and a predictions file with the same SQL give the same
 * bytes. What differs between the two (the model's name, tokens, cost) is in `run.json`.
 *
 * The shape is stable: fields are added, never renamed or removed (`version` says which).
 * Every record and map is written in a fixed order (datasets, variants in the build's order,
 * questions in the export's), so the same input gives the same bytes.
 */

export const EVAL_SUMMARY_VERSION = 1;

/** The prompt given: the variant's DDL, or also the E/R model and the shredding choices in words. */
export type EvalContext = 'ddl' | 'ddl+er';

/**
 * Which prompt a model is asked: the first paper's (`paper`: its system text, the variant's
 * full DDL, "The question is:"), or the export's fine-tuning prompt (`training`: the system
 * text, schema form and question wording of `finetune/`), for a model tuned on those files.
 */
export type EvalPrompt = 'paper' | 'training';

/**
 * The engine the SQL is scored on: the variant schemas of PostgreSQL (`postgres`), or the
 * variants' SQLite files (`sqlite`: `sqlite/<variant>.sqlite`, `edge/sqlite/<variant>.sqlite`).
 */
export type EvalEngine = 'postgres' | 'sqlite';

/**
 * How a prediction ended on an instance:
 * - `rows`: it ran and returned rows (right or wrong);
 * - `refused`: the guard refused it (not one SELECT over the variant's tables, a function not
 *   allowed, …): invalid SQL;
 * - `error`: the database failed it (syntax error, unknown column, division by zero, …);
 * - `timeout`: it ran past the time bound;
 * - `over-cap`: its answer passed the row or byte cap;
 * - `missing`: there was no SQL to run (the predictions file has no line for the row, the
 *   model's reply held no SQL, or the budget ran out before it was asked).
 */
export type OutcomeKind = 'rows' | 'refused' | 'error' | 'timeout' | 'over-cap' | 'missing';

/** The outcome kinds that are not `rows`: an invalid prediction (the paper's E). */
export type InvalidKind = Exclude<OutcomeKind, 'rows'>;

export const INVALID_KINDS: readonly InvalidKind[] = ['refused', 'error', 'timeout', 'over-cap', 'missing'];

/** One line of `predictions.jsonl`: one (question, variant) of the split. Keys in this order. */
export interface PredictionLine {
  /** The export row's id. */
  readonly id: string;
  readonly dataset: string;
  readonly question_id: string;
  readonly group_id: string;
  readonly variant: string;
  /** The engine it ran on (always written; absent in lines written before it could be chosen: `postgres`). */
  readonly engine?: EvalEngine;
  /** sha256 of the prompt's text (system and user messages), so a changed prompt is visible. */
  readonly prompt_hash: string;
  /** The SQL scored (the model's reply with its fences taken off), null when `missing`. */
  readonly sql: string | null;
  /**
   * The outcome: `rows` when it returned rows on every instance it ran on, otherwise the
   * first instance's (main, then edge) that is not `rows`.
   */
  readonly outcome: OutcomeKind;
  /** The outcome's one-line message when it is not `rows` (names the schema), else null. */
  readonly message: string | null;
  /** `normalizeResult(...).hash` of the answer on the main instance, null when it gave none. */
  readonly result_hash: string | null;
  /** The same on the edge instance; null when it gave none or the build has no edge instance. */
  readonly edge_result_hash: string | null;
  /** Its answer on the main instance equals the gold's (equisql's answer rules). */
  readonly correct_main: boolean;
  /** Its answer on the edge instance equals the gold's; true when the build has no edge instance. */
  readonly correct_edge: boolean;
  /** Right on both: the only "correct" any metric counts. */
  readonly correct: boolean;
  /** SQLStructEval structure hash of the SQL, null when it cannot be parsed or is missing. */
  readonly structure_hash: string | null;
  /** A wrong answer (it gave rows, not the gold's): the two answers where it first went wrong. Absent otherwise. */
  readonly answers?: WrongAnswer;
}

/** Beyond this many rows an answer is not kept on its line (the counts are). */
export const ANSWER_ROWS_KEPT = 10;

/** One answer as a wrong answer's line keeps it: its first rows, normalized as scoring compares them. */
export interface AnswerRows {
  readonly columns: readonly string[];
  /** The first `ANSWER_ROWS_KEPT` rows, in the order they are compared (sorted unless the group is ordered). */
  readonly rows: readonly (readonly (string | null)[])[];
  readonly count: number;
}

/** The gold and the predicted answer on the instance a wrong answer is wrong on. */
export interface WrongAnswer {
  /** `main`, or `edge` when it was right on the main instance. */
  readonly instance: 'main' | 'edge';
  /** The instance's PostgreSQL schema. */
  readonly schema: string;
  readonly gold: AnswerRows;
  readonly predicted: AnswerRows;
  /** The index of the first row that differs, null when it lies past the rows kept. */
  readonly first_difference: number | null;
}

/** A share: `rate` is `correct / total`, 0 when `total` is 0. */
export interface Accuracy {
  readonly correct: number;
  readonly total: number;
  readonly rate: number;
}

/** Invalid predictions by kind, and their share of all predictions counted. */
export interface ErrorRates {
  readonly total: number;
  /** Predictions that are not `rows` (the paper's E). */
  readonly invalid: number;
  readonly invalid_rate: number;
  /** Count per kind, every kind present (0 when none). */
  readonly by_kind: Readonly<Record<InvalidKind, number>>;
}

/** Execution accuracy on one variant, with the instance-wise counts behind it. */
export interface VariantAccuracy extends Accuracy {
  readonly variant: string;
  /** Right on the main instance (whatever the edge says). */
  readonly correct_main: number;
  /** Right on the edge instance (whatever the main says). */
  readonly correct_edge: number;
  /** Right on the main instance and wrong on the edge one: right by luck of the data. */
  readonly main_only: number;
  readonly errors: ErrorRates;
}

/**
 * The paper's pairwise schema score (Section 3.2.1) over the questions of one dataset:
 * `matrix[i][j]` for i ≠ j counts the questions whose predictions on variants i and j both
 * ran and gave the same answer (normalized result on the main instance); the diagonal is
 * `n[i] − E_i`, the questions asked on variant i less those whose prediction there was
 * invalid. `variants` names the rows and columns, in the build's order.
 */
export interface PssMatrix {
  readonly variants: readonly string[];
  readonly matrix: readonly (readonly number[])[];
  /** Questions asked on each variant (the paper's N when every question is asked on every variant): the heatmap's scale maximum. */
  readonly n: readonly number[];
  /** The number of questions of the dataset. */
  readonly questions: number;
}

/**
 * SQLStructEval's structural measures (Section 3.3 of its paper) over the model's SQL for
 * one question across its variants (the generations of one input, here one per variant):
 * over the SQL that parses, `distinct` = K structures, `majority` = max p_k, `entropy` =
 * −Σ p_k log2 p_k, `gold` = share whose structure equals the gold's on the same variant.
 * All null when no SQL of the question parses.
 */
export interface StructureStats {
  readonly parsed: number;
  readonly distinct: number | null;
  readonly majority: number | null;
  readonly entropy: number | null;
  readonly gold: number | null;
}

/** One question (one `question_id`: a question of a group, on every variant it is asked on). */
export interface QuestionEval {
  readonly question_id: string;
  readonly group_id: string;
  readonly question: string;
  readonly style: string;
  readonly difficulty: string;
  /** The variants it was asked on, in the build's order. */
  readonly variants: readonly string[];
  /** Per variant (same order): right on both instances. */
  readonly correct: readonly boolean[];
  /** Per variant (same order): the outcome kind. */
  readonly outcomes: readonly OutcomeKind[];
  /** Right on every variant it was asked on. */
  readonly robust: boolean;
  /** Pairs of variants (i < j) where both ran and gave the same answer (the paper's QAS). */
  readonly qas: number;
  /** Pairs where both ran and the answers differ (QDS). */
  readonly qds: number;
  /** Pairs where one or both are invalid (QMS). */
  readonly qms: number;
  /** V(V−1)/2 for its V variants: qas + qds + qms = pairs. */
  readonly pairs: number;
  readonly structure: StructureStats;
}

/** Means of the per-question structural measures, over the questions where they are defined. */
export interface StructureSummary {
  /** Questions with at least one parsed SQL (the means' denominator). */
  readonly questions: number;
  readonly distinct: number | null;
  readonly majority: number | null;
  readonly entropy: number | null;
  readonly gold: number | null;
}

/** Everything scored on one dataset of the split. */
export interface DatasetEval {
  readonly dataset: string;
  /** The variants scored, in the build's order. */
  readonly variants: readonly string[];
  /** Whether the build has an edge instance (else only the main one is scored). */
  readonly edge_instance: boolean;
  /** All predictions of the dataset. */
  readonly ex: Accuracy;
  readonly ex_by_variant: readonly VariantAccuracy[];
  /** Keyed by difficulty, keys sorted. */
  readonly ex_by_difficulty: Readonly<Record<string, Accuracy>>;
  /** Keyed by style, keys sorted. */
  readonly ex_by_style: Readonly<Record<string, Accuracy>>;
  /** Questions right on every variant they were asked on. */
  readonly robust: Accuracy;
  readonly errors: ErrorRates;
  readonly pss: PssMatrix;
  /** Sums over the questions of QAS, QDS, QMS and pairs. */
  readonly agreement: { readonly qas: number; readonly qds: number; readonly qms: number; readonly pairs: number };
  readonly structure: StructureSummary;
  /** In the export's order. */
  readonly questions: readonly QuestionEval[];
}

/** `summary.json`. */
export interface EvalSummary {
  readonly version: typeof EVAL_SUMMARY_VERSION;
  readonly split: string;
  readonly context: EvalContext;
  /** The engine every prediction ran on. */
  readonly engine: EvalEngine;
  /** Every (question, variant) scored, all datasets. */
  readonly ex: Accuracy;
  /** Questions right on every variant, all datasets. */
  readonly robust: Accuracy;
  readonly errors: ErrorRates;
  /** Sorted by name. */
  readonly datasets: readonly DatasetEval[];
}

/** Where the SQL came from. */
export type EvalSource =
  | { readonly kind: 'endpoint'; readonly model: string; readonly base_url: string | null }
  | { readonly kind: 'predictions'; readonly file: string }
  | { readonly kind: 'gold' };

/** `run.json`: what differs between runs that score the same SQL. */
export interface EvalRun {
  readonly version: typeof EVAL_SUMMARY_VERSION;
  /** A short name for tables and legends: the model, the predictions file's base name, or `gold`. */
  readonly label: string;
  readonly source: EvalSource;
  /** The export directory read (as given). */
  readonly dir: string;
  readonly split: string;
  readonly context: EvalContext;
  /** The prompt asked (absent in runs before it could be chosen: `paper`). */
  readonly prompt: EvalPrompt;
  /** The engine scored on (absent in runs before it could be chosen: `postgres`). */
  readonly engine?: EvalEngine;
  /** The variants scored, in the build's order. */
  readonly variants: readonly string[];
  /** Tokens and cost of the endpoint's calls in this run (0 for the others; cache hits cost nothing). */
  readonly tokens: { readonly prompt: number; readonly completion: number };
  /** At the config's `llm.prices` for the model; `unknown` without a price. */
  readonly cost_usd: number | 'unknown';
  readonly calls: number;
  readonly cache_hits: number;
}
