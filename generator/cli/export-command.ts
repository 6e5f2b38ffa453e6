import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError } from '../common/errors.ts';
import { EXIT, type Command } from './command.ts';
import { parseFlags, required } from './flags.ts';
import { lockDir } from '../assemble/dir-lock.ts';
import { exportDataset } from '../export/export-dataset.ts';
import { exportSettings } from '../export/export-settings.ts';
import { displayFor } from './progress-bar.ts';

const USAGE = `usage: equisql export --dir DIR [--split random|skeleton|variant|domain] [--ratios train=R,validation=R,test=R]
                      [--formats jsonl,parquet,chat,prompt] [--include OTHER_DIR …]

Re-exports a generated directory without regenerating (reads DIR/groups/ and DIR/questions/,
or the suite's own questions when there is no questions file) into:
  DIR/data/<split>-00000-of-00001.{jsonl,parquet}   one row per (question, variant)
  DIR/finetune/<split>.chat.jsonl, <split>.prompt.jsonl
  DIR/README.md                                      dataset card (Hugging Face front matter)
  DIR/manifest.json                                  its "export" section: splits, files, row counts
Splits are drawn from the dataset's seed and never cut a group (default random, 0.8/0.1/0.1).
--include adds the groups of other generated directories (their schemas and dumps are
copied under DIR/datasets/<dataset>/); the domain split needs a domain per split.`;

export const command: Command = {
  name: 'export',
  summary: 'export groups and questions as JSONL, Parquet, fine-tuning files and a dataset card',
  usage: USAGE,
  async run(args, io) {
    const flags = parseFlags('export', args, { dir: { type: 'string' }, split: { type: 'string' }, ratios: { type: 'string' }, formats: { type: 'string' }, include: { type: 'string', multiple: true } });
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
