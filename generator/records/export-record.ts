/**
 * The exported row: one (question, variant) of a group. The question is the same on every
 * variant of its group; the SQL, its answer's hash and row count are the variant's. The JSON
 * Schema in `output/record.schema.json` describes exactly these fields; `equisql check`
 * validates every row against it.
 */
import { sha256 } from '../common/hash.ts';
import { canonicalizeSql } from '../structure/canonical-structure.ts';
import type { Difficulty, GroupRecord } from './group-record.ts';
import type { QuestionRecord } from './question-record.ts';

export interface ExportRecord {
  /** sha256 of the question id and the variant: stable across reruns and exports. */
  readonly id: string;
  readonly group_id: string;
  readonly question_id: string;
  readonly dataset: string;
  /**
   * The database the row is asked on, as Spider and BIRD name it: the dataset's name, which
   * is the corpus database's `db_id` in a corpus run (unique within the corpus).
   */
  readonly db_id: string;
  /** The E/R domain the dataset is built on (what the `domain` split holds out). */
  readonly domain: string;
  readonly variant: string;
  /** `<dataset>/<variant>`: the DDL is `schemas/<variant>.sql`, DDL and data `dumps/<variant>.sql`. */
  readonly schema_id: string;
  readonly question: string;
  readonly style: string;
  readonly paraphrase: number;
  /** `template`, `suite` (a person's question) or `llm:<model>`. */
  readonly writer: string;
  readonly sql: string;
  /** SQLStructEval canonical text of `sql`; null when the parser cannot read this variant's SQL. */
  readonly canonical_sql: string | null;
  readonly skeleton: string;
  /** Structure hash of `sql` (of the group's reference SQL when `canonical_sql` is null). */
  readonly structure_hash: string;
  readonly result_hash: string;
  readonly row_count: number;
  readonly ordered: boolean;
  readonly difficulty: Difficulty;
  readonly split: string;
  /** The conceptual query, as JSON text (the group's one meaning). */
  readonly query: string;
  readonly evidence: string;
  /** The LLM writer's chain of thought as JSON text (`{meaning, intent, scenario}`), else null. */
  readonly cot: string | null;
}

/** The columns in file order; JSONL keys and Parquet columns follow it. */
export const RECORD_COLUMNS = [
  'id',
  'group_id',
  'question_id',
  'dataset',
  'db_id',
  'domain',
  'variant',
  'schema_id',
  'question',
  'style',
  'paraphrase',
  'writer',
  'sql',
  'canonical_sql',
  'skeleton',
  'structure_hash',
  'result_hash',
  'row_count',
  'ordered',
  'difficulty',
  'split',
  'query',
  'evidence',
  'cot',
] as const satisfies readonly (keyof ExportRecord)[];

function writerName(q: QuestionRecord): string {
  return q.writer.kind === 'llm' ? `llm:${q.writer.model}` : q.writer.kind;
}

/**
 * The rows of one group: each of its questions on each of its variants, questions in file
 * order, variants in the group's (the build's) order. `variants` limits which variants are
 * exported (all when absent), `perQuestion` which of them each question is asked on.
 *
 * @example
 * groupRows(group, questions, { domain: 'social_media', split: 'train' }).length; // questions × variants
 */
export function groupRows(
  group: GroupRecord,
  questions: readonly QuestionRecord[],
  options: {
    readonly domain: string;
    readonly split: string;
    readonly variants?: readonly string[];
    /** Per question id, the variants it is asked on (of `variants`); every one when absent. */
    readonly perQuestion?: ReadonlyMap<string, readonly string[]>;
  },
): ExportRecord[] {
  const names = Object.keys(group.variants).filter((v) => !options.variants || options.variants.includes(v));
  const canon = new Map<string, { canonical: string | null; hash: string }>();
  for (const v of names) {
    const sql = (group.variants[v] as { sql: string }).sql;
    try {
      const c = canonicalizeSql(sql, { dialect: 'postgresql' });
      canon.set(v, { canonical: c.canonical, hash: c.structureHash });
    } catch {
      canon.set(v, { canonical: null, hash: group.structure_hash });
    }
  }
  const query = JSON.stringify(group.query);
  return questions.flatMap((q) =>
    names
      .filter((v) => options.perQuestion?.get(q.question_id)?.includes(v) ?? true)
      .map((v): ExportRecord => {
        const answer = group.variants[v] as { sql: string; row_count: number; result_hash: string };
        const c = canon.get(v) as { canonical: string | null; hash: string };
        return {
          id: sha256(`${q.question_id}\u0000${v}`),
          group_id: group.group_id,
          question_id: q.question_id,
          dataset: group.dataset,
          db_id: group.dataset,
          domain: options.domain,
          variant: v,
          schema_id: `${group.dataset}/${v}`,
          question: q.question,
          style: q.style,
          paraphrase: q.paraphrase,
          writer: writerName(q),
          sql: answer.sql,
          canonical_sql: c.canonical,
          skeleton: group.skeleton,
          structure_hash: c.hash,
          result_hash: answer.result_hash,
          row_count: answer.row_count,
          ordered: group.ordered,
          difficulty: group.difficulty,
          split: options.split,
          query,
          evidence: q.evidence,
          cot: q.cot
            ? JSON.stringify({ meaning: q.cot.meaning, intent: q.cot.intent, scenario: q.cot.scenario })
            : null,
        };
      }),
  );
}

/** One JSON line, keys in `RECORD_COLUMNS` order. */
export function serializeRecord(r: ExportRecord): string {
  const o: Record<string, unknown> = {};
  for (const c of RECORD_COLUMNS) o[c] = r[c];
  return `${JSON.stringify(o)}\n`;
}
