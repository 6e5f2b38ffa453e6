/**
 * Fine-tuning lines, in the two shapes trainers read as they come:
 * - chat, `{"messages": [system, user, assistant]}`: OpenAI's fine-tuning API, TRL's
 *   conversational language-modeling format, LLaMA-Factory's OpenAI format, Axolotl's
 *   `chat_template` type;
 * - prompt, `{"prompt": [system, user], "completion": [assistant]}`: TRL's conversational
 *   prompt–completion format, on which SFTTrainer's default puts the loss on the completion
 *   alone, so the model learns the SQL and not the schema it was shown.
 * The user turn carries the variant's schema, so the model learns to answer for the schema
 * in front of it.
 */
import type { ExportRecord } from './export-record.ts';

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

/** One chat line: system, user, assistant. */
export function chatLine(ddl: string, r: ExportRecord): string {
  return `${JSON.stringify({
    messages: [
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: userPrompt(ddl, r) },
      { role: 'assistant', content: r.sql },
    ],
  })}\n`;
}

/** One conversational prompt–completion line: the completion is exactly the SQL. */
export function promptLine(ddl: string, r: ExportRecord): string {
  return `${JSON.stringify({
    prompt: [
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: userPrompt(ddl, r) },
    ],
    completion: [{ role: 'assistant', content: r.sql }],
  })}\n`;
}
