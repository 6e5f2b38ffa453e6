/**
 * The LLM question writer: TACO's three phases (what the query means, what the user wants,
 * the question in a scenario), then a check by back-translation: the model gets only the
 * question, its evidence, the E/R description and the reference variant's tables, writes
 * SQL, and that SQL — untrusted — runs through the guarded executor; the question is
 * accepted only if its answer equals the group's. A model's opinion never accepts one.
 *
 * The back-translation is independent of the phases before it: a fresh conversation of one
 * message holding the question, its evidence and the schema, never the gold SQL, the
 * conceptual query or an earlier reply. Every text a model writes is untrusted: it is kept (or
 * put into a later prompt) only after `checkModelText`, and a question that quotes the
 * group's SQL to its own back-translation is refused, so a model cannot pass its check by
 * handing itself the answer. A failed back-translation query is the model's fault; a fault of
 * the run (a lost connection) is thrown, not filed against the question.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ExecutionError } from '../common/errors.ts';
import type { ErIndex } from '../er-model/er-index.ts';
import type { GroupRecord } from '../records/group-record.ts';
import type { ChainOfThought, QuestionCheck, QuestionStyle } from '../records/question-record.ts';
import type { ChatMessage, LlmClient, ReplyCheck } from './llm-client.ts';
import { writeTemplateQuestion } from './template-writer.ts';

const PROMPTS = new URL('../../templates/llm/', import.meta.url);
const prompts = new Map<string, string>();

/** A prompt file of `templates/llm/`, read once. */
function prompt(name: string): string {
  let text = prompts.get(name);
  if (text === undefined) prompts.set(name, (text = readFileSync(fileURLToPath(new URL(name, PROMPTS)), 'utf8')));
  return text;
}

/** Fills `{slot}`s; a slot the prompt names but the caller did not give is a bug. */
function fill(template: string, slots: Record<string, string>): ChatMessage[] {
  const content = template.replace(/\{(\w+)\}/gu, (whole, name: string) => {
    const value = slots[name];
    if (value === undefined) throw new Error(`prompt slot {${name}} has no value`);
    return value;
  });
  return [{ role: 'user', content }];
}

/** A reply that must be an object with these non-empty string fields (and `evidence`, which may be empty). */
function fields<K extends string>(required: readonly K[], optional: readonly K[] = []): ReplyCheck<Record<K, string>> {
  return (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      return { ok: false, reason: 'the reply is not a JSON object' };
    const record = value as Record<string, unknown>;
    for (const k of required)
      if (typeof record[k] !== 'string' || (record[k] as string).trim() === '')
        return { ok: false, reason: `"${k}" is missing or not a non-empty string` };
    for (const k of optional)
      if (record[k] !== undefined && typeof record[k] !== 'string')
        return { ok: false, reason: `"${k}" is not a string` };
    const out = {} as Record<K, string>;
    for (const k of [...required, ...optional])
      out[k] = typeof record[k] === 'string' ? (record[k] as string).trim() : '';
    return { ok: true, value: out };
  };
}

/** The longest text kept of each field a model writes, in characters. */
export const MODEL_TEXT_LIMITS = {
  question: 1_000,
  evidence: 2_000,
  scenario: 2_000,
  meaning: 4_000,
  intent: 2_000,
} as const;

/**
 * Characters no question, evidence or chain of thought may hold: C0 and C1 controls (a line
 * feed and a tab excepted, for prose), DEL, and the bidirectional controls that make text
 * display otherwise than it reads (U+061C, U+200E–U+200F, U+202A–U+202E, U+2066–U+2069).
 */
const FORBIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

/**
 * Why a model's text cannot be kept, or null when it can: a forbidden character (named by its
 * code point and place), a lone surrogate (which JSONL and Parquet would store differently),
 * or more than `limit` characters.
 *
 * @example
 * checkModelText('question', 'Which tags\u202E are used?', 1000)
 * // 'the question has a control character U+202E at character 11'
 */
export function checkModelText(field: string, text: string, limit: number): string | null {
  // With the u flag a pair is one code point, so only a surrogate standing alone matches.
  if (/[\ud800-\udfff]/u.test(text)) return `the ${field} has a lone surrogate`;
  const bad = FORBIDDEN.exec(text);
  if (bad)
    return `the ${field} has a control character U+${(bad[0].codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0')} at character ${bad.index + 1}`;
  if (text.length > limit) return `the ${field} is longer than ${limit} characters (${text.length})`;
  return null;
}

/** Text as compared for quoting: lower case, every run of white space one space. */
function flat(text: string): string {
  return text.toLowerCase().replace(/\s+/gu, ' ').trim();
}

/** Characters of a variant's SQL that, found in a question, make it a quotation of that SQL. */
const QUOTE_WINDOW = 40;

/** True when `text` quotes any variant's SQL of the group: all of it, or any 40 characters of it. */
function quotesSql(text: string, group: GroupRecord): boolean {
  const t = flat(text);
  for (const { sql } of Object.values(group.variants)) {
    const s = flat(sql);
    if (s.length <= QUOTE_WINDOW) {
      if (t.includes(s)) return true;
      continue;
    }
    for (let i = 0; i + QUOTE_WINDOW <= s.length; i += 4) if (t.includes(s.slice(i, i + QUOTE_WINDOW))) return true;
  }
  return false;
}

/** The E/R model in words, for prompts: entities with their kinds and attributes, relationships. */
export function describeModel(index: ErIndex): string {
  const lines: string[] = [];
  for (const e of index.domain.entities) {
    const parent = e.parent ? ` (a kind of ${index.entity(e.parent).lexicon.singular})` : '';
    const attributes = e.attributes.map(
      (a) =>
        `${a.lexicon?.singular ?? a.name}${a.multiValued ? ' (a set)' : ''}${a.optional ? ' (may be missing)' : ''}`,
    );
    lines.push(`- ${e.lexicon.singular}${parent}: ${attributes.join(', ') || 'no attributes of its own'}`);
  }
  for (const r of index.domain.relationships) {
    lines.push(
      `- a ${index.entity(r.from).lexicon.singular} ${r.lexicon.forward} a ${index.entity(r.to).lexicon.singular} (${r.cardinality})`,
    );
  }
  return lines.join('\n');
}

/** What the writer needs beyond the client: the model, and how to run SQL on the reference variant. */
export interface LlmWriterContext {
  readonly client: LlmClient;
  readonly model: string;
  readonly index: ErIndex;
  /** The reference variant's CREATE TABLE statements. */
  readonly ddl: string;
  /**
   * Runs untrusted SQL on the reference variant through the guarded executor: the normalized
   * result's hash; an ExecutionError when the query was refused or failed (the model's fault);
   * any other error for a fault of the run, which the writer passes on.
   */
  readonly execute: (sql: string, ordered: boolean) => Promise<string>;
}

export interface LlmQuestion {
  readonly question: string;
  readonly evidence: string;
  readonly cot: ChainOfThought;
  readonly check: Extract<QuestionCheck, { kind: 'back-translation' }>;
  /** Why a question was not accepted (a text refused, its back-translation's answer differs, or its SQL failed); empty when accepted. */
  readonly rejection: string;
}

/** Writes and checks one question for a group in one style. */
export async function writeLlmQuestion(
  ctx: LlmWriterContext,
  group: GroupRecord,
  style: QuestionStyle,
  paraphrase: number,
): Promise<LlmQuestion> {
  const er = describeModel(ctx.index);
  const reference = group.variants[group.reference_variant];
  if (!reference)
    throw new Error(`group ${group.group_id} has no SQL for its reference variant ${group.reference_variant}`);
  const styles = JSON.parse(prompt('styles.json')) as Record<string, string>;
  const reading = writeTemplateQuestion(ctx.index, group.query, 'precise', 0, group.group_id).question;
  const refused = (reason: string, question = '', evidence = ''): LlmQuestion => ({
    question,
    evidence,
    cot: { meaning: '', intent: '', scenario: '' },
    check: { kind: 'back-translation', variant: group.reference_variant, sql: '', result_hash: '', agrees: false },
    rejection: reason,
  });
  const { meaning } = await ctx.client.complete(
    fill(prompt('meaning.md'), { er, query: JSON.stringify(group.query), sql: reference.sql, reading }),
    fields(['meaning'] as const),
  );
  const badMeaning = checkModelText('meaning', meaning, MODEL_TEXT_LIMITS.meaning);
  if (badMeaning) return refused(badMeaning);
  const { intent } = await ctx.client.complete(fill(prompt('intent.md'), { meaning }), fields(['intent'] as const));
  const badIntent = checkModelText('intent', intent, MODEL_TEXT_LIMITS.intent);
  if (badIntent) return refused(badIntent);
  // The paraphrase index is part of the prompt, so paraphrases are distinct requests (and cache entries).
  const written = await ctx.client.complete(
    fill(prompt('question.md'), {
      intent,
      meaning,
      style,
      style_hint: `${styles[style] ?? style} (variant ${paraphrase + 1})`,
    }),
    fields(['scenario', 'question'] as const, ['evidence'] as const),
  );
  for (const field of ['question', 'evidence', 'scenario'] as const) {
    const bad = checkModelText(field, written[field], MODEL_TEXT_LIMITS[field]);
    // A refused text is not copied into the rejections file either.
    if (bad) return refused(bad);
  }
  if (quotesSql(`${written.question}\n${written.evidence}`, group))
    return refused(
      "the question quotes the query's SQL (its back-translation would be handed the answer)",
      written.question,
      written.evidence,
    );
  // A fresh conversation of one message: the question, its evidence and the schema; nothing the earlier phases saw or said.
  const { sql } = await ctx.client.complete(
    fill(prompt('back-translation.md'), {
      ddl: ctx.ddl,
      er,
      question: written.question,
      evidence: written.evidence ? `Evidence: ${written.evidence}` : '',
    }),
    fields(['sql'] as const),
  );
  let hash = '';
  let rejection = '';
  try {
    hash = await ctx.execute(sql, group.ordered);
    if (hash !== reference.result_hash) rejection = 'the back-translation gives another answer';
  } catch (error) {
    // Anything but the query's own failure is the run's fault: passed on, not filed against the question.
    if (!(error instanceof ExecutionError)) throw error;
    rejection = `the back-translation's SQL failed: ${error.message.split('\n')[0]}`;
  }
  return {
    question: written.question,
    evidence: written.evidence,
    cot: { meaning, intent, scenario: written.scenario },
    check: {
      kind: 'back-translation',
      variant: group.reference_variant,
      sql,
      result_hash: hash,
      agrees: rejection === '',
    },
    rejection,
  };
}
