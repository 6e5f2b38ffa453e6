import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, GrammarError } from '../../generator/common/errors.ts';
import type { CliIo } from '../../generator/cli/command.ts';
import { command } from '../../generator/cli/grammar-command.ts';
import { parseGrammar } from '../../generator/grammar/pcfg.ts';
import { corpusPath, repoRoot } from '../sql/corpus-path.ts';

function capture(): { io: CliIo; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t) => out.push(t), err: (t) => err.push(t), readStdin: async () => '', env: {} }, out, err };
}

const corpus = resolve(repoRoot, 'test/fixtures/grammar/small-corpus.sql');
const tiny = resolve(repoRoot, 'test/fixtures/grammar/tiny.pcfg');

describe('equisql grammar', () => {
  it('estimate writes a loadable grammar, lists unparsed queries with reasons, and ends with the JSON summary', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'equisql-grammar-'));
    const out = join(dir, 'small.pcfg');
    const { io, out: stdout } = capture();
    expect(await command.run(['estimate', '--corpus', corpus, '--out', out, '--json', '--smoothing', '0'], io)).toBe(0);
    const last = JSON.parse(stdout[stdout.length - 1] as string) as { total: number; parsed: number; rules: number };
    expect(last).toMatchObject({ total: 8, parsed: 6 });
    const unparsed = stdout
      .slice(0, -1)
      .map((l) => (JSON.parse(l) as { unparsed: { line: number; reason: string } }).unparsed);
    expect(unparsed.map((u) => u.line)).toEqual([7, 8]);
    expect(unparsed[0]?.reason).toMatch(/OFFSET without LIMIT/u);
    expect(unparsed[1]?.reason).toMatch(/line 1, column/u);
    const grammar = parseGrammar(readFileSync(out, 'utf8'), out);
    expect(grammar.rules.length).toBe(last.rules);
    // Maximum likelihood: 3 of the 6 parsed queries are SELECT … FROM … WHERE ….
    const where = grammar.rules.find((r) => r.key === 'select_stmt -> "SELECT" select_list from_clause where_clause');
    expect(where?.prob).toBeCloseTo(3 / 6, 5);
    expect(where?.count).toBe(3);
    expect(grammar.header.join('\n')).toMatch(/licence of the source: not stated/u);
  });

  it('estimate reads at least 99% of the Spider training queries and reproduces grammars/spider.pcfg byte for byte', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'equisql-grammar-'));
    const out = join(dir, 'spider.pcfg');
    const { io, out: stdout } = capture();
    expect(
      await command.run(['estimate', '--corpus', corpusPath('spider/spider_train.sql'), '--out', out, '--json'], io),
    ).toBe(0);
    const summary = JSON.parse(stdout[stdout.length - 1] as string) as { total: number; parsed: number; rules: number };
    expect(summary.total).toBe(7000);
    expect(summary.parsed / summary.total).toBeGreaterThanOrEqual(0.99);
    // One JSON line per unparsed query, each with a reason.
    expect(stdout.length - 1).toBe(summary.total - summary.parsed);
    // The committed grammar is current: same corpus, same code, same bytes.
    expect(readFileSync(out, 'utf8')).toBe(readFileSync(resolve(repoRoot, 'grammars/spider.pcfg'), 'utf8'));
  });

  it('estimate is deterministic: the same corpus gives the same bytes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'equisql-grammar-'));
    for (const name of ['a.pcfg', 'b.pcfg']) {
      expect(
        await command.run(['estimate', '--corpus', corpus, '--out', join(dir, name), '--licence', 'CC0'], capture().io),
      ).toBe(0);
    }
    expect(readFileSync(join(dir, 'a.pcfg'), 'utf8')).toBe(readFileSync(join(dir, 'b.pcfg'), 'utf8'));
  });

  it('estimate mixes in another grammar by weight', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'equisql-grammar-'));
    const extra = join(dir, 'extra.pcfg');
    writeFileSync(
      extra,
      readFileSync(resolve(repoRoot, 'grammars/default.pcfg'), 'utf8')
        .replace(/^0\.60\s+cmp -> "="$/mu, '0.10 cmp -> "="')
        .replace(/^0\.15\s+cmp -> ">"$/mu, '0.65 cmp -> ">"'),
    );
    const out = join(dir, 'mixed.pcfg');
    expect(
      await command.run(
        ['estimate', '--corpus', corpus, '--out', out, '--smoothing', '0', '--mix', `${extra}:0.25`],
        capture().io,
      ),
    ).toBe(0);
    const mixed = parseGrammar(readFileSync(out, 'utf8'));
    // The corpus compares with ">" 2 times and "=" once: P(">") = 2/3 there, 0.65 in extra.
    const gt = mixed.rules.find((r) => r.key === 'cmp -> ">"');
    expect(gt?.prob).toBeCloseTo(0.75 * (2 / 3) + 0.25 * 0.65, 5);
    expect(mixed.header.join('\n')).toMatch(/mixed with .*extra\.pcfg at weight 0\.25/u);
    // Counts of the corpus would not match mixed probabilities, so none are written.
    expect(mixed.rules.filter((r) => r.count !== undefined)).toEqual([]);
  });

  it('sample prints JSON lines with skeleton, logprob and derivation, the same for the same seed', async () => {
    const a = capture();
    const b = capture();
    expect(await command.run(['sample', '--grammar', tiny, '-n', '5', '--seed', '7', '--json'], a.io)).toBe(0);
    await command.run(['sample', '--grammar', tiny, '-n', '5', '--seed', '7', '--json'], b.io);
    expect(a.out).toEqual(b.out);
    expect(a.out).toHaveLength(5);
    for (const line of a.out) {
      const s = JSON.parse(line) as { skeleton: string; logprob: number; derivation: string[]; tail: boolean };
      expect(s.skeleton).toMatch(/^SELECT /u);
      expect(s.logprob).toBeLessThan(0);
      expect(s.derivation[0]).toMatch(/^q -> "SELECT" cols "FROM" <table>/u);
    }
  });

  it('sample --tail marks the long-tail share', async () => {
    const { io, out } = capture();
    await command.run(
      ['sample', '--grammar', resolve(repoRoot, 'grammars/spider.pcfg'), '-n', '20', '--tail', '0.5', '--json'],
      io,
    );
    expect(out.map((l) => (JSON.parse(l) as { tail: boolean }).tail).filter(Boolean)).toHaveLength(10);
  });

  it('check reports a grammar, and a broken one with its line', async () => {
    const { io, out } = capture();
    expect(await command.run(['check', tiny], io)).toBe(0);
    expect(out[0]).toMatch(/11 rules over 4 nonterminals/u);
    await expect(
      command.run(['check', resolve(repoRoot, 'test/fixtures/grammar/invalid/sum-not-one.pcfg')], io),
    ).rejects.toThrow(GrammarError);
  });

  it('refuses bad flags with a ConfigError', async () => {
    const { io } = capture();
    await expect(command.run(['estimate', '--out', 'x.pcfg'], io)).rejects.toThrow(/--corpus is required/u);
    await expect(
      command.run(['estimate', '--corpus', corpus, '--out', 'x.pcfg', '--mix', 'g.pcfg'], io),
    ).rejects.toThrow(ConfigError);
    await expect(command.run(['sample', '--grammar', tiny, '-n', '3', '--tail', '2'], io)).rejects.toThrow(
      /tail share/u,
    );
    await expect(command.run(['frobnicate'], io)).rejects.toThrow(ConfigError);
    await expect(command.run(['sample', '--grammar', 'missing.pcfg', '-n', '1'], io)).rejects.toThrow(
      /does not exist/u,
    );
  });

  it('names flags as they are written and refuses bounds that are not whole positive numbers', async () => {
    const { io } = capture();
    await expect(command.run(['sample', '--grammar', tiny, '-n', 'abc'], io)).rejects.toThrow(
      /^-n must be a whole number/u,
    );
    for (const [flag, value] of [
      ['--max-depth', '0'],
      ['--max-depth', 'deep'],
      ['--max-tokens', '2.5'],
      ['--max-tokens', '-3'],
    ]) {
      await expect(command.run(['sample', '--grammar', tiny, '-n', '3', `${flag}=${value}`], io)).rejects.toThrow(
        new RegExp(`^${flag} must be a whole number`, 'u'),
      );
    }
  });
});
