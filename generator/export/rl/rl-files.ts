/**
 * The reinforcement-learning files, per split, each in the shape its framework reads as it
 * is (see docs/rl.md):
 * - `rl/verl/<split>.parquet`: verl's RL dataset rows — `data_source`, `prompt` (chat
 *   messages), `ability`, `reward_model` {`style`: "rule", `ground_truth`}, `extra_info`;
 * - `rl/trl-grpo/<split>.jsonl`: a prompt-only conversational dataset for TRL's
 *   GRPOTrainer; every other column reaches the reward function as a keyword argument;
 * - `rl/openrlhf/<split>.jsonl`: OpenRLHF's prompt (`--input_key prompt`, chat messages for
 *   `--apply_chat_template`) and one label string (`--label_key label`).
 * The ground truth travels as JSON text (`ground-truth.ts`), and the reward that reads it is
 * shipped beside the files: `rewards/equisql_reward.py`.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import parquet from 'parquetjs-lite';
import type { ExportRecord } from '../../records/export-record.ts';
import { writeRows } from '../parquet-sink.ts';
import type { SplitName } from '../split-assign.ts';
import { isGoldFailure, type GroundTruth } from './ground-truth.ts';
import { rlMessages, type RlDialect } from './rl-prompt.ts';

import type { RlFormat } from './rl-formats.ts';
export { RL_FORMATS, type RlFormat } from './rl-formats.ts';

export const RL_DIR = 'rl';
export const REWARD_DIR = 'rewards';
/** The files shipped under `rewards/` with any RL format: the reward and the agent environment, verl's tool and its config. */
export const REWARD_FILES = ['equisql_reward.py', 'equisql_verl_tool.py', 'equisql_tool_config.yaml'] as const;

/** `rl/verl/train.parquet`, `rl/trl-grpo/train.jsonl`, `rl/openrlhf/train.jsonl`. */
export function rlFile(format: RlFormat, split: SplitName): string {
  return `${RL_DIR}/${format}/${split}.${format === 'verl' ? 'parquet' : 'jsonl'}`;
}

/** The text of a shipped reward file, from the repository's `rewards/`. */
export function rewardFileText(name: (typeof REWARD_FILES)[number]): string {
  return readFileSync(fileURLToPath(new URL(`../../../rewards/${name}`, import.meta.url)), 'utf8');
}

/** One row as every RL format writes it. */
export interface RlRow {
  readonly record: ExportRecord;
  readonly index: number;
  readonly messages: readonly { readonly role: string; readonly content: string }[];
  /** The ground truth as JSON text. */
  readonly truth: string;
  readonly instances: readonly string[];
}

/**
 * The RL rows of a split: each record with its prompt and ground truth. A record whose gold
 * SQL SQLite cannot run is left out (counted), never given a ground truth it cannot reach.
 */
export function rlRows(
  rows: readonly ExportRecord[],
  ddlOf: (r: ExportRecord) => string,
  truthOf: (groupId: string, variant: string) => Omit<GroundTruth, 'question_id'>,
  dialect: RlDialect,
): { rows: RlRow[]; leftOut: number } {
  const out: RlRow[] = [];
  let leftOut = 0;
  for (const record of rows) {
    let truth: Omit<GroundTruth, 'question_id'>;
    try {
      truth = truthOf(record.group_id, record.variant);
    } catch (error) {
      if (!isGoldFailure(error)) throw error;
      leftOut++;
      continue;
    }
    const { instances, ...head } = truth;
    const text = JSON.stringify({ ...head, question_id: record.question_id, instances });
    out.push({
      record,
      index: out.length,
      messages: rlMessages(ddlOf(record), record, dialect),
      truth: text,
      instances: instances.map((i) => i.name),
    });
  }
  return { rows: out, leftOut };
}

/** The `data_source` of every row of a dataset: what verl groups its metrics by. */
export function dataSource(dataset: string): string {
  return `equisql/${dataset}`;
}

/** verl's `extra_info`, also TRL's columns beside the prompt. */
function extraInfo(r: RlRow): Record<string, unknown> {
  return {
    index: r.index,
    id: r.record.id,
    question_id: r.record.question_id,
    group: r.record.group_id,
    variant: r.record.variant,
    instances: r.instances,
    difficulty: r.record.difficulty,
    split: r.record.split,
    ordered: r.record.ordered,
  };
}

/** One TRL line: the prompt, and the columns its reward reads (`ground_truth` first among them). */
export function trlLine(r: RlRow): string {
  const { index: _index, ...info } = extraInfo(r);
  return `${JSON.stringify({ prompt: r.messages, ground_truth: r.truth, data_source: dataSource(r.record.dataset), ...info })}\n`;
}

/** One OpenRLHF line: the prompt and its label. */
export function openrlhfLine(r: RlRow): string {
  return `${JSON.stringify({ prompt: r.messages, label: r.truth })}\n`;
}

const TEXT = { type: 'UTF8', compression: 'GZIP' } as const;

/** verl's rows as Parquet: the messages a list of structs, `reward_model` and `extra_info` structs. */
export async function writeVerlParquet(path: string, rows: readonly RlRow[]): Promise<void> {
  const schema = new parquet.ParquetSchema({
    data_source: TEXT,
    prompt: { repeated: true, fields: { role: TEXT, content: TEXT } },
    ability: TEXT,
    reward_model: { fields: { style: TEXT, ground_truth: TEXT } },
    extra_info: {
      fields: {
        index: { type: 'INT64' },
        id: TEXT,
        question_id: TEXT,
        group: TEXT,
        variant: TEXT,
        instances: { ...TEXT, repeated: true },
        difficulty: TEXT,
        split: TEXT,
        ordered: { type: 'BOOLEAN' },
      },
    },
  });
  await writeRows(path, schema, rows, (r) => ({
    data_source: dataSource(r.record.dataset),
    prompt: r.messages,
    ability: 'text-to-sql',
    reward_model: { style: 'rule', ground_truth: r.truth },
    extra_info: extraInfo(r),
  }));
}
