/**
 * The prompt a model is asked for one (question, variant): the first paper's (its Section
 * 2.5), with the variant's DDL, the question and its evidence; with the `ddl+er` context also
 * the E/R model and the variant's shredding choices in words (its Section 2.6).
 *
 * One change from the paper's text: the paper told the model to return only the ids of the
 * answer, as its gold answers were ids. equisql's gold answers have the columns the question
 * names, and an answer is compared column for column, so the prompt asks for exactly those
 * columns, in the order the question names them.
 */
import { sha256, stableStringify } from '../common/hash.ts';
import type { Domain, Entity } from '../er-model/er-model.ts';
import type { ExportRecord } from '../records/export-record.ts';
import { trainingMessages } from '../export/finetune-format.ts';
import type { ChatMessage } from '../questions/llm-client.ts';
import type { VariantSpec } from '../variants/variant-spec.ts';
import type { EvalVariant } from './eval-inputs.ts';
import type { EvalContext, EvalEngine, EvalPrompt } from './eval-summary.ts';

export const EVAL_SYSTEM_PROMPT = [
  "You are the world's best natural language to SQL translator.",
  'You will be given two things: a schema for a PostgreSQL database and a natural language question.',
  'Given these two inputs, you should respond ONLY with a SQL statement that when run against the provided schema, returns the results that would answer the provided question.',
  'Again, you should ONLY answer with the SQL statement. Do not include any extra text before or after the SQL statement.',
  'Return exactly the columns the question asks for, in the order it names them, and no others.',
].join(' ');

/**
 * The system prompt for an engine: the paper's for PostgreSQL; for SQLite the same words
 * about a SQLite database, and that the SQL must be SQLite's.
 */
export function evalSystemPrompt(engine: EvalEngine = 'postgres'): string {
  if (engine === 'postgres') return EVAL_SYSTEM_PROMPT;
  return EVAL_SYSTEM_PROMPT.replace('a schema for a PostgreSQL database', 'a schema for a SQLite database').replace(
    'Again, you should ONLY',
    'Write the SQL in the SQLite dialect. Again, you should ONLY',
  );
}

/** What the `ddl+er` context adds for one variant: the E/R model and the variant's choices, in words. */
export interface ErContext {
  readonly diagram: string;
  readonly choices: string;
}

function typeWords(e: Entity['attributes'][number]): string {
  const t = e.type;
  const base =
    t.kind === 'enum'
      ? `one of ${t.values.map((v) => `'${v}'`).join(', ')}`
      : t.kind === 'numeric'
        ? `numeric(${t.precision}, ${t.scale})`
        : t.kind;
  return `${e.name} (${base}${e.optional ? ', optional' : ''}${e.multiValued ? ', a set of values' : ''})`;
}

/**
 * The E/R model in words: each entity with its attributes and its parent, each hierarchy's
 * kind, each relationship with its cardinality and participation.
 *
 * @example
 * erDiagramText(domain);
 * // Entities:
 * // - Account: id (integer), handle (text), …
 * // - Streamer, a kind of CreatorAccount: platform (one of 'twitch', 'youtube') …
 */
export function erDiagramText(domain: Domain): string {
  const lines = ['Entities:'];
  for (const e of domain.entities) {
    const head = e.parent ? `${e.name}, a kind of ${e.parent}` : e.name;
    const spec = e.specialization
      ? ` Its subtypes are ${e.specialization.disjoint ? 'disjoint' : 'overlapping'} and ${e.specialization.total ? 'total (every instance is of a subtype)' : 'partial'}.`
      : '';
    lines.push(
      `- ${head}: ${e.attributes.length === 0 ? 'no attributes of its own' : e.attributes.map(typeWords).join(', ')}.${spec}`,
    );
  }
  lines.push('Relationships:');
  for (const r of domain.relationships) {
    const from = r.participation?.from === 'total' ? 'every' : 'a';
    const attrs =
      r.attributes && r.attributes.length > 0
        ? ` It has the attributes ${r.attributes.map(typeWords).join(', ')}.`
        : '';
    lines.push(
      `- ${r.name}: ${r.from} ${r.lexicon.forward} ${r.to}, ${r.cardinality}; ${from} ${r.from} takes part${r.participation?.to === 'total' ? `, and every ${r.to} does` : ''}.${attrs}`,
    );
  }
  return lines.join('\n');
}

/**
 * A variant's shredding choices in words: how each hierarchy is stored, how each set-valued
 * attribute and each many-to-one relationship is stored, how tables are named.
 *
 * @example
 * shreddingText(spec);
 * // Hierarchy Account: one table per group of classes, an instance has a row in the table of every group along its is-a chain: [Account], [CreatorAccount], …
 */
export function shreddingText(spec: VariantSpec): string {
  const lines = [`Variant ${spec.name}: ${spec.description}.`];
  for (const [root, h] of Object.entries(spec.hierarchies)) {
    const groups = h.groups.map((g) => `[${g.join(', ')}]`).join(', ');
    const mode =
      h.mode === 'nested'
        ? 'an instance has a row in the table of every group along its is-a chain'
        : `an instance has exactly one row, in the table of its most specific class's group, with inherited attributes copied down${h.registry ? ', and a narrow root table holds every id and type' : ''}`;
    lines.push(`- Hierarchy ${root}: one table per group of classes (${groups}); ${mode}.`);
  }
  for (const [attr, encoding] of Object.entries(spec.multiValued)) {
    lines.push(
      `- Set-valued attribute ${attr}: stored as ${encoding === 'array' ? 'an array column' : encoding === 'jsonb' ? 'a jsonb array column' : 'a child table, one row per value'}.`,
    );
  }
  for (const [rel, encoding] of Object.entries(spec.relationships)) {
    lines.push(
      `- Relationship ${rel}: stored as ${encoding === 'fk' ? 'a foreign key column' : 'a table of its own, one row per related pair (an instance with no partner has no row)'}.`,
    );
  }
  lines.push(`- Tables are named in the ${spec.naming.tables}.`);
  return lines.join('\n');
}

/**
 * The messages for one (question, variant): the system prompt, then the schema and the
 * question (with the E/R context before the schema for `ddl+er`).
 *
 * @example
 * evalMessages('CREATE TABLE t (id integer);', { question: 'How many t are there?', evidence: '' });
 * // [{ role: 'system', content: "You are the world's best …" },
 * //  { role: 'user', content: 'The database schema is:\n\nCREATE TABLE t (id integer);\n\nThe question is: How many t are there?' }]
 */
export function evalMessages(
  ddl: string,
  row: Pick<ExportRecord, 'question' | 'evidence'>,
  er?: ErContext,
  engine: EvalEngine = 'postgres',
): ChatMessage[] {
  const evidence = row.evidence.trim() === '' ? '' : `\n\nEvidence: ${row.evidence}`;
  const question = `The question is: ${row.question}${evidence}`;
  const user = er
    ? `The Entity-Relationship diagram is:\n\n${er.diagram}\n\nThe schema is:\n\n${ddl}\n\nThe associated context for the schema is:\n\n${er.choices}\n\n${question}`
    : `The database schema is:\n\n${ddl}\n\n${question}`;
  return [
    { role: 'system', content: evalSystemPrompt(engine) },
    { role: 'user', content: user },
  ];
}

/**
 * The messages for one row under `prompt`: the paper's (`evalMessages`, with the E/R context
 * when given, for the engine scored on), or the fine-tuning files' system and user turns on
 * the schema they show.
 */
export function promptMessages(
  prompt: EvalPrompt,
  variant: EvalVariant,
  row: Pick<ExportRecord, 'question' | 'evidence'>,
  er?: ErContext,
  engine: EvalEngine = 'postgres',
): ChatMessage[] {
  if (prompt === 'paper') return evalMessages(variant.ddl, row, er, engine);
  if (variant.trainingDdl === undefined)
    throw new Error(
      `variant ${variant.name}: the training prompt's schema was not read (readEvalInputs with prompt training)`,
    );
  return trainingMessages(variant.trainingDdl, row);
}

/** sha256 of the messages (roles and texts): the `prompt_hash` of a prediction line. */
export function promptHash(messages: readonly ChatMessage[]): string {
  return sha256(stableStringify(messages.map((m) => ({ role: m.role, content: m.content }))));
}

/** The context argument's values. */
export const EVAL_CONTEXTS: readonly EvalContext[] = ['ddl', 'ddl+er'];

/** The engine argument's values. */
export const EVAL_ENGINES: readonly EvalEngine[] = ['postgres', 'sqlite'];

/** The prompt argument's values. */
export const EVAL_PROMPTS: readonly EvalPrompt[] = ['paper', 'training'];
