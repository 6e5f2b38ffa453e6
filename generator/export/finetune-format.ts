/**
 * Fine-tuning lines, in the two shapes trainers read as they come:
 * - chat, `{"messages": [system, user, assistant]}`: OpenAI's fine-tuning API, TRL's
 *   conversational language-modeling format, LLaMA-Factory's OpenAI format, Axolotl's
 *   `chat_template` type;
 * - prompt, `{"prompt": [system, user], "completion": [assistant]}`: TRL's conversational
 *   prompt–completion format, on which SFTTrainer's default puts the loss on the completion
 *   alone, so the model learns the SQL and not the schema it was shown.
 * The user turn carries the variant's schema, so the model learns to answer for the schema
 * in front of it. Each line starts with the record's `id`, so a line is found in `data/` by
 * id and not by line order (trainers read the turns and leave other fields alone).
 *
 * `equisql eval --prompt training` asks a model exactly these system and user turns
 * (`trainingMessages`), so a model fine-tuned on them is scored on the prompt it learned.
 */
import type { ChatMessage } from '../questions/llm-client.ts';
import type { ExportRecord } from '../records/export-record.ts';

export const SYSTEM_PROMPT = 'You translate questions into PostgreSQL. Answer with one SQL query and nothing else.';

/** The user turn's first part: the schema, ending in a blank line. */
export function schemaPart(ddl: string): string {
  return `Database schema:\n\n${ddl}\n\n`;
}

/** The user turn's second part: the question, and the evidence when the question leaves something unsaid. */
export function questionPart(r: Pick<ExportRecord, 'question' | 'evidence'>): string {
  const evidence = r.evidence.trim() === '' ? '' : `\n\nEvidence: ${r.evidence}`;
  return `Question: ${r.question}${evidence}`;
}

/** The user turn: schema, question, evidence. */
export function userPrompt(ddl: string, r: Pick<ExportRecord, 'question' | 'evidence'>): string {
  return schemaPart(ddl) + questionPart(r);
}

/**
 * The turns a model is asked in: system and user. The fine-tuning lines and `eval --prompt
 * training` both take them from here.
 *
 * @example
 * trainingMessages('CREATE TABLE t (id integer);', { question: 'How many t are there?', evidence: '' });
 * // [{ role: 'system', content: 'You translate questions into PostgreSQL. …' },
 * //  { role: 'user', content: 'Database schema:\n\nCREATE TABLE t (id integer);\n\nQuestion: How many t are there?' }]
 */
export function trainingMessages(ddl: string, r: Pick<ExportRecord, 'question' | 'evidence'>): ChatMessage[] {
  return [
    { role: 'system', content: SYSTEM_PROMPT },
    { role: 'user', content: userPrompt(ddl, r) },
  ];
}

/** One chat line: the record's id; system, user, assistant. */
export function chatLine(ddl: string, r: ExportRecord): string {
  return `${JSON.stringify({ id: r.id, messages: [...trainingMessages(ddl, r), { role: 'assistant', content: r.sql }] })}\n`;
}

/** One conversational prompt–completion line: the record's id; the completion is exactly the SQL. */
export function promptLine(ddl: string, r: ExportRecord): string {
  return `${JSON.stringify({ id: r.id, prompt: trainingMessages(ddl, r), completion: [{ role: 'assistant', content: r.sql }] })}\n`;
}
