import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { CardMetadata } from '../config/define-config.ts';
import { loadConfig } from '../config/load-config.ts';
import { validateDataset } from '../config/validate-config.ts';
import { edgeFiles, exportSettingsDiffer, HUB_LIST_FILE, layOutHub } from '../export/hub-folder.ts';
import { checkExport } from '../export/check-export.ts';
import { readManifestObject } from '../common/file-seal.ts';
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
  dir: {
    type: 'string',
    value: 'DIR',
    required: true,
    help: "a directory equisql generate wrote (reads DIR/groups/ and DIR/questions/, or the suite's own questions when there is no questions file; for a generate --corpus DIR, every database under DIR/databases/)",
  },
  ...EXPORT_FLAGS,
  include: {
    type: 'string',
    value: 'OTHER_DIR',
    multiple: true,
    help: 'add the groups of another generated directory (its schemas and dumps are copied under DIR/datasets/<dataset>/)',
  },
  'hub-dir': {
    type: 'string',
    value: 'OUT',
    help: 'copy what belongs on the Hugging Face Hub (the files hub-files.txt lists: no databases, no stage inputs) into OUT, a new or empty directory; when DIR already holds an export, that export is checked and copied as it is (export flags must match it), else DIR is exported first',
  },
  'with-edge': {
    type: 'boolean',
    help: 'with --hub-dir: also the edge-case instance (edge/build.json, its schemas and dumps) and the SQLite files of both instances, so equisql eval --dir OUT --engine sqlite runs from the folder alone',
  },
  config: {
    type: 'string',
    value: 'FILE',
    help: "the configuration whose datasets.<dataset>.card gives the card's licence and metadata (default datasets.config.ts in the working directory)",
  },
} as const satisfies FlagTable;

const DETAILS = `Re-exports a generated directory without regenerating, into:
  DIR/data/<split>-00000-of-00001.{jsonl,parquet}   one row per (question, variant)
  DIR/finetune/<split>.chat.jsonl, <split>.prompt.jsonl
  DIR/README.md                                      dataset card (Hugging Face front matter)
  DIR/evaluators/bird/<split>.json, <split>_gold.sql  with --formats …,bird (BIRD's questions and gold file)
  DIR/evaluators/defog/<split>.csv                   with --formats …,defog (sql-eval's questions file)
  DIR/evaluators/defog/defog_data/                   with --formats …,defog (the databases, as sql-eval's defog-data package)
  DIR/evaluators/spider/<split>_gold.sql             with --formats …,spider (Spider's gold file)
  DIR/evaluators/sqlite/<split>.json, <split>_gold.sql, database/
                                                     with --formats …,sqlite (the same with SQLite SQL, and the SQLite files)
  DIR/manifest.json                                  its "export" section: splits, files, row counts
Splits are drawn from the dataset's seed and never cut a group.`;

/** The card metadata the config gives the exported dataset (`datasets.<dataset>.card`), if any. */
async function configuredCard(dir: string, configFile: string | undefined): Promise<CardMetadata | undefined> {
  const buildPath = join(dir, 'build.json');
  if (!existsSync(buildPath)) return undefined;
  const dataset = (JSON.parse(readFileSync(buildPath, 'utf8')) as { dataset?: unknown }).dataset;
  const { config, path } = await loadConfig(configFile, process.cwd());
  if (typeof dataset !== 'string' || !Object.hasOwn(config.datasets, dataset)) return undefined;
  return validateDataset(config.datasets[dataset], `${path}: datasets.${dataset}`).card;
}

/** What the folder holds with --with-edge, and the evaluation it allows. */
function edgeNote(withEdge: ReturnType<typeof edgeFiles> | undefined, out: string): string {
  if (withEdge === undefined) return '';
  return withEdge.sqlite
    ? `, with the edge-case instance and the SQLite files (equisql eval --dir ${out} --engine sqlite runs from it)`
    : ', with the edge-case instance (dumps only: the build has no SQLite files for eval to open; generate with --engines postgres,sqlite)';
}

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
    if (flags['with-edge'] === true && flags['hub-dir'] === undefined)
      throw new ConfigError(
        'export: --with-edge: only with --hub-dir OUT (it adds the edge-case instance to the Hub folder)',
      );
    // Refused before anything is exported or copied.
    const withEdge = flags['with-edge'] === true ? edgeFiles(dir) : undefined;
    const unlock = lockDir(dir, 'export');
    try {
      const include = (flags.include ?? []).map((d) => resolve(process.cwd(), d));
      for (const d of include) if (!existsSync(d)) throw new ConfigError(`export: --include ${d}: no such directory`);
      const recorded = readManifestObject(dir)?.['export'] as Record<string, unknown> | undefined;
      if (flags['hub-dir'] !== undefined && recorded !== undefined) {
        // Copy the export that is there, as check sees it: a re-export with other (default) settings would put on the Hub what no one checked.
        const given = (Object.keys(EXPORT_FLAGS) as (keyof typeof EXPORT_FLAGS)[]).filter(
          (k) => flags[k] !== undefined,
        );
        const differs =
          given.length > 0 || include.length > 0
            ? include.length > 0
              ? 'more datasets (--include)'
              : exportSettingsDiffer(recorded, settings)
            : undefined;
        if (differs)
          throw new ConfigError(
            `export: --hub-dir: ${dir} holds an export made with other settings (${differs}); re-export without --hub-dir, check it, then give --hub-dir alone`,
          );
        const found = checkExport(dir).findings[0];
        if (found)
          throw new ConfigError(
            `export: --hub-dir: ${dir} does not pass check (${found.kind}: ${found.detail.slice(0, 200)}); re-export it first`,
          );
        const out = resolve(process.cwd(), flags['hub-dir']);
        const list = readFileSync(join(dir, HUB_LIST_FILE), 'utf8')
          .split('\n')
          .filter((l) => l !== '');
        io.err(
          `export: ${layOutHub(dir, out, [...list, ...(withEdge?.files ?? [])])} files of the checked export for the Hub in ${out}${edgeNote(withEdge, out)}`,
        );
        return EXIT.ok;
      }
      const shown = displayFor(io);
      const card = await configuredCard(dir, flags.config);
      const report = await exportDataset({
        dir,
        ...settings,
        include,
        progress: shown.message,
        tick: shown.tick,
        ...(card ? { card } : {}),
      });
      shown.end();
      io.err(`${report.rows} rows in ${report.seconds.total.toFixed(1)} s`);
      if (flags['hub-dir'] !== undefined) {
        const out = resolve(process.cwd(), flags['hub-dir']);
        const list = readFileSync(join(dir, HUB_LIST_FILE), 'utf8')
          .split('\n')
          .filter((l) => l !== '');
        io.err(
          `export: ${layOutHub(dir, out, [...list, ...(withEdge?.files ?? [])])} files for the Hub in ${out}${edgeNote(withEdge, out)}`,
        );
      }
      return EXIT.ok;
    } finally {
      unlock();
    }
  },
};
