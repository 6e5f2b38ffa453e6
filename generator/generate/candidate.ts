/**
 * One candidate of the groups stage, the same in a whole run (run/generate-groups.ts) and in
 * each of its shards (run/shard-run.ts): the stage's settings, what every candidate draws on
 * (`candidateSources`), one attempt at a candidate (`attemptCandidate`), and the labels and
 * structure keys groups are told apart by.
 */
import { createRng } from '../common/rng.ts';
import { oneLine } from '../common/errors.ts';
import { sha256, stableStringify } from '../common/hash.ts';
import type { ErIndex } from '../er-model/er-index.ts';
import type { ConceptualInstance } from '../instance/conceptual-instance.ts';
import type { Grammar } from '../grammar/pcfg.ts';
import { sampleSkeletons, type Sample } from '../grammar/pcfg-sampler.ts';
import { compileQuery, compileSql } from '../compile/compile-query.ts';
import type { CompiledSql } from '../compile/compiled-sql.ts';
import { isOrdered, type Query } from '../query/conceptual-query.ts';
import { parseSql } from '../sql/parser-adapter.ts';
import type { Query as SqlQuery } from '../sql/sql-ast.ts';
import { canonicalStructure } from '../structure/canonical-structure.ts';
import { extractSkeleton } from '../grammar/skeleton-extractor.ts';
import type { ProgressTick } from '../common/progress-tick.ts';
import {
  CandidateRejected,
  DIFFICULTIES,
  reject,
  type Difficulty,
  type GroupRecord,
  type RejectionReason,
} from '../records/group-record.ts';
import { buildSchemaGraph } from './schema-graph.ts';
import { readSkeleton, type QueryShape } from './skeleton-shape.ts';
import { rejectMeaningless } from './meaning-gate.ts';
import { rejectAmbiguous } from './readings-check.ts';
import { writeNaturalQuestion } from '../questions/natural/natural-writer.ts';
import { fillQuery, type Probe } from './fill/fill-query.ts';
import { verifyGroup, type CheckVariant, type VerifiedGroup } from './group-checks.ts';
import { constructCounts, spiderHardness } from './difficulty.ts';
import { groupId, type RequiredAttribute } from './canonical-query.ts';
import type { QueryRunner } from './query-runner.ts';
import type { SuiteEntry } from './suite-file.ts';
import { agreeOnSqlite, checksSqlite, openSqliteFiles } from './engine-agreement.ts';

export interface GenerateOptions {
  readonly dataset: string;
  readonly out: string;
  readonly index: ErIndex;
  /** The main instance (the one the filler draws values from). */
  readonly instance: ConceptualInstance;
  readonly instanceHashes: { readonly main: string; readonly edge?: string };
  readonly variants: readonly CheckVariant[];
  readonly runner: QueryRunner;
  readonly grammar: Grammar;
  readonly seed: string | number;
  /** How many groups the file should hold when done. */
  readonly groups: number;
  /** Share of long-tail skeletons (default 0.1). */
  readonly tail?: number;
  /** Fillings tried per candidate before it is rejected (default 4). */
  readonly attempts?: number;
  /** Give up after this many candidates (default 30 × groups). */
  readonly maxCandidates?: number;
  /** Target shares of each Spider difficulty (summing to 1); a full share rejects further groups of it. */
  readonly difficultyMix?: Readonly<Record<Difficulty, number>>;
  /**
   * Hand-written queries instead of sampled skeletons: candidate i is line i, checked as
   * is (no filling, no repair); its skeleton is extracted from its reference SQL.
   */
  readonly suite?: readonly SuiteEntry[];
  /** Planner cost above which a query is rejected unrun (default 5e6). */
  readonly maxCost?: number;
  /**
   * Candidates decided ahead of the one being committed, so our own work on them overlaps
   * the database's on earlier ones (default: the runner's `lookahead`). The files do not
   * depend on it.
   */
  readonly lookahead?: number;
  /** Settings recorded as they are in the manifest. */
  readonly settings: Readonly<Record<string, unknown>>;
  readonly progress?: (message: string) => void;
  /** Groups in the file out of the target, after each candidate (the CLI draws a bar or prints lines). */
  readonly tick?: ProgressTick;
}

/** The variant labels are computed from: the most normalized one, else the first. */
export function referenceVariant(names: readonly string[]): string {
  return ['full_normalized', 'full_cti'].find((n) => names.includes(n)) ?? (names[0] as string);
}

/** Skeletons sampled per seeded batch (candidate i is sample i mod this of batch i / this). */
export const SKELETON_BATCH = 200;
/** Rejections no other filling can cure: the skeleton itself is at fault. */
export const FINAL: ReadonlySet<RejectionReason> = new Set([
  'unsupported-skeleton',
  'meaningless-skeleton',
  'difficulty-quota',
]);

/**
 * Whole-group quotas from shares: floors, then the remainder to the largest fractions, so
 * they sum to `groups` exactly.
 */
export function difficultyQuotas(
  mix: Readonly<Record<Difficulty, number>>,
  groups: number,
): Record<Difficulty, number> {
  const total = DIFFICULTIES.reduce((a, d) => a + (mix[d] ?? 0), 0);
  const exact = DIFFICULTIES.map((d) => ((mix[d] ?? 0) / total) * groups);
  const quotas = exact.map(Math.floor);
  const order = DIFFICULTIES.map((_, i) => i).sort(
    (a, b) => (exact[b] as number) - (quotas[b] as number) - ((exact[a] as number) - (quotas[a] as number)) || a - b,
  );
  for (let k = 0; quotas.reduce((a, b) => a + b, 0) < groups; k++) {
    const i = order[k % order.length] as number;
    quotas[i] = (quotas[i] as number) + 1;
  }
  return Object.fromEntries(DIFFICULTIES.map((d, i) => [d, quotas[i]])) as Record<Difficulty, number>;
}

/** What a whole run asks of an attempt as it goes, to end it early: its duplicate and quota checks. A shard asks nothing, leaving them to the merge. */
export interface AttemptGates {
  /** With the canonical id, before anything runs. */
  readonly id?: (id: string) => void;
  /** With the reference variant's difficulty, in a run with a difficulty mix, before anything runs. */
  readonly difficulty?: (difficulty: Difficulty) => void;
  /** With the group's duplicate keys (`duplicateKeys`), after the checks. */
  readonly key?: (key: string) => void;
}

/** How one attempt ended: its group and structure key, or its rejection; with the id and difficulty as far as it got. */
export type Attempt = { readonly id?: string; readonly difficulty?: Difficulty } & (
  | { readonly record: GroupRecord; readonly key: string }
  | { readonly rejected: CandidateRejected }
);

/**
 * One attempt at candidate i, the same in a whole run and in each shard: the filling its seeded
 * stream draws (or the suite's query), the meaning rules, the canonical id, the difficulty when
 * the run has quotas, the checks on every variant and instance, the labels and the groups
 * file's line. `gates` may end it with a rejection at the points a whole run consults what it
 * has accepted. Only a `CandidateRejected` is an outcome; any other error is thrown.
 */
export async function attemptCandidate(
  options: GenerateOptions,
  sources: CandidateSources,
  at: {
    readonly candidate: number;
    readonly attempt: number;
    readonly entry: SuiteEntry | undefined;
    readonly sample: Pick<Sample, 'skeleton' | 'tail'>;
    readonly shape: QueryShape | undefined;
  },
  gates: AttemptGates = {},
): Promise<Attempt> {
  const { reference, refVariant, graph, probe } = sources;
  const { candidate, entry, sample } = at;
  let id: string | undefined;
  let difficulty: Difficulty | undefined;
  try {
    const rng = createRng(options.seed).fork(`candidate/${candidate}/${at.attempt}`);
    const query = entry
      ? entry.query
      : await fillQuery(at.shape as QueryShape, { graph, instance: options.instance, rng, probe });
    if (!entry) rejectMeaningless(options.index, query);
    id = groupId(query, requiredAttributes(options.index, query));
    gates.id?.(id);
    if (options.difficultyMix) {
      // Compiling and parsing is cheap next to running: the difficulty is known before the database.
      difficulty = labelGroup({ [reference]: { sql: compileOrReject(options, refVariant, query) } }, reference, [
        reference,
      ]).difficulty;
      gates.difficulty?.(difficulty);
    }
    const verified = await verifyCandidate(sources, query, id, entry);
    const labels = labelGroup(
      verified.answers,
      reference,
      options.variants.map((v) => v.name),
    );
    const key = duplicateKeys(
      verified.answers[labels.reference]?.sql ?? '',
      entry ? undefined : { index: options.index, query, verified },
    );
    gates.key?.(key);
    const record = groupRecord(options, { candidate, sample, entry, query, id, verified, labels });
    return { id, ...(difficulty ? { difficulty } : {}), record, key };
  } catch (error) {
    if (!(error instanceof CandidateRejected)) throw error;
    return { ...(id !== undefined ? { id } : {}), ...(difficulty ? { difficulty } : {}), rejected: error };
  }
}

/**
 * The checks of one filled candidate, the same for a run and each of its shards: every
 * variant on every instance (`verifyGroup`), then its other readings (a user's suite is
 * theirs), then, in a run checked on SQLite, the agreement of SQLite with PostgreSQL, whose
 * SQL joins the answers.
 */
async function verifyCandidate(
  sources: CandidateSources,
  query: Query,
  id: string,
  entry: SuiteEntry | undefined,
): Promise<VerifiedGroup> {
  const { ctx, sqlite } = sources;
  const verified = await verifyGroup(query, ctx);
  // A question a reader could take another way, with another answer, is not emitted.
  if (!entry) await rejectAmbiguous(query, id, verified, ctx);
  return sqlite ? { ...verified, answers: agreeOnSqlite(query, verified, ctx.variants, sqlite) } : verified;
}

/** A verified candidate as the line the groups file holds (a run and its shards write the same). */
export function groupRecord(
  options: Pick<GenerateOptions, 'dataset' | 'instanceHashes'>,
  c: {
    candidate: number;
    sample: Pick<Sample, 'skeleton' | 'tail'>;
    entry: SuiteEntry | undefined;
    query: Query;
    id: string;
    verified: VerifiedGroup;
    labels: ReturnType<typeof labelGroup>;
  },
): GroupRecord {
  const { candidate, sample, entry, query, id, verified, labels } = c;
  return {
    group_id: id,
    dataset: options.dataset,
    candidate,
    query,
    ordered: isOrdered(query),
    variants: verified.answers,
    skeleton: entry ? skeletonOfSql(verified.answers[labels.reference]?.sql ?? '') : sample.skeleton,
    long_tail: sample.tail,
    reference_variant: labels.reference,
    structure_hash: labels.structureHash,
    difficulty: labels.difficulty,
    counts: constructCounts(query),
    distinct_sql: verified.distinctSql,
    verified_on: [
      { profile: 'default', instance_hash: options.instanceHashes.main, ...verified.main },
      ...(verified.edge && options.instanceHashes.edge
        ? [{ profile: 'edge' as const, instance_hash: options.instanceHashes.edge, ...verified.edge }]
        : []),
    ],
    ...(entry
      ? { source: { suite_id: entry.id, ...(entry.question !== undefined ? { question: entry.question } : {}) } }
      : {}),
  };
}

/** The variant's SQL of a query, or a compile-error rejection. */
export function compileOrReject(options: Pick<GenerateOptions, 'index'>, variant: CheckVariant, query: Query): string {
  try {
    return compileQuery(options.index, variant.schema, query);
  } catch (error) {
    return reject('compile-error', `${variant.name}: ${oneLine(error)}`);
  }
}

/**
 * A reference SQL text parsed, remembered for the few texts read last: a candidate's
 * reference SQL is read for its difficulty before it runs, then for its labels and its
 * structure key after (trees are never mutated, so sharing one is safe).
 */
const recentlyParsed = new Map<string, SqlQuery>();
function parseReference(sql: string): SqlQuery {
  const hit = recentlyParsed.get(sql);
  if (hit) return hit;
  const ast = parseSql(sql, { dialect: 'postgresql' });
  if (recentlyParsed.size >= 64) recentlyParsed.delete(recentlyParsed.keys().next().value as string);
  recentlyParsed.set(sql, ast);
  return ast;
}

/** The grammar skeleton of SQL (for hand-written queries, which have no sampled one). */
export function skeletonOfSql(sql: string): string {
  try {
    return extractSkeleton(parseReference(sql)).text;
  } catch {
    return '';
  }
}

/** A group's answers on the main and edge instances, as their result hashes. */
interface Answers {
  readonly main: { readonly result_hash: string };
  readonly edge?: { readonly result_hash: string } | undefined;
}

/**
 * A group's duplicate keys, space-separated: the structure key of its reference SQL and, for
 * a sampled group, the key of what a reader sees (`readerKey`). A group sharing either with
 * an earlier one is a duplicate. One string, so a shard's file holds it as it held one key.
 */
export function duplicateKeys(
  sql: string,
  seen?: {
    readonly index: ErIndex;
    readonly query: Query;
    readonly verified: Answers;
  },
): string {
  return seen ? `${structureKey(sql)} ${readerKey(seen.index, seen.query, seen.verified)}` : structureKey(sql);
}

/**
 * What a reader of a group sees: its natural question (written with one seed for every group,
 * so that wording chance does not tell two apart) and its answers on the main and edge
 * instances. Two fillings whose SQL differs but whose question and answers are the same teach
 * nothing the first did not: `count(DISTINCT o.id)` over customers and their orders against
 * `count(*)` over orders, or the year with the most channels with and without a tie-breaker
 * that no instance needs (their evidence differs only by "Ties are broken by creation year").
 */
export function readerKey(index: ErIndex, query: Query, verified: Answers): string {
  const { question } = writeNaturalQuestion(index, query, 0, '');
  return sha256(stableStringify([question, verified.main.result_hash, verified.edge?.result_hash ?? null]));
}

/** The duplicate keys of a group read back from the groups file, as `duplicateKeys` gave them when it was accepted. */
export function recordKeys(index: ErIndex, g: GroupRecord): string {
  const main = g.verified_on.find((v) => v.profile === 'default');
  const edge = g.verified_on.find((v) => v.profile === 'edge');
  return duplicateKeys(
    g.variants[g.reference_variant]?.sql ?? '',
    g.source || !main ? undefined : { index, query: g.query, verified: { main, edge } },
  );
}

/** Whether `keys` (as `duplicateKeys` writes them) holds a key of `seen`: the detail of the duplicate, or undefined. */
export function duplicateOf(seen: ReadonlySet<string>, keys: string): string | undefined {
  const [structure, reader] = keys.split(' ');
  if (structure !== undefined && seen.has(structure)) return 'same structure and literals as an earlier group';
  if (reader !== undefined && seen.has(reader)) return 'same natural question and answers as an earlier group';
  return undefined;
}

/** Adds the keys of `keys` (as `duplicateKeys` writes them) to `seen`. */
export function addKeys(seen: Set<string>, keys: string): void {
  for (const k of keys.split(' ')) seen.add(k);
}

/** Hash of an SQL text's structure with its literals: two groups with the same key are duplicates. */
export function structureKey(sql: string): string {
  try {
    return sha256(canonicalStructure(parseReference(sql)).canonical);
  } catch {
    return sha256(sql.replace(/\s+/gu, ' ').trim().toLowerCase());
  }
}

/**
 * Structure hash and Spider hardness from the reference variant's SQL; when the SQL adapter
 * cannot read it, from the next variant whose SQL it reads.
 */
export function labelGroup(
  answers: Readonly<Record<string, { sql: string }>>,
  reference: string,
  names: readonly string[],
): { reference: string; structureHash: string; difficulty: Difficulty } {
  for (const name of [reference, ...names.filter((n) => n !== reference)]) {
    const sql = answers[name]?.sql;
    if (!sql) continue;
    try {
      const ast = parseReference(sql);
      return { reference: name, structureHash: canonicalStructure(ast).structureHash, difficulty: spiderHardness(ast) };
    } catch {
      continue;
    }
  }
  return reject('compile-error', 'no variant SQL the adapter can read for labels');
}

/**
 * What every candidate of a run draws on, the same for a whole run and for each of its
 * shards: the reference variant, the schema graph, the checks' context, the filler's probe
 * (run on the reference variant, under the cost guard), the seeded skeleton stream by
 * candidate index, and the bounds on candidates and attempts.
 */
export function candidateSources(options: GenerateOptions) {
  const reference = referenceVariant(options.variants.map((v) => v.name));
  const refVariant = options.variants.find((v) => v.name === reference) as CheckVariant;
  const graph = buildSchemaGraph(
    options.index,
    options.variants.map((v) => v.schema),
  );
  const ctx = {
    index: options.index,
    variants: options.variants,
    reference,
    runner: options.runner,
    ...(options.maxCost !== undefined ? { maxCost: options.maxCost } : {}),
  };
  const probe: Probe = async (q) => {
    let sql: CompiledSql;
    try {
      sql = compileSql(options.index, refVariant.schema, q);
    } catch (error) {
      return reject('compile-error', `probe: ${oneLine(error)}`);
    }
    const cost = await options.runner.cost(refVariant.pgSchemas.main, sql);
    if (cost > (options.maxCost ?? 5e6)) reject('too-costly', `probe: planner cost ${Math.round(cost)}`);
    return (await options.runner.run(refVariant.pgSchemas.main, sql)).rows;
  };
  const batches = new Map<number, readonly Sample[]>();
  const skeletonAt = (i: number): Sample => {
    const b = Math.floor(i / SKELETON_BATCH);
    let batch = batches.get(b);
    if (!batch) {
      batches.clear();
      batch = sampleSkeletons(options.grammar, {
        n: SKELETON_BATCH,
        seed: `${options.seed}/skeletons/${b}`,
        tail: options.tail ?? 0.1,
      }).samples;
      batches.set(b, batch);
    }
    return batch[i % batch.length] as Sample;
  };
  const maxCandidates = options.suite ? options.suite.length : (options.maxCandidates ?? 30 * options.groups);
  const attempts = options.attempts ?? 4;
  // A skeleton is read once per run: the grammar draws the common ones again and again.
  const shapes = new Map<string, QueryShape | CandidateRejected>();
  const shapeOf = (tokens: readonly string[]): QueryShape => {
    const key = tokens.join(' ');
    let shape = shapes.get(key);
    if (shape === undefined) {
      try {
        shape = readSkeleton(tokens);
      } catch (error) {
        if (!(error instanceof CandidateRejected)) throw error;
        shape = error;
      }
      shapes.set(key, shape);
    }
    if (shape instanceof CandidateRejected) throw shape;
    return shape;
  };
  // Opened once for the run and closed by it (`sqlite.close()`).
  const sqlite = checksSqlite(options.variants) ? openSqliteFiles() : undefined;
  return { reference, refVariant, graph, ctx, probe, skeletonAt, shapeOf, maxCandidates, attempts, sqlite };
}

export type CandidateSources = ReturnType<typeof candidateSources>;

/**
 * The group id's test of which attributes always have a value: a required, single-valued
 * attribute of an alias no LEFT join reaches (an alias of a subquery or a set's arm counts
 * the same, by its own joins).
 */
function requiredAttributes(index: ErIndex, query: Query): RequiredAttribute {
  const entities = new Map<string, string>();
  const outer = new Set<string>();
  const visit = (q: Query): void => {
    if (q.kind === 'set') {
      visit(q.left);
      visit(q.right);
      return;
    }
    entities.set(q.from.alias, q.from.entity);
    for (const j of q.joins ?? []) {
      if (j.kind === 'relationship') entities.set(j.alias, j.entity);
      if (j.type === 'left' || outer.has(j.kind === 'relationship' ? j.from : j.of)) outer.add(j.alias);
    }
  };
  visit(query);
  return (alias, attribute) => {
    const entity = entities.get(alias);
    if (!entity || outer.has(alias)) return false;
    const a = index.allAttributes(entity).find((x) => x.attribute.name === attribute)?.attribute;
    return a !== undefined && a.optional !== true && a.multiValued !== true;
  };
}
