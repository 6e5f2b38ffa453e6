/**
 * Agreement by question, the first paper's Figure 5 as a table: for every question of a
 * dataset, its variant pairs split into agreeing (QAS), disagreeing (QDS) and with an
 * invalid prediction (QMS), as figures and as one stacked bar, with how many variants it
 * was right on. Questions in the summary's (the export's) order.
 */
import type { DatasetEval, QuestionEval } from '../eval-summary.ts';
import { renderTable, type TableCell } from './html-page.ts';
import { html, trustedMarkup, type Markup } from './markup-text.ts';

/** The bar's colours: agreeing pairs light green, disagreeing dark blue, missing grey. */
export const PAIR_COLOURS = { qas: '#7ad151', qds: '#414487', qms: '#c8c8d0' } as const;

const BAR_WIDTH = 160;
const BAR_HEIGHT = 12;

/** A number of pixels with at most two decimals. */
function px(value: number): string {
  return String(Math.round(value * 100) / 100);
}

/**
 * The stacked bar of one question's pairs as inline SVG, `BAR_WIDTH` wide: QAS, QDS, QMS
 * from left to right, each as wide as its share of the pairs; an empty grey frame when the
 * question has fewer than two variants.
 *
 * @example
 * pairBar({ qas: 6, qds: 3, qms: 1, pairs: 10 }); // '<svg class="pair-bar" …><rect class="qas" width="96" …'
 */
export function pairBar(q: Pick<QuestionEval, 'qas' | 'qds' | 'qms' | 'pairs'>): string {
  const parts: string[] = [];
  let x = 0;
  for (const kind of ['qas', 'qds', 'qms'] as const) {
    const w = q.pairs === 0 ? 0 : (q[kind] / q.pairs) * BAR_WIDTH;
    parts.push(
      `<rect class="${kind}" x="${px(x)}" y="0" width="${px(w)}" height="${BAR_HEIGHT}" fill="${PAIR_COLOURS[kind]}"/>`,
    );
    x += w;
  }
  const label = `${q.qas} agree, ${q.qds} disagree, ${q.qms} invalid of ${q.pairs} pairs`;
  return `<svg class="pair-bar" xmlns="http://www.w3.org/2000/svg" width="${BAR_WIDTH}" height="${BAR_HEIGHT}" viewBox="0 0 ${BAR_WIDTH} ${BAR_HEIGHT}" role="img" aria-label="${label}"><rect width="${BAR_WIDTH}" height="${BAR_HEIGHT}" fill="none" stroke="#d6d6de"/>${parts.join('')}</svg>`;
}

function legend(): Markup {
  const swatch = (colour: string): Markup =>
    trustedMarkup(
      `<svg width="12" height="12" aria-hidden="true"><rect width="12" height="12" fill="${colour}"/></svg>`,
    );
  return html`<p class="muted">${swatch(PAIR_COLOURS.qas)} pairs of variants that agree (QAS) · ${swatch(PAIR_COLOURS.qds)} both valid, answers differ (QDS) · ${swatch(PAIR_COLOURS.qms)} one or both invalid (QMS)</p>\n`;
}

/** The table of one dataset's questions with their pair counts and bars. */
export function questionAgreementTable(d: DatasetEval): Markup {
  const rows: TableCell[][] = d.questions.map((q) => [
    html`${q.question}<br><span class="muted">${q.style} · ${q.difficulty}</span>`,
    `${q.correct.filter(Boolean).length}/${q.variants.length}`,
    q.qas,
    q.qds,
    q.qms,
    trustedMarkup(pairBar(q)),
  ]);
  return html`${legend()}${renderTable({
    caption: `${d.dataset}: agreement by question (${d.questions.length} questions)`,
    columns: [
      { label: 'question' },
      { label: 'right on', numeric: true },
      { label: 'QAS', numeric: true },
      { label: 'QDS', numeric: true },
      { label: 'QMS', numeric: true },
      { label: 'pairs' },
    ],
    rows,
  })}`;
}
