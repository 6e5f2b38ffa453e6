import type { Predicate, ScalarLiteral } from '../../query/conceptual-query.ts';

/** English helpers the describers share: articles, lists, verb agreement, literals. */

const PREPOSITIONS = new Set(['by', 'with', 'on', 'from', 'in', 'about', 'to', 'for', 'of', 'at', 'into']);
export const ORDINALS = ['first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth', 'tenth'];

/** A verb phrase usable right after a noun ("produced by", "compatible with"), or a finite one ("owns"). */
export function isPostmodifier(phrase: string): boolean {
  const words = phrase.trim().split(/\s+/u);
  const last = words[words.length - 1] as string;
  const first = words[0] as string;
  if (words.length === 1) return PREPOSITIONS.has(first);
  if (['can', 'may', 'will', 'does', 'is', 'has'].includes(first)) return false;
  return PREPOSITIONS.has(last) && !/[^s]s$/u.test(first);
}

/** "owns" → "own", "processes" → "process", "subscribes to" → "subscribe to": for a plural subject. */
export function pluralVerb(phrase: string): string {
  const [first, ...rest] = phrase.split(' ');
  const f = first as string;
  let base = f;
  if (/(ss|sh|ch|x)es$/u.test(f)) base = f.slice(0, -2);
  else if (/[^s]s$/u.test(f)) base = f.slice(0, -1);
  return [base, ...rest].join(' ');
}

/** "avgViewers", "avg_viewers" → "avg viewers". */
export function words(identifier: string): string {
  return identifier
    .replace(/([a-z0-9])([A-Z])/gu, '$1 $2')
    .replace(/_/gu, ' ')
    .toLowerCase();
}

/** A literal as a question quotes it. */
export function literalText(value: ScalarLiteral | null): string {
  if (value === null) return 'NULL';
  // Double quotes: text values often hold apostrophes ("kids' shows").
  // Decimals arrive as strings (numeric); they read as numbers.
  if (typeof value === 'string') return /^-?\d+(\.\d+)?$/u.test(value) && !/^0\d/u.test(value) ? value : `"${value}"`;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return String(value);
}

/** "a", "b" and "c" */
export function listing(items: readonly string[], conjunction = 'and'): string {
  if (items.length <= 1) return items[0] ?? '';
  if (items.length === 2) return `${items[0]} ${conjunction} ${items[1]}`;
  return `${items.slice(0, -1).join(', ')}, ${conjunction} ${items[items.length - 1]}`;
}

/** "a creator", "an account", "a user". */
export function article(nounPhrase: string): string {
  return /^[aeiou]/iu.test(nounPhrase) && !/^(u[bcfhjkqrstn]i|eu|one|uni|use)/iu.test(nounPhrase)
    ? `an ${nounPhrase}`
    : `a ${nounPhrase}`;
}

export function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** The conjuncts of a condition (itself when it is not an AND). */
export function conjuncts(p: Predicate | undefined): Predicate[] {
  if (!p) return [];
  return p.kind === 'and' ? p.args.flatMap((a) => conjuncts(a)) : [p];
}
