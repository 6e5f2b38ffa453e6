/**
 * The report of one evaluation: `EVALDIR/heatmap-<model>-<dataset>.svg` for each dataset
 * and `EVALDIR/report.html`, one self-contained page with the summary's tables, the
 * heatmaps inline and the worst questions with gold and predicted SQL side by side. Made
 * from the files `equisql eval` wrote, so it can be remade at any time; the same files give
 * the same bytes.
 */
import { join } from 'node:path';
import { writeFileAtomic } from '../../common/atomic-write.ts';
import type { EvalSource } from '../eval-summary.ts';
import { agreementFigure, agreementHeatmapSvg, heatmapFileName } from './agreement-heatmaps.ts';
import { readFinishedEval, readGoldSql, type FinishedEval, type GoldSql } from './eval-result-files.ts';
import { renderHtmlPage, type PageSection } from './html-page.ts';
import { html } from './markup-text.ts';
import { questionAgreementTable } from './question-agreement.ts';
import { errorTable, keyedTable, overviewTable, variantTable } from './metric-tables.ts';
import { predictionIndex, worstQuestions, worstQuestionsSection, wrongRowIds } from './worst-questions.ts';

/** How many of each dataset's worst questions the page shows. */
export const WORST_QUESTIONS = 10;

/** Where the SQL came from, in words. */
export function sourceText(source: EvalSource | undefined): string {
  if (!source) return 'source not recorded';
  switch (source.kind) {
    case 'endpoint':
      return `model ${source.model}${source.base_url ? ` at ${source.base_url}` : ''}`;
    case 'predictions':
      return `predictions file ${source.file}`;
    case 'gold':
      return 'the gold SQL itself (oracle self-check)';
  }
}

/** The facts line under a page's title for one evaluation. */
export function runFacts(result: FinishedEval, label = result.label): string {
  const s = result.summary;
  const parts = [
    `${label}: ${sourceText(result.run?.source)}`,
    `split ${s.split}`,
    `context ${s.context}`,
    `engine ${s.engine === 'sqlite' ? 'SQLite' : 'PostgreSQL'}`,
  ];
  if (result.run?.dir) parts.push(`export ${result.run.dir}`);
  return parts.join(' · ');
}

/**
 * The files of one evaluation's report, by name in the evaluation directory: a heatmap per
 * dataset, then `report.html`. Pure: `gold` is the gold SQL of the rows it shows.
 *
 * @example
 * evalReportFiles(readFinishedEval('eval/gold'), gold).get('report.html'); // '<!DOCTYPE html>…'
 */
export function evalReportFiles(result: FinishedEval, gold: GoldSql): Map<string, string> {
  const files = new Map<string, string>();
  const { label, summary } = result;
  for (const d of summary.datasets) files.set(heatmapFileName(label, d.dataset), agreementHeatmapSvg(label, d));
  const predictions = predictionIndex(result.predictions);
  const each = summary.datasets;
  const sections: PageSection[] = [
    {
      id: 'overview',
      heading: 'Overview',
      intro:
        "A prediction is right only when its answer equals the gold answer on the main instance and on the edge-case instance, under equisql's answer rules (order only where the question fixes it, duplicates counted, array values normalized).",
      body: overviewTable([{ label, summary }]),
    },
    { id: 'variants', heading: 'Execution accuracy per variant', body: html`${each.map(variantTable)}` },
    {
      id: 'difficulty-style',
      heading: 'Execution accuracy per difficulty and style',
      body: html`${each.map(
        (d) => html`<div class="tables">
${keyedTable(d, 'difficulty')}${keyedTable(d, 'style')}</div>
`,
      )}`,
    },
    { id: 'errors', heading: 'Invalid predictions', body: html`${each.map(errorTable)}` },
    {
      id: 'agreement',
      heading: 'Pairwise agreement between variants',
      intro:
        'PSS(i, j): for i ≠ j, the questions whose predictions on variants i and j both ran and returned the same answer; on the diagonal, the questions whose prediction on the variant was valid.',
      body: html`<div class="figures">
${each.map((d) => agreementFigure(label, d))}</div>
`,
    },
    {
      id: 'by-question',
      heading: 'Agreement by question',
      intro:
        'For each question, its pairs of variants: those whose predictions agree (QAS), those where both ran and the answers differ (QDS), and those with an invalid prediction (QMS); QAS + QDS + QMS is the number of pairs.',
      body: html`${each.map(questionAgreementTable)}`,
    },
    {
      id: 'worst',
      heading: 'Worst questions',
      intro:
        'Questions wrong on the most variants, then with the least agreement between variants; for each variant it was wrong on, the gold SQL beside the predicted SQL.',
      body: html`${each.map((d) => worstQuestionsSection(d, predictions, gold, WORST_QUESTIONS))}`,
    },
  ];
  files.set('report.html', renderHtmlPage({ title: `equisql eval: ${label}`, facts: [runFacts(result)], sections }));
  return files;
}

/**
 * Writes the report of the evaluation in `evalDir` (read from its `summary.json`,
 * `predictions.jsonl` and `run.json`, and the gold SQL from the export `run.json` names)
 * into that directory: `heatmap-<model>-<dataset>.svg` per dataset and `report.html`. Each
 * file is written whole or not at all.
 *
 * @example
 * await writeEvalReport('eval/gpt-4o'); // eval/gpt-4o/report.html, eval/gpt-4o/heatmap-gpt-4o-retail.svg
 */
export async function writeEvalReport(evalDir: string): Promise<void> {
  const result = readFinishedEval(evalDir);
  const predictions = predictionIndex(result.predictions);
  const shown = result.summary.datasets.flatMap((d) => worstQuestions(d.questions, WORST_QUESTIONS));
  const gold = readGoldSql(result, wrongRowIds(shown, predictions));
  for (const [name, text] of evalReportFiles(result, gold)) writeFileAtomic(join(evalDir, name), text);
}
