/**
 * Chat completions for the LLM question writer, run the way a long batch needs: through the
 * `openai` package against any OpenAI-compatible endpoint; a strict JSON reply checked by
 * the caller's validator (anything else is a failed attempt); retries with exponential
 * backoff and jitter on 429 (honouring Retry-After), 5xx, timeouts, cut connections (a body
 * that ends before its Content-Length is one) and malformed replies; a response cache on disk
 * keyed by the hash of (model, messages, parameters), so a rerun sends nothing and gets the
 * same replies; token accounting.
 *
 * A reply is untrusted input: a body over `maxReplyBytes` is refused before it is parsed (a
 * failed attempt, never handed to the caller), and `usage` must hold non-negative safe
 * integers, or the reply is malformed. A token budget is reserved before each request is
 * sent, so calls running at once overrun it by at most one request each.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI from 'openai';
import { ConfigError, LlmError } from '../common/errors.ts';
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
  /** Bytes of a reply's body past which it is refused (default `DEFAULT_MAX_REPLY_BYTES`). */
  readonly maxReplyBytes?: number;
  /**
   * Tokens (prompt and completion) this client may spend; once what is spent and reserved
   * reaches it, `complete` throws `LlmBudgetSpent` instead of sending. Each request reserves
   * an estimate of its tokens before it is sent, so concurrent calls see each other's.
   */
  readonly budget?: number;
}

/** Far above any reply the writer asks for (a few sentences of JSON). */
export const DEFAULT_MAX_REPLY_BYTES = 256 * 1024;

/** Tokens a reply is assumed to take until its usage is known (the writer's replies are short). */
const COMPLETION_ESTIMATE = 256;

/** Thrown by `complete` instead of sending a request once the budget is spent or reserved. */
export class LlmBudgetSpent extends Error {
  constructor(readonly budget: number) {
    super(`the token budget (${budget}) is spent`);
  }
}

/** A body over the cap: thrown inside the client's fetch, so the bytes past it are never read. */
class ReplyTooLarge extends Error {}

/**
 * Checks an endpoint's URL: http or https only (a `file:` URL, or no URL at all, is refused
 * in one line rather than retried).
 */
export function checkBaseUrl(baseURL: string, where: string): void {
  let protocol = '';
  try {
    protocol = new URL(baseURL).protocol;
  } catch {
    // Not a URL: refused below.
  }
  if (protocol !== 'http:' && protocol !== 'https:') {
    const shown = JSON.stringify(baseURL.length > 60 ? `${baseURL.slice(0, 57)}...` : baseURL);
    throw new ConfigError(`${where}: must be an http(s) URL such as "http://127.0.0.1:8000/v1", got ${shown}`);
  }
}

/** Estimated tokens of a prompt (about four characters a token), for the budget's reservation. */
function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/**
 * The token counts of a reply's `usage` (undefined when the endpoint gives none: the caller
 * estimates them), or why they are not counts.
 */
function readUsage(usage: unknown): { ok: true; prompt?: number; completion?: number } | { ok: false; reason: string } {
  if (usage === undefined || usage === null) return { ok: true };
  if (typeof usage !== 'object' || Array.isArray(usage))
    return { ok: false, reason: "the reply's usage is not an object" };
  const record = usage as Record<string, unknown>;
  const counts: number[] = [];
  for (const key of ['prompt_tokens', 'completion_tokens'] as const) {
    const n = record[key];
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0)
      return {
        ok: false,
        reason: `the reply's usage.${key} is not a count of tokens (${JSON.stringify(n)?.slice(0, 30) ?? typeof n})`,
      };
    counts.push(n);
  }
  return { ok: true, prompt: counts[0] as number, completion: counts[1] as number };
}

/**
 * `fetch` that reads the whole body itself, up to `cap` bytes: past the cap (declared or
 * read) it stops reading and throws; a body cut short throws as the transport does. Either
 * way the `openai` client sees a failed connection, not a reply.
 */
function cappedFetch(cap: number): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const declared = Number(response.headers.get('content-length') ?? '');
    if (Number.isFinite(declared) && declared > cap) {
      await response.body?.cancel().catch(() => undefined);
      throw new ReplyTooLarge(`the reply's body is over ${cap} bytes (${declared} declared)`);
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    if (response.body) {
      const reader = response.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (size > cap) {
          await reader.cancel().catch(() => undefined);
          throw new ReplyTooLarge(`the reply's body is over ${cap} bytes`);
        }
        chunks.push(value);
      }
    }
    return new Response(size === 0 ? null : Buffer.concat(chunks), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/** Tokens and requests, for the manifest's questions section. */
export interface LlmUsage {
  prompt_tokens: number;
  completion_tokens: number;
  /** HTTP requests sent (retries included). */
  requests: number;
  /** Calls answered from the cache, without a request. */
  cache_hits: number;
  /** Failed attempts by kind (`too-large`: a body over the size cap; `malformed`: not JSON, or `usage` not counts). */
  failures: Record<
    'rate-limited' | 'server-error' | 'timeout' | 'connection' | 'too-large' | 'malformed' | 'wrong-shape',
    number
  >;
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

/** A server's message on one line, cut short (it is the endpoint's text, not ours). */
function oneLineOf(text: string): string {
  const line = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/gu, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 197)}...` : line;
}

/** Creates a client; nothing is sent until `complete` is called. */
export function createLlmClient(options: LlmClientOptions): LlmClient {
  checkBaseUrl(options.baseURL, 'the LLM endpoint');
  const maxReplyBytes = options.maxReplyBytes ?? DEFAULT_MAX_REPLY_BYTES;
  const client = new OpenAI({
    baseURL: options.baseURL,
    apiKey: options.apiKey,
    maxRetries: 0,
    timeout: options.timeoutMs ?? 60_000,
    fetch: cappedFetch(maxReplyBytes),
  });
  const maxAttempts = options.maxAttempts ?? 8;
  const baseDelay = options.baseDelayMs ?? 500;
  const temperature = options.temperature ?? 0;
  const usage: LlmUsage = {
    prompt_tokens: 0,
    completion_tokens: 0,
    requests: 0,
    cache_hits: 0,
    failures: {
      'rate-limited': 0,
      'server-error': 0,
      timeout: 0,
      connection: 0,
      'too-large': 0,
      malformed: 0,
      'wrong-shape': 0,
    },
  };
  /** Tokens reserved by requests under way. */
  let reserved = 0;
  if (options.cacheDir) mkdirSync(options.cacheDir, { recursive: true });

  const cachePath = (key: string) => join(options.cacheDir as string, `${key}.json`);

  function readCache(key: string): CachedReply | undefined {
    if (!options.cacheDir || !existsSync(cachePath(key))) return undefined;
    try {
      // An entry no reply could have made (the cap bounds what was cached) is asked again.
      if (statSync(cachePath(key)).size > 2 * maxReplyBytes) return undefined;
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

  function parse<T>(
    content: string,
    check: ReplyCheck<T>,
    json: boolean,
  ): { ok: true; value: T } | { ok: false; kind: 'malformed' | 'wrong-shape'; reason: string } {
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
    const promptEstimate = estimateTokens(messages.map((m) => m.content).join('\n'));
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      let retryAfterMs: number | undefined;
      if (options.budget !== undefined && usage.prompt_tokens + usage.completion_tokens + reserved >= options.budget)
        throw new LlmBudgetSpent(options.budget);
      const reservation = promptEstimate + COMPLETION_ESTIMATE;
      reserved += reservation;
      usage.requests++;
      try {
        const reply = await client.chat.completions.create({
          model: options.model,
          messages: messages.map((m) => ({ role: m.role, content: m.content })),
          temperature,
          ...(json ? { response_format: { type: 'json_object' as const } } : {}),
        });
        const content = reply.choices?.[0]?.message?.content ?? '';
        const counted = readUsage(reply.usage);
        // Tokens of every delivered reply are spent, a rejected one's too; without counts to
        // trust, the estimate stands for them.
        const prompt = (counted.ok ? counted.prompt : undefined) ?? promptEstimate;
        const completion =
          (counted.ok ? counted.completion : undefined) ?? estimateTokens(typeof content === 'string' ? content : '');
        usage.prompt_tokens += prompt;
        usage.completion_tokens += completion;
        const parsed = !counted.ok
          ? ({ ok: false, kind: 'malformed', reason: counted.reason } as const)
          : typeof content !== 'string'
            ? ({ ok: false, kind: 'malformed', reason: "the reply's content is not text" } as const)
            : parse(content, check, json);
        if (parsed.ok) {
          writeCache(key, { content: content as string, prompt_tokens: prompt, completion_tokens: completion });
          return parsed.value;
        }
        usage.failures[parsed.kind]++;
        last = parsed.reason;
      } catch (error) {
        const cause = (error as { cause?: unknown } | undefined)?.cause;
        if (error instanceof OpenAI.APIConnectionError && cause instanceof ReplyTooLarge) {
          usage.failures['too-large']++;
          last = cause.message;
        } else if (error instanceof OpenAI.APIConnectionTimeoutError) {
          usage.failures.timeout++;
          last = 'timed out';
        } else if (error instanceof OpenAI.APIConnectionError) {
          usage.failures.connection++;
          last = `connection: ${error.message}${cause instanceof Error ? ` (${cause.message})` : ''}`;
        } else if (
          error instanceof TypeError &&
          /terminated|other side closed|socket/iu.test(`${error.message} ${String(cause)}`)
        ) {
          // A body cut off after the headers, read outside the client's fetch.
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
          throw new LlmError(
            `${options.baseURL}: the endpoint refused the request (${error.status ?? 'no status'}): ${oneLineOf(error.message)}`,
            { cause: error },
          );
        } else {
          throw error;
        }
      } finally {
        reserved -= reservation;
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
