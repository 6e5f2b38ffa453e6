import pluralize from 'pluralize';
import type { NounLexicon } from '../../er-model/er-model.ts';

/**
 * Splits a physical name into lower-case words: `film_actor`, `FilmActor`, `Film Actor`,
 * `filmActor` all give `film actor`.
 */
export function words(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/gu, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/gu, '$1 $2')
    .replace(/[^A-Za-z0-9]+/gu, ' ')
    .trim()
    .toLowerCase();
}

/** A model identifier from a physical name: `Film Actor` → `film_actor`; one starting with a digit gets a `t_`. */
export function snakeName(name: string): string {
  const w = words(name).replaceAll(' ', '_');
  if (w === '') return 'unnamed';
  return /^[0-9]/u.test(w) ? `t_${w}` : w;
}

/** An entity name from a table name: `film_actors` → `FilmActor`. */
export function className(table: string): string {
  const w = words(table).split(' ');
  const last = w.pop() ?? 'thing';
  return (
    [...w, pluralize.singular(last)]
      .map((x) => (x.length === 0 ? x : `${(x[0] as string).toUpperCase()}${x.slice(1)}`))
      .join('')
      .replace(/^([0-9])/u, 'T$1') || 'Unnamed'
  );
}

/**
 * Rule `lexicon`: the words a question uses for a table or column, from its name, made
 * singular and plural. A comment on the table or column is the better source when it is
 * one short noun phrase.
 *
 * @example nounWords('film_actors') // { singular: 'film actor', plural: 'film actors' }
 */
export function nounWords(name: string, comment?: string): NounLexicon {
  const fromComment =
    comment !== undefined && /^[A-Za-z][A-Za-z ]{0,30}$/u.test(comment.trim())
      ? comment.trim().toLowerCase()
      : undefined;
  const base = fromComment ?? words(name);
  const parts = base.split(' ');
  const last = parts.pop() ?? base;
  const singular = [...parts, pluralize.singular(last)].join(' ');
  const plural = [...parts, pluralize.plural(pluralize.singular(last))].join(' ');
  return { singular: singular || 'thing', plural: plural || 'things' };
}

const VERB_START = /^(is|has|can|should|was|did|does|allow|allows|enable|enabled|disable|disabled)\b/u;
const VERB_END = /(ed|ing)$/u;

/**
 * Whether a name does not read as a noun (`is_active`, `archived`, `sending`): a question
 * cannot say "the archived of a film", so the draft flags it for a person to reword.
 */
export function isNotNoun(name: string): boolean {
  const w = words(name);
  const last = w.split(' ').pop() ?? w;
  return (
    VERB_START.test(w) ||
    (VERB_END.test(last) &&
      !/(thing|ring|ding|ceiling|building|rating|setting|ending|listing|feed|speed|seed|bed|need)$/u.test(last))
  );
}
