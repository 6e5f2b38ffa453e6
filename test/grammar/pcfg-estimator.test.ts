// @tier long
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRng } from '../../generator/common/rng.ts';
import { countRules, estimateGrammar, mixGrammars } from '../../generator/grammar/pcfg-estimator.ts';
import { drawOne } from '../../generator/grammar/pcfg-sampler.ts';
import { parseGrammar, type Grammar } from '../../generator/grammar/pcfg.ts';
import { yieldTokens, type Derivation } from '../../generator/grammar/derivation.ts';
import { deriveQuery } from '../../generator/grammar/skeleton-extractor.ts';
import { instantiateSkeleton } from '../../generator/grammar/skeleton-instantiator.ts';
import { parseSql } from '../../generator/sql/parser-adapter.ts';
import { fixture, repoRoot } from '../sql/corpus-path.ts';

const tiny = parseGrammar(fixture('grammar/tiny.pcfg'), 'tiny.pcfg');
const probs = (g: Grammar): Map<string, number> => new Map(g.rules.map((r) => [r.key, r.prob]));

describe('estimation', () => {
  it('recovers the rule probabilities of the default grammar from 20,000 sampled queries read back as SQL', () => {
    const truth = parseGrammar(readFileSync(resolve(repoRoot, 'grammars/default.pcfg'), 'utf8'));
    const rng = createRng('recovery');
    const derivations: Derivation[] = [];
    let draws = 0;
    let mismatches = 0;
    const readBack = new Map<string, Derivation>();
    while (derivations.length < 20_000) {
      draws++;
      // Bounds that cut about one draw in 2,000, so truncation hardly changes the
      // distribution being estimated.
      const draw = drawOne(truth, rng, { maxDepth: 60, maxTokens: 300 });
      if (!draw) continue;
      // Through SQL text and the parser, not the sampled derivation: the estimate has to
      // come from what the extractor reads.
      const tokens = yieldTokens(draw.derivation);
      const sql = instantiateSkeleton(tokens);
      // Each distinct text is parsed once (a third of the draws repeat one).
      let read = readBack.get(sql);
      if (!read) {
        read = deriveQuery(parseSql(sql, { dialect: 'postgresql' }));
        readBack.set(sql, read);
      }
      // The round trip holds here too: what is read back is what was drawn.
      if (yieldTokens(read).join(' ') !== tokens.join(' ')) mismatches++;
      derivations.push(read);
    }
    expect(mismatches).toBe(0);
    expect(draws - derivations.length).toBeLessThan(100);
    const counts = countRules(derivations);
    const estimate = probs(estimateGrammar(counts));
    const checked: string[] = [];
    const off: string[] = [];
    for (const rule of truth.rules) {
      const seen = counts.get(rule.key)?.count ?? 0;
      if (seen < 500) continue;
      checked.push(rule.key);
      const p = estimate.get(rule.key) ?? 0;
      if (Math.abs(p - rule.prob) > 0.02)
        off.push(`${rule.key}: true ${rule.prob}, estimated ${p.toFixed(4)} from ${seen}`);
    }
    expect(off).toEqual([]);
    expect(checked.length).toBeGreaterThanOrEqual(40);
  });

  it('smooths with add-k over the base rules and the observed ones', () => {
    const counts = new Map([
      ['cmp -> "="', { lhs: 'cmp', rhs: [{ kind: 'terminal', text: '=' }] as const, count: 6 }],
      ['cmp -> "<>"', { lhs: 'cmp', rhs: [{ kind: 'terminal', text: '<>' }] as const, count: 2 }],
    ]);
    const base = parseGrammar(
      '1 q -> "SELECT" cmp\n0.5 cmp -> "="\n0.25 cmp -> ">"\n0.15 cmp -> "<"\n0.10 cmp -> "!="\n',
    );
    const withQ = new Map([...counts, ['q -> "SELECT" cmp', { lhs: 'q', rhs: base.rules[0]?.rhs ?? [], count: 8 }]]);
    const g = probs(estimateGrammar(withQ, { base, smoothing: 1 }));
    // 8 observations over 5 rules (4 base + 1 new): (c + 1) / (8 + 5).
    expect(g.get('cmp -> "="')).toBeCloseTo(7 / 13, 12);
    expect(g.get('cmp -> "<>"')).toBeCloseTo(3 / 13, 12);
    expect(g.get('cmp -> ">"')).toBeCloseTo(1 / 13, 12);
    expect(g.get('q -> "SELECT" cmp')).toBe(1);
    // Without smoothing, unseen rules are gone.
    const ml = probs(estimateGrammar(withQ, { base, smoothing: 0 }));
    expect(ml.get('cmp -> "="')).toBeCloseTo(0.75, 12);
    expect(ml.has('cmp -> ">"')).toBe(false);
  });

  it('drops nonterminals reachable only through unseen rules when k = 0', () => {
    const rng = createRng(3);
    const derivations: Derivation[] = [];
    // Only draws without WHERE, so `cond` and `cmp` are never observed.
    while (derivations.length < 200) {
      const d = drawOne(tiny, rng)?.derivation;
      if (d && d.rule === tiny.byLhs.get('q')?.[0]?.key) derivations.push(d);
    }
    const g = estimateGrammar(countRules(derivations), { base: tiny, smoothing: 0 });
    expect([...g.byLhs.keys()].sort()).toEqual(['cols', 'q']);
    const smoothed = estimateGrammar(countRules(derivations), { base: tiny, smoothing: 0.5 });
    expect([...smoothed.byLhs.keys()].sort()).toEqual(['cmp', 'cols', 'cond', 'q']);
  });

  it('mixes grammars by weight, per nonterminal', () => {
    const a = parseGrammar('1 q -> "SELECT" cmp\n0.8 cmp -> "="\n0.2 cmp -> ">"\n');
    const b = parseGrammar('1 q -> "SELECT" cmp\n0.5 cmp -> ">"\n0.5 cmp -> "<"\n');
    const mixed = probs(
      mixGrammars([
        { grammar: a, weight: 0.7 },
        { grammar: b, weight: 0.3 },
      ]),
    );
    expect(mixed.get('cmp -> "="')).toBeCloseTo(0.56, 12);
    expect(mixed.get('cmp -> ">"')).toBeCloseTo(0.14 + 0.15, 12);
    expect(mixed.get('cmp -> "<"')).toBeCloseTo(0.15, 12);
    // A nonterminal only one grammar has keeps that grammar's probabilities.
    const c = parseGrammar(
      '1 q -> "SELECT" cmp "LIMIT" lim\n1 cmp -> "="\n0.9 lim -> "1"\n0.1 lim -> <value:number>\n',
    );
    const withLim = probs(
      mixGrammars([
        { grammar: a, weight: 0.6 },
        { grammar: c, weight: 0.4 },
      ]),
    );
    expect(withLim.get('lim -> "1"')).toBeCloseTo(0.9, 12);
    expect(withLim.get('q -> "SELECT" cmp')).toBeCloseTo(0.6, 12);
  });
});
