import { describe, expect, it } from 'vitest';
import { agreementColour, labelColour } from '../../generator/eval/report/agreement-colour.ts';
import { renderHeatmapSvg } from '../../generator/eval/report/heatmap-svg.ts';
import { html } from '../../generator/eval/report/markup-text.ts';
import {
  predictionIndex,
  SQL_SHOWN,
  worstQuestions,
  worstQuestionsSection,
} from '../../generator/eval/report/worst-questions.ts';
import type { DatasetEval, PredictionLine, QuestionEval } from '../../generator/eval/eval-summary.ts';

/** WCAG relative luminance of `#rrggbb`. */
function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const s = parseInt(hex.slice(i, i + 2), 16) / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

const contrast = (a: string, b: string): number => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
};

describe('agreement colour scale', () => {
  it('runs from purple at 0 to yellow at N, getting lighter at every step', () => {
    expect(agreementColour(0, 15)).toBe('#440154');
    expect(agreementColour(15, 15)).toBe('#fde725');
    expect(agreementColour(-3, 15)).toBe('#440154');
    expect(agreementColour(99, 15)).toBe('#fde725');
    expect(agreementColour(3, 0)).toBe('#440154');
    const steps = Array.from({ length: 101 }, (_, k) => luminance(agreementColour(k, 100)));
    steps.slice(1).forEach((l, k) => expect(l).toBeGreaterThan(steps[k] as number));
    // Purple is blue-and-red, yellow is red-and-green: the hue really travels.
    const [r0, g0, b0] = [1, 3, 5].map((i) => parseInt(agreementColour(0, 1).slice(i, i + 2), 16)) as [
      number,
      number,
      number,
    ];
    expect(b0).toBeGreaterThan(g0);
    expect(r0).toBeGreaterThan(g0);
  });

  it('writes each cell value in a colour that reads on its fill (WCAG contrast of 4.5 or more)', () => {
    for (let k = 0; k <= 60; k++)
      expect(contrast(agreementColour(k, 60), labelColour(k, 60)), `value ${k}`).toBeGreaterThanOrEqual(4.5);
  });
});

describe('renderHeatmapSvg', () => {
  const labels = ['full_sti', 'hybrid_leaves_merged', "o'brien <&>"];
  const matrix = [
    [15, 9, 0],
    [9, 14, 3],
    [0, 3, 15],
  ];

  it('draws a cell per pair with its value and colour, escapes labels, and gives the same bytes twice', () => {
    const svg = renderHeatmapSvg({ title: 'm on d', labels, matrix, max: 15 });
    expect(svg).toBe(renderHeatmapSvg({ title: 'm on d', labels, matrix, max: 15 }));
    const cells = [
      ...svg.matchAll(/<rect class="cell" data-row="(\d)" data-column="(\d)"[^>]* fill="(#[0-9a-f]{6})"/gu),
    ];
    expect(cells).toHaveLength(9);
    for (const [, i, j, fill] of cells)
      expect(fill).toBe(agreementColour(matrix[Number(i)]?.[Number(j)] as number, 15));
    expect([...svg.matchAll(/<text class="cell-value"[^>]*>([^<]*)</gu)].map((m) => m[1])).toEqual(
      matrix.flat().map(String),
    );
    expect(svg).toContain('>o&#39;brien &lt;&amp;&gt;</text>');
    expect(svg).not.toContain('<&>');
  });

  it('colours a cell by its share of the questions asked on both variants', () => {
    const svg = renderHeatmapSvg({
      title: 't',
      labels: ['a', 'b'],
      matrix: [
        [10, 10],
        [10, 10],
      ],
      max: 20,
      cellMax: [
        [20, 10],
        [10, 10],
      ],
    });
    const fills = [...svg.matchAll(/<rect class="cell"[^>]* fill="(#[0-9a-f]{6})"/gu)].map((m) => m[1]);
    expect(fills).toEqual([
      agreementColour(10, 20),
      agreementColour(20, 20),
      agreementColour(20, 20),
      agreementColour(20, 20),
    ]);
    expect(svg).toContain('a × b: 10 of 10 asked on both');
  });

  it('refuses a matrix that does not fit its labels, naming the heatmap and the row', () => {
    expect(() =>
      renderHeatmapSvg({
        title: 'gpt on retail',
        labels,
        matrix: [
          [1, 2, 3],
          [1, 2],
          [1, 2, 3],
        ],
        max: 3,
      }),
    ).toThrow('heatmap "gpt on retail": row 1 (hybrid_leaves_merged) has 2 values, expected 3');
    expect(() => renderHeatmapSvg({ title: 'x', labels, matrix: [], max: 3 })).toThrow('3 labels but 0 matrix rows');
  });
});

describe('report markup', () => {
  it('escapes interpolated text and keeps built markup', () => {
    const cell = html`<td>${'</td><script>x</script>'}</td>`;
    expect(html`<tr>${cell}${[cell]}</tr>`.html).toBe(
      '<tr><td>&lt;/td&gt;&lt;script&gt;x&lt;/script&gt;</td><td>&lt;/td&gt;&lt;script&gt;x&lt;/script&gt;</td></tr>',
    );
    expect(html`${'a\u0000b'}`.html).toBe('a\\u0000b');
  });
});

describe('worstQuestions', () => {
  const q = (id: string, correct: boolean[], qas: number, qms = 0): QuestionEval => ({
    question_id: id,
    group_id: 'g',
    question: id,
    style: 'natural',
    difficulty: 'easy',
    variants: correct.map((_, i) => `v${i}`),
    correct,
    outcomes: correct.map(() => 'rows'),
    robust: correct.every(Boolean),
    qas,
    qds: 3 - qas - qms,
    qms,
    pairs: 3,
    structure: { parsed: 3, distinct: 1, majority: 1, entropy: 0, gold: 1 },
  });

  it('puts the most variants wrong first, then the least agreement, then missing answers, then file order; leaves out questions right everywhere', () => {
    const questions = [
      q('right', [true, true, true], 3),
      q('one', [false, true, true], 1),
      q('two-agreeing', [false, false, true], 1),
      q('two-split', [false, false, true], 0),
      q('one-missing', [false, true, true], 1, 2),
      q('one-again', [true, false, true], 1),
    ];
    expect(worstQuestions(questions, 10).map((x) => x.question_id)).toEqual([
      'two-split',
      'two-agreeing',
      'one-missing',
      'one',
      'one-again',
    ]);
    expect(worstQuestions(questions, 2).map((x) => x.question_id)).toEqual(['two-split', 'two-agreeing']);
  });
});

describe('worstQuestionsSection', () => {
  it('shows gold and predicted SQL of the wrong variants only, escaped, cutting a runaway prediction', () => {
    const long = `SELECT ${Array.from({ length: 3000 }, (_, i) => `c${i}`).join(', ')} FROM t`;
    const question: QuestionEval = {
      question_id: 'q1',
      group_id: 'g1',
      question: 'How many <b>clips</b>?',
      style: 'natural',
      difficulty: 'easy',
      variants: ['full_sti', 'full_cti', 'kitchen_sink'],
      correct: [true, false, false],
      outcomes: ['rows', 'rows', 'error'],
      robust: false,
      qas: 0,
      qds: 1,
      qms: 2,
      pairs: 3,
      structure: { parsed: 2, distinct: 2, majority: 0.5, entropy: 1, gold: 0.5 },
    };
    const line = (
      id: string,
      variant: string,
      sql: string,
      outcome: PredictionLine['outcome'],
      correct: boolean,
    ): PredictionLine => ({
      id,
      dataset: 'd',
      question_id: 'q1',
      group_id: 'g1',
      variant,
      prompt_hash: 'h',
      sql,
      outcome,
      message: outcome === 'rows' ? null : 'syntax error at or near "FROM" (kitchen_sink)',
      result_hash: null,
      edge_result_hash: null,
      correct_main: correct,
      correct_edge: correct,
      correct,
      structure_hash: null,
    });
    const predictions = predictionIndex([
      line('r1', 'full_sti', 'SELECT count(*) FROM clips', 'rows', true),
      line('r2', 'full_cti', 'SELECT count(*) FROM clip c JOIN x ON a < b', 'rows', false),
      line('r3', 'kitchen_sink', long, 'error', false),
    ]);
    const gold = {
      kind: 'found',
      file: 'data/test.jsonl',
      sql: new Map([
        ['r1', 'GOLD-STI'],
        ['r2', 'GOLD-CTI'],
        ['r3', 'GOLD-KS'],
      ]),
    } as const;
    const page = worstQuestionsSection(
      { dataset: 'd', questions: [question] } as unknown as DatasetEval,
      predictions,
      gold,
      10,
    ).html;
    expect(page).toContain('How many &lt;b&gt;clips&lt;/b&gt;?');
    expect(page).toContain('<pre><code>GOLD-CTI</code></pre>');
    expect(page).toContain('<pre><code>SELECT count(*) FROM clip c JOIN x ON a &lt; b</code></pre>');
    expect(page).toContain('<pre><code>GOLD-KS</code></pre>');
    expect(page).not.toContain('GOLD-STI');
    expect(page).toContain('syntax error at or near &quot;FROM&quot; (kitchen_sink)');
    expect(page).toContain(
      `<pre><code>${long.slice(0, SQL_SHOWN)}</code></pre><span class="muted">… ${long.length - SQL_SHOWN} more characters not shown</span>`,
    );
    expect(page).not.toContain(long.slice(0, SQL_SHOWN + 1));
  });
});
