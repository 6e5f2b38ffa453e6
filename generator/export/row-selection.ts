/**
 * How many rows a group becomes. Every question on every variant repeats each question as
 * many times as there are variants and each answer as many times as there are questions;
 * for training, each question is asked on a few variants (drawn from the seed, so that the
 * group's variants are all still used across its questions), paraphrases may be capped, a
 * (question, SQL) pair already in the split is dropped, and a row budget may cut the rest
 * evenly over the groups. The test split is never sampled: a benchmark needs every variant.
 */
import { createRng } from '../common/rng.ts';
import type { GroupRecord } from '../records/group-record.ts';
import type { QuestionRecord } from '../records/question-record.ts';
import { groupRows, type ExportRecord } from '../records/export-record.ts';
import type { SplitName } from './split-assign.ts';

export interface RowControls {
  /** Variants each train or validation question is asked on; `all` keeps every one. */
  readonly variantsPerQuestion: number | 'all';
  /** Paraphrases kept of each style in train and validation; `all` keeps every one. */
  readonly paraphrasesPerStyle: number | 'all';
  /** At most this many rows in train and validation together, cut evenly over groups. */
  readonly maxRows?: number;
  /** Drop a train or validation row whose question and SQL are already in its split. */
  readonly dedupe: boolean;
}

/**
 * The defaults: each question on two variants (it is seen on more than one schema, which
 * is what teaches a model to read the schema, and 14 questions × 10 variants no longer
 * repeat each question ten times an epoch), every paraphrase (each is new text), duplicates
 * dropped, no budget.
 */
export const DEFAULT_ROW_CONTROLS: RowControls = { variantsPerQuestion: 2, paraphrasesPerStyle: 'all', dedupe: true };

/**
 * The variants each question of a group is asked on: `k` distinct ones per question, the
 * least used so far first (ties in a seeded order of the group's variants), preferring a
 * variant whose SQL the question does not have yet, so its rows differ in SQL. Every
 * variant is covered when questions × k ≥ variants: once the unused variants would need all
 * the picks left, only unused ones are taken.
 *
 * @example
 * questionVariants('g1', ['q1', 'q2'], { a: 'SELECT 1', b: 'SELECT 2', c: 'SELECT 3' }, 2, 7);
 * // Map { 'q1' => ['c', 'a'], 'q2' => ['b', 'c'] } (the order depends on the seed)
 */
export function questionVariants(
  groupId: string,
  questionIds: readonly string[],
  sqlByVariant: Readonly<Record<string, string>>,
  k: number,
  seed: string | number,
): Map<string, string[]> {
  const order = createRng(`${seed}`).fork(`rows/${groupId}`).shuffle(Object.keys(sqlByVariant));
  const uses = new Map(order.map((v) => [v, 0]));
  const take = Math.min(k, order.length);
  const out = new Map<string, string[]>();
  questionIds.forEach((q, i) => {
    const picks: string[] = [];
    const sqls = new Set<string>();
    while (picks.length < take) {
      const slotsAfter = take - picks.length - 1 + (questionIds.length - i - 1) * take;
      const free = order
        .filter((v) => !picks.includes(v))
        .sort((a, b) => (uses.get(a) as number) - (uses.get(b) as number));
      const unused = free.filter((v) => uses.get(v) === 0);
      const pool = unused.length > slotsAfter ? unused : free;
      // Among the least used (with SQL new to the question, when there are such), the one whose
      // SQL text has the most unused variants left: taking those early keeps a later question
      // from a pile of one text.
      const fresh = pool.filter((v) => !sqls.has(sqlByVariant[v] as string));
      const from = fresh.length > 0 ? fresh : pool;
      const least = from.filter((v) => uses.get(v) === uses.get(from[0] as string));
      const left = (v: string): number => unused.filter((u) => sqlByVariant[u] === sqlByVariant[v]).length;
      const pick = least.reduce((best, v) => (left(v) > left(best) ? v : best));
      picks.push(pick);
      sqls.add(sqlByVariant[pick] as string);
      uses.set(pick, (uses.get(pick) as number) + 1);
    }
    out.set(q, picks);
  });
  return out;
}

/** The questions kept of a group: paraphrases beyond the cap dropped, file order kept. */
export function cappedParaphrases(questions: readonly QuestionRecord[], cap: number | 'all'): QuestionRecord[] {
  return cap === 'all' ? [...questions] : questions.filter((q) => q.paraphrase < cap);
}

/** The rows of a split without a (question, SQL) pair seen before in it, and how many went. */
export function dropDuplicatePairs(rows: readonly ExportRecord[]): { rows: ExportRecord[]; dropped: number } {
  const seen = new Set<string>();
  const kept = rows.filter((r) => {
    const key = `${r.question.trim().toLowerCase()}\u0000${r.sql.replace(/\s+/gu, ' ').trim()}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return { rows: kept, dropped: rows.length - kept.length };
}

/**
 * At most `budget` of `rows`, taken evenly over the groups (each group's first row, then
 * each one's second, …), returned in their order.
 */
export function budgetRows(rows: readonly ExportRecord[], budget: number): ExportRecord[] {
  if (rows.length <= budget) return [...rows];
  const byGroup = new Map<string, number[]>();
  rows.forEach((r, i) => byGroup.set(r.group_id, [...(byGroup.get(r.group_id) ?? []), i]));
  const lists = [...byGroup.values()];
  const keep = new Set<number>();
  for (let round = 0; keep.size < budget; round++) {
    for (const list of lists) {
      const i = list[round];
      if (i !== undefined && keep.size < budget) keep.add(i);
    }
  }
  return rows.filter((_, i) => keep.has(i));
}

/**
 * The budget of each training split: `maxRows` shared in proportion to their rows, so
 * validation keeps the share of train it had.
 */
export function splitBudgets(
  trainRows: number,
  validationRows: number,
  maxRows: number,
): { train: number; validation: number } {
  const total = trainRows + validationRows;
  if (total <= maxRows) return { train: trainRows, validation: validationRows };
  const validation = Math.min(validationRows, Math.round((maxRows * validationRows) / total));
  return { train: Math.min(trainRows, maxRows - validation), validation };
}

/** A group as the split plan placed it: its split, its questions, the variants it may be asked on there. */
export interface PlacedGroup {
  readonly group: GroupRecord;
  readonly split: SplitName;
  readonly questions: readonly QuestionRecord[];
  readonly variants: readonly string[];
  readonly domain: string;
}

/**
 * The rows of each split: the test split's groups give every question on every variant;
 * train and validation groups give what `controls` keep, then lose their duplicate pairs and
 * what the budget leaves out. Also how many duplicates each training split dropped.
 *
 * @example
 * splitRows(placed, DEFAULT_ROW_CONTROLS, 1).rows.train.length; // ≈ train questions × 2
 */
export function splitRows(
  placed: readonly PlacedGroup[],
  controls: RowControls,
  seed: string | number,
): { rows: Record<SplitName, ExportRecord[]>; duplicates: Partial<Record<SplitName, number>> } {
  const rows: Record<SplitName, ExportRecord[]> = { train: [], validation: [], test: [] };
  for (const p of placed) {
    const sampled = p.split !== 'test';
    const qs = sampled ? cappedParaphrases(p.questions, controls.paraphrasesPerStyle) : [...p.questions];
    const sql = Object.fromEntries(p.variants.map((v) => [v, (p.group.variants[v] as { sql: string }).sql]));
    const perQuestion =
      sampled && controls.variantsPerQuestion !== 'all'
        ? questionVariants(
            p.group.group_id,
            qs.map((q) => q.question_id),
            sql,
            controls.variantsPerQuestion,
            seed,
          )
        : undefined;
    rows[p.split].push(
      ...groupRows(p.group, qs, {
        domain: p.domain,
        split: p.split,
        variants: p.variants,
        ...(perQuestion ? { perQuestion } : {}),
      }),
    );
  }
  const duplicates: Partial<Record<SplitName, number>> = {};
  if (controls.dedupe) {
    for (const split of ['train', 'validation'] as const) {
      const kept = dropDuplicatePairs(rows[split]);
      rows[split] = kept.rows;
      duplicates[split] = kept.dropped;
    }
  }
  if (controls.maxRows !== undefined) {
    const budget = splitBudgets(rows.train.length, rows.validation.length, controls.maxRows);
    rows.train = budgetRows(rows.train, budget.train);
    rows.validation = budgetRows(rows.validation, budget.validation);
  }
  return { rows, duplicates };
}
