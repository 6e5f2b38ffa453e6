/**
 * Small constructors for derivation nodes, shared by the skeleton extractor's clause rules
 * (`skeleton-extractor.ts`) and its expression rules (`expression-rules.ts`).
 */
import { GrammarError } from '../common/errors.ts';
import type { Expr } from '../sql/sql-ast.ts';
import { printExpr } from '../sql/sql-printer.ts';
import { derivation, type Derivation } from './derivation.ts';
import type { GrammarSymbol } from './pcfg.ts';

/** A right-hand side element: a grammar symbol, or a child derivation (a nonterminal). */
export type Part = GrammarSymbol | Derivation;

/** An SQL keyword or punctuation terminal. */
export const kw = (text: string): GrammarSymbol => ({ kind: 'terminal', text });

/** A placeholder `<name>` or `<name:type>`. */
export const ph = (name: string, type: string | null = null): GrammarSymbol => ({ kind: 'placeholder', name, type });

/** The derivation node `lhs -> parts`, where child derivations become nonterminals. */
export function node(lhs: string, ...parts: readonly Part[]): Derivation {
  const rhs: GrammarSymbol[] = [];
  const children: Derivation[] = [];
  for (const part of parts) {
    if ('children' in part) {
      rhs.push({ kind: 'nonterminal', name: part.lhs });
      children.push(part);
    } else {
      rhs.push(part);
    }
  }
  return derivation(lhs, rhs, children);
}

/** `name -> item | item "," name`: a right-recursive list of at least one item. */
export function list(name: string, items: readonly Part[], separator: string | null = ','): Derivation {
  const [first, ...rest] = items;
  if (first === undefined) return fail(`an empty ${name}`);
  if (rest.length === 0) return node(name, first);
  return separator === null
    ? node(name, first, list(name, rest, separator))
    : node(name, first, kw(separator), list(name, rest, separator));
}

/** Throws the GrammarError that makes a query "not derived", naming the construct. */
export function fail(what: string, expr?: Expr): never {
  throw new GrammarError(`no grammar rule for ${what}${expr ? `: ${printExpr(expr)}` : ''}`);
}
