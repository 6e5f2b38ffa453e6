import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GrammarError } from '../../generator/common/errors.ts';
import { formatGrammar, parseGrammar, SUM_TOLERANCE } from '../../generator/grammar/pcfg.ts';
import { fixture, repoRoot } from '../sql/corpus-path.ts';

const invalidDir = resolve(repoRoot, 'test', 'fixtures', 'grammar', 'invalid');
const invalid = readdirSync(invalidDir)
  .filter((f) => f.endsWith('.pcfg'))
  .sort();

describe('grammar file format', () => {
  it('reads rules, placeholders, comments and %start', () => {
    const g = parseGrammar(fixture('grammar/tiny.pcfg'), 'tiny.pcfg');
    expect(g.start).toBe('q');
    expect(g.header).toEqual(['A small grammar with known probabilities, for estimator and sampler tests.']);
    expect(g.byLhs.get('cmp')?.map((r) => r.prob)).toEqual([0.5, 0.25, 0.15, 0.1]);
    const rule = g.byLhs.get('cond')?.[0];
    expect(rule?.rhs).toEqual([
      { kind: 'placeholder', name: 'column', type: 'numeric' },
      { kind: 'nonterminal', name: 'cmp' },
      { kind: 'placeholder', name: 'value', type: 'number' },
    ]);
    expect(rule?.line).toBe(10);
  });

  it.each(invalid)('rejects %s with the error its header names', (file) => {
    const text = readFileSync(resolve(invalidDir, file), 'utf8');
    const expected = /^# error: (.*)$/mu.exec(text)?.[1];
    expect(expected, `${file} needs a "# error:" header`).toBeDefined();
    expect(() => parseGrammar(text, file)).toThrow(GrammarError);
    expect(() => parseGrammar(text, file)).toThrow(new RegExp(`^${expected}`, 'u'));
  });

  it('covers the failure kinds the loader checks', () => {
    expect(invalid.length).toBeGreaterThanOrEqual(10);
  });

  it('reads a bare <value> placeholder, as the typed ones', () => {
    const g = parseGrammar('1 q -> "SELECT" <column> "FROM" <table> "WHERE" <column> "=" <value>\n');
    expect(g.rules[0]?.rhs.at(-1)).toEqual({ kind: 'placeholder', name: 'value', type: null });
  });

  it('accepts sums within the tolerance and rejects them just outside', () => {
    const ok = `0.3333 q -> "A"\n0.3333 q -> "B"\n0.3334 q -> "C"\n`;
    expect(parseGrammar(ok).rules).toHaveLength(3);
    const off = `0.5 q -> "A"\n${0.5 - 3 * SUM_TOLERANCE} q -> "B"\n`;
    expect(() => parseGrammar(off)).toThrow(/sum to/u);
  });

  it('keeps quotes and # inside terminals', () => {
    const g = parseGrammar(`1 q -> "a \\"b\\"" "#" # trailing comment\n`);
    expect(g.rules[0]?.rhs).toEqual([
      { kind: 'terminal', text: 'a "b"' },
      { kind: 'terminal', text: '#' },
    ]);
    expect(parseGrammar(formatGrammar(g)).rules[0]?.key).toBe(g.rules[0]?.key);
  });

  it.each(['grammars/default.pcfg', 'grammars/spider.pcfg'])(
    'loads %s, and format → parse keeps every rule',
    (path) => {
      const g = parseGrammar(readFileSync(resolve(repoRoot, path), 'utf8'), path);
      const again = parseGrammar(formatGrammar(g), `${path} (reformatted)`);
      expect(again.start).toBe(g.start);
      expect(new Map(again.rules.map((r) => [r.key, r.prob]))).toEqual(
        new Map(g.rules.map((r) => [r.key, Number(r.prob.toPrecision(6))])),
      );
      expect(new Map(again.rules.map((r) => [r.key, r.count]))).toEqual(new Map(g.rules.map((r) => [r.key, r.count])));
    },
  );

  it('reads a comment holding only a whole number as the observed count', () => {
    const g = parseGrammar('0.75 q -> "A"  # 3\n0.25 q -> "B"  # about 1\n');
    expect(g.rules.map((r) => r.count)).toEqual([3, undefined]);
  });

  it('spider.pcfg names its source and licence', () => {
    const g = parseGrammar(readFileSync(resolve(repoRoot, 'grammars/spider.pcfg'), 'utf8'));
    expect(g.header.join('\n')).toMatch(/Spider/u);
    expect(g.header.join('\n')).toMatch(/CC BY-SA 4\.0/u);
  });
});
