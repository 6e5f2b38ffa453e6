/**
 * Token lengths of the fine-tuning files, counted with a real tokenizer (gpt-tokenizer's
 * o200k_base, GPT-4o's) and ChatML framing as gpt-tokenizer's `encodeChat` writes it for
 * GPT-4o (`<|im_start|>role<|im_sep|>content<|im_end|>`). Other models' tokenizers and chat
 * templates count somewhat differently; the settings suggested leave room for that.
 */
import { countTokens, encodeChat } from 'gpt-tokenizer';

export const TOKENIZER = 'o200k_base (gpt-tokenizer, GPT-4o), ChatML framing';

type Message = { role: 'system' | 'user' | 'assistant'; content: string };

/** `encodeChat` ends with the assistant header a generation starts from. */
const GENERATION_PROMPT = encodeChat([], 'gpt-4o').length;
/** Framing tokens of one message (start, role, separator, end). */
export const MESSAGE_FRAMING = encodeChat([{ role: 'user', content: '' }], 'gpt-4o').length - GENERATION_PROMPT;

/** Tokens of one row: its whole sequence, and the prompt and completion parts a trainer masks apart. */
export interface RowTokens {
  /** system + user + assistant, framed: what a trainer's sequence holds. */
  readonly sequence: number;
  /** system + user, framed, and the assistant header: what the model reads. */
  readonly prompt: number;
  /** The SQL and the end of its turn: what the loss falls on. */
  readonly completion: number;
}

/**
 * Counts rows' tokens. The user turn is the schema text then the question; the schema part
 * (ending in a blank line, where the tokenizer always cuts) is counted once per schema.
 */
export function createTokenCounter(): (
  system: string,
  schemaPart: string,
  questionPart: string,
  sql: string,
) => RowTokens {
  const schemas = new Map<string, number>();
  let systemText = '';
  let systemTokens = 0;
  return (system, schemaPart, questionPart, sql) => {
    if (system !== systemText) {
      systemText = system;
      systemTokens = countTokens(system);
    }
    let schema = schemas.get(schemaPart);
    if (schema === undefined) {
      schema = countTokens(schemaPart);
      schemas.set(schemaPart, schema);
    }
    const prompt = 2 * MESSAGE_FRAMING + systemTokens + schema + countTokens(questionPart) + GENERATION_PROMPT;
    const completion = countTokens(sql) + MESSAGE_FRAMING - GENERATION_PROMPT;
    return { sequence: prompt + completion, prompt, completion };
  };
}

/** Tokens of a chat as a trainer's sequence holds it (the check a test makes of the counter). */
export function chatTokens(messages: readonly Message[]): number {
  return encodeChat(messages as Message[], 'gpt-4o').length - GENERATION_PROMPT;
}

export interface LengthStats {
  readonly p50: number;
  readonly p90: number;
  readonly max: number;
}

/** Nearest-rank percentiles and the maximum of `values` (zeros for none). */
export function lengthStats(values: readonly number[]): LengthStats {
  if (values.length === 0) return { p50: 0, p90: 0, max: 0 };
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p: number): number => sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] as number;
  return { p50: rank(0.5), p90: rank(0.9), max: sorted[sorted.length - 1] as number };
}

/**
 * The sequence length to give a trainer so no row is cut: the longest row plus a fifth
 * (another tokenizer or chat template may count more), rounded up to a multiple of 256.
 *
 * @example
 * suggestedLength(1700); // 2048
 */
export function suggestedLength(max: number): number {
  return Math.max(256, Math.ceil((max * 1.2) / 256) * 256);
}

/** The trainers' own defaults, and what each does with a row longer than its length. */
export const TRAINER_DEFAULTS = [
  {
    trainer: 'TRL SFTTrainer',
    setting: 'max_length',
    value: 1024,
    excess:
      'cut at the end (truncation keep_start); a prompt–completion row whose prompt fills it has no completion left and is dropped',
  },
  { trainer: 'LLaMA-Factory', setting: 'cutoff_len', value: 2048, excess: 'cut' },
  { trainer: 'Axolotl', setting: 'sequence_len', value: 512, excess: 'dropped (excess_length_strategy: drop)' },
] as const;
