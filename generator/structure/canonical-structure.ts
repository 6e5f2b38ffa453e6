/**
 * The canonical structure of a query, as SQLStructEval (Appendix B) defines it: AST-level
 * rules, then printing, then text normalization. Two queries share a structure exactly when
 * their canonical strings are equal; the structure hash is the SHA-256 of that string.
 *
 * Beyond the paper's alias, conjunct and column-alias rules, two rules remove differences
 * sqlglot (the paper's parser) never sees: an explicit ASC, and NOT written before LIKE,
 * IN, BETWEEN, EXISTS or IS NULL instead of inside them.
 *
 * @example
 * canonicalizeSql('SELECT T2.name FROM singer AS T2 WHERE T2.age > 30 AND T2.country = "France";', { dialect: 'sqlite' });
 * // { canonical: "select t1.name from singer as t1 where t1.age > 30 and t1.country = 'france'", structureHash: '…' }
 */
import { sha256 } from '../common/hash.ts';
import type { Dialect, Query } from '../sql/sql-ast.ts';
import { parseSql } from '../sql/parser-adapter.ts';
import { printSql } from '../sql/sql-printer.ts';
import { defaultSortDirection } from './rules/default-sort-direction.ts';
import { dropColumnAliases } from './rules/drop-column-aliases.ts';
import { foldNegations } from './rules/fold-negations.ts';
import { normalizeTableAliases } from './rules/normalize-table-aliases.ts';
import { sortConjuncts } from './rules/sort-conjuncts.ts';

/**
 * The AST rules, run in this order. Aliases first, so conjuncts sort on renamed text; then
 * once more, because sorting moves subqueries and their aliases number in written order.
 */
export const CANONICAL_RULES: readonly { readonly name: string; readonly apply: (query: Query) => Query }[] = [
  { name: 'normalize-table-aliases', apply: normalizeTableAliases },
  { name: 'drop-column-aliases', apply: dropColumnAliases },
  { name: 'default-sort-direction', apply: defaultSortDirection },
  { name: 'fold-negations', apply: foldNegations },
  { name: 'sort-conjuncts', apply: sortConjuncts },
  { name: 'renumber-table-aliases', apply: normalizeTableAliases },
];

export interface CanonicalStructure {
  readonly canonical: string;
  readonly structureHash: string;
}

/** Applies the AST-level rules. */
export function canonicalizeQuery(query: Query): Query {
  return CANONICAL_RULES.reduce((q, rule) => rule.apply(q), query);
}

/**
 * Text normalization of printed SQL: no trailing semicolons, one space between tokens,
 * lower case (string literals included, as in SQLStructEval).
 */
export function normalizeSqlText(text: string): string {
  return text
    .replace(/[\s;]+$/u, '')
    .replace(/\s+/gu, ' ')
    .trim()
    .toLowerCase();
}

/** Canonical string and structure hash of a parsed query. */
export function canonicalStructure(query: Query): CanonicalStructure {
  const canonical = normalizeSqlText(printSql(canonicalizeQuery(query)));
  return { canonical, structureHash: sha256(canonical) };
}

/** Parses and canonicalizes; throws SqlParseError for SQL that does not parse. */
export function canonicalizeSql(
  text: string,
  options: { dialect?: Dialect; fallback?: boolean } = {},
): CanonicalStructure {
  return canonicalStructure(parseSql(text, options));
}
