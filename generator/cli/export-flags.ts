import type { FlagTable } from './flag-table.ts';

/** The flags the export takes, shared with `generate` and `merge` (which export at their end). */
export const EXPORT_FLAGS = {
  split: {
    type: 'string',
    value: 'KIND',
    help: 'how rows are cut into train, validation and test: random (groups shuffled by the seed), skeleton (no test skeleton in train), variant (test questions asked on schemas train never saw), domain (a domain held out; needs --include) or database (each db_id in exactly one split; needs a database per non-empty split: a corpus, or --include); default random',
  },
  ratios: {
    type: 'string',
    value: 'train=R,validation=R,test=R',
    help: 'shares of the splits (default train=0.8,validation=0.1,test=0.1)',
  },
  formats: {
    type: 'string',
    value: 'F,F,…',
    help: 'files to write, of jsonl, parquet (the records), chat, prompt (the fine-tuning lines), chat-parquet, prompt-parquet (the fine-tuning lines as Parquet), bird, defog, spider (the files those evaluators read, under evaluators/: see docs/evaluators.md), sqlite (BIRD and Spider files with the SQLite SQL and databases, for a run generated with --engines postgres,sqlite), verl, trl-grpo, openrlhf (reinforcement-learning rows under rl/ with the reward in rewards/: see docs/rl.md); default jsonl,parquet,chat,prompt',
  },
  'prompt-schema': {
    type: 'string',
    value: 'full|compact|compact+values',
    help: 'the schema the fine-tuning prompts show: the DDL file as built, compact DDL (keys, references and checks inline, no indexes; the default: the same catalog in about a third fewer tokens), or compact DDL with two example values a column from the main instance',
  },
  'variants-per-question': {
    type: 'string',
    value: 'K|all',
    help: 'variants each train and validation question is asked on, drawn from the seed so every variant of a group is still used (default 2); the test split keeps every variant',
  },
  'paraphrases-per-style': {
    type: 'string',
    value: 'K|all',
    help: 'paraphrases kept of each style in train and validation (default all)',
  },
  'max-rows': {
    type: 'string',
    value: 'N',
    help: 'at most N rows in train and validation together, taken evenly over the groups (default no limit)',
  },
  'keep-duplicates': {
    type: 'boolean',
    help: 'keep a train or validation row whose question and SQL are already in its split (dropped by default)',
  },
} as const satisfies FlagTable;
