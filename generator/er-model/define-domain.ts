import type { Attribute, AttributeType, Domain, NounLexicon } from './er-model.ts';
import { validateDomain } from './validate-domain.ts';

/**
 * Declares a domain in TypeScript: the compiler checks the shape (a typo such as `optinal`
 * is a type error), `validateDomain` checks the meaning, and the result is a deep-frozen
 * copy. Throws a one-line ConfigError naming the path of the first problem.
 *
 * @example
 * export const shop = defineDomain({
 *   name: 'shop',
 *   entities: [
 *     { name: 'Product', lexicon: noun('product'), counts: { tiny: 20, small: 200, paper: 2000, large: 20000 },
 *       attributes: [attr.text('name'), attr.numeric('price', 10, 2, { hints: { min: 1, max: 500 } })] },
 *     { name: 'Review', lexicon: noun('review'), counts: { tiny: 30, small: 300, paper: 3000, large: 30000 },
 *       attributes: [attr.integer('rating', { hints: { min: 1, max: 5 } })] },
 *   ],
 *   relationships: [
 *     { name: 'about', from: 'Review', to: 'Product', cardinality: 'many-to-one', role: 'product',
 *       participation: { from: 'total' }, lexicon: { forward: 'about', reverse: 'reviewed in' } },
 *   ],
 * });
 */
export function defineDomain(domain: Domain): Domain {
  return validateDomain(domain);
}

/** Everything about an attribute but its name and type. */
export type AttributeOptions = Omit<Attribute, 'name' | 'type'>;

function make(name: string, type: AttributeType, options: AttributeOptions): Attribute {
  return { name, type, ...options };
}

/**
 * Shorthands for attributes: `attr.text('email', { hints: { faker: 'internet.email' } })` is
 * `{ name: 'email', type: { kind: 'text' }, hints: { faker: 'internet.email' } }`.
 */
export const attr = Object.freeze({
  integer: (name: string, options: AttributeOptions = {}) => make(name, { kind: 'integer' }, options),
  bigint: (name: string, options: AttributeOptions = {}) => make(name, { kind: 'bigint' }, options),
  numeric: (name: string, precision: number, scale: number, options: AttributeOptions = {}) =>
    make(name, { kind: 'numeric', precision, scale }, options),
  text: (name: string, options: AttributeOptions = {}) => make(name, { kind: 'text' }, options),
  boolean: (name: string, options: AttributeOptions = {}) => make(name, { kind: 'boolean' }, options),
  date: (name: string, options: AttributeOptions = {}) => make(name, { kind: 'date' }, options),
  timestamptz: (name: string, options: AttributeOptions = {}) => make(name, { kind: 'timestamptz' }, options),
  timestamp: (name: string, options: AttributeOptions = {}) => make(name, { kind: 'timestamp' }, options),
  enum: (name: string, values: readonly string[], options: AttributeOptions = {}) =>
    make(name, { kind: 'enum', values }, options),
});

/** `noun('tag')` → `{ singular: 'tag', plural: 'tags' }`; irregular plurals are given. */
export function noun(singular: string, plural = `${singular}s`): NounLexicon {
  return { singular, plural };
}
