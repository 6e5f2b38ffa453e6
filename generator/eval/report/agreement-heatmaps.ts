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
 * The mean of the off-diagonal cells as a share of the questions both variants were asked
 * on (the figure the first paper gives under each heatmap); null with fewer than two variants.
 *
 * @example
 * meanOffDiagonal({ variants: ['a', 'b'], matrix: [[4, 3], [3, 4]], n: [4, 4], questions: 4 }); // 0.75
 */
export function meanOffDiagonal(pss: DatasetEval['pss']): number | null {
  let agree = 0;
  let asked = 0;
  pss.matrix.forEach((row, i) => {
    row.forEach((value, j) => {
      if (i === j) return;
      agree += value;
      asked += Math.min(pss.n[i] ?? 0, pss.n[j] ?? 0);
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
  });
}

/** The heatmap inline, with a caption giving the scale and the mean off-diagonal agreement. */
export function agreementFigure(label: string, data: DatasetEval): Markup {
  const mean = meanOffDiagonal(data.pss);
  const caption =
    `${label} on ${data.dataset}: questions whose predictions on the row's and the column's variant both ran and agree ` +
    `(the diagonal: those valid on the variant), from 0 (purple) to ${formatNumber(heatmapMax(data))} (yellow).` +
    (mean === null ? '' : ` Off the diagonal the mean agreement is ${formatPercent(mean)}.`);
  return html`<figure class="heatmap-figure">
${trustedMarkup(agreementHeatmapSvg(label, data))}<figcaption>${caption}</figcaption>
</figure>
`;
}
