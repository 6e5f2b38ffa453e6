/**
 * Rule probabilities from derivations: count each rule, smooth with add-k over an inventory
 * of known rules, normalize per nonterminal, and mix grammars by weight.
 *
 * @example
 * const counts = countRules(queries.map((q) => deriveQuery(parseSql(q))));
 * const grammar = estimateGrammar(counts, { base: defaultGrammar, smoothing: 0.1 });
 */
import { GrammarError } from '../common/errors.ts';
import type { Derivation } from './derivation.ts';
import { makeGrammar, nonterminalOrder, type Grammar, type GrammarSymbol, type Rule } from './pcfg.ts';

/** How often each rule was used, with its shape, keyed by `Rule.key`. */
export type RuleCounts = ReadonlyMap<
  string,
  { readonly lhs: string; readonly rhs: readonly GrammarSymbol[]; readonly count: number }
>;

/** Counts every rule use over a set of derivations. */
export function countRules(derivations: Iterable<Derivation>): RuleCounts {
  const counts = new Map<string, { lhs: string; rhs: readonly GrammarSymbol[]; count: number }>();
  const walk = (node: Derivation): void => {
    const entry = counts.get(node.rule);
    if (entry) entry.count++;
    else counts.set(node.rule, { lhs: node.lhs, rhs: node.rhs, count: 1 });
    node.children.forEach(walk);
  };
  for (const d of derivations) walk(d);
  return counts;
}

export interface EstimateOptions {
  /** Rules that get smoothing mass even when never observed (usually the default grammar). */
  readonly base?: Grammar;
  /** Add-k smoothing constant (default 0: maximum likelihood). */
  readonly smoothing?: number;
  readonly start?: string;
  readonly header?: readonly string[];
}

/**
 * P(A → β) = (count(A → β) + k) / (count(A) + k·|rules of A|), over the base rules plus the
 * observed ones. With k = 0, unobserved rules are dropped, and so is anything only they
 * reached.
 */
export function estimateGrammar(counts: RuleCounts, options: EstimateOptions = {}): Grammar {
  const k = options.smoothing ?? 0;
  if (!(k >= 0)) throw new GrammarError(`smoothing must be a non-negative number, got ${k}`);
  // Derivations of whole statements (`deriveStatement`) start at `statement`, above the base
  // grammar's `query`; derivations of queries alone start where the base does.
  const statements = [...counts.values()].some((c) => c.lhs === 'statement');
  const start = options.start ?? (statements ? 'statement' : (options.base?.start ?? 'query'));
  const inventory = new Map<string, { lhs: string; rhs: readonly GrammarSymbol[]; count: number }>();
  for (const rule of options.base?.rules ?? []) inventory.set(rule.key, { lhs: rule.lhs, rhs: rule.rhs, count: 0 });
  for (const [key, entry] of counts) inventory.set(key, { ...entry });
  const byLhs = new Map<string, { key: string; lhs: string; rhs: readonly GrammarSymbol[]; count: number }[]>();
  for (const [key, entry] of inventory) {
    const list = byLhs.get(entry.lhs) ?? [];
    list.push({ key, ...entry });
    byLhs.set(entry.lhs, list);
  }
  const rules: Rule[] = [];
  for (const [, list] of byLhs) {
    const total = list.reduce((sum, r) => sum + r.count, 0);
    const denominator = total + k * list.length;
    if (denominator === 0) continue;
    for (const r of list) {
      const prob = (r.count + k) / denominator;
      if (prob > 0) rules.push({ lhs: r.lhs, rhs: r.rhs, prob, key: r.key, count: r.count });
    }
  }
  return makeGrammar(pruneUnusable(rules, start), { start, header: options.header ?? [] });
}

/**
 * Drops rules that mention a nonterminal without rules (repeatedly, renormalizing), then
 * nonterminals the start symbol no longer reaches.
 */
function pruneUnusable(rules: readonly Rule[], start: string): Rule[] {
  let current = [...rules];
  for (;;) {
    const defined = new Set(current.map((r) => r.lhs));
    const kept = current.filter((r) => r.rhs.every((s) => s.kind !== 'nonterminal' || defined.has(s.name)));
    if (kept.length === current.length) break;
    current = renormalize(kept);
  }
  const byLhs = new Map<string, Rule[]>();
  for (const r of current) byLhs.set(r.lhs, [...(byLhs.get(r.lhs) ?? []), r]);
  const reachable = new Set(nonterminalOrder(start, byLhs));
  return current.filter((r) => reachable.has(r.lhs));
}

function renormalize(rules: readonly Rule[]): Rule[] {
  const totals = new Map<string, number>();
  for (const r of rules) totals.set(r.lhs, (totals.get(r.lhs) ?? 0) + r.prob);
  return rules.map((r) => ({ ...r, prob: r.prob / (totals.get(r.lhs) as number) }));
}

export interface WeightedGrammar {
  readonly grammar: Grammar;
  readonly weight: number;
}

/**
 * A weighted mixture of grammars: for each nonterminal, P(A → β) = Σ wᵢ·Pᵢ(A → β) / Σ wᵢ
 * over the grammars that define A. Weights need not sum to one. The mixture's rules carry
 * no observed counts.
 *
 * @example
 * mixGrammars([{ grammar: spider, weight: 0.7 }, { grammar: expert, weight: 0.3 }]);
 */
export function mixGrammars(parts: readonly WeightedGrammar[], options: { header?: readonly string[] } = {}): Grammar {
  const first = parts[0];
  if (!first) throw new GrammarError('nothing to mix');
  for (const part of parts) {
    if (!(part.weight > 0)) throw new GrammarError(`mixture weight must be positive, got ${part.weight}`);
  }
  const lhsWeight = new Map<string, number>();
  for (const { grammar, weight } of parts)
    for (const lhs of grammar.byLhs.keys()) lhsWeight.set(lhs, (lhsWeight.get(lhs) ?? 0) + weight);
  const merged = new Map<string, Rule>();
  for (const { grammar, weight } of parts) {
    for (const rule of grammar.rules) {
      const share = (weight * rule.prob) / (lhsWeight.get(rule.lhs) as number);
      const existing = merged.get(rule.key);
      // No counts: summed counts of differently weighted sources would not give these
      // probabilities, and a `# count` comment claims they do.
      merged.set(rule.key, { lhs: rule.lhs, rhs: rule.rhs, key: rule.key, prob: (existing?.prob ?? 0) + share });
    }
  }
  return makeGrammar([...merged.values()], { start: first.grammar.start, header: options.header ?? [] });
}
