import type { ErIndex } from '../../er-model/er-index.ts';
import type { Query } from '../../query/conceptual-query.ts';
import { createNaturalContext, state } from './natural-context.ts';
import { naturalQuestion } from './plans.ts';
import { article } from '../describe/english.ts';

/**
 * The natural style: the question a user types, in the register of Spider and BIRD, with
 * BIRD's evidence carrying what the register's defaults do not already say (the defaults are
 * in templates/README.md, "The natural register"). Question and evidence together decide
 * the answer.
 *
 * @example
 * writeNaturalQuestion(index, paperQ01, 0, 'q01');
 * // { question: 'Which 50 creators have the most channels they own? Give their ids.',
 * //   evidence: 'Creators include streamers. Ties are broken by id.', … }
 */
export function writeNaturalQuestion(
  index: ErIndex,
  query: Query,
  paraphrase: number,
  seed: string,
): { question: string; evidence: string; covered: readonly string[]; stated: readonly string[] } {
  const n = createNaturalContext(index, query, seed, paraphrase);
  const text = naturalQuestion(n, query);
  // What the precise describer put in its notes while wording a rare construct belongs to the evidence too.
  for (const note of n.d.notes) state(n, note, 'note');
  const question = tidy(text);
  // A question read from a partner's side may leave the rows' own objects unnamed: the evidence names them.
  if (query.kind === 'select') {
    const lex = index.entity(query.from.entity).lexicon;
    const words = lex.everyday ?? lex;
    const said = `${question} ${n.evidence.join(' ')}`.toLowerCase();
    if (![lex, words].some((l) => said.includes(l.singular.toLowerCase()) || said.includes(l.plural.toLowerCase())))
      state(n, `Each row starts from ${article(words.singular)}.`, 'base');
  }
  return {
    question,
    evidence: n.evidence.join(' '),
    covered: [...new Set([...n.covered, ...n.d.covered])].sort(),
    stated: [...n.stated].sort(),
  };
}

function tidy(s: string): string {
  const t = s
    .replace(/\s+/gu, ' ')
    .replace(/ ([,.;?])/gu, '$1')
    .replace(/\.\./gu, '.')
    .trim();
  return t.charAt(0).toUpperCase() + t.slice(1);
}
