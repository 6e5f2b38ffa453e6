/**
 * Fine-tuning lines. The chat form (`{"messages": [system, user, assistant]}`) is read as-is
 * by OpenAI's fine-tuning API, TRL's conversational format and Axolotl's `chat_template`;
 * the `{"prompt", "completion"}` form is TRL's prompt–completion format. The prompt carries
 * the variant's DDL, so the model learns to answer for the schema in front of it.
 */
import type { ExportRecord } from './export-record.ts';

export const SYSTEM_PROMPT = 'You translate questions into PostgreSQL. Answer with one SQL query and nothing else.';

/**
 * The DDL a prompt shows: the schema file without its header comment and session settings,
 * which describe how the file was made, not the schema.
 *
 * @example
 * promptDdl('-- equisql schema …\nSET client_encoding = \'UTF8\';\n\nCREATE TABLE t (id integer);\n'); // 'CREATE TABLE t (id integer);'
 */
export function promptDdl(schemaFile: string): string {
  return schemaFile
    .split('\n')
    .filter((line) => !line.startsWith('--') && !/^SET\s/u.test(line))
    .join('\n')
    .replace(/\n{3,}/gu, '\n\n')
    .trim();
}

/** The user turn: schema, question, and the evidence when the question leaves something unsaid. */
export function userPrompt(ddl: string, r: Pick<ExportRecord, 'question' | 'evidence'>): string {
  const evidence = r.evidence.trim() === '' ? '' : `\n\nEvidence: ${r.evidence}`;
  return `Database schema:\n\n${ddl}\n\nQuestion: ${r.question}${evidence}`;
}

/** One chat line: system, user, assistant — roles alternate after the system turn. */
export function chatLine(ddl: string, r: ExportRecord): string {
  return `${JSON.stringify({
    messages: [
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: userPrompt(ddl, r) },
      { role: 'assistant', content: r.sql },
    ],
  })}\n`;
}

/** One prompt–completion line; the system text opens the prompt. */
export function promptLine(ddl: string, r: ExportRecord): string {
  return `${JSON.stringify({ prompt: `${SYSTEM_PROMPT}\n\n${userPrompt(ddl, r)}\n\nSQL:`, completion: ` ${r.sql}` })}\n`;
}
