import { describe, expect, it } from 'vitest';
import { budgetRows, questionVariants, splitBudgets } from '../../generator/export/row-selection.ts';
import type { ExportRecord } from '../../generator/records/export-record.ts';

describe('questionVariants', () => {
  it('gives each question k distinct variants, covers every variant once questions × k reach them, and prefers SQL the question lacks', () => {
    // Variants that share SQL texts: in pairs (v0 and v1 share one, …), in threes taken in turn, all one text.
    const patterns = [(i: number) => Math.floor(i / 2), (i: number) => i % 3, () => 0];
    for (const [n, pattern] of patterns.entries())
      for (let v = 1; v <= 10; v++) {
        for (let q = 1; q <= 15; q++) {
          for (let k = 1; k <= v; k++) {
            // A question should get distinct texts while it can.
            const sql = Object.fromEntries(Array.from({ length: v }, (_, i) => [`v${i}`, `SELECT ${pattern(i)}`]));
            const texts = new Set(Object.values(sql)).size;
            const ids = Array.from({ length: q }, (_, i) => `q${i}`);
            const picks = questionVariants(`g${n}-${v}-${q}-${k}`, ids, sql, k, 7);
            for (const id of ids) {
              const got = picks.get(id) as string[];
              expect(new Set(got).size).toBe(k);
              expect(new Set(got.map((x) => sql[x])).size).toBe(Math.min(k, texts));
            }
            const used = new Set([...picks.values()].flat());
            expect(used.size).toBe(Math.min(v, q * k));
          }
        }
      }
  });

  it('is drawn from the seed: the same seed the same picks, another seed other picks', () => {
    const sql = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`v${i}`, `SELECT ${i}`]));
    const ids = Array.from({ length: 14 }, (_, i) => `q${i}`);
    const a = questionVariants('g', ids, sql, 2, 1);
    expect(questionVariants('g', ids, sql, 2, 1)).toEqual(a);
    expect(questionVariants('g', ids, sql, 2, 2)).not.toEqual(a);
  });
});

describe('budgets', () => {
  const row = (group: string, i: number) => ({ group_id: group, id: `${group}-${i}` }) as unknown as ExportRecord;
  it('takes rows evenly over groups, in their order', () => {
    const rows = [
      ...Array.from({ length: 6 }, (_, i) => row('a', i)),
      ...Array.from({ length: 2 }, (_, i) => row('b', i)),
      ...Array.from({ length: 4 }, (_, i) => row('c', i)),
    ];
    const kept = budgetRows(rows, 7).map((r) => r.id);
    expect(kept).toEqual(['a-0', 'a-1', 'a-2', 'b-0', 'b-1', 'c-0', 'c-1']);
    expect(budgetRows(rows, 100)).toHaveLength(12);
  });

  it('shares a budget between train and validation in proportion', () => {
    expect(splitBudgets(800, 100, 450)).toEqual({ train: 400, validation: 50 });
    expect(splitBudgets(80, 10, 450)).toEqual({ train: 80, validation: 10 });
  });
});
