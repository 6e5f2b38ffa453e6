/**
 * A derivation: the tree of grammar rules that produces one skeleton. The extractor builds
 * one from a parsed query, the sampler from random choices; both yield the same kind of
 * skeleton, so sampled and real queries can be compared token for token.
 */
import { ruleKey, symbolText, type GrammarSymbol } from './pcfg.ts';

export interface Derivation {
  readonly lhs: string;
  readonly rhs: readonly GrammarSymbol[];
  /** `ruleKey(lhs, rhs)`: the rule's identity in a grammar. */
  readonly rule: string;
  /** One derivation per nonterminal of `rhs`, in order. */
  readonly children: readonly Derivation[];
}

/** A skeleton: SQL keywords and typed placeholders, with the derivation that made it. */
export interface Skeleton {
  /** Tokens joined by single spaces: `SELECT <column> FROM <table> ORDER BY <column> DESC LIMIT 1`. */
  readonly text: string;
  readonly tokens: readonly string[];
  readonly derivation: Derivation;
}

/** A derivation node for the rule `lhs -> rhs`, with one child per nonterminal of `rhs`. */
export function derivation(lhs: string, rhs: readonly GrammarSymbol[], children: readonly Derivation[]): Derivation {
  return { lhs, rhs, rule: ruleKey(lhs, rhs), children };
}

/** The skeleton tokens a derivation yields: terminals as SQL text, placeholders as `<name:type>`. */
export function yieldTokens(root: Derivation): string[] {
  const out: string[] = [];
  const walk = (node: Derivation): void => {
    let child = 0;
    for (const symbol of node.rhs) {
      if (symbol.kind === 'nonterminal') walk(node.children[child++] as Derivation);
      else out.push(symbol.kind === 'terminal' ? symbol.text : symbolText(symbol));
    }
  };
  walk(root);
  return out;
}

/** The skeleton a derivation yields, with the derivation kept alongside. */
export function skeletonOf(root: Derivation): Skeleton {
  const tokens = yieldTokens(root);
  return { text: tokens.join(' '), tokens, derivation: root };
}

/** Every rule used, in pre-order (each node before its children). */
export function rulesOf(root: Derivation): string[] {
  const out: string[] = [];
  const walk = (node: Derivation): void => {
    out.push(node.rule);
    node.children.forEach(walk);
  };
  walk(root);
  return out;
}

/** Depth of the derivation tree (a single rule has depth 1). */
export function depthOf(root: Derivation): number {
  return 1 + Math.max(0, ...root.children.map(depthOf));
}
