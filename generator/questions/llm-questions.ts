/**
 * The LLM writer as the questions stage runs it over a directory: the client (its reply cache
 * under `DIR/questions/.llm-cache`, the token budget), the reference variant's tables for
 * the back-translation, which runs through the guarded executor on a connection that is
 * reopened when it is lost (a fault of the run, never a verdict on a question), and the
 * tokens spent into the manifest.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pLimit from 'p-limit';
import { ConfigError, ExecutionError, LoadError, oneLine } from '../common/errors.ts';
import { createRng } from '../common/rng.ts';
import { writeFileAtomic } from '../common/atomic-write.ts';
import type { Database } from '../database/database.ts';
import { readManifest } from '../assemble/verify-dataset.ts';
import { normalizeResult } from '../execute/run-query.ts';
import { runUntrusted } from '../execute/untrusted-query.ts';
import { checkBaseUrl, createLlmClient, type LlmClient, type LlmUsage } from './llm-client.ts';
import { writeLlmQuestion, type LlmWriterContext } from './llm-writer.ts';
import type { ErIndex } from '../er-model/er-index.ts';
import type { GroupRecord } from '../records/group-record.ts';
import { questionId, type QuestionRecord, type QuestionStyle } from '../records/question-record.ts';
import { suiteQuestion } from './suite-questions.ts';
import { estimateCost, type ModelPrice } from '../config/llm-config.ts';

/** The LLM writer's settings (`--writer llm`). */
export interface LlmSettings {
  readonly baseURL: string;
  readonly apiKey: string;
  readonly model: string;
  /** The database the directory's variants were built into. */
  readonly db: Database;
  /**
   * Opens the same database again, after a fault of the connection (the backend terminated,
   * the server restarted): the back-translation is retried on the new connection, up to
   * `REOPEN_ATTEMPTS` times, before the run stops. Without it, the first fault stops the run.
   * Connections it opens are closed by the stage; `db` stays the caller's to close.
   */
  readonly reopen?: () => Promise<Database>;
  readonly concurrency?: number;
  readonly timeoutMs?: number;
  readonly baseDelayMs?: number;
  /**
   * Tokens (prompt and completion) after which no further request is sent: each request
   * reserves its estimate first, so concurrent groups overrun the budget by at most one
   * request each; the run stops cleanly after the groups done, resumable.
   */
  readonly budget?: number;
  /** The model's price (the config's `llm.prices`), for the cost in the manifest; none: "unknown". */
  readonly price?: ModelPrice;
}

/** Reopenings of a lost database connection per back-translation before the run stops. */
const REOPEN_ATTEMPTS = 3;

/** What `openLlmWriter` gives the stage. */
export interface LlmWriterRun {
  readonly client: LlmClient;
  /** A group's records (a person's question first, then the accepted ones) and its rejection lines. */
  recordsOf(
    group: GroupRecord,
    styles: readonly QuestionStyle[],
    paraphrases: number,
  ): Promise<{ records: QuestionRecord[]; rejections: string[] }>;
  /** Closes the connections it reopened (never `settings.db`). */
  close(): Promise<void>;
}

/**
 * The LLM writer for a directory: client with its cache under `DIR/questions/.llm-cache`,
 * reference-variant DDL, back-translations through the guarded executor.
 */
export function openLlmWriter(dir: string, settings: LlmSettings, index: ErIndex): LlmWriterRun {
  checkBaseUrl(settings.baseURL, 'questions: the LLM endpoint');
  const manifest = readManifest(dir);
  const client = createLlmClient({
    baseURL: settings.baseURL,
    apiKey: settings.apiKey,
    model: settings.model,
    cacheDir: join(dir, 'questions', '.llm-cache'),
    rng: createRng(`llm/${settings.model}`),
    ...(settings.timeoutMs ? { timeoutMs: settings.timeoutMs } : {}),
    ...(settings.baseDelayMs ? { baseDelayMs: settings.baseDelayMs } : {}),
    ...(settings.budget !== undefined ? { budget: settings.budget } : {}),
  });
  // One connection runs one transaction at a time: back-translations from concurrent groups take turns.
  const dbTurn = pLimit(1);
  let db = settings.db;
  const reopened: Database[] = [];
  /**
   * A back-translation's SQL through the guarded executor: its answer's hash, an
   * ExecutionError for what the text did (the model's fault), and for a fault of the run
   * (thrown by the executor) the connection reopened and the query run again, a bounded
   * number of times, then a LoadError that stops the run.
   */
  const execute = (pgSchema: string, sql: string, ordered: boolean): Promise<string> =>
    dbTurn(async () => {
      for (let attempt = 0; ; attempt++) {
        let outcome: Awaited<ReturnType<typeof runUntrusted>>;
        try {
          outcome = await runUntrusted(db, pgSchema, sql, { timeoutMs: 10_000 });
        } catch (error) {
          if (!settings.reopen || attempt >= REOPEN_ATTEMPTS) {
            throw new LoadError(
              `questions: the database ${db.label} failed under a back-translation${settings.reopen ? ` and again after ${REOPEN_ATTEMPTS} reopenings` : ''}: ${oneLine(error)}`,
              { cause: error },
            );
          }
          await db.close().catch(() => undefined);
          await new Promise((done) => setTimeout(done, 200 * 2 ** attempt));
          try {
            db = await settings.reopen();
            reopened.push(db);
          } catch {
            // Not reachable yet: the next attempt fails on the closed connection and tries again.
          }
          continue;
        }
        if (outcome.kind !== 'rows') throw new ExecutionError(outcome.message);
        return normalizeResult({ columns: outcome.columns, rows: outcome.rows }, ordered).hash;
      }
    });
  const recordsOf = async (
    group: GroupRecord,
    styles: readonly QuestionStyle[],
    paraphrases: number,
  ): Promise<{ records: QuestionRecord[]; rejections: string[] }> => {
    const variant = manifest.variants.find((v) => v.name === group.reference_variant);
    if (!variant)
      throw new ConfigError(
        `questions: group ${group.group_id}: its reference variant ${group.reference_variant} is not built in ${dir}`,
      );
    const ctx: LlmWriterContext = {
      client,
      model: settings.model,
      index,
      ddl: readFileSync(join(dir, 'schemas', `${variant.name}.sql`), 'utf8'),
      execute: (sql, ordered) => execute(variant.pg_schema, sql, ordered),
    };
    // A person's question first, as with the template writer.
    const person = suiteQuestion(group);
    const records: QuestionRecord[] = person ? [person] : [];
    const rejections: string[] = [];
    for (const style of styles) {
      for (let p = 0; p < paraphrases; p++) {
        const q = await writeLlmQuestion(ctx, group, style, p);
        if (q.rejection) {
          rejections.push(
            `${JSON.stringify({ group_id: group.group_id, dataset: group.dataset, style, paraphrase: p, question: q.question, reason: q.rejection, sql: q.check.sql })}\n`,
          );
          continue;
        }
        records.push({
          question_id: questionId(group.group_id, style, p, 'llm'),
          group_id: group.group_id,
          dataset: group.dataset,
          style,
          paraphrase: p,
          question: q.question,
          evidence: q.evidence,
          writer: { kind: 'llm', model: settings.model },
          cot: q.cot,
          check: q.check,
        });
      }
    }
    return { records, rejections };
  };
  const close = async (): Promise<void> => {
    for (const c of reopened) await c.close().catch(() => undefined);
  };
  return { client, recordsOf, close };
}

/**
 * Tokens, requests and the estimated cost of this run into `DIR/manifest.json`'s `questions`
 * section (the file is rewritten whole). Replies from the cache cost nothing, so a rerun
 * records what it spent, not what the questions once cost.
 */
export function recordLlmUsage(dir: string, settings: LlmSettings, usage: LlmUsage): void {
  const path = join(dir, 'manifest.json');
  const manifest = existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>) : {};
  manifest['questions'] = {
    writer: 'llm',
    model: settings.model,
    usage,
    tokens_in: usage.prompt_tokens,
    tokens_out: usage.completion_tokens,
    price_per_million_tokens: settings.price ?? 'unknown',
    estimated_cost_usd: estimateCost(settings.price, usage.prompt_tokens, usage.completion_tokens),
  };
  writeFileAtomic(path, `${JSON.stringify(manifest, null, 2)}\n`);
}
