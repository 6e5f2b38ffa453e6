/**
 * Several evaluations on one page (`equisql eval --compare EVALDIR_1 EVALDIR_2 …`): the
 * overview with a row per model, the accuracy tables with a column per model, every
 * model's heatmap of a dataset side by side (as the first paper's Figures 3 and 4 set
 * them), and the questions most models get wrong. Models keep the order given.
 */
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { ConfigError } from '../../common/errors.ts';
import { writeFileAtomic } from '../../common/atomic-write.ts';
import type { QuestionEval } from '../eval-summary.ts';
import { agreementFigure } from './agreement-heatmaps.ts';
import { readFinishedEval, type FinishedEval } from './eval-result-files.ts';
import { runFacts } from './eval-report.ts';
import { renderHtmlPage, renderTable, type PageSection, type TableCell } from './html-page.ts';
import { html, type Markup } from './markup-text.ts';
import {
  compareErrorTable,
  compareKeyedTable,
  compareVariantTable,
  overviewTable,
  type DatasetAcrossModels,
} from './metric-tables.ts';
import { wrongCount } from './worst-questions.ts';

/** How many questions the cross-model table shows per dataset. */
export const COMPARED_QUESTIONS = 15;

/** Labels made unique: a repeated one gets its directory in parentheses. */
function uniqueLabels(results: readonly FinishedEval[]): string[] {
  const count = new Map<string, number>();
  for (const r of results) count.set(r.label, (count.get(r.label) ?? 0) + 1);
  return results.map((r) => ((count.get(r.label) ?? 0) > 1 ? `${r.label} (${r.dir})` : r.label));
}

/** The datasets any model scored, sorted, each with every model's evaluation of it. */
function datasetsAcross(results: readonly FinishedEval[], labels: readonly string[]): DatasetAcrossModels[] {
  const names = [...new Set(results.flatMap((r) => r.summary.datasets.map((d) => d.dataset)))].sort();
  return names.map((dataset) => ({
    dataset,
    labels,
    evals: results.map((r) => r.summary.datasets.find((d) => d.dataset === dataset)),
  }));
}

/**
 * The questions of a dataset most wrong across the models (the sum over models of the
 * variants each got wrong), a row each, a column per model with `right/asked` variants.
 */
function questionsAcross(x: DatasetAcrossModels): Markup {
  const byId = x.evals.map((d) => new Map((d?.questions ?? []).map((q) => [q.question_id, q])));
  const order: QuestionEval[] = [];
  const seen = new Set<string>();
  for (const q of x.evals.flatMap((d) => d?.questions ?? [])) {
    if (seen.has(q.question_id)) continue;
    seen.add(q.question_id);
    order.push(q);
  }
  const wrongSum = (q: QuestionEval): number =>
    byId.reduce((sum, m) => {
      const e = m.get(q.question_id);
      return sum + (e ? wrongCount(e) : 0);
    }, 0);
  const ranked = order
    .map((q, i) => ({ q, i, wrong: wrongSum(q) }))
    .filter((e) => e.wrong > 0)
    .sort((a, b) => b.wrong - a.wrong || a.i - b.i)
    .slice(0, COMPARED_QUESTIONS);
  if (ranked.length === 0) return html`<p>${x.dataset}: every model is right on every question and variant.</p>\n`;
  const rows: TableCell[][] = ranked.map(({ q }) => [
    html`${q.question}<br><span class="muted">${q.style} · ${q.difficulty} · <code title="${q.question_id}">${q.question_id.slice(0, 12)}</code></span>`,
    ...byId.map((m): TableCell => {
      const e = m.get(q.question_id);
      if (!e) return '–';
      const right = e.variants.length - wrongCount(e);
      return html`<span class="${right === e.variants.length ? 'good' : 'bad'}">${right}/${e.variants.length}</span>`;
    }),
  ]);
  return renderTable({
    caption: `${x.dataset}: the questions most often wrong, with the variants each model was right on`,
    columns: [{ label: 'question' }, ...x.labels.map((label) => ({ label, numeric: true }))],
    rows,
  });
}

/**
 * The comparison page of `results`, in the order given. Pure.
 *
 * @example
 * compareReportHtml([readFinishedEval('eval/gpt-4o'), readFinishedEval('eval/qwen')]); // '<!DOCTYPE html>…'
 */
export function compareReportHtml(results: readonly FinishedEval[]): string {
  const labels = uniqueLabels(results);
  const across = datasetsAcross(results, labels);
  const sections: PageSection[] = [
    {
      id: 'overview',
      heading: 'Overview',
      intro:
        'A prediction is right only when its answer equals the gold answer on the main and on the edge-case instance.',
      body: overviewTable(results.map((r, i) => ({ label: labels[i] as string, summary: r.summary }))),
    },
    { id: 'variants', heading: 'Execution accuracy per variant', body: html`${across.map(compareVariantTable)}` },
    {
      id: 'difficulty-style',
      heading: 'Execution accuracy per difficulty and style',
      body: html`${across.map(
        (x) => html`<div class="tables">
${compareKeyedTable(x, 'difficulty')}${compareKeyedTable(x, 'style')}</div>
`,
      )}`,
    },
    { id: 'errors', heading: 'Invalid predictions', body: html`${across.map(compareErrorTable)}` },
    {
      id: 'agreement',
      heading: 'Pairwise agreement between variants',
      intro:
        'One heatmap per model and dataset; each cell counts the questions whose predictions on the two variants both ran and agree.',
      body: html`${across.map(
        (x) => html`<h3>${x.dataset}</h3>
<div class="figures">
${x.evals.flatMap((d, i) => (d ? [agreementFigure(labels[i] as string, d)] : []))}</div>
`,
      )}`,
    },
    { id: 'questions', heading: 'Questions most often wrong', body: html`${across.map(questionsAcross)}` },
  ];
  return renderHtmlPage({
    title: `equisql eval: ${labels.join(' vs ')}`,
    facts: results.map((r, i) => runFacts(r, labels[i])),
    sections,
  });
}

/** A path with its existing part resolved through symbolic links. */
function realOf(path: string): string {
  const full = resolve(path);
  if (existsSync(full)) return realpathSync(full);
  return join(realOf(dirname(full)), basename(full));
}

/**
 * The page goes beside its inputs, never over them: not inside an evaluation it compares
 * (its predictions.jsonl, summary.json), and not over a file that is no page of ours.
 */
function refuseOverwrite(evalDirs: readonly string[], outFile: string): void {
  const out = realOf(outFile);
  for (const dir of evalDirs) {
    const d = realOf(dir);
    if (out === d || out.startsWith(`${d}${sep}`))
      throw new ConfigError(
        `eval --compare: --out ${outFile} is inside ${dir}, one of the evaluations compared; write the page elsewhere`,
      );
  }
  if (!existsSync(out)) return;
  if (!statSync(out).isFile()) throw new ConfigError(`eval --compare: --out ${outFile} is not a file`);
  const head = readFileSync(out, 'utf8').slice(0, 15);
  if (head !== '<!DOCTYPE html>')
    throw new ConfigError(
      `eval --compare: --out ${outFile} exists and is not a page equisql wrote; remove it or write the page elsewhere`,
    );
}

/**
 * Reads each evaluation directory and writes one page comparing them to `outFile`
 * (written whole or not at all). Fewer than one directory is a `ConfigError`.
 *
 * @example
 * await writeCompareReport(['eval/gpt-4o', 'eval/qwen'], 'eval/compare.html');
 */
export async function writeCompareReport(evalDirs: readonly string[], outFile: string): Promise<void> {
  if (evalDirs.length === 0) throw new ConfigError('eval --compare: no evaluation directories given');
  refuseOverwrite(evalDirs, outFile);
  const results = evalDirs.map(readFinishedEval);
  writeFileAtomic(outFile, compareReportHtml(results));
}
