/**
 * The metrics of `summary.json`, computed from the prediction lines alone (pure: the same
 * lines give the same summary, whatever produced them). Definitions, as `docs/eval.md` gives
 * them:
 *
 * - execution accuracy (EX): the share of (question, variant) predictions right on both the
 *   main and the edge instance; per variant, per difficulty, per style;
 * - robust accuracy: the share of questions right on every variant they are asked on;
 * - error rates: predictions that did not give rows, by kind;
 * - the answer of a valid prediction, R, is its normalized answer on both instances (the
 *   hash on the main one and on the edge one); an invalid one has none (the paper's ∅);
 * - PSS(i, j), i ≠ j: questions whose predictions on variants i and j are both valid with the
 *   same answer; PSS(i, i) = N_i − E_i (the paper's diagonal: questions asked on i less the
 *   invalid predictions there);
 * - QAS/QDS/QMS per question over its pairs of variants i < j: both valid and agreeing, both
 *   valid and differing, one or both invalid; they add up to V(V−1)/2 (the paper writes N²);
 * - SQLStructEval's structure measures over the predicted SQL of a question across its
 *   variants (see `StructureStats`).
 */
import type { ExportRecord } from '../records/export-record.ts';
import {
  EVAL_SUMMARY_VERSION,
  INVALID_KINDS,
  type Accuracy,
  type DatasetEval,
  type ErrorRates,
  type EvalContext,
  type EvalEngine,
  type EvalSummary,
  type InvalidKind,
  type PredictionLine,
  type QuestionEval,
  type StructureStats,
  type StructureSummary,
  type VariantAccuracy,
} from './eval-summary.ts';

/** A share; 0 of 0 is 0. */
export function accuracy(correct: number, total: number): Accuracy {
  return { correct, total, rate: total === 0 ? 0 : correct / total };
}

export function errorRates(lines: readonly PredictionLine[]): ErrorRates {
  const byKind = Object.fromEntries(INVALID_KINDS.map((k) => [k, 0])) as Record<InvalidKind, number>;
  let invalid = 0;
  for (const l of lines) {
    if (l.outcome === 'rows') continue;
    invalid++;
    byKind[l.outcome]++;
  }
  return {
    total: lines.length,
    invalid,
    invalid_rate: lines.length === 0 ? 0 : invalid / lines.length,
    by_kind: byKind,
  };
}

const valid = (l: PredictionLine): boolean => l.outcome === 'rows';
/** Two valid predictions give the same answer: the same on the main instance and on the edge one. */
const agree = (a: PredictionLine, b: PredictionLine): boolean =>
  a.result_hash === b.result_hash && a.edge_result_hash === b.edge_result_hash;

function byKey(
  lines: readonly PredictionLine[],
  rows: ReadonlyMap<string, ExportRecord>,
  key: (r: ExportRecord) => string,
): Record<string, Accuracy> {
  const counts = new Map<string, [number, number]>();
  for (const l of lines) {
    const k = key(rows.get(l.id) as ExportRecord);
    const c = counts.get(k) ?? [0, 0];
    c[1]++;
    if (l.correct) c[0]++;
    counts.set(k, c);
  }
  return Object.fromEntries(
    [...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, [c, t]]) => [k, accuracy(c, t)]),
  );
}

/** SQLStructEval's measures over one question's predicted SQL (one generation per variant). */
export function structureStats(
  lines: readonly PredictionLine[],
  goldStructure: (l: PredictionLine) => string,
): StructureStats {
  const parsed = lines.filter((l) => l.structure_hash !== null);
  if (parsed.length === 0) return { parsed: 0, distinct: null, majority: null, entropy: null, gold: null };
  const counts = new Map<string, number>();
  for (const l of parsed) counts.set(l.structure_hash as string, (counts.get(l.structure_hash as string) ?? 0) + 1);
  const m = parsed.length;
  let entropy = 0;
  for (const n of counts.values()) entropy -= (n / m) * Math.log2(n / m);
  return {
    parsed: m,
    distinct: counts.size,
    majority: Math.max(...counts.values()) / m,
    // −0 (one structure) prints as 0.
    entropy: entropy === 0 ? 0 : entropy,
    gold: parsed.filter((l) => l.structure_hash === goldStructure(l)).length / m,
  };
}

function mean(values: readonly (number | null)[]): number | null {
  const present = values.filter((v): v is number => v !== null);
  return present.length === 0 ? null : present.reduce((a, b) => a + b, 0) / present.length;
}

function datasetEval(
  dataset: string,
  variants: readonly string[],
  edgeInstance: boolean,
  lines: readonly PredictionLine[],
  rows: ReadonlyMap<string, ExportRecord>,
): DatasetEval {
  const order = new Map(variants.map((v, i) => [v, i]));
  const exByVariant = variants.map((variant): VariantAccuracy => {
    const mine = lines.filter((l) => l.variant === variant);
    const correct = mine.filter((l) => l.correct).length;
    return {
      variant,
      ...accuracy(correct, mine.length),
      correct_main: mine.filter((l) => l.correct_main).length,
      correct_edge: mine.filter((l) => l.correct_edge).length,
      main_only: mine.filter((l) => l.correct_main && !l.correct_edge).length,
      errors: errorRates(mine),
    };
  });
  // Questions in the order of their first row; each one's lines in the variants' order.
  const perQuestion = new Map<string, PredictionLine[]>();
  for (const l of lines) {
    const list = perQuestion.get(l.question_id) ?? [];
    list.push(l);
    perQuestion.set(l.question_id, list);
  }
  const size = variants.length;
  const matrix = variants.map(() => variants.map(() => 0));
  const asked = variants.map(() => 0);
  const questions: QuestionEval[] = [];
  for (const [questionId, unsorted] of perQuestion) {
    const mine = [...unsorted].sort((a, b) => (order.get(a.variant) ?? 0) - (order.get(b.variant) ?? 0));
    const first = rows.get(mine[0]?.id as string) as ExportRecord;
    let qas = 0;
    let qds = 0;
    let qms = 0;
    for (let a = 0; a < mine.length; a++) {
      const la = mine[a] as PredictionLine;
      const i = order.get(la.variant) as number;
      asked[i] = (asked[i] as number) + 1;
      const row = matrix[i] as number[];
      if (valid(la)) row[i] = (row[i] as number) + 1;
      for (let b = a + 1; b < mine.length; b++) {
        const lb = mine[b] as PredictionLine;
        const j = order.get(lb.variant) as number;
        if (!valid(la) || !valid(lb)) qms++;
        else if (agree(la, lb)) {
          qas++;
          const other = matrix[j] as number[];
          row[j] = (row[j] as number) + 1;
          other[i] = (other[i] as number) + 1;
        } else qds++;
      }
    }
    questions.push({
      question_id: questionId,
      group_id: first.group_id,
      question: first.question,
      style: first.style,
      difficulty: first.difficulty,
      variants: mine.map((l) => l.variant),
      correct: mine.map((l) => l.correct),
      outcomes: mine.map((l) => l.outcome),
      robust: mine.length > 0 && mine.every((l) => l.correct),
      qas,
      qds,
      qms,
      pairs: (mine.length * (mine.length - 1)) / 2,
      structure: structureStats(mine, (l) => (rows.get(l.id) as ExportRecord).structure_hash),
    });
  }
  const withStructure = questions.filter((q) => q.structure.parsed > 0);
  const structure: StructureSummary = {
    questions: withStructure.length,
    distinct: mean(withStructure.map((q) => q.structure.distinct)),
    majority: mean(withStructure.map((q) => q.structure.majority)),
    entropy: mean(withStructure.map((q) => q.structure.entropy)),
    gold: mean(withStructure.map((q) => q.structure.gold)),
  };
  const sum = (f: (q: QuestionEval) => number): number => questions.reduce((a, q) => a + f(q), 0);
  return {
    dataset,
    variants,
    edge_instance: edgeInstance,
    ex: accuracy(lines.filter((l) => l.correct).length, lines.length),
    ex_by_variant: exByVariant,
    ex_by_difficulty: byKey(lines, rows, (r) => r.difficulty),
    ex_by_style: byKey(lines, rows, (r) => r.style),
    robust: accuracy(questions.filter((q) => q.robust).length, questions.length),
    errors: errorRates(lines),
    pss: { variants, matrix: size === 0 ? [] : matrix, n: asked, questions: questions.length },
    agreement: { qas: sum((q) => q.qas), qds: sum((q) => q.qds), qms: sum((q) => q.qms), pairs: sum((q) => q.pairs) },
    structure,
    questions,
  };
}

export interface SummaryInput {
  readonly split: string;
  readonly context: EvalContext;
  /** The engine scored on (default postgres). */
  readonly engine?: EvalEngine;
  /** Per dataset, the variants scored in the build's order and whether it has an edge instance. */
  readonly datasets: readonly {
    readonly dataset: string;
    readonly variants: readonly string[];
    readonly edgeInstance: boolean;
  }[];
  /** The rows scored, in the export's order. */
  readonly rows: readonly ExportRecord[];
  /** One line per row, in the rows' order. */
  readonly lines: readonly PredictionLine[];
}

/**
 * The summary of an evaluation.
 *
 * @example
 * summarize({ split: 'test', context: 'ddl', datasets: [{ dataset: 'retail', variants, edgeInstance: true }], rows, lines }).ex.rate; // 0.62
 */
export function summarize(input: SummaryInput): EvalSummary {
  const rows = new Map(input.rows.map((r) => [r.id, r]));
  const datasets = [...input.datasets]
    .sort((a, b) => (a.dataset < b.dataset ? -1 : a.dataset > b.dataset ? 1 : 0))
    .map((d) =>
      datasetEval(
        d.dataset,
        d.variants,
        d.edgeInstance,
        input.lines.filter((l) => l.dataset === d.dataset),
        rows,
      ),
    );
  const robust = datasets.reduce((a, d) => a + d.robust.correct, 0);
  const questions = datasets.reduce((a, d) => a + d.robust.total, 0);
  return {
    version: EVAL_SUMMARY_VERSION,
    split: input.split,
    context: input.context,
    engine: input.engine ?? 'postgres',
    ex: accuracy(input.lines.filter((l) => l.correct).length, input.lines.length),
    robust: accuracy(robust, questions),
    errors: errorRates(input.lines),
    datasets,
  };
}
