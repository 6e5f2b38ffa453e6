/**
 * The dataset card (`README.md` of an export): Hugging Face front matter — a `data`,
 * `chat` and `prompt` subset, each with its own files and features, so
 * `datasets.load_dataset(DIR, "chat")` reads the chat files as chat — and a body that says
 * how the data was made, what each field is, how long the rows are in tokens, how often a
 * question and an answer repeat, and how to load and train on it.
 */
import { CARD_DEFAULTS, type CardMetadata } from '../config/define-config.ts';
import type { ExportRecord } from '../records/export-record.ts';
import { RECORD_COLUMNS } from '../records/export-record.ts';
import { PARQUET_TYPES } from './parquet-sink.ts';
import { SPLIT_NAMES, type SplitKind, type SplitName } from './split-assign.ts';
import { dataFile, type ExportFileEntry } from './export-dataset.ts';
import {
  AXOLOTL_FILE,
  finetuneFile,
  finetuneParquetFile,
  LLAMA_FACTORY_FILE,
  llamaFactoryName,
  type FinetuneTokens,
} from './finetune-files.ts';
import type { PromptSchema } from './prompt-schema.ts';
import type { RowControls } from './row-selection.ts';
import { stylesCardSection, type QuestionStyle } from '../records/question-record.ts';

export interface CardInput {
  readonly dataset: string;
  readonly domain: string;
  readonly description: string;
  /** A corpus's databases (`db_id`), in its order; absent for one dataset's export. */
  readonly databases?: readonly string[];
  readonly split: SplitKind;
  readonly rows: readonly ExportRecord[];
  readonly splits: Readonly<Partial<Record<SplitName, { rows: number; groups: number }>>>;
  readonly files: Readonly<Record<string, ExportFileEntry>>;
  readonly variants: readonly string[];
  readonly seed: string | number;
  readonly questionSource: string;
  /** The config's `card` (defaults fill what it leaves out). */
  readonly metadata?: CardMetadata;
  readonly promptSchema?: PromptSchema;
  readonly controls?: RowControls;
  /** Rows dropped as a (question, SQL) pair already in their split, per split. */
  readonly duplicates?: Readonly<Partial<Record<SplitName, number>>>;
  readonly tokens?: FinetuneTokens;
  /** Per field, what it holds (record.schema.json's descriptions). */
  readonly fields?: Readonly<Record<string, string>>;
}

const HF_DTYPE = { UTF8: 'string', INT32: 'int32', INT64: 'int64', BOOLEAN: 'bool' } as const;

/** Hugging Face's size bucket for a row count. */
export function sizeCategory(n: number): string {
  if (n < 1000) return 'n<1K';
  if (n < 10_000) return '1K<n<10K';
  if (n < 100_000) return '10K<n<100K';
  if (n < 1_000_000) return '100K<n<1M';
  return '1M<n<10M';
}

function countBy(rows: readonly ExportRecord[], key: (r: ExportRecord) => string): [string, number][] {
  const m = new Map<string, number>();
  for (const r of rows) m.set(key(r), (m.get(key(r)) ?? 0) + 1);
  return [...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function table(title: string, rows: readonly ExportRecord[], key: (r: ExportRecord) => string): string {
  const present = SPLIT_NAMES.filter((s) => rows.some((r) => r.split === s));
  const lines = [`| ${title} | ${present.join(' | ')} | total |`, `|---|${present.map(() => '---:|').join('')}---:|`];
  for (const [value, total] of countBy(rows, key)) {
    const per = present.map((s) => rows.filter((r) => r.split === s && key(r) === value).length);
    lines.push(`| ${value} | ${per.join(' | ')} | ${total} |`);
  }
  return lines.join('\n');
}

/** YAML scalar: quoted when it could be read as something else. */
function y(text: string): string {
  return /^[A-Za-z0-9_./-]+$/u.test(text) &&
    !/^(true|false|null|yes|no|on|off|~)$/iu.test(text) &&
    !/^[\d.]+$/u.test(text)
    ? text
    : JSON.stringify(text);
}

/** A YAML list under `key`, or nothing for an empty list. */
function yList(key: string, values: readonly string[]): string[] {
  return values.length === 0 ? [] : [`${key}:`, ...values.map((v) => `- ${y(v)}`)];
}

/** One subset of the front matter: its files per split. */
interface Subset {
  readonly name: 'data' | 'chat' | 'prompt';
  readonly paths: readonly { split: SplitName; path: string }[];
  readonly features: readonly string[];
}

/** A fine-tuning line's record id: it lines the line up with `data/`. */
const ID_FEATURE = ['  - name: id', '    dtype: string'];
const MESSAGE_LIST = (name: string): string[] => [
  `  - name: ${name}`,
  '    list:',
  '    - name: role',
  '      dtype: string',
  '    - name: content',
  '      dtype: string',
];

/**
 * The subsets whose files this export wrote, each with its features in dataset_info's YAML.
 * `datasets` reads every subset of a folder with the one builder it picks for the default
 * subset's files, so all subsets name files of one format: JSON Lines when the fine-tuning
 * files are written (Parquet `data` files would make it read the chat files as Parquet),
 * Parquet when every subset has Parquet files (`--formats …,chat-parquet,prompt-parquet`).
 */
export function cardSubsets(present: readonly SplitName[], files: Readonly<Record<string, ExportFileEntry>>): Subset[] {
  const out: Subset[] = [];
  const kinds = (['chat', 'prompt'] as const).filter((k) =>
    present.some((s) => files[finetuneFile(s, k)] || files[finetuneParquetFile(s, k)]),
  );
  const has = (ext: 'jsonl' | 'parquet'): boolean => present.some((s) => files[dataFile(s, ext)]);
  // Parquet throughout when every subset has its Parquet files, else JSON Lines.
  const allParquet = has('parquet') && kinds.every((k) => present.some((s) => files[finetuneParquetFile(s, k)]));
  const ext = allParquet
    ? 'parquet'
    : kinds.length > 0
      ? has('jsonl')
        ? 'jsonl'
        : undefined
      : has('jsonl')
        ? 'jsonl'
        : undefined;
  const tunedFile = (s: SplitName, k: 'chat' | 'prompt'): string =>
    allParquet ? finetuneParquetFile(s, k) : finetuneFile(s, k);
  if (ext) {
    out.push({
      name: 'data',
      paths: present.map((s) => ({ split: s, path: dataFile(s, ext) })),
      features: RECORD_COLUMNS.flatMap((c) => [`  - name: ${c}`, `    dtype: ${HF_DTYPE[PARQUET_TYPES[c].type]}`]),
    });
  }
  const chat = present.filter((s) => files[tunedFile(s, 'chat')]);
  if (chat.length > 0)
    out.push({
      name: 'chat',
      paths: chat.map((s) => ({ split: s, path: tunedFile(s, 'chat') })),
      features: [...ID_FEATURE, ...MESSAGE_LIST('messages')],
    });
  const prompt = present.filter((s) => files[tunedFile(s, 'prompt')]);
  if (prompt.length > 0)
    out.push({
      name: 'prompt',
      paths: prompt.map((s) => ({ split: s, path: tunedFile(s, 'prompt') })),
      features: [...ID_FEATURE, ...MESSAGE_LIST('prompt'), ...MESSAGE_LIST('completion')],
    });
  return out;
}

/** How often a question and an answer repeat in a split's rows. */
export function repetition(rows: readonly ExportRecord[]): {
  rows: number;
  questions: number;
  sql: number;
  per_question: number;
  per_sql: number;
} {
  const questions = new Set(rows.map((r) => r.question_id)).size;
  const sql = new Set(rows.map((r) => r.sql.replace(/\s+/gu, ' ').trim())).size;
  const ratio = (n: number): number => (n === 0 ? 0 : Number((rows.length / n).toFixed(2)));
  return { rows: rows.length, questions, sql, per_question: ratio(questions), per_sql: ratio(sql) };
}

/** A row as the card shows it: long texts cut, so the example stays readable. */
function exampleRow(r: ExportRecord): string {
  const o: Record<string, unknown> = {};
  for (const c of RECORD_COLUMNS) {
    const v = r[c];
    o[c] = typeof v === 'string' && v.length > 300 ? `${v.slice(0, 300)}…` : v;
  }
  return JSON.stringify(o, null, 2);
}

const fmt = (n: number): string => n.toLocaleString('en-US');

/**
 * The card's text.
 *
 * @example
 * datasetCard(input).startsWith('---\nconfigs:'); // true
 */
export function datasetCard(input: CardInput): string {
  const present = SPLIT_NAMES.filter((s) => input.splits[s]);
  const total = input.rows.length;
  const meta = { ...CARD_DEFAULTS, ...(input.metadata ?? {}) };
  const subsets = cardSubsets(present, input.files);
  const writers = new Set(input.rows.map((r) => r.writer.split(':')[0]));
  const annotations = input.metadata?.annotations_creators ?? [
    ...(writers.has('suite') ? ['expert-generated'] : []),
    ...(writers.has('template') || writers.has('llm') || writers.size === 0 ? ['machine-generated'] : []),
  ];
  // An export with no rows names no data files: an empty `data_files` is not valid front matter.
  const configs =
    subsets.length === 0
      ? []
      : [
          'configs:',
          ...subsets.flatMap((s, i) => [
            `- config_name: ${s.name}`,
            ...(i === 0 ? ['  default: true'] : []),
            '  data_files:',
            ...s.paths.flatMap((p) => [`  - split: ${p.split}`, `    path: ${y(p.path)}`]),
          ]),
        ];
  const info =
    subsets.length === 0
      ? []
      : [
          'dataset_info:',
          ...subsets.flatMap((s) => [
            `- config_name: ${s.name}`,
            '  features:',
            ...s.features,
            '  splits:',
            ...s.paths.flatMap((p) => [`  - name: ${p.split}`, `    num_examples: ${input.files[p.path]?.rows ?? 0}`]),
          ]),
        ];
  const fm = [
    '---',
    ...configs,
    ...info,
    `license: ${y(meta.license)}`,
    ...(meta.license_name ? [`license_name: ${y(meta.license_name)}`] : []),
    ...(meta.license_link ? [`license_link: ${y(meta.license_link)}`] : []),
    ...yList('annotations_creators', annotations),
    ...yList('language_creators', ['machine-generated']),
    ...yList('language', meta.language),
    ...yList('task_categories', meta.task_categories),
    ...yList('source_datasets', meta.source_datasets),
    ...yList('tags', meta.tags),
    `pretty_name: ${y(meta.pretty_name ?? `equisql ${input.dataset}`)}`,
    ...yList('size_categories', [sizeCategory(total)]),
    '---',
  ];
  const splitLines = present.map((s) => `| ${s} | ${input.splits[s]?.groups ?? 0} | ${input.splits[s]?.rows ?? 0} |`);
  const body = [
    `# ${meta.pretty_name ?? `equisql ${input.dataset}`}`,
    '',
    input.databases
      ? `Text-to-SQL pairs over a corpus of ${input.databases.length} databases (${input.databases.map((d) => `\`${d}\``).join(', ')}; a row's \`db_id\` names its database), each question paired with its gold PostgreSQL query on every schema variant of its database. ${fmt(total)} rows.`
      : `Text-to-SQL pairs over the \`${input.domain}\` domain${input.description ? ` (${input.description.replace(/\.$/u, '')})` : ''}, each question paired with its gold PostgreSQL query on ${input.variants.length} equivalent schema variants of the same data. ${fmt(total)} rows.`,
    '',
    '## How it was made',
    '',
    `An E/R model was populated with a seeded instance (seed ${input.seed}) and shredded into ${input.variants.length} relational schemas (${input.variants.map((v) => `\`${v}\``).join(', ')}). Conceptual queries were sampled from a probabilistic SQL grammar and filled over the model's schema graph, compiled to SQL for each variant, and executed on every variant, on the main instance and on an edge-case instance. A query became an equivalence group only when every variant's SQL ran, returned a non-empty, non-degenerate answer, and all variants agreed. Questions (${input.questionSource === 'suite' ? 'written by a person, taken as written' : `from \`${input.questionSource}\``}) were written from the conceptual query, so one question serves every variant of its group.`,
    '',
    ...licenceSection(meta),
    ...filesSection(input, subsets),
    ...fieldsSection(input),
    `## Splits (\`${input.split}\`)`,
    '',
    {
      random: 'Groups are shuffled by the seed and cut by the ratios.',
      skeleton: 'Skeletons are shuffled and cut; a skeleton of the test split never appears in train.',
      variant:
        'Variants and groups are each cut by the ratios; a row is kept only where its group and its variant fall in the same split, so test questions are new and asked on schemas train never saw.',
      domain: 'Domains are held out: a domain of the test split never appears in train.',
      database:
        'Databases are held out: each database (`db_id`) is in exactly one split, so a test database never appears in train.',
    }[input.split],
    '',
    '| split | groups | rows |',
    '|---|---:|---:|',
    ...splitLines,
    '',
    ...rowsSection(input, present),
    ...tokensSection(input),
    '## Counts',
    '',
    table('difficulty', input.rows, (r) => r.difficulty),
    '',
    table('variant', input.rows, (r) => r.variant),
    '',
    table('style', input.rows, (r) => r.style),
    '',
    stylesCardSection(stylePlan(input.rows)),
    '',
    ...loadingSection(input, subsets),
    '## Guarantees',
    '',
    "- Every row's SQL ran read-only on its variant and returned a non-empty answer; all variants of its group return the same answer (`result_hash`), on two instances.",
    "- No equivalence group is in two splits; no question text and no SQL text is in two splits (`equisql check --dir DIR` proves it, with every row valid against `record.schema.json` and every file's row count as `manifest.json` says).",
    '- The same configuration and seed give the same bytes.',
    '',
  ];
  return `${fm.join('\n')}\n\n${body.join('\n')}`;
}

/** How many questions of each style a group holds (the most any group has), in the order the styles first appear. */
function stylePlan(rows: readonly ExportRecord[]): Partial<Record<QuestionStyle, number>> {
  const perGroup = new Map<string, Set<string>>();
  for (const r of rows) {
    const key = `${r.style}\u0000${r.group_id}`;
    const seen = perGroup.get(key) ?? new Set<string>();
    seen.add(String(r.paraphrase));
    perGroup.set(key, seen);
  }
  const plan: Partial<Record<QuestionStyle, number>> = {};
  for (const [key, seen] of perGroup) {
    const style = key.slice(0, key.indexOf('\u0000')) as QuestionStyle;
    plan[style] = Math.max(plan[style] ?? 0, seen.size);
  }
  return plan;
}

function licenceSection(meta: CardMetadata & { license: string }): string[] {
  if (meta.license !== 'unknown') return [];
  return [
    '## Licence',
    '',
    'No licence is set. The data is generated from your model and settings; choose its terms in `datasets.config.ts` (`card: { license: "cc-by-4.0" }` on the dataset) before sharing it.',
    '',
  ];
}

function filesSection(input: CardInput, subsets: readonly Subset[]): string[] {
  const schema = input.promptSchema ?? 'full';
  const schemaText = {
    full: 'its DDL file as built (tables, then keys, checks, foreign keys and indexes)',
    compact: 'compact DDL: one `CREATE TABLE` per table with its keys, references and checks inline, no indexes',
    'compact+values':
      'compact DDL (keys, references and checks inline, no indexes), each column followed by two example values from the data',
  }[schema];
  return [
    '## Files',
    '',
    '| subset | files | one line |',
    '|---|---|---|',
    ...subsets.map(
      (s) =>
        `| \`${s.name}\` | ${s.paths.map((p) => `\`${p.path}\``).join(', ')} | ${{ data: 'a record (fields below)', chat: '`{"id", "messages": [system, user, assistant]}`', prompt: '`{"id", "prompt": [system, user], "completion": [assistant]}`: TRL\'s conversational prompt–completion, the loss on the SQL alone' }[s.name]} |`,
    ),
    '',
    `The user turn holds the row's schema — ${schemaText} (\`--prompt-schema ${schema}\`) — then the question and its evidence; the assistant turn is exactly the row's \`sql\`.`,
    '',
    ...(Object.keys(input.files).some((f) => f.startsWith('data/') && f.endsWith('.parquet'))
      ? [
          "- `data/<split>-00000-of-00001.parquet`: the same records as typed Parquet, for DuckDB, pandas and Spark (the subsets name one format, as `datasets` reads all of a folder's subsets with one builder: Parquet when the fine-tuning lines are in Parquet too, `--formats …,chat-parquet,prompt-parquet`).",
        ]
      : []),
    "- `schemas/<variant>.sql` (DDL) and `dumps/<variant>.sql` (DDL and data, `psql -v ON_ERROR_STOP=1 -f`): a row's `schema_id` is `<dataset>/<variant>`.",
    `- \`${LLAMA_FACTORY_FILE}\` and \`${AXOLOTL_FILE}\`: LLaMA-Factory's and Axolotl's settings for the chat files.`,
    "- `record.schema.json`: the JSON Schema of a record; `manifest.json`: settings, counts, token lengths and every file's row count and sha256; `hub-files.txt`: what to upload.",
    '',
  ];
}

function fieldsSection(input: CardInput): string[] {
  const example = input.rows.find((r) => r.split === 'train') ?? input.rows[0];
  return [
    '## Fields',
    '',
    '| field | type | what it holds |',
    '|---|---|---|',
    ...RECORD_COLUMNS.map(
      (c) =>
        `| \`${c}\` | ${HF_DTYPE[PARQUET_TYPES[c].type]}${PARQUET_TYPES[c].optional ? ' or null' : ''} | ${(input.fields?.[c] ?? '').replaceAll('|', '\\|').replaceAll('<', '&lt;')} |`,
    ),
    '',
    ...(example
      ? ['An example row (texts over 300 characters cut):', '', '```json', exampleRow(example), '```', '']
      : []),
  ];
}

function rowsSection(input: CardInput, present: readonly SplitName[]): string[] {
  const c = input.controls;
  if (!c) return [];
  const lines = present.map((s) => {
    const rep = repetition(input.rows.filter((r) => r.split === s));
    return `| ${s} | ${fmt(rep.rows)} | ${fmt(rep.questions)} | ${fmt(rep.sql)} | ${rep.per_question} | ${rep.per_sql} | ${input.duplicates?.[s] ?? 0} |`;
  });
  const k =
    c.variantsPerQuestion === 'all'
      ? 'every variant'
      : `${c.variantsPerQuestion} variant${c.variantsPerQuestion === 1 ? '' : 's'}`;
  return [
    '## How often a question and an answer repeat',
    '',
    `In train and validation each question is asked on ${k} (\`--variants-per-question\`), drawn from the seed so that every variant of a group is still used across its questions and a question's rows differ in SQL; ${c.paraphrasesPerStyle === 'all' ? 'every paraphrase is kept' : `${c.paraphrasesPerStyle} paraphrase(s) of each style are kept`} (\`--paraphrases-per-style\`)${c.dedupe ? '; a row whose question and SQL are already in its split is dropped' : ''}${c.maxRows !== undefined ? `; at most ${fmt(c.maxRows)} rows, taken evenly over groups (\`--max-rows\`)` : ''}. The test split keeps every question on every variant: a benchmark needs them all. Asking a question on two schemas is what teaches a model to read the schema; asking it on all of them mostly repeats it.`,
    '',
    '| split | rows | questions | distinct SQL | rows per question | rows per SQL | duplicates dropped |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...lines,
    '',
  ];
}

function tokensSection(input: CardInput): string[] {
  const t = input.tokens;
  if (!t || Object.keys(t.files).length === 0) return [];
  const stat = (s: { p50: number; p90: number; max: number } | undefined): string =>
    s ? `${fmt(s.p50)} / ${fmt(s.p90)} / ${fmt(s.max)}` : '';
  return [
    '## Lengths in tokens',
    '',
    `Counted with ${t.tokenizer}: p50 / p90 / max per file. The prompt holds the system and user turns; the completion is the SQL.`,
    '',
    '| file | rows | sequence | prompt | completion |',
    '|---|---:|---:|---:|---:|',
    ...Object.entries(t.files).map(
      ([file, f]) =>
        `| \`${file}\` | ${fmt(f.rows)} | ${stat(f.sequence)} | ${stat(f.prompt)} | ${stat(f.completion)} |`,
    ),
    '',
    `The longest row is ${fmt(t.longest)} tokens. Set the sequence length to at least that; **${fmt(t.suggested)}** leaves a fifth more for tokenizers and chat templates that count more: TRL \`SFTConfig(max_length=${t.suggested})\`, LLaMA-Factory \`cutoff_len: ${t.suggested}\`, Axolotl \`sequence_len: ${t.suggested}\`. At the trainers' defaults:`,
    '',
    '| trainer | default | rows longer | what happens to them |',
    '|---|---|---:|---|',
    ...t.over_defaults.map(
      (d) =>
        `| ${d.trainer} | \`${d.setting}\` ${fmt(d.value)} | ${fmt(d.rows_over)} (${(100 * d.share_over).toFixed(1)}%) | ${d.excess} |`,
    ),
    '',
  ];
}

function loadingSection(input: CardInput, subsets: readonly Subset[]): string[] {
  const has = (name: Subset['name']): boolean => subsets.some((s) => s.name === name);
  const splits = SPLIT_NAMES.filter((s) => input.splits[s]);
  const evalSplit = splits.includes('validation') ? 'validation' : undefined;
  const length = input.tokens?.suggested ?? 2048;
  const out = [
    '## Loading and training',
    '',
    '`DIR` is this folder, or its id on the Hub.',
    '',
    '```python',
    'from datasets import load_dataset',
    '',
  ];
  if (has('data'))
    out.push('records = load_dataset(DIR)            # the "data" subset: one record per (question, variant)');
  if (has('chat')) out.push('chat = load_dataset(DIR, "chat")       # {"messages": [...]}');
  if (has('prompt')) out.push('prompt = load_dataset(DIR, "prompt")   # {"prompt": [...], "completion": [...]}');
  out.push('```', '');
  if (has('prompt')) {
    out.push(
      "TRL (the loss falls on the completion, SFTTrainer's default for prompt–completion data):",
      '',
      '```python',
      'from datasets import load_dataset',
      'from trl import SFTConfig, SFTTrainer',
      '',
      'data = load_dataset(DIR, "prompt")',
      'trainer = SFTTrainer(',
      '    model="Qwen/Qwen2.5-Coder-0.5B-Instruct",',
      '    train_dataset=data["train"],',
      ...(evalSplit ? [`    eval_dataset=data["${evalSplit}"],`] : []),
      `    args=SFTConfig(output_dir="sft-out", max_length=${length}),`,
      ')',
      'trainer.train()',
      '```',
      '',
    );
  }
  if (has('chat')) {
    out.push(
      'OpenAI fine-tuning (the chat files are its format):',
      '',
      '```python',
      'from openai import OpenAI',
      '',
      'client = OpenAI()',
      `train = client.files.create(file=open("${finetuneFile('train', 'chat')}", "rb"), purpose="fine-tune")`,
      ...(evalSplit
        ? [
            `validation = client.files.create(file=open("${finetuneFile(evalSplit, 'chat')}", "rb"), purpose="fine-tune")`,
          ]
        : []),
      `job = client.fine_tuning.jobs.create(model="gpt-4o-mini-2024-07-18", training_file=train.id${evalSplit ? ', validation_file=validation.id' : ''})`,
      '```',
      '',
      `LLaMA-Factory: \`dataset_dir: DIR/finetune\`, \`dataset: ${llamaFactoryName(input.dataset, 'train')}\`${evalSplit ? `, \`eval_dataset: ${llamaFactoryName(input.dataset, evalSplit)}\`` : ''}, \`cutoff_len: ${length}\` (entries in \`${LLAMA_FACTORY_FILE}\`). Axolotl: merge \`${AXOLOTL_FILE}\` into your config and run from DIR.`,
      '',
    );
  }
  return out;
}
