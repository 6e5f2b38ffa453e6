import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../generator/cli/command.ts';
import { command as structureCommand } from '../../generator/cli/structure-command.ts';
import { computeStructureMetrics, groupMetrics } from '../../generator/structure/structure-metrics.ts';
import { repoRoot } from '../sql/corpus-path.ts';

function capture(stdin = ''): { io: CliIo; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t) => out.push(t), err: (t) => err.push(t), readStdin: async () => stdin, env: {} }, out, err };
}

const H = (p: number): number => (p === 0 ? 0 : -p * Math.log2(p));

describe('structural metrics', () => {
  it('computes distinct, majority, entropy and gold for one group', () => {
    const g = groupMetrics('q', '0', ['a', 'a', 'b', null], 'a');
    expect(g).toMatchObject({ generations: 4, parsed: 3, distinct: 2, majorityStructure: 'a' });
    expect(g.majority).toBeCloseTo(2 / 3, 12);
    expect(g.entropy).toBeCloseTo(H(2 / 3) + H(1 / 3), 12);
    expect(g.gold).toBeCloseTo(2 / 3, 12);
  });

  it('gives zero entropy and full majority to a consistent group, and nulls to an unparsed one', () => {
    expect(groupMetrics('q', '0', ['a', 'a', 'a'])).toMatchObject({ distinct: 1, majority: 1, entropy: 0, gold: null });
    expect(groupMetrics('q', '0', [null, null], 'a')).toMatchObject({
      parsed: 0,
      distinct: null,
      majority: null,
      entropy: null,
      gold: null,
      majorityStructure: null,
    });
  });

  it('breaks majority ties by the smallest structure, whatever the row order', () => {
    expect(groupMetrics('q', '0', ['b', 'a']).majorityStructure).toBe('a');
    expect(groupMetrics('q', '0', ['a', 'b']).majorityStructure).toBe('a');
  });

  it('computes agreement, sensitivity and the sensitive fraction across perturbations', () => {
    const rows = [
      ...['a', 'a', 'b'].map((s) => ({ inputId: 'x', perturbationId: '0', structure: s })),
      ...['b', 'b'].map((s) => ({ inputId: 'x', perturbationId: '1', structure: s })),
      { inputId: 'x', perturbationId: '2', structure: 'a' },
      { inputId: 'y', perturbationId: '0', structure: 'c' },
      { inputId: 'y', perturbationId: '1', structure: 'c' },
    ];
    const report = computeStructureMetrics(rows);
    const x = report.perInput.find((i) => i.inputId === 'x');
    // Majorities a, b, a: one agreeing pair of three; one of two perturbations changed.
    expect(x?.agreement).toBeCloseTo(1 / 3, 12);
    expect(x?.sensitivity).toBeCloseTo(1 / 2, 12);
    expect(report.perInput.find((i) => i.inputId === 'y')).toMatchObject({ agreement: 1, sensitivity: 0 });
    expect(report.agreement).toBeCloseTo((1 / 3 + 1) / 2, 12);
    expect(report.sensitivity).toBeCloseTo(1 / 4, 12);
    // Sensitive fraction: input ids with Sens > 0 (x, not y); pooled: 1 of 3 perturbations.
    expect(report.sensitiveFraction).toBe(1 / 2);
    expect(report.changedPerturbationShare).toBeCloseTo(1 / 3, 12);
    expect(report.inputsWithoutOriginal).toEqual([]);
  });

  it('leaves unparsed groups out of the distinct mean, as out of majority and entropy', () => {
    const rows = [
      { inputId: 'x', perturbationId: '0', structure: 'a' },
      { inputId: 'y', perturbationId: '0', structure: null },
    ];
    const report = computeStructureMetrics(rows);
    expect(report.distinct).toBe(1);
    expect(report.majority).toBe(1);
  });

  it('says which input ids have no original instead of comparing against an arbitrary group', () => {
    const rows = [
      { inputId: 'x', perturbationId: 'p1', structure: 'a' },
      { inputId: 'x', perturbationId: 'p2', structure: 'b' },
      { inputId: 'x', perturbationId: 'p3', structure: 'b' },
      { inputId: 'y', perturbationId: 'original', structure: 'c' },
      { inputId: 'y', perturbationId: 'p1', structure: 'd' },
    ];
    const report = computeStructureMetrics(rows);
    expect(report.inputsWithoutOriginal).toEqual(['x']);
    expect(report.perInput.find((i) => i.inputId === 'x')).toMatchObject({
      original: null,
      perturbations: 2,
      sensitivity: null,
    });
    expect(report.perInput.find((i) => i.inputId === 'x')?.agreement).toBeCloseTo(1 / 3, 12);
    expect(report.sensitivity).toBe(1);
    expect(report.sensitiveFraction).toBe(1);
  });

  it('reads a generations file through `equisql structure`, canonicalizing the SQL', async () => {
    const { io, out } = capture();
    const input = resolve(repoRoot, 'test/fixtures/structure/generations.jsonl');
    const gold = resolve(repoRoot, 'test/fixtures/structure/gold.jsonl');
    expect(await structureCommand.run(['--input', input, '--gold', gold, '--details'], io)).toBe(0);
    const lines = out.map((l) => JSON.parse(l) as Record<string, unknown>);
    const summary = lines[lines.length - 1] as Record<string, number>;
    const groups = lines.filter((l) => 'group' in l).map((l) => l['group'] as Record<string, unknown>);
    const inputs = lines.filter((l) => 'input' in l).map((l) => l['input'] as Record<string, unknown>);
    // q1/0: two generations share the aliased structure, one orders instead, one fails to parse.
    const q10 = groups.find((g) => g['input_id'] === 'q1' && g['perturbation_id'] === '0');
    expect(q10).toMatchObject({ generations: 4, parsed: 3, distinct: 2 });
    expect(q10?.['majority']).toBeCloseTo(2 / 3, 12);
    expect(q10?.['gold']).toBeCloseTo(2 / 3, 12);
    // q2 has no perturbation id: all four rows are the original; COUNT(*) twice, two others.
    const q2 = groups.find((g) => g['input_id'] === 'q2');
    expect(q2).toMatchObject({ perturbation_id: '0', distinct: 3, majority: 0.5, gold: 0.5 });
    // q1: majorities where-age (0), order-by (1), where-age (2).
    expect(inputs.find((i) => i['input_id'] === 'q1')).toMatchObject({ perturbations: 2, sensitivity: 0.5 });
    // 3: the original does not parse, so its perturbation cannot agree with it.
    expect(inputs.find((i) => i['input_id'] === '3')).toMatchObject({
      original: 'original',
      agreement: 0,
      sensitivity: 1,
    });
    expect(summary).toMatchObject({ generations: 13, parsed: 11, groups: 6, inputs: 3 });
    // q1 and 3 both have Sens > 0 (q2 has no perturbations); pooled, 2 of 3 perturbations changed.
    expect(summary['sensitive_fraction']).toBe(1);
    expect(summary['changed_perturbation_share']).toBeCloseTo(2 / 3, 12);
    expect(summary['inputs_without_original']).toBe(0);
  });

  it('names the file and line of a malformed row', async () => {
    const { io } = capture();
    const bad = resolve(repoRoot, 'test/fixtures/structure/gold.jsonl');
    await expect(
      structureCommand.run(['--input', bad, '--gold', resolve(repoRoot, 'test/fixtures/structure/same.sql')], io),
    ).rejects.toThrow(/same\.sql:1: not JSON/u);
  });
});
