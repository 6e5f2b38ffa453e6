/**
 * Seeded top-down sampling of skeletons from a grammar.
 *
 * Each draw expands the start symbol by picking rules with their probabilities; a draw that
 * passes the depth or length bound is thrown away and redrawn (so the sample follows the
 * grammar conditioned on the bounds). Samples carry their derivation and log-probability.
 *
 * A share of the samples can be long-tail skeletons: ones whose probability is below the
 * `tailQuantile` of ordinary draws. They are found by drawing from a flattened copy of the
 * grammar (each nonterminal's probabilities raised to 1/temperature) and keeping draws under
 * the threshold; their log-probability is still the one under the real grammar, and every
 * rule they use has positive probability, so they are valid skeletons, only rare.
 *
 * @example
 * sampleSkeletons(grammar, { n: 3, seed: 7 }).map((s) => s.skeleton);
 * // ['SELECT <column> FROM <table> WHERE <column:text> = <value:text>', …]
 */
import { ConfigError } from '../common/errors.ts';
import { sha256 } from '../common/hash.ts';
import { createRng, type Rng } from '../common/rng.ts';
import { derivation, yieldTokens, type Derivation } from './derivation.ts';
import type { Grammar, Rule } from './pcfg.ts';

export interface SampleOptions {
  readonly n: number;
  readonly seed?: string | number;
  /** Share of samples that are long-tail skeletons, in [0, 1] (default 0). */
  readonly tail?: number;
  /** Longest allowed chain of rules from the start symbol to a leaf (default 40). */
  readonly maxDepth?: number;
  /** Most skeleton tokens allowed (default 120). */
  readonly maxTokens?: number;
  /** Return distinct skeletons only (default true). */
  readonly dedupe?: boolean;
  /** Quantile of ordinary log-probabilities below which a skeleton counts as long-tail (default 0.1). */
  readonly tailQuantile?: number;
  /** Flattening temperature used to find long-tail skeletons (default 3). */
  readonly tailTemperature?: number;
}

export interface Sample {
  readonly skeleton: string;
  readonly tokens: readonly string[];
  readonly logprob: number;
  readonly derivation: Derivation;
  /** True for a sample drawn as part of the long-tail share. */
  readonly tail: boolean;
}

export interface SampleReport {
  readonly samples: readonly Sample[];
  /** Draws rejected for passing a bound. */
  readonly rejectedByBounds: number;
  /** Draws rejected as duplicates. */
  readonly duplicates: number;
  /** The long-tail log-probability threshold, when a tail share was asked for. */
  readonly tailThreshold: number | null;
}

interface Bounds {
  readonly maxDepth: number;
  readonly maxTokens: number;
}

/** Per nonterminal, the rules and the weights to draw them with. */
export type RuleTable = ReadonlyMap<string, { readonly rules: readonly Rule[]; readonly weights: readonly number[] }>;

/** Draw weights per nonterminal: the probabilities, flattened by `temperature` > 1. */
export function ruleTable(grammar: Grammar, temperature = 1): RuleTable {
  const out = new Map<string, { rules: readonly Rule[]; weights: readonly number[] }>();
  for (const [lhs, rules] of grammar.byLhs)
    out.set(lhs, { rules, weights: rules.map((r) => (temperature === 1 ? r.prob : r.prob ** (1 / temperature))) });
  return out;
}

class OutOfBounds extends Error {}

/**
 * One draw, or `null` when it passed a bound. Exposed for tests that need raw draws.
 */
export function drawOne(
  grammar: Grammar,
  rng: Rng,
  bounds: Partial<Bounds> = {},
  weights?: RuleTable,
): { derivation: Derivation; logprob: number } | null {
  const t = weights ?? ruleTable(grammar);
  const maxDepth = bounds.maxDepth ?? 40;
  const maxTokens = bounds.maxTokens ?? 120;
  let tokens = 0;
  let logprob = 0;
  const expand = (lhs: string, depth: number): Derivation => {
    if (depth > maxDepth) throw new OutOfBounds();
    const entry = t.get(lhs);
    if (!entry) throw new ConfigError(`nonterminal "${lhs}" has no rules`);
    const rule = entry.rules[rng.weighted(entry.weights)] as Rule;
    logprob += Math.log(rule.prob);
    const children: Derivation[] = [];
    for (const symbol of rule.rhs) {
      if (symbol.kind === 'nonterminal') children.push(expand(symbol.name, depth + 1));
      else if (++tokens > maxTokens) throw new OutOfBounds();
    }
    return derivation(rule.lhs, rule.rhs, children);
  };
  try {
    const root = expand(grammar.start, 1);
    return { derivation: root, logprob };
  } catch (error) {
    if (error instanceof OutOfBounds) return null;
    throw error;
  }
}

/** Log-probability of a derivation under a grammar (−Infinity if it uses an unknown rule). */
const probabilityMaps = new WeakMap<Grammar, ReadonlyMap<string, number>>();

export function logprobOf(grammar: Grammar, root: Derivation): number {
  let probs = probabilityMaps.get(grammar);
  if (!probs) {
    probs = new Map(grammar.rules.map((r) => [r.key, r.prob]));
    probabilityMaps.set(grammar, probs);
  }
  const known = probs;
  let total = 0;
  const walk = (node: Derivation): void => {
    const p = known.get(node.rule);
    total += p === undefined ? -Infinity : Math.log(p);
    node.children.forEach(walk);
  };
  walk(root);
  return total;
}

/**
 * The most distinct skeletons one deduplicated run may ask for. Deduplication remembers a
 * 52-bit hash per skeleton (about 50 bytes each), so memory stays bounded; a larger run
 * must pass `dedupe: false`.
 */
export const MAX_DEDUPED_SAMPLES = 1_000_000;

/** Counts of what a sampling run threw away, known once it ends. */
export interface SampleTotals {
  /** Draws rejected for passing a bound. */
  readonly rejectedByBounds: number;
  /** Draws rejected as duplicates. */
  readonly duplicates: number;
  /** The long-tail log-probability threshold, when a tail share was asked for. */
  readonly tailThreshold: number | null;
}

/** A 52-bit number naming a skeleton: what deduplication remembers instead of the text. */
function skeletonKey(skeleton: string): number {
  return Number.parseInt(sha256(skeleton).slice(0, 13), 16);
}

/**
 * Draws `n` skeletons one at a time, so a caller can write each as it comes (memory does
 * not grow with `n`); the generator's return value holds the totals. Same draws, in the
 * same order, as `sampleSkeletons`.
 *
 * @example
 * for (const s of streamSkeletons(grammar, { n: 1e9, seed: 1, dedupe: false })) write(s.skeleton);
 */
export function* streamSkeletons(grammar: Grammar, options: SampleOptions): Generator<Sample, SampleTotals> {
  const { n } = options;
  const tailShare = options.tail ?? 0;
  if (!Number.isSafeInteger(n) || n < 0)
    throw new ConfigError(`sample count must be a non-negative whole number, got ${n}`);
  if (!(tailShare >= 0 && tailShare <= 1)) throw new ConfigError(`tail share must be in [0, 1], got ${tailShare}`);
  const bounds: Bounds = { maxDepth: options.maxDepth ?? 40, maxTokens: options.maxTokens ?? 120 };
  const dedupe = options.dedupe ?? true;
  if (dedupe && n > MAX_DEDUPED_SAMPLES) {
    throw new ConfigError(
      `sample count ${n} is above ${MAX_DEDUPED_SAMPLES} distinct skeletons, the most deduplication keeps track of; sample without deduplication for more`,
    );
  }
  const rng = createRng(options.seed ?? 0);
  const headRng = rng.fork('head');
  const tailRng = rng.fork('tail');
  const plain = ruleTable(grammar);
  const flat = ruleTable(grammar, options.tailTemperature ?? 3);

  let tailThreshold: number | null = null;
  if (tailShare > 0) {
    const pilotRng = rng.fork('pilot');
    const logprobs: number[] = [];
    for (let i = 0; i < 2000 && logprobs.length < 500; i++) {
      const draw = drawOne(grammar, pilotRng, bounds, plain);
      if (draw) logprobs.push(draw.logprob);
    }
    logprobs.sort((a, b) => a - b);
    tailThreshold = logprobs[Math.floor((options.tailQuantile ?? 0.1) * (logprobs.length - 1))] ?? null;
  }

  const seen = new Set<number>();
  let produced = 0;
  let rejectedByBounds = 0;
  let duplicates = 0;
  const maxAttempts = 100 * n + 1000;
  let attempts = 0;
  while (produced < n && attempts < maxAttempts) {
    // Tail draws sit at fixed positions, so the share is exact whatever the dedupe losses.
    const i = produced;
    const isTail = tailShare > 0 && Math.floor((i + 1) * tailShare) > Math.floor(i * tailShare);
    attempts++;
    const draw = isTail ? drawOne(grammar, tailRng, bounds, flat) : drawOne(grammar, headRng, bounds, plain);
    if (!draw) {
      rejectedByBounds++;
      continue;
    }
    const logprob = isTail ? logprobOf(grammar, draw.derivation) : draw.logprob;
    if (isTail && tailThreshold !== null && logprob >= tailThreshold) continue;
    const tokens = yieldTokens(draw.derivation);
    const skeleton = tokens.join(' ');
    if (dedupe) {
      const key = skeletonKey(skeleton);
      if (seen.has(key)) {
        duplicates++;
        continue;
      }
      seen.add(key);
    }
    produced++;
    yield { skeleton, tokens, logprob, derivation: draw.derivation, tail: isTail };
  }
  return { rejectedByBounds, duplicates, tailThreshold };
}

/** Draws `n` skeletons into memory; see the module comment for bounds, tail and deduplication. */
export function sampleSkeletons(grammar: Grammar, options: SampleOptions): SampleReport {
  const samples: Sample[] = [];
  const stream = streamSkeletons(grammar, options);
  for (;;) {
    const next = stream.next();
    if (next.done) return { samples, ...next.value };
    samples.push(next.value);
  }
}
