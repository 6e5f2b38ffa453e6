/**
 * The report's tables of `summary.json` figures: for one model in detail, and for several
 * models side by side (a column per model). Each table keeps the summary's order (variants
 * in the build's order, difficulties and styles sorted), so the page's bytes follow the
 * summary's.
 */
import { INVALID_KINDS, type Accuracy, type DatasetEval, type ErrorRates, type EvalSummary } from '../eval-summary.ts';
import { renderTable, type TableCell } from './html-page.ts';
import type { Markup } from './markup-text.ts';
import { formatNumber, formatPercent } from './report-numbers.ts';

/** A model's result under its short name. */
export interface LabelledSummary {
  readonly label: string;
  readonly summary: EvalSummary;
}

/** `83.3% (25/30)`. */
export function accuracyText(a: Accuracy): string {
  return `${formatPercent(a.rate)} (${a.correct}/${a.total})`;
}

function share(part: number, whole: number): string {
  return whole === 0 ? '–' : formatPercent(part / whole);
}

function optional(value: number | null, digits: number): string {
  return value === null ? '–' : formatNumber(value, digits);
}

/**
 * One row per model and dataset: how many predictions, execution accuracy, robust accuracy,
 * invalid share, the question-level agreement sums as shares of the variant pairs, and the
 * structural consistency means; a footer row per model over all its datasets when it has
 * more than one.
 */
export function overviewTable(models: readonly LabelledSummary[]): Markup {
  const rows: TableCell[][] = [];
  const footer: TableCell[][] = [];
  for (const { label, summary } of models) {
    for (const d of summary.datasets) {
      const pairs = d.agreement.pairs;
      rows.push([
        label,
        d.dataset,
        d.ex.total,
        accuracyText(d.ex),
        accuracyText(d.robust),
        share(d.errors.invalid, d.errors.total),
        share(d.agreement.qas, pairs),
        share(d.agreement.qds, pairs),
        share(d.agreement.qms, pairs),
        optional(d.structure.distinct, 2),
        optional(d.structure.majority, 3),
        optional(d.structure.gold, 3),
      ]);
    }
    if (summary.datasets.length > 1) {
      footer.push([
        label,
        'all',
        summary.ex.total,
        accuracyText(summary.ex),
        accuracyText(summary.robust),
        share(summary.errors.invalid, summary.errors.total),
        '',
        '',
        '',
        '',
        '',
        '',
      ]);
    }
  }
  return renderTable({
    caption:
      'Execution accuracy (right on every instance), robust accuracy (questions right on every variant), invalid predictions, agreement over variant pairs (QAS, QDS, QMS) and structural consistency',
    columns: [
      { label: 'model' },
      { label: 'dataset' },
      { label: 'predictions', numeric: true },
      { label: 'EX', numeric: true },
      { label: 'robust', numeric: true },
      { label: 'invalid', numeric: true },
      { label: 'QAS', numeric: true },
      { label: 'QDS', numeric: true },
      { label: 'QMS', numeric: true },
      { label: 'distinct structures', numeric: true },
      { label: 'majority structure', numeric: true },
      { label: 'gold structure', numeric: true },
    ],
    rows,
    footer,
  });
}

/** One model on one dataset: a row per variant with the instance-wise counts behind EX. */
export function variantTable(d: DatasetEval): Markup {
  return renderTable({
    caption: `${d.dataset}: execution accuracy per variant${d.edge_instance ? '' : ' (the build has no edge instance: main only)'}`,
    columns: [
      { label: 'variant' },
      { label: 'EX', numeric: true },
      { label: 'right', numeric: true },
      { label: 'asked', numeric: true },
      { label: 'right on main', numeric: true },
      { label: 'right on edge', numeric: true },
      { label: 'main only (luck)', numeric: true },
      { label: 'invalid', numeric: true },
    ],
    rows: d.ex_by_variant.map((v) => [
      v.variant,
      formatPercent(v.rate),
      v.correct,
      v.total,
      v.correct_main,
      v.correct_edge,
      v.main_only,
      v.errors.invalid,
    ]),
    footer: [['all variants', formatPercent(d.ex.rate), d.ex.correct, d.ex.total, '', '', '', d.errors.invalid]],
  });
}

/** One model on one dataset: accuracy per key (difficulty or style), keys in the summary's order. */
export function keyedTable(d: DatasetEval, what: 'difficulty' | 'style'): Markup {
  const byKey = what === 'difficulty' ? d.ex_by_difficulty : d.ex_by_style;
  return renderTable({
    caption: `${d.dataset}: execution accuracy per ${what}`,
    columns: [
      { label: what },
      { label: 'EX', numeric: true },
      { label: 'right', numeric: true },
      { label: 'asked', numeric: true },
    ],
    rows: Object.entries(byKey).map(([key, a]) => [key, formatPercent(a.rate), a.correct, a.total]),
  });
}

function errorCells(e: ErrorRates): TableCell[] {
  return [e.total, e.invalid, formatPercent(e.invalid_rate), ...INVALID_KINDS.map((k) => e.by_kind[k] ?? 0)];
}

const ERROR_COLUMNS = [
  { label: 'predictions', numeric: true },
  { label: 'invalid', numeric: true },
  { label: 'invalid share', numeric: true },
  ...INVALID_KINDS.map((k) => ({ label: k, numeric: true })),
] as const;

/** One model on one dataset: invalid predictions by kind, a row per variant. */
export function errorTable(d: DatasetEval): Markup {
  return renderTable({
    caption: `${d.dataset}: invalid predictions by kind (refused by the guard, failed, timed out, over the row cap, no SQL)`,
    columns: [{ label: 'variant' }, ...ERROR_COLUMNS],
    rows: d.ex_by_variant.map((v) => [v.variant, ...errorCells(v.errors)]),
    footer: [['all variants', ...errorCells(d.errors)]],
  });
}

/** A dataset's evaluation in each model, or undefined where a model did not score it. */
export interface DatasetAcrossModels {
  readonly dataset: string;
  readonly labels: readonly string[];
  readonly evals: readonly (DatasetEval | undefined)[];
}

/** Row keys in first-seen order across the models. */
function unionKeys(lists: readonly (readonly string[])[]): string[] {
  const seen = new Set<string>();
  for (const list of lists) for (const k of list) seen.add(k);
  return [...seen];
}

/** Several models on one dataset: EX per variant, a column per model. */
export function compareVariantTable(x: DatasetAcrossModels): Markup {
  const variants = unionKeys(x.evals.map((d) => d?.ex_by_variant.map((v) => v.variant) ?? []));
  return renderTable({
    caption: `${x.dataset}: execution accuracy per variant`,
    columns: [{ label: 'variant' }, ...x.labels.map((label) => ({ label, numeric: true }))],
    rows: variants.map((variant) => [
      variant,
      ...x.evals.map((d) => {
        const v = d?.ex_by_variant.find((e) => e.variant === variant);
        return v ? accuracyText(v) : '–';
      }),
    ]),
    footer: [
      ['all variants', ...x.evals.map((d) => (d ? accuracyText(d.ex) : '–'))],
      ['robust', ...x.evals.map((d) => (d ? accuracyText(d.robust) : '–'))],
    ],
  });
}

/** Several models on one dataset: EX per difficulty or style, a column per model. */
export function compareKeyedTable(x: DatasetAcrossModels, what: 'difficulty' | 'style'): Markup {
  const pick = (d: DatasetEval): Readonly<Record<string, Accuracy>> =>
    what === 'difficulty' ? d.ex_by_difficulty : d.ex_by_style;
  const keys = unionKeys(x.evals.map((d) => (d ? Object.keys(pick(d)) : []))).sort();
  return renderTable({
    caption: `${x.dataset}: execution accuracy per ${what}`,
    columns: [{ label: what }, ...x.labels.map((label) => ({ label, numeric: true }))],
    rows: keys.map((key) => [
      key,
      ...x.evals.map((d) => {
        const a = d ? pick(d)[key] : undefined;
        return a ? accuracyText(a) : '–';
      }),
    ]),
  });
}

/** Several models on one dataset: invalid predictions by kind, a row per model. */
export function compareErrorTable(x: DatasetAcrossModels): Markup {
  return renderTable({
    caption: `${x.dataset}: invalid predictions by kind`,
    columns: [{ label: 'model' }, ...ERROR_COLUMNS],
    rows: x.evals.flatMap((d, i) => (d ? [[x.labels[i] as string, ...errorCells(d.errors)]] : [])),
  });
}
