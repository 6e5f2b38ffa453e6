/**
 * `--shard auto`: which shard this process is, read from the variables an array-job engine
 * sets in each of its tasks, so one command line serves every task of the array.
 *
 * | engine | index (as the engine counts) | count |
 * |---|---|---|
 * | Kubernetes Indexed Job | `JOB_COMPLETION_INDEX`, 0 … completions−1 | none: `--shard auto/N` or `EQUISQL_SHARD_COUNT` |
 * | Slurm array | `SLURM_ARRAY_TASK_ID`, from `--array`'s range | `SLURM_ARRAY_TASK_COUNT` (with `_MIN`, `_MAX`, `_STEP`) |
 * | AWS Batch array | `AWS_BATCH_JOB_ARRAY_INDEX`, 0 … size−1 | `AWS_BATCH_JOB_ARRAY_SIZE` |
 * | Cloud Run job | `CLOUD_RUN_TASK_INDEX`, 0 … count−1 | `CLOUD_RUN_TASK_COUNT` |
 *
 * A Slurm array may start anywhere and step (`--array=1-4`, `--array=0-30:10`): the shard is
 * the task's place in the range, (ID − MIN) / STEP. A list that is not an even range
 * (`--array=1,2,7`) has no such place and is refused. Every count given (the flag, the
 * variable, the engine's) must agree, and so must the engines when several are set.
 */
import { ConfigError } from '../common/errors.ts';
import type { ShardSpec } from './shard-run.ts';

/** The variable that gives the count where the engine gives none (a Kubernetes Indexed Job's `completions`). */
export const SHARD_COUNT_VARIABLE = 'EQUISQL_SHARD_COUNT';

/** What one engine's variables say: the 0-based place and, where the engine gives it, the count. */
interface EngineShard {
  readonly engine: string;
  readonly variable: string;
  readonly index0: number;
  readonly count?: number;
}

type Env = Readonly<Record<string, string | undefined>>;

/** A variable's value as a whole number ≥ 0; undefined when unset or empty; a ConfigError naming it otherwise. */
function wholeVariable(env: Env, name: string): number | undefined {
  const text = env[name];
  if (text === undefined || text.trim() === '') return undefined;
  if (!/^\d+$/u.test(text.trim()) || !Number.isSafeInteger(Number(text.trim())))
    throw new ConfigError(`generate: --shard auto: ${name} must be a whole number, got "${text.slice(0, 40)}"`);
  return Number(text.trim());
}

function slurm(env: Env): EngineShard | undefined {
  const id = wholeVariable(env, 'SLURM_ARRAY_TASK_ID');
  if (id === undefined) return undefined;
  const min = wholeVariable(env, 'SLURM_ARRAY_TASK_MIN') ?? 0;
  const step = wholeVariable(env, 'SLURM_ARRAY_TASK_STEP') ?? 1;
  const max = wholeVariable(env, 'SLURM_ARRAY_TASK_MAX');
  const count = wholeVariable(env, 'SLURM_ARRAY_TASK_COUNT');
  if (step < 1) throw new ConfigError('generate: --shard auto: SLURM_ARRAY_TASK_STEP must be at least 1');
  if (id < min || (id - min) % step !== 0) {
    throw new ConfigError(
      `generate: --shard auto: SLURM_ARRAY_TASK_ID ${id} is not in the range from SLURM_ARRAY_TASK_MIN ${min} by SLURM_ARRAY_TASK_STEP ${step} (submit the array as one range, e.g. --array=0-3)`,
    );
  }
  // A list of IDs (--array=1,2,7) is not a range: its tasks have no place 0 … N−1 to shard by.
  if (max !== undefined && count !== undefined && (max - min) / step + 1 !== count) {
    throw new ConfigError(
      `generate: --shard auto: the Slurm array is not one even range (SLURM_ARRAY_TASK_MIN ${min}, _MAX ${max}, _STEP ${step}, _COUNT ${count}); submit it as one range, e.g. --array=0-${count - 1}`,
    );
  }
  return {
    engine: 'Slurm',
    variable: 'SLURM_ARRAY_TASK_ID',
    index0: (id - min) / step,
    ...(count !== undefined ? { count } : {}),
  };
}

function zeroBased(env: Env, engine: string, variable: string, countVariable?: string): EngineShard | undefined {
  const index0 = wholeVariable(env, variable);
  if (index0 === undefined) return undefined;
  const count = countVariable ? wholeVariable(env, countVariable) : undefined;
  return { engine, variable, index0, ...(count !== undefined ? { count } : {}) };
}

/**
 * The shard `--shard auto` (or `auto/N`, `N` the flag's count) names in this environment.
 * One line naming the variables when no engine's is set, when engines or counts disagree, or
 * when the index is past the count.
 *
 * @example
 * shardFromEnvironment({ JOB_COMPLETION_INDEX: '2' }, 4);              // { index: 3, count: 4 }
 * shardFromEnvironment({ SLURM_ARRAY_TASK_ID: '1', SLURM_ARRAY_TASK_MIN: '1', SLURM_ARRAY_TASK_COUNT: '4' }); // { index: 1, count: 4 }
 */
export function shardFromEnvironment(
  env: Env,
  flagCount?: number,
): ShardSpec & { readonly engines: readonly string[] } {
  const found = [
    zeroBased(env, 'Kubernetes Indexed Job', 'JOB_COMPLETION_INDEX'),
    slurm(env),
    zeroBased(env, 'AWS Batch', 'AWS_BATCH_JOB_ARRAY_INDEX', 'AWS_BATCH_JOB_ARRAY_SIZE'),
    zeroBased(env, 'Cloud Run', 'CLOUD_RUN_TASK_INDEX', 'CLOUD_RUN_TASK_COUNT'),
  ].filter((e): e is EngineShard => e !== undefined);
  if (found.length === 0) {
    throw new ConfigError(
      'generate: --shard auto: no array-job index in the environment (JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID, AWS_BATCH_JOB_ARRAY_INDEX or CLOUD_RUN_TASK_INDEX); outside an array job give --shard i/N',
    );
  }
  const first = found[0] as EngineShard;
  for (const e of found.slice(1)) {
    if (e.index0 !== first.index0)
      throw new ConfigError(
        `generate: --shard auto: ${first.variable} says shard ${first.index0} (0-based) but ${e.variable} says ${e.index0}; set only the engine that runs this task`,
      );
  }
  // Every count on offer, with where it came from; they must be one number.
  const counts: { readonly source: string; readonly count: number }[] = [
    ...(flagCount !== undefined ? [{ source: `--shard auto/${flagCount}`, count: flagCount }] : []),
    ...(wholeVariable(env, SHARD_COUNT_VARIABLE) !== undefined
      ? [{ source: SHARD_COUNT_VARIABLE, count: wholeVariable(env, SHARD_COUNT_VARIABLE) as number }]
      : []),
    ...found
      .filter((e) => e.count !== undefined)
      .map((e) => ({ source: `${e.engine}'s count`, count: e.count as number })),
  ];
  const head = counts[0];
  if (!head) {
    throw new ConfigError(
      `generate: --shard auto: ${first.variable} gives the index but not the number of shards: give --shard auto/N or set ${SHARD_COUNT_VARIABLE}`,
    );
  }
  for (const c of counts.slice(1)) {
    if (c.count !== head.count)
      throw new ConfigError(
        `generate: --shard auto: ${head.source} is ${head.count} shards but ${c.source} is ${c.count}`,
      );
  }
  if (head.count < 1) throw new ConfigError(`generate: --shard auto: ${head.source} must be at least 1 shard`);
  if (first.index0 >= head.count)
    throw new ConfigError(
      `generate: --shard auto: ${first.variable} is task ${first.index0} (0-based) of ${head.count}: the index must be below the count`,
    );
  return { index: first.index0 + 1, count: head.count, engines: found.map((e) => e.engine) };
}
