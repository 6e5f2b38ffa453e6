import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ErIndex } from '../er-model/er-index.ts';
import type { Query } from '../query/conceptual-query.ts';
import { sha256 } from '../common/hash.ts';
import { describeQuery, type QueryFrame, type RequiredMention } from './describe/describe-query.ts';
import type { QuestionStyle } from '../records/question-record.ts';
import { writeNaturalQuestion } from './natural/natural-writer.ts';
import { naturalParaphrases } from './natural/plans.ts';

/** The fragments file: sentence templates per style, and the implicit style's terms. */
interface Fragments {
  readonly precise: readonly string[];
  readonly imperative: readonly string[];
  readonly conversational: readonly string[];
  readonly concise: readonly string[];
  readonly implicit: readonly string[];
  readonly implicitTerms: readonly string[];
  /** [pattern, replacement]: the full wording's clauses shortened for the concise style. */
  readonly conciseRewrites: readonly (readonly [string, string])[];
}

const FRAGMENTS_PATH = fileURLToPath(new URL('../../templates/question-fragments.json', import.meta.url));
let fragments: Fragments | undefined;
let conciseRules: readonly (readonly [RegExp, string])[] | undefined;

/** The shipped fragments, read once (they are data, kept in `templates/`). */
function loadFragments(): Fragments {
  fragments ??= JSON.parse(readFileSync(FRAGMENTS_PATH, 'utf8')) as Fragments;
  return fragments;
}

/** The concise style's rewrites, compiled once. */
function conciseRewrites(): readonly (readonly [RegExp, string])[] {
  conciseRules ??= loadFragments().conciseRewrites.map(
    ([pattern, replacement]) => [new RegExp(pattern, 'gu'), replacement] as const,
  );
  return conciseRules;
}

/**
 * The concise wording of a sentence. Quoted values stand aside as tokens while the rewrites
 * run, so no rewrite can change a literal (the data's, and changing it would change the
 * answer) while a clause around one still shortens.
 */
function shorten(text: string): string {
  const literals: string[] = [];
  const masked = text.replace(/"[^"]*"/gu, (literal) => `\uE000${literals.push(literal) - 1}\uE001`);
  const short = conciseRewrites().reduce((t, [re, to]) => t.replace(re, to), masked);
  return short.replace(/\uE000(\d+)\uE001/gu, (_, i: string) => literals[Number(i)] as string);
}

/** One template question. */
export interface TemplateQuestion {
  readonly question: string;
  readonly evidence: string;
  /** The constructs the realization covered. */
  readonly covered: readonly string[];
}

type TemplateStyle = 'precise' | 'conversational' | 'imperative' | 'concise' | 'implicit';
const TEMPLATE_STYLE_NAMES: readonly TemplateStyle[] = [
  'precise',
  'conversational',
  'imperative',
  'concise',
  'implicit',
];

/**
 * Writes a question for a conceptual query in one style; `paraphrase` picks among the
 * style's templates, starting at an offset drawn from `seed` (the group id), so paraphrases
 * of one group differ and the choice is the same on every run.
 */
export function writeTemplateQuestion(
  index: ErIndex,
  query: Query,
  style: QuestionStyle,
  paraphrase: number,
  seed: string,
): TemplateQuestion {
  return writeTemplateQuestions(index, query, [{ style, paraphrase }], seed)[0] as TemplateQuestion;
}

/**
 * Questions for one query in several (style, paraphrase) pairs, realizing the query's
 * meaning once (the questions stage writes fifteen questions a group this way).
 */
export function writeTemplateQuestions(
  index: ErIndex,
  query: Query,
  wanted: readonly { style: QuestionStyle; paraphrase: number }[],
  seed: string,
): TemplateQuestion[] {
  // The implicit style states conventions in its evidence, so its frame is realized apart.
  const frames = new Map<'inline' | 'evidence', QueryFrame>();
  const frameOf = (mode: 'inline' | 'evidence'): QueryFrame => {
    let frame = frames.get(mode);
    if (!frame) frames.set(mode, (frame = describeQuery(index, query, mode).frame));
    return frame;
  };
  const base = index.entity(query.kind === 'set' ? leftmost(query).from.entity : query.from.entity).lexicon;
  return wanted.map((w) =>
    w.style === 'natural'
      ? writeNaturalQuestion(index, query, w.paraphrase, seed)
      : realize(frameOf(w.style === 'implicit' ? 'evidence' : 'inline'), w.style, w.paraphrase, seed, base),
  );
}

function leftmost(q: Query): Extract<Query, { kind: 'select' }> {
  return q.kind === 'set' ? leftmost(q.left) : q;
}

/**
 * "the id of the creator for every creator" says the rows twice: "the id of every creator".
 * Elsewhere "for every creator (…)" before a bracket, a comma or "with" reads "for all
 * creators (…)" (and "taken over", "considering" alike). Only whole-noun matches of the query's base change; nothing else moves.
 */
function plainRows(text: string, base: { singular: string; plural: string }): string {
  const noun = base.singular.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&');
  return text
    .replace(
      new RegExp(` of the ${noun},? (?:for|taken over|considering) every ${noun}\\b`, 'gu'),
      ` of every ${base.singular}`,
    )
    .replace(
      new RegExp(`\\b(for|taken over|considering) every ${noun}(?=[ ]\\(|,|[.?]| with\\b| where\\b|$)`, 'gu'),
      `$1 all ${base.plural}`,
    );
}

/** The facts a question for `query` must mention, by construct (for tests and checks). */
export function requiredMentions(index: ErIndex, query: Query): readonly RequiredMention[] {
  return describeQuery(index, query).mentions;
}

/** How many distinct paraphrases a style has. */
export function paraphraseCount(style: QuestionStyle): number {
  if (style === 'natural') return naturalParaphrases();
  const f = loadFragments();
  return (TEMPLATE_STYLE_NAMES as readonly string[]).includes(style) ? f[style as TemplateStyle].length : 0;
}

function pick<T>(items: readonly T[], seed: string, label: string, k: number): T {
  const offset = parseInt(sha256(`${seed}/${label}`).slice(0, 8), 16);
  return items[(offset + k) % items.length] as T;
}

function realize(
  frame: QueryFrame,
  style: QuestionStyle,
  paraphrase: number,
  seed: string,
  base: { singular: string; plural: string },
): TemplateQuestion {
  const f = loadFragments();
  if (!(TEMPLATE_STYLE_NAMES as readonly string[]).includes(style))
    throw new Error(`the template writer has no style ${style}`);
  const templates = f[style as TemplateStyle];
  const template = pick(templates, seed, style, paraphrase);
  const notes = frame.notes.length > 0 ? ` ${frame.notes.join(' ')}` : '';
  let filter = frame.filter;
  let order = frame.order;
  let evidence = '';
  if (style === 'implicit') {
    // Real users leave definitions and conventions unsaid; the evidence says them, so the
    // question with its evidence still admits one answer.
    const parts: string[] = [];
    if (frame.condition) {
      const term = pick(f.implicitTerms, seed, 'term', paraphrase);
      filter = `, only those that ${term}`;
      parts.push(`Those that ${term} are the ones where ${frame.condition}.`);
    }
    // A user says "sorted by" and leaves the tie-break to the evidence.
    const tie = order.indexOf(TIE_BREAK);
    if (tie >= 0) {
      parts.push(`Ties are broken by ${order.slice(tie + TIE_BREAK.length)}.`);
      order = order.slice(0, tie);
    }
    parts.push(...frame.notes);
    evidence = parts.join(' ');
  }
  const slots: Record<string, string> = {
    outputs: frame.outputs,
    Outputs: capitalize(frame.outputs),
    rows: frame.rows,
    group: frame.group,
    filter,
    having: frame.having,
    order,
    // The imperative style gives the ordering and the limit as commands of their own.
    sortCommand: order ? ` Sort them ${order.replace(/^, sorted /u, '')}.` : '',
    limitCommand: limitCommand(frame.limit),
    limit: frame.limit,
    notes: style === 'implicit' ? '' : notes,
    topic: frame.topic,
  };
  const text = plainRows(
    template.replace(/\{(\w+)\}/gu, (_, name: string) => {
      const value = slots[name];
      if (value === undefined) throw new Error(`template slot {${name}} has no value`);
      return value;
    }),
    base,
  );
  return {
    question: tidy(style === 'concise' ? shorten(text) : text),
    evidence: tidy(evidence),
    covered: frame.covered,
  };
}

/** ", keeping only the first 50 rows" as a command: "Keep only the first 50 rows." */
function limitCommand(limit: string): string {
  if (!limit) return '';
  if (limit.startsWith(', keeping ')) return ` Keep ${limit.slice(', keeping '.length)}.`;
  return ` Return ${limit.replace(/^, /u, '')}.`;
}

/** How describe/order.ts joins the first sort key to the tie-break. */
const TIE_BREAK = ', ties broken by ';

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** Spaces and punctuation after assembly: one space, no space before a comma, capital start. */
function tidy(s: string): string {
  return capitalize(
    s
      .replace(/\s+/gu, ' ')
      .replace(/ ([,.;?])/gu, '$1')
      .replace(/\.\./gu, '.')
      .trim(),
  );
}
