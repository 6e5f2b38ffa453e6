/**
 * The decisions of the groups stage that look at other candidates, replayed over the
 * outcomes shards recorded (shard-run.ts): in candidate order, each attempt is taken as the
 * unsharded loop in generate-groups.ts takes it — a duplicate of an earlier group's
 * canonical query, then the difficulty quota (before the database in that loop), then the
 * attempt's own rejection, then a duplicate of an earlier group's structure and literals or of its question and answers —
 * until the target number of groups is reached or the candidates run out. The result is the
 * groups file and the rejections file of the unsharded run, line for line.
 */
import { ConfigError } from '../common/errors.ts';
import {
  DIFFICULTIES,
  quotaDetail,
  type Difficulty,
  type Rejection,
  type RejectionReason,
} from '../records/group-record.ts';
import { addKeys, difficultyQuotas, duplicateOf, FINAL } from '../generate/candidate.ts';
import type { CandidateOutcome } from './shard-run.ts';

export interface ReplayInput {
  /** Every shard's outcomes; candidate c is found in shard c mod N. */
  readonly shards: readonly {
    readonly dir: string;
    readonly index: number;
    readonly outcomes: ReadonlyMap<number, CandidateOutcome>;
    readonly last: number;
  }[];
  readonly groups: number;
  readonly attempts: number;
  readonly maxCandidates: number;
  readonly difficultyMix?: Readonly<Record<Difficulty, number>>;
  /** Names the shard to continue in the error when one stopped short. */
  readonly continueHint: (shardIndex: number) => string;
  /** What to do when a candidate needs a filling no shard tried. */
  readonly redoHint: (shardIndex: number) => string;
}

export interface ReplayResult {
  /** Accepted groups as their exact lines, in candidate order. */
  readonly groupLines: readonly string[];
  readonly rejections: readonly Rejection[];
  /** One past the last candidate decided. */
  readonly candidates: number;
}

/**
 * Replays the shards' outcomes into the unsharded run's groups and rejections. A
 * ConfigError names the shard to continue when the run needs a candidate or an attempt no
 * shard computed.
 *
 * @example
 * replayShards({ shards, groups: 100, attempts: 4, maxCandidates: 3000, continueHint });
 * // { groupLines: [...100 lines], rejections: [...], candidates: 412 }
 */
export function replayShards(input: ReplayInput): ReplayResult {
  const count = input.shards.length;
  const quotas = input.difficultyMix ? difficultyQuotas(input.difficultyMix, input.groups) : undefined;
  const perDifficulty = Object.fromEntries(DIFFICULTIES.map((d) => [d, 0])) as Record<Difficulty, number>;
  const ids = new Set<string>();
  const literals = new Set<string>();
  const groupLines: string[] = [];
  const rejections: Rejection[] = [];
  let candidate = 0;
  for (; groupLines.length < input.groups && candidate < input.maxCandidates; candidate++) {
    const shard = input.shards[candidate % count] as ReplayInput['shards'][number];
    const outcome = shard.outcomes.get(candidate);
    if (!outcome) {
      throw new ConfigError(
        `merge: the run needs candidate ${candidate}, but shard ${shard.index}/${count} (${shard.dir}) stopped after candidate ${shard.last}: ${input.continueHint(shard.index)}`,
      );
    }
    let last: { reason: RejectionReason; detail: string } | undefined = outcome.rejected;
    let accepted: { line: string; key: string; difficulty: Difficulty; id: string } | undefined;
    let ended = outcome.rejected !== undefined;
    for (const a of outcome.attempts) {
      if (a.id !== undefined && ids.has(a.id)) {
        last = { reason: 'duplicate', detail: 'same canonical conceptual query as an earlier group' };
        continue;
      }
      if (quotas && a.difficulty && perDifficulty[a.difficulty] >= quotas[a.difficulty]) {
        last = { reason: 'difficulty-quota', detail: quotaDetail(a.difficulty, quotas[a.difficulty], input.groups) };
        ended = true;
        break;
      }
      if (a.rejected) {
        last = a.rejected;
        if (FINAL.has(a.rejected.reason)) {
          ended = true;
          break;
        }
        continue;
      }
      if (a.group && a.id !== undefined) {
        const duplicate = duplicateOf(literals, a.group.key);
        if (duplicate !== undefined) {
          last = { reason: 'duplicate', detail: duplicate };
          continue;
        }
        accepted = { ...a.group, id: a.id };
        break;
      }
    }
    // The shard stopped filling this candidate early, at a group new to it and a spare, which
    // the other shards' groups both made duplicates: the unsharded run would go on to the
    // next filling, which no shard tried.
    const tail = outcome.attempts[outcome.attempts.length - 1];
    if (!accepted && !ended && tail?.group !== undefined && outcome.attempts.length < input.attempts) {
      throw new ConfigError(
        `merge: candidate ${candidate} of shard ${shard.index}/${count} (${shard.dir}) needs a filling the shard did not try: ${input.redoHint(shard.index)}`,
      );
    }
    if (accepted) {
      ids.add(accepted.id);
      addKeys(literals, accepted.key);
      perDifficulty[accepted.difficulty] += 1;
      groupLines.push(accepted.line);
    } else {
      rejections.push({
        candidate,
        reason: last?.reason ?? 'no-fitting-slot',
        detail: `${outcome.suite_id !== undefined ? `${outcome.suite_id}: ` : ''}${last?.detail ?? 'no filling'}`,
        skeleton: outcome.skeleton,
      });
    }
  }
  return { groupLines, rejections, candidates: candidate };
}
