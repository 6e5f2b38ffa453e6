/**
 * The `questions/*.jsonl` line format: one question per (group, style, paraphrase). This
 * module is the contract between question writing and export; export reads these records
 * and the groups file, and nothing else from question writing.
 *
 * A question is written from the group's conceptual query (never from one variant's SQL),
 * so one question serves every variant of its group. Lines are written with keys in a
 * fixed order (see `serializeQuestion`), so the same question always prints as the same
 * bytes.
 */
import { sha256 } from '../common/hash.ts';

/** How a question is phrased. The LLM writer may add styles of its own (`llm:<name>`). */
export type QuestionStyle =
  | 'natural'
  | 'precise'
  | 'conversational'
  | 'imperative'
  | 'concise'
  | 'implicit'
  | `llm:${string}`;
/** Every template style; `natural` (a user's question with BIRD-style evidence) first. */
export const TEMPLATE_STYLES: readonly QuestionStyle[] = [
  'natural',
  'precise',
  'conversational',
  'imperative',
  'concise',
  'implicit',
];

/**
 * What `generate` writes for each group when no style is asked for: three natural
 * questions (what users type, each a different sentence plan; their evidence carries the
 * conventions), the register a model meets in use. The precise style (every choice said in
 * the sentence itself) is left out: it reads as a specification, a median of about 250
 * characters where BIRD's questions have 87, and a quarter of every dataset in it taught a
 * register no user writes. It and the other styles (conversational, imperative, concise,
 * implicit) stay available with --styles.
 */
export const DEFAULT_QUESTION_PLAN: Readonly<Partial<Record<QuestionStyle, number>>> = { natural: 3 };

/**
 * The dataset card's paragraph on which styles the data holds and why: `plan` is how many
 * questions of each style a group has (as `DEFAULT_QUESTION_PLAN` gives them, or as counted
 * in an export), and only what the data holds is described.
 */
export function stylesCardSection(
  plan: Readonly<Partial<Record<QuestionStyle, number>>> = DEFAULT_QUESTION_PLAN,
): string {
  const styles = Object.keys(plan) as QuestionStyle[];
  const parts = styles.map((style) => `${style} ×${plan[style]}`);
  const why: string[] = [];
  if (styles.includes('natural'))
    why.push(
      "The natural questions are what a user types, in the register of Spider and BIRD (a median length near BIRD's); their evidence states what the question leaves to convention and the query decides otherwise (tie-breaks, subtype scope, partners required, repeats, rounding, column order), and the register's defaults are documented, so question and evidence together admit one answer.",
    );
  if (styles.includes('precise'))
    why.push(
      'The precise question says every choice in one sentence, so each group also carries a full statement of its meaning.',
    );
  if (styles.some((s) => s.startsWith('llm:')))
    why.push(
      "The llm: styles were written by a language model from the conceptual query and kept only where a back-translation of the question alone returned the group's answer.",
    );
  if (styles.includes('natural') && !styles.includes('precise'))
    why.push(
      "The precise style, which says every choice in one sentence, is left out: it reads as a specification (a median of about 250 characters, where BIRD's questions have 87), not as a question a person types.",
    );
  const others = TEMPLATE_STYLES.filter((s) => !styles.includes(s));
  if (others.length > 0)
    why.push(`Other styles (${others.join(', ')}) can be written with \`equisql questions --styles\`.`);
  return [`Questions per group: ${parts.join(', ')}.`, ...why].join(' ');
}

/**
 * Who wrote the question: the offline template writer, an LLM through an OpenAI-compatible
 * API, or a person (a user's suite line that carried its own question, `generate --from-suite`).
 */
export type QuestionWriter =
  | { readonly kind: 'template' }
  | { readonly kind: 'llm'; readonly model: string }
  | { readonly kind: 'suite' };

/** The three phases of the chain-of-thought writer, kept as the record's chain of thought. */
export interface ChainOfThought {
  /** What the query means, in words (from the conceptual query, the reference SQL and the E/R description). */
  readonly meaning: string;
  /** What the user wants. */
  readonly intent: string;
  /** The scenario the question is set in. */
  readonly scenario: string;
}

/** How the question was checked against its group's SQL before it was accepted. */
export type QuestionCheck =
  /** Template questions: the realization covers every construct of the query (what was checked is listed). */
  | { readonly kind: 'template-coverage'; readonly covered: readonly string[] }
  /** LLM questions: a back-translation to SQL run through the guarded executor gave the group's answer. */
  | {
      readonly kind: 'back-translation';
      readonly variant: string;
      readonly sql: string;
      readonly result_hash: string;
      readonly agrees: boolean;
    }
  /** A person's question, taken as written. */
  | { readonly kind: 'as-written' };

/**
 * A record's id: sha256 of group_id, style and paraphrase (newline-separated), stable across
 * reruns. A person's question (writer `suite`) hashes `suite` in place of its style, so it
 * never shares an id with the template question of the same style and paraphrase.
 */
export function questionId(
  groupId: string,
  style: QuestionStyle,
  paraphrase: number,
  writer: QuestionWriter['kind'],
): string {
  return sha256(`${groupId}\n${writer === 'suite' ? 'suite' : style}\n${paraphrase}`);
}

export interface QuestionRecord {
  /** sha256 of group_id, style and paraphrase: stable across reruns (see `questionId`). */
  readonly question_id: string;
  readonly group_id: string;
  readonly dataset: string;
  readonly style: QuestionStyle;
  /** 0-based index among the paraphrases of this style. */
  readonly paraphrase: number;
  readonly question: string;
  /** What an implicit question leaves unsaid, stated (BIRD's "evidence"); empty when nothing is. */
  readonly evidence: string;
  readonly writer: QuestionWriter;
  readonly cot?: ChainOfThought;
  readonly check: QuestionCheck;
}

/** One JSON line, keys in the order of the interface (the bytes are part of the contract). */
export function serializeQuestion(q: QuestionRecord): string {
  const ordered: QuestionRecord = {
    question_id: q.question_id,
    group_id: q.group_id,
    dataset: q.dataset,
    style: q.style,
    paraphrase: q.paraphrase,
    question: q.question,
    evidence: q.evidence,
    writer: q.writer,
    ...(q.cot ? { cot: q.cot } : {}),
    check: q.check,
  };
  return `${JSON.stringify(ordered)}\n`;
}

/** The shape of a `questions/<dataset>.jsonl` line (for `checkShape`). */
export function questionShape(q: Record<string, unknown>): string | undefined {
  const obj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (typeof q['question_id'] !== 'string' || q['question_id'] === '')
    return '"question_id" must be a non-empty string';
  if (typeof q['group_id'] !== 'string') return '"group_id" must be a string';
  if (typeof q['dataset'] !== 'string') return '"dataset" must be a string';
  if (typeof q['style'] !== 'string') return '"style" must be a string';
  if (!Number.isSafeInteger(q['paraphrase']) || (q['paraphrase'] as number) < 0)
    return '"paraphrase" must be a whole number';
  if (typeof q['question'] !== 'string') return '"question" must be a string';
  if (typeof q['evidence'] !== 'string') return '"evidence" must be a string';
  if (!obj(q['writer']) || typeof q['writer']['kind'] !== 'string') return '"writer" must be {"kind": …}';
  if (!obj(q['check']) || typeof q['check']['kind'] !== 'string') return '"check" must be {"kind": …}';
  if (q['cot'] !== undefined && !obj(q['cot'])) return '"cot" must be an object';
  return undefined;
}
