import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRng } from '../../generator/common/rng.ts';
import { rulesOf, yieldTokens, depthOf, type Derivation } from '../../generator/grammar/derivation.ts';
import { countRules } from '../../generator/grammar/pcfg-estimator.ts';
import { drawOne, logprobOf, sampleSkeletons } from '../../generator/grammar/pcfg-sampler.ts';
import { parseGrammar, type Grammar } from '../../generator/grammar/pcfg.ts';
import { fixture, repoRoot } from '../sql/corpus-path.ts';

const defaultGrammar = parseGrammar(readFileSync(resolve(repoRoot, 'grammars/default.pcfg'), 'utf8'));
const tiny = parseGrammar(fixture('grammar/tiny.pcfg'), 'tiny.pcfg');

/** Upper 0.1% point of chi-square with `df` degrees of freedom (Wilson–Hilferty). */
function chiSquareCritical(df: number): number {
  const z = 3.0902;
  const a = 2 / (9 * df);
  return df * (1 - a + z * Math.sqrt(a)) ** 3;
}

/**
 * Per nonterminal, Pearson's statistic of how often each rule expanded it against the
 * grammar's probabilities. Cells expected under 5 are pooled.
 */
function chiSquareByNonterminal(
  derivations: readonly Derivation[],
  grammar: Grammar,
): { lhs: string; stat: number; df: number }[] {
  const counts = countRules(derivations);
  const out: { lhs: string; stat: number; df: number }[] = [];
  for (const [lhs, rules] of grammar.byLhs) {
    if (rules.length < 2) continue;
    const observed = rules.map((r) => counts.get(r.key)?.count ?? 0);
    const total = observed.reduce((a, b) => a + b, 0);
    const cells: { o: number; e: number }[] = [];
    let pooled = { o: 0, e: 0 };
    rules.forEach((r, i) => {
      const e = total * r.prob;
      if (e >= 5) cells.push({ o: observed[i] as number, e });
      else pooled = { o: pooled.o + (observed[i] as number), e: pooled.e + e };
    });
    if (pooled.e > 0) cells.push(pooled);
    if (cells.length < 2) continue;
    const stat = cells.reduce((s, c) => s + (c.o - c.e) ** 2 / c.e, 0);
    out.push({ lhs, stat, df: cells.length - 1 });
  }
  return out;
}

function draws(grammar: Grammar, n: number, seed: string): Derivation[] {
  const rng = createRng(seed);
  const out: Derivation[] = [];
  while (out.length < n) {
    const d = drawOne(grammar, rng, { maxDepth: 200, maxTokens: 2000 });
    if (d) out.push(d.derivation);
  }
  return out;
}

describe('sampling', () => {
  it('matches the grammar: chi-square per nonterminal below the 0.1% critical value (fixed seed)', () => {
    const sample = draws(defaultGrammar, 5000, 'chi-square');
    const tests = chiSquareByNonterminal(sample, defaultGrammar);
    expect(tests.length).toBeGreaterThanOrEqual(25);
    const rejected = tests
      .filter((t) => t.stat > chiSquareCritical(t.df))
      .map((t) => `${t.lhs}: ${t.stat.toFixed(1)} (df ${t.df})`);
    expect(rejected).toEqual([]);
  });

  it('the same test rejects a grammar the sample was not drawn from', () => {
    const sample = draws(tiny, 3000, 'power');
    const skewed = parseGrammar(
      fixture('grammar/tiny.pcfg')
        .replace('0.50 cmp -> "="', '0.40 cmp -> "="')
        .replace('0.25 cmp -> ">"', '0.35 cmp -> ">"'),
    );
    const fair = chiSquareByNonterminal(sample, tiny).find((t) => t.lhs === 'cmp');
    const wrong = chiSquareByNonterminal(sample, skewed).find((t) => t.lhs === 'cmp');
    expect(fair && fair.stat < chiSquareCritical(fair.df)).toBe(true);
    expect(wrong && wrong.stat > chiSquareCritical(wrong.df)).toBe(true);
  });

  it('is deterministic: the same seed gives the same samples, another seed others', () => {
    const a = sampleSkeletons(defaultGrammar, { n: 200, seed: 42, tail: 0.2 });
    const b = sampleSkeletons(defaultGrammar, { n: 200, seed: 42, tail: 0.2 });
    const c = sampleSkeletons(defaultGrammar, { n: 200, seed: 43, tail: 0.2 });
    expect(b.samples.map((s) => [s.skeleton, s.logprob])).toEqual(a.samples.map((s) => [s.skeleton, s.logprob]));
    expect(c.samples.map((s) => s.skeleton)).not.toEqual(a.samples.map((s) => s.skeleton));
  });

  it('carries each sample’s derivation and its log-probability under the grammar', () => {
    const probs = new Map(defaultGrammar.rules.map((r) => [r.key, r.prob]));
    for (const s of sampleSkeletons(defaultGrammar, { n: 300, seed: 5 }).samples) {
      expect(yieldTokens(s.derivation).join(' ')).toBe(s.skeleton);
      const expected = rulesOf(s.derivation).reduce((sum, key) => sum + Math.log(probs.get(key) as number), 0);
      expect(s.logprob).toBeCloseTo(expected, 9);
      expect(logprobOf(defaultGrammar, s.derivation)).toBeCloseTo(expected, 9);
    }
  });

  it('deduplicates', () => {
    const { samples, duplicates } = sampleSkeletons(tiny, { n: 300, seed: 1 });
    expect(new Set(samples.map((s) => s.skeleton)).size).toBe(samples.length);
    expect(duplicates).toBeGreaterThan(0);
    const all = sampleSkeletons(tiny, { n: 300, seed: 1, dedupe: false });
    expect(new Set(all.samples.map((s) => s.skeleton)).size).toBeLessThan(300);
  });

  it('gives exactly the asked share of long-tail skeletons, all below the tail threshold and valid', () => {
    const report = sampleSkeletons(defaultGrammar, { n: 400, seed: 9, tail: 0.25 });
    const tail = report.samples.filter((s) => s.tail);
    expect(tail).toHaveLength(100);
    expect(report.tailThreshold).not.toBeNull();
    for (const s of tail) {
      expect(s.logprob).toBeLessThan(report.tailThreshold as number);
      expect(Number.isFinite(s.logprob)).toBe(true);
    }
    const head = report.samples.filter((s) => !s.tail);
    const median = (xs: number[]): number => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
    expect(median(tail.map((s) => s.logprob))).toBeLessThan(median(head.map((s) => s.logprob)));
  });

  it('respects the depth and length bounds', () => {
    const report = sampleSkeletons(defaultGrammar, { n: 300, seed: 2, maxTokens: 15, maxDepth: 12 });
    expect(report.rejectedByBounds).toBeGreaterThan(0);
    for (const s of report.samples) {
      expect(s.tokens.length).toBeLessThanOrEqual(15);
      expect(depthOf(s.derivation)).toBeLessThanOrEqual(12);
    }
  });
});
