/**
 * The LLM question writer: TACO's three phases (what the query means, what the user wants,
 * the question in a scenario), then a check by back-translation: the model gets only the
 * question, its evidence, the E/R description and the reference variant's tables, writes
 * SQL, and that SQL — untrusted — runs through the guarded executor; the question is
 * accepted only if its answer equals the group's. A model's opinion never accepts one.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ErIndex } from '../er-model/er-index.ts';
import type { GroupRecord } from '../generate/group-record.ts';
import type { ChainOfThought, QuestionCheck, QuestionStyle } from './question-record.ts';
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
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, reason: 'the reply is not a JSON object' };
    const record = value as Record<string, unknown>;
    for (const k of required) if (typeof record[k] !== 'string' || (record[k] as string).trim() === '') return { ok: false, reason: `"${k}" is missing or not a non-empty string` };
    for (const k of optional) if (record[k] !== undefined && typeof record[k] !== 'string') return { ok: false, reason: `"${k}" is not a string` };
    const out = {} as Record<K, string>;
    for (const k of [...required, ...optional]) out[k] = typeof record[k] === 'string' ? (record[k] as string).trim() : '';
    return { ok: true, value: out };
  };
}

/** The E/R model in words, for prompts: entities with their kinds and attributes, relationships. */
export function describeModel(index: ErIndex): string {
  const lines: string[] = [];
  for (const e of index.domain.entities) {
    const parent = e.parent ? ` (a kind of ${index.entity(e.parent).lexicon.singular})` : '';
    const attributes = e.attributes.map((a) => `${a.lexicon?.singular ?? a.name}${a.multiValued ? ' (a set)' : ''}${a.optional ? ' (may be missing)' : ''}`);
    lines.push(`- ${e.lexicon.singular}${parent}: ${attributes.join(', ') || 'no attributes of its own'}`);
  }
  for (const r of index.domain.relationships) {
    lines.push(`- a ${index.entity(r.from).lexicon.singular} ${r.lexicon.forward} a ${index.entity(r.to).lexicon.singular} (${r.cardinality})`);
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
  /** Runs untrusted SQL on the reference variant through the guarded executor; the normalized result's hash. */
  readonly execute: (sql: string, ordered: boolean) => Promise<string>;
}

export interface LlmQuestion {
  readonly question: string;
  readonly evidence: string;
  readonly cot: ChainOfThought;
  readonly check: Extract<QuestionCheck, { kind: 'back-translation' }>;
  /** Why a question was not accepted (its back-translation's answer differs, or its SQL failed); empty when accepted. */
  readonly rejection: string;
}

/** Writes and checks one question for a group in one style. */
export async function writeLlmQuestion(ctx: LlmWriterContext, group: GroupRecord, style: QuestionStyle, paraphrase: number): Promise<LlmQuestion> {
  const er = describeModel(ctx.index);
  const reference = group.variants[group.reference_variant];
  if (!reference) throw new Error(`group ${group.group_id} has no SQL for its reference variant ${group.reference_variant}`);
  const styles = JSON.parse(prompt('styles.json')) as Record<string, string>;
  const reading = writeTemplateQuestion(ctx.index, group.query, 'precise', 0, group.group_id).question;
  const { meaning } = await ctx.client.complete(fill(prompt('meaning.md'), { er, query: JSON.stringify(group.query), sql: reference.sql, reading }), fields(['meaning'] as const));
  const { intent } = await ctx.client.complete(fill(prompt('intent.md'), { meaning }), fields(['intent'] as const));
  // The paraphrase index is part of the prompt, so paraphrases are distinct requests (and cache entries).
  const written = await ctx.client.complete(
    fill(prompt('question.md'), { intent, meaning, style, style_hint: `${styles[style] ?? style} (variant ${paraphrase + 1})` }),
    fields(['scenario', 'question'] as const, ['evidence'] as const),
  );
  const { sql } = await ctx.client.complete(fill(prompt('back-translation.md'), { ddl: ctx.ddl, er, question: written.question, evidence: written.evidence ? `Evidence: ${written.evidence}` : '' }), fields(['sql'] as const));
  let hash = '';
  let rejection = '';
  try {
    hash = await ctx.execute(sql, group.ordered);
    if (hash !== reference.result_hash) rejection = 'the back-translation gives another answer';
  } catch (error) {
    rejection = `the back-translation's SQL failed: ${(error as Error).message.split('\n')[0]}`;
  }
  return {
    question: written.question,
    evidence: written.evidence,
    cot: { meaning, intent, scenario: written.scenario },
    check: { kind: 'back-translation', variant: group.reference_variant, sql, result_hash: hash, agrees: rejection === '' },
    rejection,
  };
}
