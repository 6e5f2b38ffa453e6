import type { FlagTable } from './flag-table.ts';

/** The flags the export takes, shared with `generate` and `merge` (which export at their end). */
export const EXPORT_FLAGS = {
  split: { type: 'string', value: 'KIND', help: 'how rows are cut into train, validation and test: random (groups shuffled by the seed), skeleton (no test skeleton in train), variant (test questions asked on schemas train never saw) or domain (a domain held out; needs --include); default random' },
  ratios: { type: 'string', value: 'train=R,validation=R,test=R', help: 'shares of the splits (default train=0.8,validation=0.1,test=0.1)' },
  formats: { type: 'string', value: 'F,F,…', help: 'files to write, of jsonl, parquet, chat, prompt (default all)' },
} as const satisfies FlagTable;
