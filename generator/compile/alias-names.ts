import { identNeedsQuotes } from '../common/sql-text.ts';

/** Longest alias the compiler writes, suffix included. */
export const MAX_ALIAS_LENGTH = 6;

/**
 * The short name an engineer gives a table in a query: the initials of its words
 * (`employee_processes` → `ep`, `product` → `p`, `"user"` → `u`), capped at four letters
 * so a numeric suffix still fits. Where the initials are a keyword that would need quotes
 * (`as` for `avail_sizes`), the first word gives two letters instead (`avs`).
 *
 * @example aliasBase('cust_order_contains') // 'coc'
 */
export function aliasBase(name: string): string {
  const words = name
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, '')
    .split('_')
    .filter((w) => /^[a-z]/.test(w));
  if (words.length === 0) return 't';
  const initials = words
    .map((w) => w[0])
    .join('')
    .slice(0, 4);
  if (!identNeedsQuotes(initials)) return initials;
  const longer = `${words[0]!.slice(0, 2)}${words
    .slice(1)
    .map((w) => w[0])
    .join('')}`.slice(0, 4);
  return identNeedsQuotes(longer) ? `${initials}x` : longer;
}

/**
 * A fresh alias for `name` among those already `used` (which it joins): the base, then
 * the base with 2, 3, … appended. Never longer than MAX_ALIAS_LENGTH, never quoted.
 *
 * @example uniqueAlias('product', new Set(['p'])) // 'p2'
 */
export function uniqueAlias(name: string, used: Set<string>): string {
  const base = aliasBase(name);
  let alias = base;
  for (let i = 2; used.has(alias) || identNeedsQuotes(alias); i++) alias = `${base}${i}`;
  used.add(alias);
  return alias;
}
