import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError } from '../common/errors.ts';
import { EXIT, type Command } from './command.ts';
import { required } from './flags.ts';
import { parseTable, type FlagTable } from './flag-table.ts';
import { EXPORT_FLAGS } from './export-flags.ts';
import { lockDir } from '../assemble/dir-lock.ts';
import { exportDataset } from '../export/export-dataset.ts';
import { exportSettings } from '../export/export-settings.ts';
import { displayFor } from './progress-bar.ts';

const FLAGS = {
  dir: { type: 'string', value: 'DIR', required: true, help: 'a directory equisql generate wrote (reads DIR/groups/ and DIR/questions/, or the suite\'s own questions when there is no questions file)' },
  ...EXPORT_FLAGS,
  include: { type: 'string', value: 'OTHER_DIR', multiple: true, help: 'add the groups of another generated directory (its schemas and dumps are copied under DIR/datasets/<dataset>/)' },
} as const satisfies FlagTable;

const DETAILS = `Re-exports a generated directory without regenerating, into:
  DIR/data/<split>-00000-of-00001.{jsonl,parquet}   one row per (question, variant)
  DIR/finetune/<split>.chat.jsonl, <split>.prompt.jsonl
  DIR/README.md                                      dataset card (Hugging Face front matter)
  DIR/manifest.json                                  its "export" section: splits, files, row counts
Splits are drawn from the dataset's seed and never cut a group.`;

export const command: Command = {
  name: 'export',
  summary: 'export groups and questions as JSONL, Parquet, fine-tuning files and a dataset card',
  flags: FLAGS,
  details: DETAILS,
  async run(args, io) {
    const flags = parseTable('export', args, FLAGS).values;
    const dir = resolve(process.cwd(), required('export', 'dir', flags.dir));
    const settings = exportSettings('export', flags);
    if (!existsSync(dir)) throw new ConfigError(`export: --dir ${dir}: no such directory`);
    const unlock = lockDir(dir, 'export');
    try {
      const include = (flags.include ?? []).map((d) => resolve(process.cwd(), d));
      for (const d of include) if (!existsSync(d)) throw new ConfigError(`export: --include ${d}: no such directory`);
      const shown = displayFor(io);
      const report = await exportDataset({ dir, ...settings, include, progress: shown.message, tick: shown.tick });
      shown.end();
      io.err(`${report.rows} rows in ${report.seconds.total.toFixed(1)} s`);
      return EXIT.ok;
    } finally {
      unlock();
    }
  },
};
