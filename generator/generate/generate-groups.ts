/**
 * The groups stage, end to end: sample skeletons, fill them over the schema graph, verify
 * each candidate on every variant of every instance, label and deduplicate, and append
 * accepted groups to `groups/<dataset>.jsonl` and rejections to `rejections.jsonl`.
 *
 * Candidate i always draws the same skeleton and the same random streams (forks of the
 * seed named by i and the repair attempt), and candidates are committed one after another
 * in order, so the files are a function of the settings and the seed, whatever the backend,
 * the concurrency or how many times the run was interrupted and resumed. On a server the
 * next few candidates are decided while earlier ones wait on the database; a decision looks
 * at what the run has accepted only through questions it records (`SeenState`), and one
 * whose answers have changed by its turn is made again.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
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
import { writeFileAtomic } from '../common/atomic-write.ts';
import { checkSeal, readSeals, sealFiles } from '../common/file-seal.ts';
import { CandidateRejected, DIFFICULTIES, quotaDetail, reject, serializeGroup, type Difficulty, type GroupRecord, type Rejection, type RejectionReason } from './group-record.ts';
import { buildSchemaGraph } from './schema-graph.ts';
import { readSkeleton, type QueryShape } from './skeleton-shape.ts';
import { rejectMeaningless } from './meaning-gate.ts';
import { rejectAmbiguous } from './readings-check.ts';
import { fillQuery, type Probe } from './fill/fill-query.ts';
import { verifyGroup, type CheckVariant, type VerifiedGroup } from './group-checks.ts';
import { constructCounts, spiderHardness } from './difficulty.ts';
import { groupId } from './canonical-query.ts';
import { appendLine, countRejections, groupsPath, readGroupsState, rejectionsPath, stageFiles } from './groups-file.ts';
import type { QueryRunner } from './query-runner.ts';
import type { SuiteEntry } from './suite-file.ts';
import { extractSkeleton } from '../grammar/skeleton-extractor.ts';
import { agreeOnSqlite, checksSqlite, engineLosses, openSqliteFiles } from './engine-agreement.ts';
import { readManifest } from '../assemble/build-manifest.ts';
import type { ProgressTick } from '../common/progress-tick.ts';

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

export interface GenerateReport {
  readonly accepted: number;
  readonly candidates: number;
  readonly rejected: Record<RejectionReason, number>;
  readonly seconds: { readonly total: number; readonly database: number; readonly own: number };
  /** Round trips this run made to the database (`QueryRunner.roundTrips`). */
  readonly roundTrips: number;
  /** Candidates decided ahead whose view of the run had changed by their turn, so decided again. */
  readonly redecided: number;
  /** Candidates decided ahead but not needed when the run reached its target. */
  readonly unused: number;
  /** Share of groups whose SQL differs between at least three variants. */
  readonly differs3: number;
  /** Share of accepted groups drawn as long-tail skeletons (the request is `tail`). */
  readonly longTail: number;
  readonly difficulty: Record<Difficulty, number>;
}

/** The variant labels are computed from: the most normalized one, else the first. */
export function referenceVariant(names: readonly string[]): string {
  return ['full_normalized', 'full_cti'].find((n) => names.includes(n)) ?? (names[0] as string);
}

/** Skeletons sampled per seeded batch (candidate i is sample i mod this of batch i / this). */
export const SKELETON_BATCH = 200;
/** Rejections no other filling can cure: the skeleton itself is at fault. */
export const FINAL: ReadonlySet<RejectionReason> = new Set(['unsupported-skeleton', 'meaningless-skeleton', 'difficulty-quota']);

/**
 * Whole-group quotas from shares: floors, then the remainder to the largest fractions, so
 * they sum to `groups` exactly.
 */
export function difficultyQuotas(mix: Readonly<Record<Difficulty, number>>, groups: number): Record<Difficulty, number> {
  const total = DIFFICULTIES.reduce((a, d) => a + (mix[d] ?? 0), 0);
  const exact = DIFFICULTIES.map((d) => ((mix[d] ?? 0) / total) * groups);
  const quotas = exact.map(Math.floor);
  const order = DIFFICULTIES.map((_, i) => i).sort((a, b) => (exact[b] as number) - (quotas[b] as number) - ((exact[a] as number) - (quotas[a] as number)) || a - b);
  for (let k = 0; quotas.reduce((a, b) => a + b, 0) < groups; k++) {
    const i = order[k % order.length] as number;
    quotas[i] = (quotas[i] as number) + 1;
  }
  return Object.fromEntries(DIFFICULTIES.map((d, i) => [d, quotas[i]])) as Record<Difficulty, number>;
}

/**
 * Generates groups until `groups` are in the file (resuming what is there).
 *
 * @example
 * await generateGroups({ dataset: 'retail', out: 'output/retail', groups: 500, … });
 * // output/retail/groups/retail.jsonl, output/retail/rejections.jsonl, output/retail/manifest.json
 */
export async function generateGroups(options: GenerateOptions): Promise<GenerateReport> {
  const started = performance.now();
  const dbAtStart = options.runner.dbSeconds();
  const tripsAtStart = options.runner.roundTrips();
  const progress = options.progress ?? (() => {});
  checkGroupsFiles(options.out, options.dataset);
  const state = readGroupsState(options.out, options.dataset, true);
  const ids = new Set(state.groups.map((g) => g.group_id));
  const literals = new Set(state.groups.map((g) => structureKey(g.variants[g.reference_variant]?.sql ?? '')));
  let accepted = state.groups.length;
  const quotas = options.difficultyMix ? difficultyQuotas(options.difficultyMix, options.groups) : undefined;
  const perDifficulty = Object.fromEntries(DIFFICULTIES.map((d) => [d, 0])) as Record<Difficulty, number>;
  for (const g of state.groups) perDifficulty[g.difficulty] += 1;
  const sources = candidateSources(options);
  const live: RunState = { ids, literals, perDifficulty, ...(quotas ? { quotas } : {}) };
  // Candidates are decided ahead while earlier ones wait on the database, and committed in
  // order; one whose answers from the run's state changed meanwhile is decided again.
  const ahead = options.lookahead ?? options.runner.lookahead;
  const pending = new Map<number, Promise<Decision>>();
  const decide = (i: number): Promise<Decision> => {
    const decision = decideCandidate(options, sources, i, new SeenState(live));
    decision.catch(() => {});
    return decision;
  };
  let candidate = state.nextCandidate;
  let next = candidate;
  let redecided = 0;
  try {
    for (; accepted < options.groups && candidate < sources.maxCandidates; candidate++) {
      for (next = Math.max(next, candidate); next <= candidate + ahead && next < sources.maxCandidates; next++) pending.set(next, decide(next));
      let decision = await (pending.get(candidate) as Promise<Decision>);
      pending.delete(candidate);
      if (!decision.seen.stillHolds()) {
        redecided += 1;
        decision = await decide(candidate);
      }
      const { record, last, sample, entry } = decision;
      options.tick?.({ stage: 'groups', done: accepted + (record ? 1 : 0), total: options.groups, unit: 'groups' });
      if (record) {
        ids.add(record.group_id);
        literals.add(decision.key as string);
        perDifficulty[record.difficulty] += 1;
        appendLine(groupsPath(options.out, options.dataset), serializeGroup(record));
        accepted += 1;
        if (accepted % 25 === 0 || accepted === options.groups) progress(`${accepted}/${options.groups} groups after ${candidate + 1} candidates`);
      } else {
        const rejection: Rejection = { candidate, reason: last?.reason ?? 'no-fitting-slot', detail: `${entry ? `${entry.id}: ` : ''}${last?.detail ?? 'no filling'}`, skeleton: sample.skeleton };
        appendLine(rejectionsPath(options.out), `${JSON.stringify(rejection)}\n`);
      }
    }
  } finally {
    // Nothing decided ahead is left running behind the run.
    await Promise.allSettled(pending.values());
    sources.sqlite?.close();
  }
  const final = readGroupsState(options.out, options.dataset, false);
  const total = (performance.now() - started) / 1000;
  const database = options.runner.dbSeconds() - dbAtStart;
  const difficulty = Object.fromEntries(DIFFICULTIES.map((d) => [d, 0])) as Record<Difficulty, number>;
  for (const g of final.groups) difficulty[g.difficulty] += 1;
  const report: GenerateReport = {
    accepted: final.groups.length,
    candidates: final.nextCandidate,
    rejected: countRejections(final.rejections),
    seconds: { total, database, own: total - database },
    roundTrips: options.runner.roundTrips() - tripsAtStart,
    redecided,
    unused: pending.size,
    differs3: final.groups.length === 0 ? 0 : final.groups.filter((g) => g.distinct_sql >= 3).length / final.groups.length,
    longTail: final.groups.length === 0 ? 0 : final.groups.filter((g) => g.long_tail).length / final.groups.length,
    difficulty,
  };
  writeManifest(options, report);
  if (accepted < options.groups) progress(`stopped after ${candidate} candidates with ${accepted} of ${options.groups} groups`);
  return report;
}

/**
 * What a resume continues must be what the earlier run wrote: the lines it sealed unchanged
 * (lines after them are a later run's, cut short), every line a record of its type, every
 * candidate once. Read-only, so it can run before anything is opened.
 */
export function checkGroupsFiles(out: string, dataset: string): void {
  const seals = readSeals(out);
  for (const rel of stageFiles(dataset)) checkSeal(out, rel, seals, 'prefix', 'generate: --resume', 'choose another --out or start the run anew');
  readGroupsState(out, dataset, false);
}

/** What a run has accepted so far, as candidates consult it: ids, structure keys, groups per difficulty. */
interface RunState {
  readonly ids: ReadonlySet<string>;
  readonly literals: ReadonlySet<string>;
  readonly perDifficulty: Readonly<Record<Difficulty, number>>;
  readonly quotas?: Readonly<Record<Difficulty, number>>;
}

/**
 * The run's state as one candidate's decision saw it: each question asked and its answer,
 * so that when the candidate is committed the answers can be checked against the state
 * then. The state only grows, so a decision whose answers all still hold is the one the
 * candidate would get decided there and then.
 */
class SeenState {
  private readonly questions: (() => boolean)[] = [];
  private readonly answers: boolean[] = [];

  constructor(private readonly state: RunState) {}

  private ask(question: () => boolean): boolean {
    const answer = question();
    this.questions.push(question);
    this.answers.push(answer);
    return answer;
  }

  hasId(id: string): boolean {
    return this.ask(() => this.state.ids.has(id));
  }

  hasKey(key: string): boolean {
    return this.ask(() => this.state.literals.has(key));
  }

  quotaFull(d: Difficulty): boolean {
    return this.ask(() => this.state.quotas !== undefined && this.state.perDifficulty[d] >= this.state.quotas[d]);
  }

  /** The run's quota of a difficulty (fixed for the run, so not a question). */
  quota(d: Difficulty): number | undefined {
    return this.state.quotas?.[d];
  }

  stillHolds(): boolean {
    return this.questions.every((q, i) => q() === this.answers[i]);
  }
}

/** One candidate decided: its group (and structure key) or the last rejection, and what it saw of the run. */
interface Decision {
  readonly sample: Pick<Sample, 'skeleton' | 'tokens' | 'tail'>;
  readonly entry: SuiteEntry | undefined;
  readonly record?: GroupRecord;
  readonly key?: string;
  readonly last?: CandidateRejected;
  readonly seen: SeenState;
}

/**
 * Decides candidate i — fills, verifies and labels its attempts until one is a new group or
 * the attempts run out — consulting the run's state only through `seen` and changing
 * nothing: the caller commits the decision.
 */
async function decideCandidate(options: GenerateOptions, sources: CandidateSources, candidate: number, seen: SeenState): Promise<Decision> {
  const { reference, refVariant, graph, probe, skeletonAt, shapeOf, attempts } = sources;
  const entry = options.suite?.[candidate];
  const sample: Pick<Sample, 'skeleton' | 'tokens' | 'tail'> = entry ? { skeleton: '', tokens: [], tail: false } : skeletonAt(candidate);
  let last: CandidateRejected | undefined;
  try {
    const shape = entry ? undefined : shapeOf(sample.tokens);
    for (let attempt = 0; attempt < (entry ? 1 : attempts); attempt++) {
      try {
        const rng = createRng(options.seed).fork(`candidate/${candidate}/${attempt}`);
        const query = entry ? entry.query : await fillQuery(shape as NonNullable<typeof shape>, { graph, instance: options.instance, rng, probe });
        if (!entry) rejectMeaningless(options.index, query);
        const id = groupId(query);
        if (seen.hasId(id)) reject('duplicate', 'same canonical conceptual query as an earlier group');
        if (options.difficultyMix) {
          // Compiling and parsing is cheap next to running: decide the quota before the database.
          const d = labelGroup({ [reference]: { sql: compileOrReject(options, refVariant, query) } }, reference, [reference]).difficulty;
          if (seen.quotaFull(d)) reject('difficulty-quota', quotaDetail(d, seen.quota(d), options.groups));
        }
        const verified = await checkCandidate(sources, query, id, entry);
        const labels = labelGroup(verified.answers, reference, options.variants.map((v) => v.name));
        const key = structureKey(verified.answers[labels.reference]?.sql ?? '');
        if (seen.hasKey(key)) reject('duplicate', 'same structure and literals as an earlier group');
        const record = groupRecord(options, { candidate, sample, entry, query, id, verified, labels });
        return { sample, entry, record, key, seen };
      } catch (error) {
        if (!(error instanceof CandidateRejected)) throw error;
        last = error;
        if (FINAL.has(error.reason)) break;
      }
    }
  } catch (error) {
    if (!(error instanceof CandidateRejected)) throw error;
    last = error;
  }
  return { sample, entry, ...(last ? { last } : {}), seen };
}

/**
 * The checks of one filled candidate, the same for a run and each of its shards: every
 * variant on every instance (`verifyGroup`), then its other readings (a user's suite is
 * theirs), then, in a run checked on SQLite, the agreement of SQLite with PostgreSQL, whose
 * SQL joins the answers.
 */
export async function checkCandidate(sources: CandidateSources, query: Query, id: string, entry: SuiteEntry | undefined): Promise<VerifiedGroup> {
  const { ctx, sqlite } = sources;
  const verified = await verifyGroup(query, ctx);
  // A question a reader could take another way, with another answer, is not emitted.
  if (!entry) await rejectAmbiguous(query, id, verified, ctx);
  return sqlite ? { ...verified, answers: agreeOnSqlite(query, verified, ctx.variants, sqlite) } : verified;
}

/** A verified candidate as the line the groups file holds (a run and its shards write the same). */
export function groupRecord(
  options: Pick<GenerateOptions, 'dataset' | 'instanceHashes'>,
  c: { candidate: number; sample: Pick<Sample, 'skeleton' | 'tail'>; entry: SuiteEntry | undefined; query: Query; id: string; verified: VerifiedGroup; labels: ReturnType<typeof labelGroup> },
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
      ...(verified.edge && options.instanceHashes.edge ? [{ profile: 'edge' as const, instance_hash: options.instanceHashes.edge, ...verified.edge }] : []),
    ],
    ...(entry ? { source: { suite_id: entry.id, ...(entry.question !== undefined ? { question: entry.question } : {}) } } : {}),
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
export function labelGroup(answers: Readonly<Record<string, { sql: string }>>, reference: string, names: readonly string[]): { reference: string; structureHash: string; difficulty: Difficulty } {
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
  const graph = buildSchemaGraph(options.index, options.variants.map((v) => v.schema));
  const ctx = { index: options.index, variants: options.variants, reference, runner: options.runner, ...(options.maxCost !== undefined ? { maxCost: options.maxCost } : {}) };
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
      batch = sampleSkeletons(options.grammar, { n: SKELETON_BATCH, seed: `${options.seed}/skeletons/${b}`, tail: options.tail ?? 0.1 }).samples;
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

type CandidateSources = ReturnType<typeof candidateSources>;

/** The groups stage's `manifest.json` (a merge of shards writes it from the same fields). */
export function writeManifest(options: Pick<GenerateOptions, 'dataset' | 'out' | 'settings' | 'instanceHashes' | 'suite' | 'tail'> & { readonly variants: readonly { readonly name: string }[] }, report: Omit<GenerateReport, 'roundTrips' | 'redecided' | 'unused'>): void {
  const manifest = {
    stage: 'groups',
    dataset: options.dataset,
    settings: options.settings,
    instances: options.instanceHashes,
    variants: options.variants.map((v) => v.name),
    reference_variant: referenceVariant(options.variants.map((v) => v.name)),
    counts: { candidates: report.candidates, accepted: report.accepted, rejected: report.rejected },
    difficulty: report.difficulty,
    sql_differs_between_3_variants: Number(report.differs3.toFixed(4)),
    // Long-tail skeletons are sampled at the requested share but fail the checks far more
    // often than ordinary ones, so the accepted share is reported as it is.
    long_tail: { requested: options.suite ? 0 : (options.tail ?? 0.1), accepted_share: Number(report.longTail.toFixed(4)) },
    // Timings are of this run only (a resumed run reports its own part).
    timings: {
      total_seconds: Number(report.seconds.total.toFixed(2)),
      database_seconds: Number(report.seconds.database.toFixed(2)),
      own_seconds: Number(report.seconds.own.toFixed(2)),
      database_share: report.seconds.total > 0 ? Number((report.seconds.database / report.seconds.total).toFixed(3)) : 0,
    },
    files: { groups: `groups/${options.dataset}.jsonl`, rejections: 'rejections.jsonl' },
    // Only in a run checked on SQLite: where SQLite was checked, and what it cost.
    ...(Array.isArray(options.settings['engines']) && options.settings['engines'].includes('sqlite') ? { sqlite: sqliteSection(options, report) } : {}),
    // The files this stage closed, as it closed them: the next stage refuses them changed.
    seals: sealFiles(options.out, stageFiles(options.dataset)),
  };
  writeFileAtomic(join(options.out, 'manifest.json'), `${JSON.stringify(JSON.parse(stableStringify(manifest)), null, 2)}\n`);
}

/** The manifest's `sqlite`: the variants SQLite holds (files under `sqlite/` and `edge/sqlite/`), those it cannot, and the candidates lost to it. */
function sqliteSection(options: { readonly out: string; readonly variants: readonly { readonly name: string; readonly sqliteFiles?: unknown }[] }, report: Pick<GenerateReport, 'rejected' | 'candidates'>) {
  // The build in the run's directory says it (a merge has no variants' files at hand); else the variants checked.
  const built = existsSync(join(options.out, 'build.json')) ? readManifest(options.out).sqlite : undefined;
  const variants = built?.variants ?? options.variants.filter((v) => v.sqliteFiles !== undefined).map((v) => v.name);
  return { variants, not_held: built?.not_held ?? {}, lost: engineLosses(report.rejected, report.candidates) };
}

export type { Query };
