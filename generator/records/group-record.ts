/**
 * The `groups/*.jsonl` line format: one verified equivalence group per line. This module is
 * the contract between generation and the stages after it (questions, export); they read
 * these records and nothing else from generation.
 *
 * Every field is plain JSON. Lines are written with keys in a fixed order (see
 * `serializeGroup`), so the same group always prints as the same bytes.
 */
import { ConfigError } from '../common/errors.ts';
import type { Query } from '../query/conceptual-query.ts';
import { READABILITY_CHECKS, type ReadabilityCheck } from '../compile/readability.ts';
import { MEANING_RULES, type MeaningRule } from '../meaning/meaning-rules.ts';
import { READING_CHOICES, type ReadingChoice } from '../questions/readings.ts';

export type Difficulty = 'easy' | 'medium' | 'hard' | 'extra';
export const DIFFICULTIES: readonly Difficulty[] = ['easy', 'medium', 'hard', 'extra'];

/** One variant's gold SQL and its answer on the main instance. */
export interface VariantAnswer {
  readonly sql: string;
  readonly row_count: number;
  /** `normalizeResult(...).hash` of the answer on the main instance. */
  readonly result_hash: string;
  /**
   * Only in a run checked on SQLite (`--engines postgres,sqlite`), for a variant SQLite holds:
   * the variant's SQLite SQL, which answered as `sql` did on both instances' SQLite files.
   */
  readonly sqlite_sql?: string;
}

/** How many of each construct the conceptual query uses. */
export interface ConstructCounts {
  readonly joins: number;
  readonly aggregates: number;
  readonly subqueries: number;
  readonly set_operations: number;
}

export interface GroupRecord {
  /** sha256 of the canonical conceptual query (aliases renamed, conjuncts sorted). */
  readonly group_id: string;
  readonly dataset: string;
  /** The generation candidate this group came from; resuming continues after the last one. */
  readonly candidate: number;
  /** The conceptual query: the one meaning every variant's SQL expresses. */
  readonly query: Query;
  /** Whether the order of the rows is part of the answer. */
  readonly ordered: boolean;
  /** Per variant name, in the build's variant order. */
  readonly variants: Readonly<Record<string, VariantAnswer>>;
  /** The grammar skeleton the filler instantiated. */
  readonly skeleton: string;
  /** True when the skeleton was drawn as part of the long-tail share. */
  readonly long_tail: boolean;
  /** The variant whose SQL the labels below are computed from (the most normalized one). */
  readonly reference_variant: string;
  /** SQLStructEval structure hash of the reference variant's SQL. */
  readonly structure_hash: string;
  /** Spider hardness of the reference variant's SQL. */
  readonly difficulty: Difficulty;
  readonly counts: ConstructCounts;
  /** How many distinct SQL texts the variants have (1: the schema choice made no difference). */
  readonly distinct_sql: number;
  /** The instances every variant agreed on: `main` (answers above) and `edge`. */
  readonly verified_on: readonly {
    readonly profile: 'default' | 'edge';
    readonly instance_hash: string;
    readonly result_hash: string;
    readonly row_count: number;
  }[];
  /** Only for groups from a user's suite (`--from-suite`): the line's id and question. */
  readonly source?: { readonly suite_id: string; readonly question?: string };
}

/**
 * Why a candidate was not emitted. A closed set, so the manifest's counts can be read
 * without guessing and a new reason is a compile-time change.
 */
export const REJECTION_REASONS = [
  /** The skeleton uses a construct the conceptual query has no counterpart for (derived tables, `*` with joins, …). */
  'unsupported-skeleton',
  /** The skeleton cannot be given a meaning: an aggregate in WHERE, `x IN (SELECT COUNT(*) …)`, DISTINCT COUNT(*) over groups. */
  'meaningless-skeleton',
  /** No attribute, path or value in the schema graph fits a slot. */
  'no-fitting-slot',
  /** A HAVING threshold or LIMIT could not be placed so the answer is non-trivial and determined. */
  'no-fitting-value',
  'compile-error',
  /** A query failed on some variant (other than a timeout). */
  'execution-error',
  'timeout',
  /** The planner's cost estimate on some variant is above the limit: an obvious explosion, not run. */
  'too-costly',
  /** Variants disagree on some instance. */
  'variants-disagree',
  'empty-answer',
  /** One row, all NULL. */
  'null-answer',
  /** A count of zero as the whole answer of a filtering query. */
  'zero-count',
  /**
   * A WHERE clause or a window filter that keeps every row of the unfiltered query, or a set
   * operation one of whose parts changes nothing (a union or intersection of a part and one
   * it holds, a difference that takes nothing away).
   */
  'filter-keeps-everything',
  /** A WHERE clause that keeps at least 99% of 100 or more rows (or of a count of 100 or more). */
  'filter-keeps-almost-everything',
  /** A one-row answer that is a literal of the query itself: its filter's value, or a threshold plus one. */
  'echoes-literal',
  /** An aggregate with the same value in every group. */
  'constant-aggregate',
  /** A LIMIT that cuts between rows tied on the ORDER BY keys. */
  'limit-inside-tie',
  /** A LIMIT at or above the number of rows: it cuts nothing. */
  'limit-cuts-nothing',
  /** An ordered answer in which tied rows differ, so the database picks their order. */
  'order-undetermined',
  /** An order over text that differs between the C collation and ICU English. */
  'collation-dependent',
  /** The same canonical conceptual query, or the same structure and literals, as an earlier group. */
  'duplicate',
  /** Its difficulty's share of the requested mix is already full. */
  'difficulty-quota',
  /** The meaning check found the filled query breaks a rule no analyst would (meaning/meaning-rules.ts). */
  ...MEANING_RULES.map((r) => `not-meaningful:${r}` as const),
  /** The filler's own form of a rule of meaning left nothing to fill a slot with. */
  ...MEANING_RULES.map((r) => `no-meaningful-slot:${r}` as const),
  /**
   * Compiled SQL that fails a readability check (compile/readability.ts), named after the
   * check. The compile rules exist so that this never happens: a count here is a bug.
   */
  ...READABILITY_CHECKS.map((c) => `unreadable-sql:${c}` as const),
  /** The natural question has another reading, the choice named, whose answer differs (questions/readings.ts). */
  ...READING_CHOICES.map((c) => `ambiguous:${c}` as const),
] as const;

/**
 * Reasons of a run checked on SQLite too, named after what they concern, so not in the list
 * above (a run on PostgreSQL alone counts none of them, and its manifest does not list them):
 * - `engine-disagreement:<variant>`: the variant's SQLite SQL answers otherwise than its
 *   PostgreSQL SQL on one instance's SQLite file (or fails there);
 * - `dialect-refused:<rule>`: the SQLite dialect refused the query, the rule named
 *   (`no-rule` when none says a construct).
 */
export const ENGINE_REASON_PREFIXES = ['engine-disagreement:', 'dialect-refused:'] as const;
export type EngineRejectionReason = `engine-disagreement:${string}` | `dialect-refused:${string}`;

/** Whether a text is one of the rejection reasons. */
export function isRejectionReason(reason: unknown): reason is RejectionReason {
  return (
    typeof reason === 'string' &&
    ((REJECTION_REASONS as readonly string[]).includes(reason) ||
      ENGINE_REASON_PREFIXES.some((p) => reason.startsWith(p) && /^[\w.-]+$/u.test(reason.slice(p.length))))
  );
}

export type RejectionReason =
  | (typeof REJECTION_REASONS)[number]
  | `not-meaningful:${MeaningRule}`
  | `no-meaningful-slot:${MeaningRule}`
  | `unreadable-sql:${ReadabilityCheck}`
  | `ambiguous:${ReadingChoice}`
  | EngineRejectionReason;

/** The detail of a `difficulty-quota` rejection (a run and the merge of its shards write the same). */
export function quotaDetail(difficulty: Difficulty, quota: number | undefined, groups: number): string {
  return `refused by the difficulty quota: the query is ${difficulty}, and the ${difficulty} quota (${quota ?? 0} of ${groups} groups) is full`;
}

/** A rejected candidate: its reason and a one-line detail. Recorded in `rejections.jsonl`. */
export interface Rejection {
  readonly candidate: number;
  readonly reason: RejectionReason;
  readonly detail: string;
  readonly skeleton: string;
}

export class CandidateRejected extends Error {
  constructor(
    readonly reason: RejectionReason,
    readonly detail: string,
  ) {
    super(`${reason}: ${detail}`);
  }
}

/** Throws the rejection; the filler and checks use it to stop a candidate with its reason. */
export function reject(reason: RejectionReason, detail: string): never {
  throw new CandidateRejected(reason, detail);
}

/** One JSON line, keys in the order of the interface (the bytes are part of the contract). */
export function serializeGroup(g: GroupRecord): string {
  const ordered: GroupRecord = {
    group_id: g.group_id,
    dataset: g.dataset,
    candidate: g.candidate,
    query: g.query,
    ordered: g.ordered,
    variants: g.variants,
    skeleton: g.skeleton,
    long_tail: g.long_tail,
    reference_variant: g.reference_variant,
    structure_hash: g.structure_hash,
    difficulty: g.difficulty,
    counts: g.counts,
    distinct_sql: g.distinct_sql,
    verified_on: g.verified_on,
    ...(g.source ? { source: g.source } : {}),
  };
  return `${JSON.stringify(ordered)}\n`;
}

/** Why a line is not a record of its type, or undefined when it is one (its shape, not its meaning). */
type ShapeCheck = (value: Record<string, unknown>) => string | undefined;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const isCount = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) >= 0;

/**
 * Checks a parsed line against a record type's shape; a one-line ConfigError naming the file
 * and line otherwise. Stage files are read back through this, so a line that is a number, an
 * array or a record with a field of the wrong type is refused where it is, not deep inside a
 * later stage.
 */
export function checkShape<T>(value: unknown, where: string, what: string, check: ShapeCheck): T {
  const problem = isObject(value) ? check(value) : `not a JSON object`;
  if (problem !== undefined) throw new ConfigError(`${where}: not ${what}: ${problem}`);
  return value as T;
}

const field = (ok: boolean, name: string, want: string): string | undefined =>
  ok ? undefined : `"${name}" must be ${want}`;

/** The shape of a `groups/<dataset>.jsonl` line. */
export const GROUP_SHAPE: ShapeCheck = (g) =>
  field(typeof g['group_id'] === 'string' && g['group_id'] !== '', 'group_id', 'a non-empty string') ??
  field(typeof g['dataset'] === 'string', 'dataset', 'a string') ??
  field(isCount(g['candidate']), 'candidate', 'a whole number') ??
  field(isObject(g['query']), 'query', 'an object') ??
  field(typeof g['ordered'] === 'boolean', 'ordered', 'true or false') ??
  field(
    isObject(g['variants']) &&
      Object.keys(g['variants']).length > 0 &&
      Object.values(g['variants']).every(
        (v) =>
          isObject(v) &&
          typeof v['sql'] === 'string' &&
          isCount(v['row_count']) &&
          typeof v['result_hash'] === 'string',
      ),
    'variants',
    'an object of {sql, row_count, result_hash} by variant',
  ) ??
  field(typeof g['skeleton'] === 'string', 'skeleton', 'a string') ??
  field(
    typeof g['reference_variant'] === 'string' &&
      isObject(g['variants']) &&
      Object.hasOwn(g['variants'], g['reference_variant'] as string),
    'reference_variant',
    'one of its variants',
  ) ??
  field(typeof g['structure_hash'] === 'string', 'structure_hash', 'a string') ??
  field((DIFFICULTIES as readonly unknown[]).includes(g['difficulty']), 'difficulty', DIFFICULTIES.join(', ')) ??
  field(isCount(g['distinct_sql']), 'distinct_sql', 'a whole number') ??
  field(Array.isArray(g['verified_on']), 'verified_on', 'a list');

/** The shape of a `rejections.jsonl` line. */
export const REJECTION_SHAPE: ShapeCheck = (r) =>
  field(isCount(r['candidate']), 'candidate', 'a whole number') ??
  field(isRejectionReason(r['reason']), 'reason', 'a rejection reason') ??
  field(typeof r['detail'] === 'string', 'detail', 'a string') ??
  field(typeof r['skeleton'] === 'string', 'skeleton', 'a string');
