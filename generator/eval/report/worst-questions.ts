/**
 * The questions a model did worst on, for the report to show with the gold and the
 * predicted SQL side by side: where a reader learns what the model gets wrong about a
 * schema (an inner join where the class-table variant needs a LEFT one, a missed
 * discriminator filter on a merged table, …). A wrong answer also shows both answers' first
 * rows under their SQL, the first row that differs marked, with their row counts and the
 * instance they differ on; invalid SQL shows the database's or the guard's message.
 */
import type { AnswerRows, DatasetEval, PredictionLine, QuestionEval } from '../eval-summary.ts';
import type { GoldSql } from './eval-result-files.ts';
import { renderTable } from './html-page.ts';
import { html, type Markup } from './markup-text.ts';

/** Variants of the question the prediction was not right on. */
export function wrongCount(q: QuestionEval): number {
  return q.correct.filter((c) => !c).length;
}

/**
 * Up to `limit` questions with at least one variant wrong, worst first: most variants wrong,
 * then the lowest share of agreeing variant pairs (QAS / pairs), then the most pairs with a
 * missing answer (QMS), then the export's order.
 *
 * @example
 * worstQuestions(dataset.questions, 10).map((q) => q.question_id);
 */
export function worstQuestions(questions: readonly QuestionEval[], limit: number): QuestionEval[] {
  const agreement = (q: QuestionEval): number => (q.pairs === 0 ? 1 : q.qas / q.pairs);
  return questions
    .map((q, order) => ({ q, order, wrong: wrongCount(q) }))
    .filter((e) => e.wrong > 0)
    .sort((a, b) => b.wrong - a.wrong || agreement(a.q) - agreement(b.q) || b.q.qms - a.q.qms || a.order - b.order)
    .slice(0, limit)
    .map((e) => e.q);
}

/** The export row ids of the wrong variants of `questions`: the gold SQL the section needs. */
export function wrongRowIds(
  questions: readonly QuestionEval[],
  predictions: ReadonlyMap<string, PredictionLine>,
): Set<string> {
  const ids = new Set<string>();
  for (const q of questions) {
    q.variants.forEach((v, i) => {
      const p = predictions.get(predictionKey(q.question_id, v));
      if (!q.correct[i] && p) ids.add(p.id);
    });
  }
  return ids;
}

/** The key of a prediction in the map `predictionIndex` builds. */
export function predictionKey(questionId: string, variant: string): string {
  return `${questionId}\u0000${variant}`;
}

/** The predictions by (question, variant). */
export function predictionIndex(predictions: readonly PredictionLine[]): Map<string, PredictionLine> {
  return new Map(predictions.map((p) => [predictionKey(p.question_id, p.variant), p]));
}

function verdict(p: PredictionLine | undefined): Markup {
  if (!p) return html`<span class="bad">no prediction line</span>`;
  if (p.outcome !== 'rows')
    return html`<span class="bad">${p.outcome}</span>${p.message ? html`<br><span class="muted">${p.message}</span>` : null}`;
  const where = p.answers ? html`<br><span class="muted">on <code>${p.answers.schema}</code></span>` : null;
  if (!p.correct_main)
    return html`<span class="bad">wrong answer</span><br><span class="muted">on the main instance</span>${where}`;
  return html`<span class="bad">wrong on the edge instance</span><br><span class="muted">right on the main one</span>${where}`;
}

/** An answer's rows kept, the first differing one marked, and its row count. */
function answerBlock(a: AnswerRows, first: number | null, which: 'gold' | 'predicted'): Markup {
  const shown = a.rows.length < a.count ? html`, the first ${a.rows.length} shown` : null;
  return html`<table class="answer-rows" data-answer="${which}"><caption>${which} answer: ${a.count} ${a.count === 1 ? 'row' : 'rows'}${shown}</caption>
<thead><tr>${a.columns.map((c) => html`<th scope="col">${c}</th>`)}</tr></thead>
<tbody>
${a.rows.map((r, i) => (i === first ? html`<tr class="first-difference" title="the first row that differs">${r.map((v) => html`<td>${v === null ? 'NULL' : v}</td>`)}</tr>\n` : html`<tr>${r.map((v) => html`<td>${v === null ? 'NULL' : v}</td>`)}</tr>\n`))}</tbody>
</table>
`;
}

/** Beyond this many characters SQL is cut on the page: a model can answer a megabyte of text (predictions.jsonl keeps it whole). */
export const SQL_SHOWN = 8000;

function sqlBlock(sql: string | null | undefined, missing: string): Markup {
  if (sql === null || sql === undefined) return html`<span class="muted">${missing}</span>`;
  if (sql.length <= SQL_SHOWN) return html`<pre><code>${sql}</code></pre>`;
  return html`<pre><code>${sql.slice(0, SQL_SHOWN)}</code></pre><span class="muted">… ${sql.length - SQL_SHOWN} more characters not shown</span>`;
}

function questionBlock(q: QuestionEval, predictions: ReadonlyMap<string, PredictionLine>, gold: GoldSql): Markup {
  const right = q.variants.filter((_, i) => q.correct[i]);
  const rows = q.variants.flatMap((v, i) => {
    if (q.correct[i]) return [];
    const p = predictions.get(predictionKey(q.question_id, v));
    const goldSql = gold.kind === 'found' && p ? gold.sql.get(p.id) : undefined;
    const a = p?.answers;
    return [
      [
        html`<code>${v}</code><br>${verdict(p)}`,
        html`${sqlBlock(goldSql, gold.kind === 'found' ? 'not in the export' : 'export not available')}${a ? answerBlock(a.gold, a.first_difference, 'gold') : null}`,
        html`${sqlBlock(p?.sql, 'no SQL')}${a ? answerBlock(a.predicted, a.first_difference, 'predicted') : null}`,
      ],
    ];
  });
  return html`<div class="question" data-question="${q.question_id}">
<h3>${q.question}</h3>
<p class="muted">${q.style} · ${q.difficulty} · question <code title="${q.question_id}">${q.question_id.slice(0, 12)}</code> · group <code title="${q.group_id}">${q.group_id.slice(0, 12)}</code></p>
<p>Right on <b>${right.length}</b> of ${q.variants.length} variants${right.length > 0 ? html` (${right.join(', ')})` : null}. Variant pairs: ${q.qas} agree (QAS), ${q.qds} disagree (QDS), ${q.qms} with an invalid prediction (QMS), of ${q.pairs}.</p>
${sideBySide(rows)}</div>
`;
}

function sideBySide(rows: readonly (readonly Markup[])[]): Markup {
  return renderTable({
    className: 'side-by-side',
    columns: [{ label: 'variant' }, { label: 'gold SQL' }, { label: 'predicted SQL' }],
    rows,
  });
}

/**
 * The worst questions of one dataset, each with the variants it was wrong on: the outcome,
 * the gold SQL and the predicted SQL side by side.
 */
export function worstQuestionsSection(
  d: DatasetEval,
  predictions: ReadonlyMap<string, PredictionLine>,
  gold: GoldSql,
  limit: number,
): Markup {
  const worst = worstQuestions(d.questions, limit);
  if (worst.length === 0) return html`<p>Every question of ${d.dataset} is right on every variant.</p>\n`;
  const note = gold.kind === 'unavailable' ? html`<p class="muted">Gold SQL not shown: ${gold.reason}.</p>\n` : null;
  const wrong = d.questions.filter((q) => wrongCount(q) > 0).length;
  return html`<p>${d.dataset}: ${wrong} of ${d.questions.length} questions are wrong on at least one variant; the ${worst.length} worst follow.</p>
${note}${worst.map((q) => questionBlock(q, predictions, gold))}`;
}
