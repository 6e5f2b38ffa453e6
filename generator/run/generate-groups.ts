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
import { stableStringify } from '../common/hash.ts';
import type { Sample } from '../grammar/pcfg-sampler.ts';
import { writeFileAtomic } from '../common/atomic-write.ts';
import { checkSeal, readSeals, sealFiles } from '../common/file-seal.ts';
import {
  CandidateRejected,
  DIFFICULTIES,
  quotaDetail,
  reject,
  serializeGroup,
  type Difficulty,
  type GroupRecord,
  type Rejection,
  type RejectionReason,
} from '../records/group-record.ts';
import {
  appendLine,
  countRejections,
  groupsPath,
  readGroupsState,
  rejectionsPath,
  stageFiles,
} from '../records/groups-file.ts';
import type { SuiteEntry } from '../generate/suite-file.ts';
import { engineLosses } from '../generate/engine-agreement.ts';
import { readManifest } from '../assemble/build-manifest.ts';
import {
  attemptCandidate,
  candidateSources,
  difficultyQuotas,
  FINAL,
  referenceVariant,
  addKeys,
  duplicateOf,
  recordKeys,
  type AttemptGates,
  type CandidateSources,
  type GenerateOptions,
} from '../generate/candidate.ts';

export type { GenerateOptions };

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
  const literals = new Set<string>();
  for (const g of state.groups) addKeys(literals, recordKeys(options.index, g));
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
      for (next = Math.max(next, candidate); next <= candidate + ahead && next < sources.maxCandidates; next++)
        pending.set(next, decide(next));
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
        addKeys(literals, decision.key as string);
        perDifficulty[record.difficulty] += 1;
        appendLine(groupsPath(options.out, options.dataset), serializeGroup(record));
        accepted += 1;
        if (accepted % 25 === 0 || accepted === options.groups)
          progress(`${accepted}/${options.groups} groups after ${candidate + 1} candidates`);
      } else {
        const rejection: Rejection = {
          candidate,
          reason: last?.reason ?? 'no-fitting-slot',
          detail: `${entry ? `${entry.id}: ` : ''}${last?.detail ?? 'no filling'}`,
          skeleton: sample.skeleton,
        };
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
    differs3:
      final.groups.length === 0 ? 0 : final.groups.filter((g) => g.distinct_sql >= 3).length / final.groups.length,
    longTail: final.groups.length === 0 ? 0 : final.groups.filter((g) => g.long_tail).length / final.groups.length,
    difficulty,
  };
  writeManifest(options, report);
  if (accepted < options.groups)
    progress(`stopped after ${candidate} candidates with ${accepted} of ${options.groups} groups`);
  return report;
}

/**
 * What a resume continues must be what the earlier run wrote: the lines it sealed unchanged
 * (lines after them are a later run's, cut short), every line a record of its type, every
 * candidate once. Read-only, so it can run before anything is opened.
 */
export function checkGroupsFiles(out: string, dataset: string): void {
  const seals = readSeals(out);
  for (const rel of stageFiles(dataset))
    checkSeal(out, rel, seals, 'prefix', 'generate: --resume', 'choose another --out or start the run anew');
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

  /** The detail of the duplicate when `keys` (as `duplicateKeys` writes them) are an earlier group's. */
  duplicateOf(keys: string): string | undefined {
    return this.ask(() => duplicateOf(this.state.literals, keys) !== undefined)
      ? duplicateOf(this.state.literals, keys)
      : undefined;
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
 * Decides candidate i — its attempts until one is a new group or they run out — consulting
 * the run's state only through `seen` and changing nothing: the caller commits the decision.
 */
async function decideCandidate(
  options: GenerateOptions,
  sources: CandidateSources,
  candidate: number,
  seen: SeenState,
): Promise<Decision> {
  const entry = options.suite?.[candidate];
  const sample: Pick<Sample, 'skeleton' | 'tokens' | 'tail'> = entry
    ? { skeleton: '', tokens: [], tail: false }
    : sources.skeletonAt(candidate);
  const gates: AttemptGates = {
    id: (id) => {
      if (seen.hasId(id)) reject('duplicate', 'same canonical conceptual query as an earlier group');
    },
    difficulty: (d) => {
      if (seen.quotaFull(d)) reject('difficulty-quota', quotaDetail(d, seen.quota(d), options.groups));
    },
    key: (key) => {
      const detail = seen.duplicateOf(key);
      if (detail !== undefined) reject('duplicate', detail);
    },
  };
  let last: CandidateRejected | undefined;
  try {
    const shape = entry ? undefined : sources.shapeOf(sample.tokens);
    for (let attempt = 0; attempt < (entry ? 1 : sources.attempts); attempt++) {
      const tried = await attemptCandidate(options, sources, { candidate, attempt, entry, sample, shape }, gates);
      if ('record' in tried) return { sample, entry, record: tried.record, key: tried.key, seen };
      last = tried.rejected;
      if (FINAL.has(last.reason)) break;
    }
  } catch (error) {
    if (!(error instanceof CandidateRejected)) throw error;
    last = error;
  }
  return { sample, entry, ...(last ? { last } : {}), seen };
}

/** The groups stage's `manifest.json` (a merge of shards writes it from the same fields). */
export function writeManifest(
  options: Pick<GenerateOptions, 'dataset' | 'out' | 'settings' | 'instanceHashes' | 'suite' | 'tail'> & {
    readonly variants: readonly { readonly name: string }[];
  },
  report: Omit<GenerateReport, 'roundTrips' | 'redecided' | 'unused'>,
): void {
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
    long_tail: {
      requested: options.suite ? 0 : (options.tail ?? 0.1),
      accepted_share: Number(report.longTail.toFixed(4)),
    },
    // Timings are of this run only (a resumed run reports its own part).
    timings: {
      total_seconds: Number(report.seconds.total.toFixed(2)),
      database_seconds: Number(report.seconds.database.toFixed(2)),
      own_seconds: Number(report.seconds.own.toFixed(2)),
      database_share:
        report.seconds.total > 0 ? Number((report.seconds.database / report.seconds.total).toFixed(3)) : 0,
    },
    files: { groups: `groups/${options.dataset}.jsonl`, rejections: 'rejections.jsonl' },
    // Only in a run checked on SQLite: where SQLite was checked, and what it cost.
    ...(Array.isArray(options.settings['engines']) && options.settings['engines'].includes('sqlite')
      ? { sqlite: sqliteSection(options, report) }
      : {}),
    // The files this stage closed, as it closed them: the next stage refuses them changed.
    seals: sealFiles(options.out, stageFiles(options.dataset)),
  };
  writeFileAtomic(
    join(options.out, 'manifest.json'),
    `${JSON.stringify(JSON.parse(stableStringify(manifest)), null, 2)}\n`,
  );
}

/** The manifest's `sqlite`: the variants SQLite holds (files under `sqlite/` and `edge/sqlite/`), those it cannot, and the candidates lost to it. */
function sqliteSection(
  options: {
    readonly out: string;
    readonly variants: readonly { readonly name: string; readonly sqliteFiles?: unknown }[];
  },
  report: Pick<GenerateReport, 'rejected' | 'candidates'>,
) {
  // The build in the run's directory says it (a merge has no variants' files at hand); else the variants checked.
  const built = existsSync(join(options.out, 'build.json')) ? readManifest(options.out).sqlite : undefined;
  const variants = built?.variants ?? options.variants.filter((v) => v.sqliteFiles !== undefined).map((v) => v.name);
  return { variants, not_held: built?.not_held ?? {}, lost: engineLosses(report.rejected, report.candidates) };
}
