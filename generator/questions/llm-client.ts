/**
 * Chat completions for the LLM question writer, run the way a long batch needs: through the
 * `openai` package against any OpenAI-compatible endpoint; a strict JSON reply checked by
 * the caller's validator (anything else is a failed attempt); retries with exponential
 * backoff and jitter on 429 (honouring Retry-After), 5xx, timeouts, cut connections and
 * malformed replies; a response cache on disk keyed by the hash of (model, messages,
 * parameters), so a rerun sends nothing and gets the same replies; token accounting.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI from 'openai';
import { LlmError } from '../common/errors.ts';
import { sha256, stableStringify } from '../common/hash.ts';
import type { Rng } from '../common/rng.ts';

export interface ChatMessage {
  readonly role: 'system' | 'user' | 'assistant';
  readonly content: string;
}

/** A validator: the parsed value, or why the reply has the wrong shape. */
export type ReplyCheck<T> = (value: unknown) => { ok: true; value: T } | { ok: false; reason: string };

export interface LlmClientOptions {
  readonly baseURL: string;
  readonly apiKey: string;
  readonly model: string;
  /** Where cached replies live (one JSON file per request hash); none: no cache. */
  readonly cacheDir?: string;
  /** Attempts per call, the first included (default 8). */
  readonly maxAttempts?: number;
  /** Per-request timeout (default 60 s). */
  readonly timeoutMs?: number;
  /** First backoff delay; doubles per attempt, up to 30 s (default 500 ms). */
  readonly baseDelayMs?: number;
  /** Jitter source (seeded: nothing random reaches the output). */
  readonly rng: Rng;
  readonly temperature?: number;
}

/** Tokens and requests, for the manifest's questions section. */
export interface LlmUsage {
  prompt_tokens: number;
  completion_tokens: number;
  /** HTTP requests sent (retries included). */
  requests: number;
  /** Calls answered from the cache, without a request. */
  cache_hits: number;
  /** Failed attempts by kind. */
  failures: Record<'rate-limited' | 'server-error' | 'timeout' | 'connection' | 'malformed' | 'wrong-shape', number>;
}

interface CachedReply {
  readonly content: string;
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
}

export interface LlmClient {
  /** One call: the validated JSON reply, or an LlmError after the last attempt. */
  complete<T>(messages: readonly ChatMessage[], check: ReplyCheck<T>): Promise<T>;
  /**
   * One call whose reply is plain text (no JSON mode: a model asked for "only the SQL"),
   * checked by `check` on the text; cached, retried and counted as `complete` is.
   */
  completeText<T>(messages: readonly ChatMessage[], check: ReplyCheck<T>): Promise<T>;
  readonly usage: LlmUsage;
}

let tempCounter = 0;

/** Creates a client; nothing is sent until `complete` is called. */
export function createLlmClient(options: LlmClientOptions): LlmClient {
  const client = new OpenAI({ baseURL: options.baseURL, apiKey: options.apiKey, maxRetries: 0, timeout: options.timeoutMs ?? 60_000 });
  const maxAttempts = options.maxAttempts ?? 8;
  const baseDelay = options.baseDelayMs ?? 500;
  const temperature = options.temperature ?? 0;
  const usage: LlmUsage = {
    prompt_tokens: 0,
    completion_tokens: 0,
    requests: 0,
    cache_hits: 0,
    failures: { 'rate-limited': 0, 'server-error': 0, timeout: 0, connection: 0, malformed: 0, 'wrong-shape': 0 },
  };
  if (options.cacheDir) mkdirSync(options.cacheDir, { recursive: true });

  const cachePath = (key: string) => join(options.cacheDir as string, `${key}.json`);

  function readCache(key: string): CachedReply | undefined {
    if (!options.cacheDir || !existsSync(cachePath(key))) return undefined;
    try {
      return JSON.parse(readFileSync(cachePath(key), 'utf8')) as CachedReply;
    } catch {
      return undefined; // a damaged entry is asked again
    }
  }

  function writeCache(key: string, reply: CachedReply): void {
    if (!options.cacheDir) return;
    // A unique temporary name: two calls with the same prompt may finish together.
    const temp = join(options.cacheDir, `.${key}.${process.pid}.${tempCounter++}.tmp`);
    writeFileSync(temp, JSON.stringify(reply));
    renameSync(temp, cachePath(key));
  }

  function parse<T>(content: string, check: ReplyCheck<T>, json: boolean): { ok: true; value: T } | { ok: false; kind: 'malformed' | 'wrong-shape'; reason: string } {
    if (!json) {
      const checked = check(content);
      return checked.ok ? checked : { ok: false, kind: 'wrong-shape', reason: checked.reason };
    }
    let value: unknown;
    try {
      value = JSON.parse(content);
    } catch {
      return { ok: false, kind: 'malformed', reason: 'the reply is not JSON' };
    }
    const checked = check(value);
    return checked.ok ? checked : { ok: false, kind: 'wrong-shape', reason: checked.reason };
  }

  const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

  async function call<T>(messages: readonly ChatMessage[], check: ReplyCheck<T>, json: boolean): Promise<T> {
    // The JSON calls' key is the one earlier caches hold; a text call's has no response format.
    const parameters = json ? { temperature, response_format: { type: 'json_object' } } : { temperature };
    const key = sha256(stableStringify({ model: options.model, messages, parameters }));
    const cached = readCache(key);
    if (cached) {
      const parsed = parse(cached.content, check, json);
      if (parsed.ok) {
        usage.cache_hits++;
        return parsed.value;
      }
    }
    let last = '';
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      let retryAfterMs: number | undefined;
      usage.requests++;
      try {
        const reply = await client.chat.completions.create({
          model: options.model,
          messages: messages.map((m) => ({ role: m.role, content: m.content })),
          temperature,
          ...(json ? { response_format: { type: 'json_object' as const } } : {}),
        });
        const content = reply.choices[0]?.message?.content ?? '';
        // Tokens of every delivered reply are spent, a rejected one's too.
        const prompt = reply.usage?.prompt_tokens ?? 0;
        const completion = reply.usage?.completion_tokens ?? 0;
        usage.prompt_tokens += prompt;
        usage.completion_tokens += completion;
        const parsed = parse(content, check, json);
        if (parsed.ok) {
          writeCache(key, { content, prompt_tokens: prompt, completion_tokens: completion });
          return parsed.value;
        }
        usage.failures[parsed.kind]++;
        last = parsed.reason;
      } catch (error) {
        if (error instanceof OpenAI.APIConnectionTimeoutError) {
          usage.failures.timeout++;
          last = 'timed out';
        } else if (error instanceof OpenAI.APIConnectionError) {
          usage.failures.connection++;
          last = `connection: ${error.message}`;
        } else if (error instanceof OpenAI.APIError && error.status === 429) {
          usage.failures['rate-limited']++;
          last = 'rate limited (429)';
          const header = error.headers?.get?.('retry-after');
          if (header && /^\d+(\.\d+)?$/u.test(header)) retryAfterMs = Number(header) * 1000;
        } else if (error instanceof OpenAI.APIError && error.status !== undefined && error.status >= 500) {
          usage.failures['server-error']++;
          last = `server error (${error.status})`;
        } else if (error instanceof SyntaxError) {
          // A body cut off mid-JSON.
          usage.failures.malformed++;
          last = 'the response body is not JSON';
        } else if (error instanceof OpenAI.APIError) {
          throw new LlmError(`${options.baseURL}: the endpoint refused the request (${error.status ?? 'no status'}): ${error.message}`, { cause: error });
        } else {
          throw error;
        }
      }
      if (attempt === maxAttempts) break;
      const backoff = Math.min(30_000, baseDelay * 2 ** (attempt - 1));
      await sleep(retryAfterMs ?? backoff * (0.5 + options.rng.next() / 2));
    }
    throw new LlmError(`${options.baseURL}: no usable reply after ${maxAttempts} attempts (last: ${last})`);
  }

  return {
    complete: (messages, check) => call(messages, check, true),
    completeText: (messages, check) => call(messages, check, false),
    usage,
  };
}
