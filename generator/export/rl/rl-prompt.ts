/**
 * The prompt of an RL row: a system turn that asks for one query in a fenced block (a model
 * may reason before it; the reward reads the last fenced block), and the fine-tuning files'
 * user turn — the variant's schema, the question, its evidence.
 */
import type { ExportRecord } from '../../records/export-record.ts';
import { userPrompt } from '../finetune-format.ts';

export type RlDialect = 'SQLite' | 'PostgreSQL';

/** The system turn for a dialect. */
export function rlSystemPrompt(dialect: RlDialect): string {
  return `You translate questions into ${dialect} SQL. You may reason first; then give exactly one SQL query in a \`\`\`sql fenced block. Return exactly the columns the question asks for, in the order it names them.`;
}

/**
 * @example
 * rlMessages('CREATE TABLE t (id integer);', row, 'SQLite');
 * // [{ role: 'system', content: 'You translate questions into SQLite SQL. …' },
 * //  { role: 'user', content: 'Database schema:\n\nCREATE TABLE t (id integer);\n\nQuestion: How many t are there?' }]
 */
export function rlMessages(
  ddl: string,
  row: Pick<ExportRecord, 'question' | 'evidence'>,
  dialect: RlDialect,
): { role: 'system' | 'user'; content: string }[] {
  return [
    { role: 'system', content: rlSystemPrompt(dialect) },
    { role: 'user', content: userPrompt(ddl, row) },
  ];
}
