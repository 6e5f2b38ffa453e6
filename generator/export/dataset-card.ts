/**
 * The dataset card (`README.md` of an export): Hugging Face front matter, so
 * `datasets.load_dataset(DIR)` finds the splits and the Hub shows the features, and a body
 * that says how the data was made, what it counts and what it guarantees.
 */
import type { ExportRecord } from './export-record.ts';
import { RECORD_COLUMNS } from './export-record.ts';
import { PARQUET_TYPES } from './parquet-sink.ts';
import { SPLIT_NAMES, type SplitKind, type SplitName } from './split-assign.ts';
import { dataFile, type ExportFileEntry } from './export-dataset.ts';

export interface CardInput {
  readonly dataset: string;
  readonly domain: string;
  readonly description: string;
  readonly split: SplitKind;
  readonly rows: readonly ExportRecord[];
  readonly splits: Readonly<Partial<Record<SplitName, { rows: number; groups: number }>>>;
  readonly files: Readonly<Record<string, ExportFileEntry>>;
  readonly variants: readonly string[];
  readonly seed: string | number;
  readonly questionSource: string;
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
  return /^[A-Za-z0-9_./-]+$/u.test(text) && !/^(true|false|null|yes|no|on|off)$/iu.test(text) ? text : JSON.stringify(text);
}

/**
 * The card's text.
 *
 * @example
 * datasetCard(input).startsWith('---\nconfigs:'); // true
 */
export function datasetCard(input: CardInput): string {
  const present = SPLIT_NAMES.filter((s) => input.splits[s]);
  const hasParquet = present.some((s) => input.files[dataFile(s, 'parquet')]);
  const ext = hasParquet ? 'parquet' : 'jsonl';
  const total = input.rows.length;
  // An export with no rows names no data files: an empty `data_files` is not valid front matter.
  const configs = present.length === 0 ? [] : ['configs:', '- config_name: default', '  data_files:', ...present.flatMap((s) => [`  - split: ${s}`, `    path: ${y(`data/${s}-*.${ext}`)}`])];
  const fm = [
    '---',
    ...configs,
    'dataset_info:',
    '  features:',
    ...RECORD_COLUMNS.flatMap((c) => [`  - name: ${c}`, `    dtype: ${HF_DTYPE[PARQUET_TYPES[c].type]}`]),
    ...(present.length === 0 ? [] : ['  splits:', ...present.flatMap((s) => [`  - name: ${s}`, `    num_examples: ${input.splits[s]?.rows ?? 0}`])]),
    'license: mit',
    'task_categories:',
    '- table-question-answering',
    '- text-generation',
    'language:',
    '- en',
    'tags:',
    '- text-to-sql',
    '- sql',
    '- postgresql',
    `pretty_name: ${y(`equisql ${input.dataset}`)}`,
    'size_categories:',
    `- ${y(sizeCategory(total))}`,
    '---',
  ];
  const splitLines = present.map((s) => `| ${s} | ${input.splits[s]?.groups ?? 0} | ${input.splits[s]?.rows ?? 0} |`);
  const body = [
    `# equisql ${input.dataset}`,
    '',
    `Text-to-SQL pairs over the \`${input.domain}\` domain${input.description ? ` (${input.description.replace(/\.$/u, '')})` : ''}, each question paired with its gold PostgreSQL query on ${input.variants.length} equivalent schema variants of the same data. ${total} rows.`,
    '',
    '## How it was made',
    '',
    `An E/R model was populated with a seeded instance (seed ${input.seed}) and shredded into ${input.variants.length} relational schemas (${input.variants.map((v) => `\`${v}\``).join(', ')}). Conceptual queries were sampled from a probabilistic SQL grammar and filled over the model's schema graph, compiled to SQL for each variant, and executed on every variant, on the main instance and on an edge-case instance. A query became an equivalence group only when every variant's SQL ran, returned a non-empty, non-degenerate answer, and all variants agreed. Questions (${input.questionSource === 'suite' ? 'written by a person, taken as written' : `from \`${input.questionSource}\``}) were written from the conceptual query, so one question serves every variant of its group.`,
    '',
    '## Files',
    '',
    '- `data/<split>-00000-of-00001.parquet` and `.jsonl`: the same rows, one per (question, variant).',
    '- `finetune/<split>.chat.jsonl`: `{"messages": [system, user, assistant]}` with the variant\'s DDL in the user turn and the gold SQL as the answer; `finetune/<split>.prompt.jsonl`: `{"prompt", "completion"}`.',
    '- `schemas/<variant>.sql` (DDL) and `dumps/<variant>.sql` (DDL and data, `psql -v ON_ERROR_STOP=1 -f`): a row\'s `schema_id` is `<dataset>/<variant>`.',
    '- `groups/`: the equivalence groups; `manifest.json`: settings, counts and every file\'s row count and sha256.',
    '',
    `## Splits (\`${input.split}\`)`,
    '',
    {
      random: 'Groups are shuffled by the seed and cut by the ratios.',
      skeleton: 'Skeletons are shuffled and cut; a skeleton of the test split never appears in train.',
      variant: 'Variants and groups are each cut by the ratios; a row is kept only where its group and its variant fall in the same split, so test questions are new and asked on schemas train never saw.',
      domain: 'Domains are held out: a domain of the test split never appears in train.',
    }[input.split],
    '',
    '| split | groups | rows |',
    '|---|---:|---:|',
    ...splitLines,
    '',
    '## Counts',
    '',
    table('variant', input.rows, (r) => r.variant),
    '',
    table('difficulty', input.rows, (r) => r.difficulty),
    '',
    table('style', input.rows, (r) => r.style),
    '',
    '## Guarantees',
    '',
    '- Every row\'s SQL ran read-only on its variant and returned a non-empty answer; all variants of its group return the same answer (`result_hash`), on two instances.',
    '- No equivalence group is in two splits; no question text and no SQL text is in two splits (`equisql check --dir DIR` proves it, with every row valid against `record.schema.json` and every file\'s row count as `manifest.json` says).',
    '- The same configuration and seed give the same bytes.',
    '',
  ];
  return `${fm.join('\n')}\n\n${body.join('\n')}`;
}
