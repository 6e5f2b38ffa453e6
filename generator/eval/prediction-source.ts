/**
 * Where the SQL scored comes from: an OpenAI-compatible endpoint asked the prompt (through
 * the LLM client: cache, retries, token accounting, a budget), a predictions file written
 * elsewhere (`{"id", "sql"}` a line, ids of the export's rows), or the gold SQL itself (the
 * oracle, a self-check of the scorer).
 */
import { existsSync, readFileSync } from 'node:fs';
import { ConfigError } from '../common/errors.ts';
import type { ExportRecord } from '../records/export-record.ts';
import type { ChatMessage, LlmClient } from '../questions/llm-client.ts';
import type { EvalSource } from './eval-summary.ts';
import { replySql } from './reply-sql.ts';

export interface PredictionSource {
  readonly source: EvalSource;
  /** A short name for tables: the model, the predictions file's base name, or `gold`. */
  readonly label: string;
  /** The SQL for one row, or null when there is none (scored `missing`). */
  predict(row: ExportRecord, messages: readonly ChatMessage[]): Promise<string | null>;
}

/** Thrown by an endpoint source asked for more once the token budget is spent. */
export class BudgetSpent extends Error {
  constructor(readonly budget: number) {
    super(`the token budget (${budget}) is spent`);
  }
}

/**
 * The endpoint: one call per (question, variant), its reply's SQL. Before each call the
 * budget is checked: once the tokens spent reach it, `BudgetSpent` is thrown and nothing more
 * is asked.
 */
export function endpointSource(
  client: LlmClient,
  model: string,
  baseUrl: string | null,
  budget?: number,
): PredictionSource {
  return {
    source: { kind: 'endpoint', model, base_url: baseUrl },
    label: model,
    predict: async (_row, messages) => {
      if (budget !== undefined && client.usage.prompt_tokens + client.usage.completion_tokens >= budget)
        throw new BudgetSpent(budget);
      return client.completeText(messages, (text) =>
        typeof text === 'string' ? { ok: true, value: replySql(text) } : { ok: false, reason: 'the reply is not text' },
      );
    },
  };
}

/**
 * A predictions file: one JSON object a line with a string `id` (an export row's) and `sql`
 * (a string, or null for no answer), read as a reply is (`replySql`: reasoning and prose
 * dropped, the last fenced block). A line that is not such an object, or an id given
 * twice, is a one-line error naming the line. Rows without a line are scored `missing`.
 */
export function fileSource(path: string, label: string): PredictionSource & { readonly size: number } {
  if (!existsSync(path)) throw new ConfigError(`--predictions: ${path} does not exist`);
  const byId = new Map<string, string | null>();
  // A byte order mark some editors write first is no part of the first line.
  readFileSync(path, 'utf8')
    .replace(/^\uFEFF/u, '')
    .split('\n')
    .forEach((line, i) => {
      if (line.trim() === '') return;
      const where = `--predictions: ${path}:${i + 1}`;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        throw new ConfigError(`${where}: not a JSON line`);
      }
      const o = value as { id?: unknown; sql?: unknown };
      if (typeof value !== 'object' || value === null || Array.isArray(value) || typeof o.id !== 'string')
        throw new ConfigError(`${where}: expected {"id": "…", "sql": "…"}`);
      if (!(typeof o.sql === 'string' || o.sql === null))
        throw new ConfigError(`${where}: "sql" must be a string or null`);
      if (byId.has(o.id)) throw new ConfigError(`${where}: id ${o.id.slice(0, 80)} is given twice`);
      byId.set(o.id, o.sql === null ? null : replySql(o.sql));
    });
  return {
    source: { kind: 'predictions', file: path },
    label,
    size: byId.size,
    predict: async (row) => byId.get(row.id) ?? null,
  };
}

/** The oracle: every row's own gold SQL (`sql` gives it for another engine, such as SQLite's text). */
export function goldSource(sql: (row: ExportRecord) => string = (row) => row.sql): PredictionSource {
  return { source: { kind: 'gold' }, label: 'gold', predict: async (row) => sql(row) };
}
