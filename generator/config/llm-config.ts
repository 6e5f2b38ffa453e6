/**
 * The config's `llm` section: which model the LLM question writer asks, where (optionally),
 * and what each model's tokens cost, so a run's manifest can say what it spent. Settings
 * resolve in one fixed order: a flag, then the config, then the environment, then nothing.
 */
import { ConfigError } from '../common/errors.ts';
import { editDistance } from '../er-model/validate-domain.ts';

/** Dollars per million tokens, as the provider lists them. */
export interface ModelPrice {
  readonly input: number;
  readonly output: number;
}

export interface LlmConfig {
  /** The model `equisql questions --writer llm` asks unless `--llm-model` names another. */
  readonly model?: string;
  /** An OpenAI-compatible endpoint; without it, `OPENAI_BASE_URL`. */
  readonly baseURL?: string;
  /** Prices per model name; a model without one has an "unknown" cost in the manifest. */
  readonly prices?: Readonly<Record<string, ModelPrice>>;
}

// A record, not a list, so a key added to LlmConfig is a compile error until it is checked here.
const KNOWN: Record<keyof LlmConfig, true> = { model: true, baseURL: true, prices: true };
const LLM_KEYS = Object.keys(KNOWN);
const PRICE_KEYS = ['input', 'output'];
/** Far above any listed price; a larger figure is a unit mistake (dollars per token, cents). */
const MAX_PRICE = 10_000;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A value as a one-line message quotes it, cut short. */
function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  if (isRecord(value)) return 'an object';
  const text = (JSON.stringify(value) ?? String(value)).replace(
    /[\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16)}`,
  );
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

/** `.name` for a plain key (`gpt-4o` too), `["gpt-4.1"]` otherwise, so the path reads back unambiguously. */
function member(key: string): string {
  return /^[A-Za-z_][\w-]*$/u.test(key) ? `.${key}` : `[${show(key)}]`;
}

function unknownKey(key: string, allowed: readonly string[]): string {
  const near = allowed.find((k) => editDistance(k, key.slice(0, 40)) <= Math.max(1, Math.floor(k.length / 3)));
  return `unknown key (${near === undefined ? `expected one of ${allowed.join(', ')}` : `did you mean "${near}"?`})`;
}

/**
 * Checks a config's `llm` section and returns it typed; one-line errors name the path.
 *
 * @example
 * validateLlmConfig({ model: 'm', prices: { m: { input: -1, output: 2 } } }, 'datasets.config.ts: llm')
 * // throws ConfigError: datasets.config.ts: llm.prices.m.input: must be a number of dollars per million tokens from 0 to 10000, got -1
 */
export function validateLlmConfig(section: unknown, where: string): LlmConfig {
  const fail = (path: string, message: string): never => {
    throw new ConfigError(`${where}${path}: ${message}`);
  };
  if (!isRecord(section)) return fail('', `must be an object {model, baseURL, prices}, got ${show(section)}`);
  for (const key of Object.keys(section)) if (!LLM_KEYS.includes(key)) fail(member(key), unknownKey(key, LLM_KEYS));
  const { model, baseURL, prices } = section;
  if (model !== undefined && !(typeof model === 'string' && /^\S{1,200}$/u.test(model)))
    fail('.model', `must be a model name (no spaces, at most 200 characters), got ${show(model)}`);
  if (baseURL !== undefined) {
    let ok = typeof baseURL === 'string';
    if (ok) {
      try {
        ok = ['http:', 'https:'].includes(new URL(baseURL as string).protocol);
      } catch {
        ok = false;
      }
    }
    if (!ok) fail('.baseURL', `must be an http(s) URL such as "http://127.0.0.1:8000/v1", got ${show(baseURL)}`);
  }
  if (prices !== undefined) {
    if (!isRecord(prices))
      fail('.prices', `must be an object {model: {input, output}} of dollars per million tokens, got ${show(prices)}`);
    for (const [name, price] of Object.entries(prices as Record<string, unknown>)) {
      const path = `.prices${member(name)}`;
      if (!isRecord(price))
        fail(path, `must be an object {input, output} of dollars per million tokens, got ${show(price)}`);
      for (const key of Object.keys(price as Record<string, unknown>))
        if (!PRICE_KEYS.includes(key)) fail(`${path}${member(key)}`, unknownKey(key, PRICE_KEYS));
      for (const key of PRICE_KEYS) {
        const value = (price as Record<string, unknown>)[key];
        if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > MAX_PRICE) {
          fail(
            `${path}.${key}`,
            `must be a number of dollars per million tokens from 0 to ${MAX_PRICE}, got ${show(value)}`,
          );
        }
      }
    }
  }
  return section as LlmConfig;
}

/**
 * A user's section over the shipped one: the user's model and endpoint win; prices add up
 * per model, the user's winning on a shared name (so the shipped price list still serves).
 */
export function mergeLlmConfig(shipped: LlmConfig | undefined, user: LlmConfig | undefined): LlmConfig | undefined {
  if (!user) return shipped;
  if (!shipped) return user;
  const prices = { ...shipped.prices, ...user.prices };
  const model = user.model ?? shipped.model;
  const baseURL = user.baseURL ?? shipped.baseURL;
  return { ...(model ? { model } : {}), ...(baseURL ? { baseURL } : {}), prices };
}

/** Which model and endpoint a run uses: flag, then config, then environment. */
export function resolveLlmEndpoint(
  config: LlmConfig | undefined,
  flagModel: string | undefined,
  envBaseURL: string | undefined,
): { model?: string; baseURL?: string } {
  const model = flagModel ?? config?.model;
  const baseURL = config?.baseURL ?? envBaseURL;
  return { ...(model ? { model } : {}), ...(baseURL ? { baseURL } : {}) };
}

/** What a run cost: the tokens it sent and received at the model's price, or "unknown" without one. */
export function estimateCost(
  price: ModelPrice | undefined,
  promptTokens: number,
  completionTokens: number,
): number | 'unknown' {
  if (!price) return 'unknown';
  // Rounded to a millionth of a dollar: float noise must not reach the manifest.
  return Math.round(promptTokens * price.input + completionTokens * price.output) / 1e6;
}
