import { describe, expect, it } from 'vitest';
import { shardFromEnvironment } from '../../generator/run/shard-engine.ts';
import { ConfigError } from '../../generator/common/errors.ts';

// `--shard auto`: each engine's variables, counted as that engine counts them, name the shard
// 1 … N that `--shard i/N` names; anything ambiguous is one line naming the variables.
const refused = (env: Record<string, string>, count: number | undefined, message: RegExp): void => {
  let error: unknown;
  try {
    shardFromEnvironment(env, count);
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(ConfigError);
  expect((error as Error).message).toMatch(message);
  expect((error as Error).message).not.toContain('\n');
};

describe('shardFromEnvironment', () => {
  it('reads a Kubernetes Indexed Job (0-based, count from the flag or EQUISQL_SHARD_COUNT)', () => {
    expect(shardFromEnvironment({ JOB_COMPLETION_INDEX: '0' }, 4)).toMatchObject({ index: 1, count: 4 });
    expect(shardFromEnvironment({ JOB_COMPLETION_INDEX: '3', EQUISQL_SHARD_COUNT: '4' })).toMatchObject({
      index: 4,
      count: 4,
    });
    refused(
      { JOB_COMPLETION_INDEX: '1' },
      undefined,
      /JOB_COMPLETION_INDEX gives the index but not the number of shards: give --shard auto\/N or set EQUISQL_SHARD_COUNT/u,
    );
    refused(
      { JOB_COMPLETION_INDEX: '4' },
      4,
      /JOB_COMPLETION_INDEX is task 4 \(0-based\) of 4: the index must be below the count/u,
    );
    refused(
      { JOB_COMPLETION_INDEX: '1', EQUISQL_SHARD_COUNT: '3' },
      4,
      /--shard auto\/4 is 4 shards but EQUISQL_SHARD_COUNT is 3/u,
    );
    refused({ JOB_COMPLETION_INDEX: 'one' }, 4, /JOB_COMPLETION_INDEX must be a whole number, got "one"/u);
  });

  it("reads a Slurm array by the task's place in its range: 0-based, 1-based and stepped", () => {
    expect(
      shardFromEnvironment({
        SLURM_ARRAY_TASK_ID: '0',
        SLURM_ARRAY_TASK_MIN: '0',
        SLURM_ARRAY_TASK_MAX: '3',
        SLURM_ARRAY_TASK_COUNT: '4',
      }),
    ).toMatchObject({ index: 1, count: 4 });
    expect(
      shardFromEnvironment({
        SLURM_ARRAY_TASK_ID: '4',
        SLURM_ARRAY_TASK_MIN: '1',
        SLURM_ARRAY_TASK_MAX: '4',
        SLURM_ARRAY_TASK_COUNT: '4',
      }),
    ).toMatchObject({ index: 4, count: 4 });
    expect(
      shardFromEnvironment({
        SLURM_ARRAY_TASK_ID: '20',
        SLURM_ARRAY_TASK_MIN: '0',
        SLURM_ARRAY_TASK_MAX: '30',
        SLURM_ARRAY_TASK_STEP: '10',
        SLURM_ARRAY_TASK_COUNT: '4',
      }),
    ).toMatchObject({ index: 3, count: 4 });
    refused(
      { SLURM_ARRAY_TASK_ID: '7', SLURM_ARRAY_TASK_MIN: '1', SLURM_ARRAY_TASK_MAX: '7', SLURM_ARRAY_TASK_COUNT: '3' },
      undefined,
      /not one even range .*--array=0-2/u,
    );
    refused(
      { SLURM_ARRAY_TASK_ID: '5', SLURM_ARRAY_TASK_MIN: '0', SLURM_ARRAY_TASK_STEP: '10', SLURM_ARRAY_TASK_COUNT: '4' },
      undefined,
      /SLURM_ARRAY_TASK_ID 5 is not in the range/u,
    );
    refused(
      { SLURM_ARRAY_TASK_ID: '1', SLURM_ARRAY_TASK_MIN: '0', SLURM_ARRAY_TASK_MAX: '3', SLURM_ARRAY_TASK_COUNT: '4' },
      8,
      /--shard auto\/8 is 8 shards but Slurm's count is 4/u,
    );
  });

  it('reads AWS Batch and Cloud Run arrays (0-based, with their sizes)', () => {
    expect(shardFromEnvironment({ AWS_BATCH_JOB_ARRAY_INDEX: '2', AWS_BATCH_JOB_ARRAY_SIZE: '10' })).toMatchObject({
      index: 3,
      count: 10,
    });
    expect(shardFromEnvironment({ CLOUD_RUN_TASK_INDEX: '0', CLOUD_RUN_TASK_COUNT: '2' })).toMatchObject({
      index: 1,
      count: 2,
    });
  });

  it('refuses no engine, and engines that disagree; takes engines that agree', () => {
    refused(
      { HOME: '/root' },
      4,
      /no array-job index in the environment \(JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID, AWS_BATCH_JOB_ARRAY_INDEX or CLOUD_RUN_TASK_INDEX\)/u,
    );
    refused(
      { JOB_COMPLETION_INDEX: '1', CLOUD_RUN_TASK_INDEX: '2', CLOUD_RUN_TASK_COUNT: '4' },
      undefined,
      /JOB_COMPLETION_INDEX says shard 1 \(0-based\) but CLOUD_RUN_TASK_INDEX says 2/u,
    );
    refused(
      {
        AWS_BATCH_JOB_ARRAY_INDEX: '1',
        AWS_BATCH_JOB_ARRAY_SIZE: '4',
        CLOUD_RUN_TASK_INDEX: '1',
        CLOUD_RUN_TASK_COUNT: '5',
      },
      undefined,
      /AWS Batch's count is 4 shards but Cloud Run's count is 5/u,
    );
    expect(
      shardFromEnvironment({ JOB_COMPLETION_INDEX: '1', CLOUD_RUN_TASK_INDEX: '1', CLOUD_RUN_TASK_COUNT: '4' }),
    ).toMatchObject({ index: 2, count: 4, engines: ['Kubernetes Indexed Job', 'Cloud Run'] });
    // An empty variable is unset (a template that exports it blank).
    expect(
      shardFromEnvironment({ JOB_COMPLETION_INDEX: '', CLOUD_RUN_TASK_INDEX: '3', CLOUD_RUN_TASK_COUNT: '4' }),
    ).toMatchObject({ index: 4, count: 4 });
  });
});
