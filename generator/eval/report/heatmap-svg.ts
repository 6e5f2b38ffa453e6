/**
 * The pairwise-agreement heatmap as an SVG document: one row and one column per schema
 * variant, each cell coloured by PSS(i, j) on a scale from 0 (purple) to the number of
 * questions (yellow), with the count written in it, as in the first paper's Figures 3 and 4.
 * A pure function of its input: the same matrix gives the same bytes.
 */
import { ConfigError } from '../../common/errors.ts';
import { agreementColour, labelColour } from './agreement-colour.ts';
import { escapeMarkup } from './markup-text.ts';
import { formatNumber } from './report-numbers.ts';

export interface HeatmapInput {
  /** Shown above the grid, e.g. `gpt-4o on social_media: pairwise agreement`. */
  readonly title: string;
  /** One name per row and column, in matrix order (variant names). */
  readonly labels: readonly string[];
  /** Square, `labels.length` on each side; `matrix[i][j]` is the agreement of i and j. */
  readonly matrix: readonly (readonly number[])[];
  /** The value drawn yellow: the number of questions N. */
  readonly max: number;
  /**
   * Per cell, how many questions were asked on both variants, where that is fewer than `max`
   * (a variant asked on fewer questions): such a cell is coloured by its share of those, so
   * that a variant asked less is not drawn as one that disagrees. Absent: `max` everywhere.
   */
  readonly cellMax?: readonly (readonly number[])[];
}

/** Font metrics the layout assumes: a monospace face, so a label's width is its length. */
const FONT = "'DejaVu Sans Mono', Menlo, Consolas, 'Liberation Mono', monospace";
const FONT_SIZE = 12;
const CHAR_WIDTH = FONT_SIZE * 0.62;
const GAP = 8;
const COS45 = Math.SQRT1_2;

/** A coordinate as SVG text: at most two decimals, no trailing zeros. */
function px(value: number): string {
  return String(Math.round(value * 100) / 100);
}

function checkInput(input: HeatmapInput): void {
  const n = input.labels.length;
  if (input.matrix.length !== n) {
    throw new ConfigError(`heatmap "${input.title}": ${n} labels but ${input.matrix.length} matrix rows`);
  }
  input.matrix.forEach((row, i) => {
    if (row.length !== n)
      throw new ConfigError(
        `heatmap "${input.title}": row ${i} (${input.labels[i]}) has ${row.length} values, expected ${n}`,
      );
  });
  if (!(input.max >= 0) || !Number.isFinite(input.max))
    throw new ConfigError(`heatmap "${input.title}": max must be a number ≥ 0, got ${input.max}`);
  if (input.cellMax && (input.cellMax.length !== n || input.cellMax.some((row) => row.length !== n))) {
    throw new ConfigError(`heatmap "${input.title}": cellMax is not ${n} × ${n}`);
  }
}

/**
 * The heatmap as a standalone SVG document (it also works inline in HTML). Row labels stand
 * left of the grid, column labels above it at 45°, a colour bar from 0 to `max` below it.
 * Each cell is a `rect` with a `title` tooltip (`row × column: v of m`) and its value in
 * text that stays readable on the cell's colour.
 *
 * @example
 * renderHeatmapSvg({ title: 'gold on retail', labels: ['full_sti', 'full_cti'], matrix: [[15, 15], [15, 15]], max: 15 });
 * // '<svg xmlns="http://www.w3.org/2000/svg" …><rect class="cell" … fill="#fde725">…'
 */
export function renderHeatmapSvg(input: HeatmapInput): string {
  checkInput(input);
  const { labels, matrix, max } = input;
  const n = labels.length;
  // At least the width of the colour bar's caption, 'agreement'.
  const longest = Math.max(9, ...labels.map((l) => l.length));
  const digits = Math.max(2, ...matrix.flat().map((v) => formatNumber(v).length), formatNumber(max).length);
  const cell = Math.max(36, Math.ceil(digits * CHAR_WIDTH + 10));
  const labelWidth = longest * CHAR_WIDTH;
  const titleHeight = FONT_SIZE * 2.5;

  const left = GAP + labelWidth + GAP;
  const slant = labelWidth * COS45;
  const top = titleHeight + slant + FONT_SIZE + GAP;
  const grid = n * cell;
  const barTop = top + grid + GAP * 2;
  const barHeight = 14;
  const width = Math.ceil(Math.max(left + grid + slant + GAP, GAP * 2 + input.title.length * (FONT_SIZE + 2) * 0.68));
  const height = Math.ceil(barTop + barHeight + FONT_SIZE * 2 + GAP);

  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" class="heatmap" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeMarkup(input.title)}" font-family="${escapeMarkup(FONT)}" font-size="${FONT_SIZE}">`,
  );
  out.push(`<title>${escapeMarkup(input.title)}</title>`);
  out.push(`<rect width="${width}" height="${height}" fill="#ffffff"/>`);
  out.push(
    `<text x="${GAP}" y="${px(FONT_SIZE * 1.5)}" font-size="${FONT_SIZE + 2}" font-weight="bold" fill="#111111">${escapeMarkup(input.title)}</text>`,
  );

  labels.forEach((label, i) => {
    const y = top + i * cell + cell / 2;
    out.push(
      `<text class="row-label" x="${px(left - GAP)}" y="${px(y)}" text-anchor="end" dominant-baseline="central" fill="#111111">${escapeMarkup(label)}</text>`,
    );
  });
  labels.forEach((label, j) => {
    const x = left + j * cell + cell / 2;
    const y = top - GAP;
    out.push(
      `<text class="column-label" x="${px(x)}" y="${px(y)}" transform="rotate(-45 ${px(x)} ${px(y)})" fill="#111111">${escapeMarkup(label)}</text>`,
    );
  });

  matrix.forEach((row, i) => {
    row.forEach((value, j) => {
      const x = left + j * cell;
      const y = top + i * cell;
      const shown = formatNumber(value);
      const of = input.cellMax?.[i]?.[j] ?? max;
      // On the scale from 0 to max: the cell's share of the questions asked on both.
      const scaled = of === max ? value : of > 0 ? (value / of) * max : 0;
      const tip = `${labels[i]} × ${labels[j]}: ${shown} of ${formatNumber(of)}${of === max ? '' : ' asked on both'}`;
      out.push(
        `<rect class="cell" data-row="${i}" data-column="${j}" x="${px(x)}" y="${px(y)}" width="${cell}" height="${cell}" fill="${agreementColour(scaled, max)}" stroke="#ffffff" stroke-width="1"><title>${escapeMarkup(tip)}</title></rect>`,
      );
      out.push(
        `<text class="cell-value" x="${px(x + cell / 2)}" y="${px(y + cell / 2)}" text-anchor="middle" dominant-baseline="central" fill="${labelColour(scaled, max)}">${shown}</text>`,
      );
    });
  });

  // The colour bar: one slice per unit up to 64 slices, so the scale reads as continuous.
  const slices = Math.max(1, Math.min(64, Math.ceil(max) || 1));
  const barWidth = Math.max(grid, 120);
  for (let k = 0; k < slices; k += 1) {
    const value = slices === 1 ? max : (k / (slices - 1)) * max;
    out.push(
      `<rect class="scale" x="${px(left + (k * barWidth) / slices)}" y="${px(barTop)}" width="${px(barWidth / slices + 0.5)}" height="${barHeight}" fill="${agreementColour(value, max)}"/>`,
    );
  }
  const tickY = barTop + barHeight + FONT_SIZE + 2;
  out.push(`<text x="${px(left)}" y="${px(tickY)}" fill="#111111">0</text>`);
  out.push(
    `<text x="${px(left + barWidth)}" y="${px(tickY)}" text-anchor="end" fill="#111111">${formatNumber(max)}</text>`,
  );
  out.push(
    `<text x="${px(left - GAP)}" y="${px(barTop + barHeight / 2)}" text-anchor="end" dominant-baseline="central" fill="#111111">agreement</text>`,
  );
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
