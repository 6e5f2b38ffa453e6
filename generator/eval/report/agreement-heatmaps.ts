/**
 * From a dataset's PSS matrix to its heatmap: the SVG, its file name, and the figure (SVG
 * and caption) the report pages place inline.
 */
import type { DatasetEval } from '../eval-summary.ts';
import { renderHeatmapSvg } from './heatmap-svg.ts';
import { html, trustedMarkup, type Markup } from './markup-text.ts';
import { formatNumber, formatPercent } from './report-numbers.ts';

/** The scale's maximum: the most questions asked on any variant (N when all are asked on all). */
export function heatmapMax(data: DatasetEval): number {
  return Math.max(0, ...data.pss.n);
}

/**
 * Per pair of variants, how many questions were asked on both (on the diagonal, on the
 * variant): what each cell of the PSS matrix counts out of.
 *
 * @example
 * askedOnBoth(dataset)[0][1]; // questions asked on the first and the second variant
 */
export function askedOnBoth(data: DatasetEval): number[][] {
  const index = new Map(data.pss.variants.map((v, i) => [v, i]));
  const counts = data.pss.variants.map(() => data.pss.variants.map(() => 0));
  for (const q of data.questions) {
    const at = q.variants.map((v) => index.get(v)).filter((i): i is number => i !== undefined);
    for (const i of at) for (const j of at) (counts[i] as number[])[j] = ((counts[i] as number[])[j] as number) + 1;
  }
  return counts;
}

/**
 * The mean of the off-diagonal cells as a share of the questions both variants were asked
 * on (the figure the first paper gives under each heatmap); null with fewer than two variants.
 *
 * @example
 * meanOffDiagonal(dataset); // 0.75 for a matrix [[4, 3], [3, 4]] of four questions on both
 */
export function meanOffDiagonal(data: DatasetEval): number | null {
  const both = askedOnBoth(data);
  let agree = 0;
  let asked = 0;
  data.pss.matrix.forEach((row, i) => {
    row.forEach((value, j) => {
      if (i === j) return;
      agree += value;
      asked += both[i]?.[j] ?? 0;
    });
  });
  return asked === 0 ? null : agree / asked;
}

/** A name as a file-name part: letters, digits, `.`, `_` and `-` kept, anything else `-`. */
function slug(name: string): string {
  const s = name.replace(/[^A-Za-z0-9._-]+/gu, '-').replace(/^[.-]+|-+$/gu, '');
  return s === '' ? 'model' : s;
}

/**
 * The heatmap's file name in the evaluation directory.
 *
 * @example
 * heatmapFileName('gpt-4o', 'social_media'); // 'heatmap-gpt-4o-social_media.svg'
 * heatmapFileName('org/model:7b', 'retail'); // 'heatmap-org-model-7b-retail.svg'
 */
export function heatmapFileName(label: string, dataset: string): string {
  return `heatmap-${slug(label)}-${slug(dataset)}.svg`;
}

/**
 * The heatmap of `label`'s predictions on one dataset, as an SVG document.
 *
 * @example
 * agreementHeatmapSvg('gold', summary.datasets[0]); // '<svg xmlns=…'
 */
export function agreementHeatmapSvg(label: string, data: DatasetEval): string {
  return renderHeatmapSvg({
    title: `${label} on ${data.dataset}: pairwise agreement (0..${formatNumber(heatmapMax(data))})`,
    labels: data.pss.variants,
    matrix: data.pss.matrix,
    max: heatmapMax(data),
    cellMax: askedOnBoth(data),
  });
}

/** Whether some variant was asked fewer questions than another. */
function uneven(data: DatasetEval): boolean {
  return new Set(data.pss.n).size > 1;
}

/** The heatmap inline, with a caption giving the scale and the mean off-diagonal agreement. */
export function agreementFigure(label: string, data: DatasetEval): Markup {
  const mean = meanOffDiagonal(data);
  const caption =
    `${label} on ${data.dataset}: questions whose predictions on the row's and the column's variant both ran and agree ` +
    `(the diagonal: those valid on the variant), from 0 (purple) to ${formatNumber(heatmapMax(data))} (yellow).` +
    (uneven(data)
      ? ' Some variants were asked fewer questions; a cell is coloured by its share of the questions asked on both.'
      : '') +
    (mean === null ? '' : ` Off the diagonal the mean agreement is ${formatPercent(mean)}.`);
  return html`<figure class="heatmap-figure">
${trustedMarkup(agreementHeatmapSvg(label, data))}<figcaption>${caption}</figcaption>
</figure>
`;
}
