/**
 * The `finetune/` folder: per split a chat file and a prompt–completion file, their token
 * lengths, and next to them the trainer settings that read them as they are — a
 * LLaMA-Factory `dataset_info.json` and an Axolotl YAML snippet, each with the sequence
 * length the longest row needs.
 */
import type { ExportRecord } from '../records/export-record.ts';
import { chatLine, promptLine, questionPart, schemaPart, SYSTEM_PROMPT } from './finetune-format.ts';
import type { SplitName } from './split-assign.ts';
import {
  createTokenCounter,
  lengthStats,
  suggestedLength,
  TOKENIZER,
  TRAINER_DEFAULTS,
  type LengthStats,
  type RowTokens,
} from './token-lengths.ts';

export type FinetuneFormat = 'chat' | 'prompt';

/** `finetune/<split>.chat.jsonl`, `finetune/<split>.prompt.jsonl`. */
export function finetuneFile(split: SplitName, format: FinetuneFormat): string {
  return `finetune/${split}.${format}.jsonl`;
}

/** `finetune/<split>.chat.parquet`, `finetune/<split>.prompt.parquet`: the same lines as Parquet. */
export function finetuneParquetFile(split: SplitName, format: FinetuneFormat): string {
  return `finetune/${split}.${format}.parquet`;
}

export const LLAMA_FACTORY_FILE = 'finetune/dataset_info.json';
export const AXOLOTL_FILE = 'finetune/axolotl.yaml';

/** Token lengths of one fine-tuning file. */
export interface FileTokens {
  readonly rows: number;
  /** The whole sequence a trainer holds of a row. */
  readonly sequence: LengthStats;
  /** Prompt–completion files: the prompt part, masked from the loss. */
  readonly prompt?: LengthStats;
  /** Prompt–completion files: the completion (the SQL), where the loss falls. */
  readonly completion?: LengthStats;
}

/** The manifest's and the card's `tokens`. */
export interface FinetuneTokens {
  readonly tokenizer: string;
  readonly files: Readonly<Record<string, FileTokens>>;
  /** The longest row of any file. */
  readonly longest: number;
  /** The `max_length` / `cutoff_len` / `sequence_len` to set (see `suggestedLength`). */
  readonly suggested: number;
  /** Per trainer default, the share of rows longer than it. */
  readonly over_defaults: readonly {
    readonly trainer: string;
    readonly setting: string;
    readonly value: number;
    readonly excess: string;
    readonly rows_over: number;
    readonly share_over: number;
  }[];
}

/** The files of one split: each file's lines, made as they are written. */
export interface FinetuneSplit {
  readonly files: readonly { readonly rel: string; readonly lines: Iterable<string>; readonly count: number }[];
  readonly tokens: readonly RowTokens[];
}

/**
 * One split's fine-tuning JSON Lines files in `formats`, and each row's tokens when `counted`
 * (once a row: every fine-tuning file holds the same text). `ddlOf` gives a row's prompt schema.
 */
export function finetuneSplit(
  split: SplitName,
  rows: readonly ExportRecord[],
  formats: readonly FinetuneFormat[],
  ddlOf: (r: ExportRecord) => string,
  counted = formats.length > 0,
  count = createTokenCounter(),
): FinetuneSplit {
  const tokens = counted ? rows.map((r) => count(SYSTEM_PROMPT, schemaPart(ddlOf(r)), questionPart(r), r.sql)) : [];
  const lines = (line: (ddl: string, r: ExportRecord) => string): Iterable<string> => ({
    *[Symbol.iterator]() {
      for (const r of rows) yield line(ddlOf(r), r);
    },
  });
  return {
    files: formats.map((f) => ({
      rel: finetuneFile(split, f),
      lines: lines(f === 'chat' ? chatLine : promptLine),
      count: rows.length,
    })),
    tokens,
  };
}

/** Token lengths of every fine-tuning file written (`formats`: each kind and its file types), from each split's row tokens. */
export function finetuneTokens(
  splits: ReadonlyMap<SplitName, readonly RowTokens[]>,
  formats: readonly (readonly [FinetuneFormat, 'jsonl' | 'parquet'])[],
): FinetuneTokens {
  const files: Record<string, FileTokens> = {};
  const all: number[] = [];
  for (const [split, rows] of splits) {
    const sequence = lengthStats(rows.map((t) => t.sequence));
    all.push(...rows.map((t) => t.sequence));
    for (const [f, ext] of formats) {
      files[ext === 'jsonl' ? finetuneFile(split, f) : finetuneParquetFile(split, f)] =
        f === 'chat'
          ? { rows: rows.length, sequence }
          : {
              rows: rows.length,
              sequence,
              prompt: lengthStats(rows.map((t) => t.prompt)),
              completion: lengthStats(rows.map((t) => t.completion)),
            };
    }
  }
  const longest = all.reduce((a, b) => Math.max(a, b), 0);
  return {
    tokenizer: TOKENIZER,
    files,
    longest,
    suggested: suggestedLength(longest),
    over_defaults: TRAINER_DEFAULTS.map((d) => {
      const over = all.filter((n) => n > d.value).length;
      return { ...d, rows_over: over, share_over: all.length === 0 ? 0 : Number((over / all.length).toFixed(4)) };
    }),
  };
}

/** The LLaMA-Factory entry name of a split's chat file. */
export function llamaFactoryName(dataset: string, split: SplitName): string {
  return `equisql_${dataset}_${split}`;
}

/**
 * `finetune/dataset_info.json`: one LLaMA-Factory dataset per split's chat file, in its
 * OpenAI format (sharegpt with role/content tags). With `dataset_dir: DIR/finetune` and
 * `dataset: equisql_<dataset>_train`, LLaMA-Factory reads the file as it is; the loss falls
 * on the assistant turn (its default, `train_on_prompt: false`).
 */
export function llamaFactoryInfo(dataset: string, splits: readonly SplitName[]): string {
  const entries = Object.fromEntries(
    splits.map((s) => [
      llamaFactoryName(dataset, s),
      {
        file_name: `${s}.chat.jsonl`,
        formatting: 'sharegpt',
        columns: { messages: 'messages' },
        tags: {
          role_tag: 'role',
          content_tag: 'content',
          user_tag: 'user',
          assistant_tag: 'assistant',
          system_tag: 'system',
        },
      },
    ]),
  );
  return `${JSON.stringify(entries, null, 2)}\n`;
}

/**
 * `finetune/axolotl.yaml`: the dataset part of an Axolotl config for the chat files, with a
 * `sequence_len` no row exceeds (Axolotl's default, 512, drops every longer row). Paths are
 * relative to the export's directory: run Axolotl there, or edit them.
 */
export function axolotlSnippet(dataset: string, splits: readonly SplitName[], sequenceLen: number): string {
  const entry = (split: SplitName): string[] => [
    `  - path: ${finetuneFile(split, 'chat')}`,
    '    ds_type: json',
    '    split: train',
    '    type: chat_template',
    '    field_messages: messages',
    '    message_property_mappings:',
    '      role: role',
    '      content: content',
    '    roles_to_train: ["assistant"]',
  ];
  const evalSplit = splits.includes('validation') ? 'validation' : undefined;
  return [
    `# Axolotl datasets for equisql ${dataset}: merge into your config and run from the export's directory.`,
    '# The loss falls on the assistant turn (the SQL); every row fits in sequence_len.',
    `sequence_len: ${sequenceLen}`,
    ...(splits.includes('train') ? ['datasets:', ...entry('train')] : []),
    ...(evalSplit ? ['test_datasets:', ...entry(evalSplit)] : []),
    '',
  ].join('\n');
}
