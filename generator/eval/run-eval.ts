/**
 * The evaluation run: every (question, variant) row of the split, in the export's order —
 * its prompt, its SQL from the source, scored on both instances — written to
 * `EVALDIR/predictions.jsonl` a line per row as the rows finish (in row order, whatever
 * order they finish in), then `summary.json` and `run.json`.
 *
 * Predictions are asked `concurrency` at once and run on a pool of connections (the guard's
 * verdict once per text and schema, a text run once per schema), so scoring a predictions
 * file is bound by the database. A killed run leaves whole lines and at most one unfinished
 * one; `resume` cuts that off, checks the lines are this evaluation's, and continues after
 * them, giving the bytes of an uninterrupted run (an endpoint's replies come from its cache).
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import pLimit from 'p-limit';
import { ConfigError, oneLine, RunFaultError } from '../common/errors.ts';
import { isConnectionFault } from '../database/connection-fault.ts';
import { writeFileAtomic } from '../common/atomic-write.ts';
import type { Database } from '../database/database.ts';
import { createUntrustedExecutor, type UntrustedExecutor } from '../execute/untrusted-query.ts';
import { createSqliteExecutor } from '../execute/untrusted-sqlite.ts';
import type { ExportRecord } from '../records/export-record.ts';
import { erDiagramText, promptHash, promptMessages, shreddingText, type ErContext } from './eval-prompt.ts';
import type { EvalInputs, EvalVariant } from './eval-inputs.ts';
import { summarize } from './eval-metrics.ts';
import {
  EVAL_SUMMARY_VERSION,
  type EvalContext,
  type EvalEngine,
  type EvalPrompt,
  type EvalRun,
  type EvalSummary,
  type PredictionLine,
} from './eval-summary.ts';
import { BudgetSpent, type PredictionSource } from './prediction-source.ts';
import { createScorer, RECORDED_GOLD, sqliteGold } from './score-prediction.ts';

export const PREDICTIONS_FILE = 'predictions.jsonl';
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/gu;
export const SUMMARY_FILE = 'summary.json';
export const RUN_FILE = 'run.json';

export interface EvalOptions {
  readonly inputs: EvalInputs;
  readonly source: PredictionSource;
  /** The pool every prediction runs on: one PGlite connection, or several server connections (none on SQLite). */
  readonly connections: readonly Database[];
  /**
   * The engine scored on (default postgres). With `sqlite`, the inputs' variants name their
   * SQLite files (`sqliteEvalInputs`), every prediction runs on them through the guarded
   * SQLite executor, and `sqliteSql` gives each row's gold as SQLite runs it.
   */
  readonly engine?: EvalEngine;
  readonly sqliteSql?: (row: ExportRecord) => string;
  readonly context: EvalContext;
  /** The prompt asked (default `paper`); `training` needs inputs read with it, and goes with the `ddl` context only. */
  readonly prompt?: EvalPrompt;
  /** Predictions asked at once (default 4). */
  readonly concurrency?: number;
  /** A prediction's time bound on each instance (default 30 s). */
  readonly timeoutMs?: number;
  readonly out: string;
  readonly resume: boolean;
  /** Tokens and cost of the source's calls so far, for `run.json`. */
  readonly usage?: () => Pick<EvalRun, 'tokens' | 'cost_usd' | 'calls' | 'cache_hits'>;
  readonly progress?: (message: string) => void;
}

export interface EvalResult {
  /** Lines in predictions.jsonl. */
  readonly lines: number;
  readonly rows: number;
  /** The summary, when every row is scored; absent when the budget stopped the run. */
  readonly summary?: EvalSummary;
  /** Lines kept from an earlier run (`resume`). */
  readonly resumed: number;
}

/** One line, keys in `PredictionLine` order. */
export function serializePrediction(l: PredictionLine): string {
  const o: PredictionLine = {
    id: l.id,
    dataset: l.dataset,
    question_id: l.question_id,
    group_id: l.group_id,
    variant: l.variant,
    engine: l.engine ?? 'postgres',
    prompt_hash: l.prompt_hash,
    sql: l.sql,
    outcome: l.outcome,
    message: l.message,
    result_hash: l.result_hash,
    edge_result_hash: l.edge_result_hash,
    correct_main: l.correct_main,
    correct_edge: l.correct_edge,
    correct: l.correct,
    structure_hash: l.structure_hash,
    ...(l.answers
      ? {
          answers: {
            instance: l.answers.instance,
            schema: l.answers.schema,
            gold: l.answers.gold,
            predicted: l.answers.predicted,
            first_difference: l.answers.first_difference,
          },
        }
      : {}),
  };
  return `${JSON.stringify(o)}\n`;
}

/** The lines an earlier run left, its unfinished last line cut off the file. */
function readEarlier(path: string): PredictionLine[] {
  if (!existsSync(path)) return [];
  const text = readFileSync(path, 'utf8');
  const end = text.lastIndexOf('\n') + 1;
  if (end < text.length) truncateSync(path, Buffer.byteLength(text.slice(0, end), 'utf8'));
  return text
    .slice(0, end)
    .split('\n')
    .filter((l) => l !== '')
    .map((line, i) => {
      try {
        return JSON.parse(line) as PredictionLine;
      } catch {
        throw new ConfigError(`${path}:${i + 1}: not a JSON line (remove the file to start again)`);
      }
    });
}

function runRecord(o: EvalOptions): EvalRun {
  const usage = o.usage?.() ?? { tokens: { prompt: 0, completion: 0 }, cost_usd: 0, calls: 0, cache_hits: 0 };
  return {
    version: EVAL_SUMMARY_VERSION,
    label: o.source.label,
    source: o.source.source,
    dir: o.inputs.dir,
    split: o.inputs.split,
    context: o.context,
    prompt: o.prompt ?? 'paper',
    engine: o.engine ?? 'postgres',
    variants: o.inputs.variants.map((v) => v.name),
    ...usage,
  };
}

/** The settings an earlier run into `out` must share for `resume` to continue it. */
function sameEvaluation(earlier: EvalRun, now: EvalRun): string | undefined {
  const before = { ...earlier, prompt: earlier.prompt ?? 'paper', engine: earlier.engine ?? 'postgres' };
  for (const key of ['source', 'split', 'context', 'prompt', 'engine', 'variants'] as const) {
    if (JSON.stringify(before[key]) !== JSON.stringify(now[key]))
      return `its ${key} was ${JSON.stringify(before[key])}, now ${JSON.stringify(now[key])}`;
  }
  return undefined;
}

/**
 * Runs an evaluation into `options.out`. Bad input (an EVALDIR holding another evaluation, a
 * resume of a different one) is a ConfigError; a fault of the database is thrown after the
 * lines finished before it are written.
 *
 * @example
 * const result = await runEval({ inputs: readEvalInputs(dir, 'test'), source: goldSource(), connections: [db], context: 'ddl', out: 'eval/gold', resume: false });
 * result.summary?.ex.rate; // 1
 */
export async function runEval(options: EvalOptions): Promise<EvalResult> {
  const { inputs, out } = options;
  const progress = options.progress ?? (() => {});
  mkdirSync(out, { recursive: true });
  const predictionsPath = join(out, PREDICTIONS_FILE);
  const runPath = join(out, RUN_FILE);
  const record = runRecord(options);
  if (record.prompt === 'training' && options.context !== 'ddl')
    throw new ConfigError(
      `--prompt training: the fine-tuning prompt shows the schema only; it does not go with --context ${options.context}`,
    );
  const engine = record.engine ?? 'postgres';
  if (engine === 'sqlite' && record.prompt === 'training')
    throw new ConfigError(
      '--prompt training: the fine-tuning files teach PostgreSQL; it does not go with --engine sqlite',
    );
  if (engine === 'sqlite' && options.sqliteSql === undefined)
    throw new Error('runEval: --engine sqlite needs the gold SQL for SQLite (sqliteEvalInputs)');
  if (!options.resume && existsSync(predictionsPath))
    throw new ConfigError(
      `--out: ${out} already holds ${PREDICTIONS_FILE}; --resume continues that evaluation, or give another --out`,
    );
  if (options.resume && existsSync(runPath)) {
    const differs = sameEvaluation(JSON.parse(readFileSync(runPath, 'utf8')) as EvalRun, record);
    if (differs) throw new ConfigError(`--resume: ${out} holds another evaluation (${differs}); give another --out`);
  }
  writeFileAtomic(runPath, `${JSON.stringify(record, null, 2)}\n`);
  // A summary of an earlier, other state must not stand beside lines it does not describe.
  rmSync(join(out, SUMMARY_FILE), { force: true });

  const variants = new Map<string, EvalVariant>(inputs.variants.map((v) => [v.name, v]));
  const diagram = options.context === 'ddl+er' ? erDiagramText(inputs.domain) : undefined;
  const contexts = new Map<string, ErContext | undefined>(
    inputs.variants.map((v) => [
      v.name,
      diagram === undefined ? undefined : { diagram, choices: shreddingText(v.spec) },
    ]),
  );
  const prompt = (row: ExportRecord) => {
    const v = variants.get(row.variant) as EvalVariant;
    const messages = promptMessages(record.prompt, v, row, contexts.get(row.variant), engine);
    return { messages, hash: promptHash(messages) };
  };

  const rows = inputs.rows;
  const earlier = options.resume ? readEarlier(predictionsPath) : [];
  if (earlier.length > rows.length)
    throw new ConfigError(
      `--resume: ${predictionsPath} has ${earlier.length} lines, but the split has ${rows.length} rows: it was written for another export; give another --out`,
    );
  earlier.forEach((l, i) => {
    const row = rows[i] as ExportRecord;
    if (l.id !== row.id || l.prompt_hash !== prompt(row).hash)
      throw new ConfigError(
        `--resume: ${predictionsPath}:${i + 1} is not row ${i + 1} of this split and prompt (written for another export, context or prompt); give another --out`,
      );
  });
  if (earlier.length > 0) progress(`eval: resuming after ${earlier.length} of ${rows.length} predictions`);

  const timeoutMs = options.timeoutMs ?? 30_000;
  const sqlite =
    engine === 'sqlite'
      ? createSqliteExecutor(inputs.dir, { timeoutMs, processes: options.concurrency ?? 4 })
      : undefined;
  try {
    return await score(options, sqlite ?? createUntrustedExecutor(options.connections, { timeoutMs }), {
      predictionsPath,
      earlier,
      rows,
      prompt,
      variants,
      progress,
    });
  } finally {
    await sqlite?.close();
  }
}

interface Scoring {
  readonly predictionsPath: string;
  readonly earlier: readonly PredictionLine[];
  readonly rows: readonly ExportRecord[];
  readonly prompt: (row: ExportRecord) => { messages: ReturnType<typeof promptMessages>; hash: string };
  readonly variants: ReadonlyMap<string, EvalVariant>;
  readonly progress: (message: string) => void;
}

/** Scores the rows after the earlier lines on `executor`, writing lines as they finish, then the summary. */
async function score(options: EvalOptions, executor: UntrustedExecutor, s: Scoring): Promise<EvalResult> {
  const { inputs, source, out } = options;
  const { predictionsPath, earlier, rows, prompt, variants, progress } = s;
  const runPath = join(out, RUN_FILE);
  const scorer = createScorer(
    executor,
    options.engine === 'sqlite' ? sqliteGold(options.sqliteSql as (row: ExportRecord) => string) : RECORDED_GOLD,
  );
  const concurrency = Math.max(1, options.concurrency ?? 4);
  const asking = pLimit(concurrency);
  // Enough rows in flight to keep every connection busy while others wait on the model.
  const window = pLimit(Math.max(concurrency, options.connections.length * 4));
  const lines: (PredictionLine | undefined)[] = [...earlier];
  let written = earlier.length;
  let stopped: BudgetSpent | undefined;
  let failure: unknown;
  const started = performance.now();
  let nextReport = 0;
  let reported = -1;
  const flush = (): void => {
    let chunk = '';
    while (written < rows.length && lines[written] !== undefined)
      chunk += serializePrediction(lines[written++] as PredictionLine);
    if (chunk !== '') appendFileSync(predictionsPath, chunk);
    if (written !== reported && (written >= nextReport || written === rows.length)) {
      reported = written;
      const rate = (written - earlier.length) / Math.max(1e-3, (performance.now() - started) / 1000);
      progress(
        `eval: ${written}/${rows.length} predictions (${Math.floor((100 * written) / Math.max(1, rows.length))}%), ${rate.toFixed(0)}/s`,
      );
      nextReport = written + Math.max(1, Math.ceil(rows.length / 20));
    }
  };
  const one = async (i: number): Promise<void> => {
    if (stopped || failure) return;
    const row = rows[i] as ExportRecord;
    const { messages, hash } = prompt(row);
    let sql: string | null;
    try {
      sql = await asking(() =>
        stopped || failure ? Promise.reject(stopped ?? failure) : source.predict(row, messages),
      );
    } catch (error) {
      if (error instanceof BudgetSpent) stopped ??= error;
      else failure ??= error;
      return;
    }
    // A lone surrogate cannot be sent: UTF-8 gives U+FFFD in its place, so that is the text
    // that runs, and the one recorded.
    if (sql !== null) sql = sql.replace(LONE_SURROGATE, '\uFFFD');
    try {
      const line = await scorer.score(
        row,
        variants.get(row.variant) as EvalVariant,
        sql,
        inputs.edgeGold.get(row.group_id),
      );
      lines[i] = { ...line, prompt_hash: hash };
      flush();
    } catch (error) {
      failure ??= error;
    }
  };
  await Promise.all(rows.map((_, i) => (i < earlier.length ? undefined : window(() => one(i)))));
  flush();
  writeFileAtomic(runPath, `${JSON.stringify(runRecord(options), null, 2)}\n`);
  if (failure) {
    // A lost connection, a server that went down: a fault of the run, not of a prediction.
    // The lines before it are written; --resume continues after them.
    if (!isConnectionFault(failure) || failure instanceof RunFaultError) throw failure;
    throw new RunFaultError(
      `${oneLine(failure)}; stopped after ${written} of ${rows.length} predictions (rerun with --resume to continue)`,
      { cause: failure },
    );
  }
  if (stopped) {
    progress(
      `eval: ${stopped.message}; stopped after ${written} of ${rows.length} predictions (rerun with --resume to continue)`,
    );
    return { lines: written, rows: rows.length, resumed: earlier.length };
  }
  const all = lines as PredictionLine[];
  const summary = summarize({
    split: inputs.split,
    context: options.context,
    engine: options.engine ?? 'postgres',
    datasets: [
      {
        dataset: inputs.dataset,
        variants: inputs.variants.map((v) => v.name),
        edgeInstance: inputs.variants.some((v) => v.edgeSchema !== undefined),
      },
    ],
    rows,
    lines: all,
  });
  writeFileAtomic(join(out, SUMMARY_FILE), `${JSON.stringify(summary, null, 2)}\n`);
  return { lines: written, rows: rows.length, summary, resumed: earlier.length };
}
