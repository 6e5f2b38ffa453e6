/**
 * One shard of the groups stage (`equisql generate --shard i/N`).
 *
 * What a shard is: the candidates whose index c satisfies c mod N = i − 1, drawn from the
 * very seeded streams the unsharded run draws them from (candidate c's skeleton is sample c
 * of the seeded batches, its fillings come from the fork `candidate/c/attempt`). For each of
 * its candidates the shard does everything that does not depend on other candidates —
 * filling, compiling, the difficulty label, verification on every variant and instance —
 * and writes the outcome of each attempt to `shard/<dataset>.candidates.jsonl`. What does
 * depend on other candidates — deduplication against earlier groups, difficulty quotas and
 * where the run stops — is decided by `equisql merge`, which replays the outcomes of all
 * shards in candidate order exactly as the unsharded loop decides them (shard-replay.ts).
 *
 * A shard cannot know where the merged run will stop, so it estimates it from its own
 * candidates: where its own groups reach its even part of the target (of each difficulty
 * quota, with a mix), the unsharded run has about reached its target; the shard goes on past
 * that candidate by the margin (`--shard-margin`, default 0.25). It verifies every candidate,
 * also those the unsharded run rejects by a full quota before the database: whether a quota
 * is full is only known over all shards. If the merge needs a candidate a shard did not
 * reach, it says which shard to continue with `--resume` and a larger margin.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../common/errors.ts';
import { stableStringify } from '../common/hash.ts';
import { writeFileAtomic } from '../common/atomic-write.ts';
import type { Sample } from '../grammar/pcfg-sampler.ts';
import {
  CandidateRejected,
  checkShape,
  DIFFICULTIES,
  GROUP_SHAPE,
  serializeGroup,
  type Difficulty,
  type RejectionReason,
} from '../records/group-record.ts';
import { appendLine, readRecords } from '../records/groups-file.ts';
import { checkSeal, refuseNonFile, sealFile, type Seals } from '../common/file-seal.ts';
import {
  attemptCandidate,
  candidateSources,
  addKeys,
  difficultyQuotas,
  duplicateOf,
  FINAL,
  type GenerateOptions,
} from '../generate/candidate.ts';

/** Which shard: `index` counts from 1 (`--shard 1/4` … `--shard 4/4`). */
export interface ShardSpec {
  readonly index: number;
  readonly count: number;
}

/**
 * `"i/N"` → `{ index: i, count: N }`; a ConfigError naming the flag otherwise.
 *
 * @example
 * parseShard('2/4'); // { index: 2, count: 4 }
 */
export function parseShard(text: string): ShardSpec {
  const m = /^(\d+)\/(\d+)$/u.exec(text.trim());
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || !(count >= 1) || !(index >= 1 && index <= count))
    throw new ConfigError(`generate: --shard expects i/N with 1 ≤ i ≤ N, got "${text}"`);
  return { index, count };
}

/**
 * One attempt at filling a candidate, as far as it got without looking at other candidates.
 * `id` once the query was filled; `difficulty` (the label the quota is decided on, from the
 * reference variant's SQL before it runs) when a difficulty mix is set; then either the
 * rejection, or the verified group as its exact line with its duplicate key.
 */
export interface AttemptOutcome {
  readonly id?: string;
  readonly difficulty?: Difficulty;
  readonly rejected?: { readonly reason: RejectionReason; readonly detail: string };
  readonly group?: { readonly line: string; readonly key: string; readonly difficulty: Difficulty };
}

/** One line of `shard/<dataset>.candidates.jsonl`. */
export interface CandidateOutcome {
  readonly candidate: number;
  readonly skeleton: string;
  /** The suite entry's id (rejections name it). */
  readonly suite_id?: string;
  /** A rejection before any attempt (the skeleton itself cannot be read). */
  readonly rejected?: { readonly reason: RejectionReason; readonly detail: string };
  readonly attempts: readonly AttemptOutcome[];
}

/** `shard.json`: the settings, which shard, whether it reached its stopping point, and its timings. */
export interface ShardState {
  readonly stage: 'groups-shard';
  readonly dataset: string;
  readonly shard: ShardSpec;
  readonly settings: Readonly<Record<string, unknown>>;
  readonly instances: { readonly main: string; readonly edge?: string };
  readonly variants: readonly string[];
  readonly attempts: number;
  readonly max_candidates: number;
  readonly complete: boolean;
  /** Candidates this shard decided, and groups it holds before the merge's deduplication. */
  readonly counts: { readonly candidates: number; readonly verified: number };
  readonly timings: { readonly total_seconds: number; readonly database_seconds: number };
  /** When complete: the candidates file as the shard closed it (`merge` refuses it changed). */
  readonly seals?: Seals;
}

/** The shape of a candidates line (for `checkShape`). */
export const CANDIDATE_SHAPE = (c: Record<string, unknown>): string | undefined => {
  if (!Number.isSafeInteger(c['candidate']) || (c['candidate'] as number) < 0)
    return '"candidate" must be a whole number';
  if (typeof c['skeleton'] !== 'string') return '"skeleton" must be a string';
  if (!Array.isArray(c['attempts'])) return '"attempts" must be a list';
  for (const a of c['attempts'] as unknown[]) {
    if (a === null || typeof a !== 'object' || Array.isArray(a)) return '"attempts" must be a list of objects';
    const group = (a as { group?: unknown }).group as { line?: unknown; key?: unknown } | undefined;
    if (group !== undefined && (group === null || typeof group.line !== 'string' || typeof group.key !== 'string'))
      return 'an attempt\'s "group" must be {line, key, difficulty}';
  }
  return undefined;
};

/**
 * A shard's candidates file read back: each line a candidate outcome, and the lines exactly
 * the shard's candidates in order (index − 1, then every N-th), so a line deleted, moved or
 * copied is refused where it is instead of being taken for where the shard stopped.
 */
export function readCandidates(path: string, shard: ShardSpec, repair: boolean, who: string): CandidateOutcome[] {
  const outcomes = readRecords<CandidateOutcome>(path, repair, 'a candidate outcome', CANDIDATE_SHAPE);
  for (const [k, o] of outcomes.entries()) {
    const expected = shard.index - 1 + k * shard.count;
    if (o.candidate !== expected) {
      throw new ConfigError(
        `${who}: ${path}:${k + 1}: candidate ${o.candidate} where shard ${shard.index}/${shard.count}'s candidate ${expected} belongs (a line deleted, moved or copied after the shard wrote it): run the shard again into a new --out`,
      );
    }
  }
  for (const [k, o] of outcomes.entries()) {
    for (const [j, a] of o.attempts.entries()) {
      if (a.group === undefined) continue;
      let group: unknown;
      try {
        group = JSON.parse(a.group.line);
      } catch {
        group = undefined;
      }
      checkShape(group, `${path}:${k + 1}: attempt ${j + 1}`, 'a group', GROUP_SHAPE);
    }
  }
  return outcomes;
}

/** `DIR/shard/<dataset>.candidates.jsonl` relative to DIR, as shard.json seals it. */
export function candidatesFile(dataset: string): string {
  return `shard/${dataset}.candidates.jsonl`;
}

/** `DIR/shard/<dataset>.candidates.jsonl` */
export function candidatesPath(out: string, dataset: string): string {
  return join(out, 'shard', `${dataset}.candidates.jsonl`);
}

/** `DIR/shard.json` */
export function shardStatePath(out: string): string {
  return join(out, 'shard.json');
}

/** The shard state a run left in `out`, if any. */
export function readShardState(out: string): ShardState | undefined {
  const path = shardStatePath(out);
  if (!existsSync(path)) return undefined;
  refuseNonFile(path);
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as ShardState;
  } catch (error) {
    throw new ConfigError(`${path}: not JSON: ${(error as Error).message}`);
  }
}

/**
 * `DIR/shard.done`: the completion marker a shard writes last, once its candidates file is
 * closed and sealed: which shard of which run, and the seal. An array job's tasks are done
 * when every folder holds one; `merge` refuses a folder without it as incomplete.
 */
export interface ShardDone {
  readonly stage: 'groups-shard-done';
  readonly dataset: string;
  readonly shard: ShardSpec;
  readonly seals: Seals;
}

/** `DIR/shard.done` */
export function shardDonePath(out: string): string {
  return join(out, 'shard.done');
}

/** The completion marker a shard left in `out`, if any; a one-line ConfigError when it is not one. */
export function readShardDone(out: string): ShardDone | undefined {
  const path = shardDonePath(out);
  if (!existsSync(path)) return undefined;
  refuseNonFile(path);
  let value: Partial<ShardDone> | null;
  try {
    value = JSON.parse(readFileSync(path, 'utf8')) as Partial<ShardDone> | null;
  } catch (error) {
    throw new ConfigError(`${path}: not JSON: ${(error as Error).message}`);
  }
  if (
    value === null ||
    typeof value !== 'object' ||
    value.stage !== 'groups-shard-done' ||
    typeof value.dataset !== 'string' ||
    typeof value.shard?.index !== 'number' ||
    typeof value.shard?.count !== 'number' ||
    typeof value.seals !== 'object' ||
    value.seals === null
  ) {
    throw new ConfigError(
      `${path}: not a shard's completion marker ({stage: "groups-shard-done", dataset, shard, seals})`,
    );
  }
  return value as ShardDone;
}

function writeShardState(out: string, state: ShardState): void {
  writeFileAtomic(shardStatePath(out), `${JSON.stringify(JSON.parse(stableStringify(state)), null, 2)}\n`);
}

/** A shard's even part of the run: of the groups, or of each difficulty's quota (an exact fraction). */
export function shardShares(
  groups: number,
  count: number,
  mix: Readonly<Record<Difficulty, number>> | undefined,
): { even: Record<Difficulty | 'all', number> } {
  const quotas = mix ? difficultyQuotas(mix, groups) : undefined;
  const even = {
    ...(Object.fromEntries(DIFFICULTIES.map((d) => [d, quotas ? quotas[d] / count : 0])) as Record<Difficulty, number>),
    all: groups / count,
  };
  return { even };
}

export interface ShardOptions extends GenerateOptions {
  readonly shard: ShardSpec;
  /** Extra share of candidates a shard decides past where its even part was reached (default 0.25). */
  readonly margin?: number;
}

/** What an earlier run of this shard sealed must be there unchanged, and its lines in the shard's order, before it is continued. */
export function checkShardFiles(out: string, dataset: string, shard: ShardSpec): void {
  checkSeal(
    out,
    candidatesFile(dataset),
    readShardState(out)?.seals,
    'prefix',
    'generate: --resume',
    'run the shard again into a new --out',
    { sealsFile: 'shard.json' },
  );
  readCandidates(candidatesPath(out, dataset), shard, false, 'generate: --resume');
}

export interface ShardReport {
  readonly candidates: number;
  readonly verified: number;
  readonly complete: boolean;
}

/**
 * Runs one shard: decides its candidates in order (continuing after what an earlier run of
 * the same shard wrote) until it holds its share of groups, and records each outcome.
 *
 * @example
 * await generateShard({ ...generateOptions, shard: { index: 1, count: 2 } });
 * // DIR/shard/<dataset>.candidates.jsonl, DIR/shard.json
 */
export async function generateShard(options: ShardOptions): Promise<ShardReport> {
  const started = performance.now();
  const dbAtStart = options.runner.dbSeconds();
  const { shard } = options;
  const path = candidatesPath(options.out, options.dataset);
  const earlier = readShardState(options.out);
  checkShardFiles(options.out, options.dataset, shard);
  const done = readCandidates(path, shard, true, 'generate: --resume');
  const ids = new Set<string>();
  const literals = new Set<string>();
  let verified = 0;
  const perDifficulty = Object.fromEntries(DIFFICULTIES.map((d) => [d, 0])) as Record<Difficulty, number>;
  /** Takes a verified attempt into this shard's own groups when it is new to them; true then. */
  const count = (a: AttemptOutcome): boolean => {
    if (!a.group || !a.id || ids.has(a.id) || duplicateOf(literals, a.group.key) !== undefined) return false;
    ids.add(a.id);
    addKeys(literals, a.group.key);
    verified += 1;
    perDifficulty[a.group.difficulty] += 1;
    return true;
  };
  const margin = options.margin ?? 0.25;
  const { even } = shardShares(options.groups, shard.count, options.difficultyMix);
  // Where the run stops is estimated from this shard alone: at the candidate where its own
  // groups reach its even part (of each quota, with a mix), the unsharded run has about
  // reached its target. The shard goes on past it by the margin, in candidates.
  const holdsEvenPart = (): boolean =>
    options.difficultyMix ? DIFFICULTIES.every((d) => perDifficulty[d] >= even[d]) : verified >= even.all;
  let stopAt: number | undefined;
  const decide = (candidate: number): void => {
    if (stopAt === undefined && holdsEvenPart()) stopAt = Math.ceil((1 + margin) * (candidate + 1)) + shard.count;
  };
  // What an earlier run of this shard decided, counted as it counted it: up to the first
  // attempt of each candidate that was new (the spare after it is not the shard's own).
  for (const c of done) {
    for (const a of c.attempts) if (count(a)) break;
    decide(c.candidate);
  }
  const sources = candidateSources(options);
  const { skeletonAt, shapeOf, maxCandidates, attempts } = sources;
  const state = (complete: boolean, candidates: number): ShardState => ({
    // Complete: the file as closed; until then, what an earlier run closed (lines after it are this run's).
    ...(complete
      ? { seals: { [candidatesFile(options.dataset)]: sealFile(path) } }
      : earlier?.seals
        ? { seals: earlier.seals }
        : {}),
    stage: 'groups-shard',
    dataset: options.dataset,
    shard,
    settings: options.settings,
    instances: options.instanceHashes,
    variants: options.variants.map((v) => v.name),
    attempts,
    max_candidates: maxCandidates,
    complete,
    counts: { candidates, verified },
    timings: {
      total_seconds: Number(((performance.now() - started) / 1000).toFixed(2)),
      database_seconds: Number((options.runner.dbSeconds() - dbAtStart).toFixed(2)),
    },
  });
  const last = done.length > 0 ? (done[done.length - 1] as CandidateOutcome).candidate : shard.index - 1 - shard.count;
  let decided = done.length;
  // A shard being continued is not complete until it writes its marker again.
  rmSync(shardDonePath(options.out), { force: true });
  writeShardState(options.out, state(false, decided));
  try {
    for (
      let candidate = last + shard.count;
      (stopAt === undefined || candidate < stopAt) && candidate < maxCandidates;
      candidate += shard.count
    ) {
      const entry = options.suite?.[candidate];
      const sample: Pick<Sample, 'skeleton' | 'tokens' | 'tail'> = entry
        ? { skeleton: '', tokens: [], tail: false }
        : skeletonAt(candidate);
      const outcomes: AttemptOutcome[] = [];
      let early: CandidateRejected | undefined;
      try {
        const shape = entry ? undefined : shapeOf(sample.tokens);
        // The candidate ends at a group new to this shard, as the unsharded run's ends at a new
        // group — after one more verified filling (a spare), because another shard may hold
        // the same group, and then the merged run goes on to the next filling.
        let own = false;
        let spare = false;
        for (let attempt = 0; attempt < (entry ? 1 : attempts) && !spare; attempt++) {
          // Verified whatever this shard has seen: whether it duplicates an earlier group is
          // the merge's decision, over the groups of every shard.
          const tried = await attemptCandidate(options, sources, { candidate, attempt, entry, sample, shape });
          const seenAs = {
            ...(tried.id !== undefined ? { id: tried.id } : {}),
            ...(tried.difficulty ? { difficulty: tried.difficulty } : {}),
          };
          if ('rejected' in tried) {
            outcomes.push({ ...seenAs, rejected: { reason: tried.rejected.reason, detail: tried.rejected.detail } });
            if (FINAL.has(tried.rejected.reason)) break;
            continue;
          }
          const outcome: AttemptOutcome = {
            ...seenAs,
            group: { line: serializeGroup(tried.record), key: tried.key, difficulty: tried.record.difficulty },
          };
          outcomes.push(outcome);
          if (own) spare = true;
          else {
            // One this shard has already seen goes on to the next filling, as there.
            own = count(outcome);
          }
        }
      } catch (error) {
        if (!(error instanceof CandidateRejected)) throw error;
        early = error;
      }
      const line: CandidateOutcome = {
        candidate,
        skeleton: sample.skeleton,
        ...(entry ? { suite_id: entry.id } : {}),
        ...(early ? { rejected: { reason: early.reason, detail: early.detail } } : {}),
        attempts: outcomes,
      };
      appendLine(path, `${JSON.stringify(line)}\n`);
      decided += 1;
      decide(candidate);
      // Candidates decided out of the estimate (until the even part is reached, of the most a shard may take).
      const total = Math.ceil((stopAt ?? maxCandidates) / shard.count);
      options.tick?.({ stage: 'shard', done: Math.min(decided, total), total, unit: 'candidates' });
    }
  } finally {
    sources.sqlite?.close();
  }
  const closed = state(true, decided);
  writeShardState(options.out, closed);
  // Written last: a folder with the marker holds a whole shard.
  const marker: ShardDone = {
    stage: 'groups-shard-done',
    dataset: options.dataset,
    shard: { index: shard.index, count: shard.count },
    seals: closed.seals as Seals,
  };
  writeFileAtomic(shardDonePath(options.out), `${JSON.stringify(JSON.parse(stableStringify(marker)), null, 2)}\n`);
  return { candidates: decided, verified, complete: true };
}
