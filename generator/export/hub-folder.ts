/**
 * What of an export belongs on the Hugging Face Hub: the card, the manifest, the record
 * schema, the data and fine-tuning files, the model, the schemas and dumps, the groups.
 * Not the databases (`pglite/`, the edge build in `edge/`), the questions stage's input or
 * the rejections: `hub-files.txt` lists what to upload, and `equisql export --hub-dir OUT`
 * copies exactly that into a folder of its own.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { ConfigError } from '../common/errors.ts';
import type { ExportSettings } from './export-settings.ts';

/** The upload allow-list, one path a line, relative to the export's directory. */
export const HUB_LIST_FILE = 'hub-files.txt';

/** Large files go through Git LFS on the Hub, as its own repositories are set up. */
export const GITATTRIBUTES = [
  '*.parquet filter=lfs diff=lfs merge=lfs -text',
  '*.jsonl filter=lfs diff=lfs merge=lfs -text',
  'dumps/*.sql filter=lfs diff=lfs merge=lfs -text',
  'datasets/*/dumps/*.sql filter=lfs diff=lfs merge=lfs -text',
  '*.sqlite filter=lfs diff=lfs merge=lfs -text',
  'edge/dumps/*.sql filter=lfs diff=lfs merge=lfs -text',
  '',
].join('\n');

/** Files the export writes at the top of the folder, and those of the build it keeps. */
const EXPORT_TOP_FILES = ['README.md', 'manifest.json', 'record.schema.json', '.gitattributes', HUB_LIST_FILE];
const BUILD_TOP_FILES = ['er.json', 'build.json'];
/** Folders whose files go up whole. */
const FOLDERS = ['schemas', 'dumps', 'groups', 'datasets'];

function filesUnder(dir: string, sub: string): string[] {
  const root = join(dir, sub);
  if (!existsSync(root)) return [];
  const out: string[] = [];
  for (const name of readdirSync(root).sort()) {
    if (name.startsWith('.')) continue;
    const rel = `${sub}/${name}`;
    if (statSync(join(dir, rel)).isDirectory()) out.push(...filesUnder(dir, rel));
    else out.push(rel);
  }
  return out;
}

/**
 * The files of `dir` to upload: the top files, `exported` (the export's data and
 * fine-tuning files) and the folders above, sorted.
 *
 * @example
 * hubFiles('output/social_media', ['data/train-00000-of-00001.parquet']); // ['.gitattributes', 'README.md', …]
 */
export function hubFiles(dir: string, exported: readonly string[]): string[] {
  const list = new Set<string>([
    ...EXPORT_TOP_FILES,
    ...BUILD_TOP_FILES.filter((f) => existsSync(join(dir, f))),
    ...exported,
    ...FOLDERS.flatMap((f) => filesUnder(dir, f)),
  ]);
  return [...list].sort();
}

/**
 * What `--with-edge` puts in a Hub folder beside the checked list, so that `equisql eval` runs
 * from the folder alone: the edge-case instance's build (`edge/build.json`, its model, schemas
 * and dumps) and the SQLite files of both instances when the build has them (`equisql eval
 * --engine sqlite` opens those). The list itself, which the manifest seals, is left as checked.
 * A ConfigError when `dir` has no edge-case instance.
 *
 * @example
 * edgeFiles('output/social_media'); // { files: ['edge/build.json', …, 'sqlite/full_cti.sqlite', …], sqlite: true }
 */
export function edgeFiles(dir: string): { files: string[]; sqlite: boolean } {
  if (!existsSync(join(dir, 'edge', 'build.json')))
    throw new ConfigError(
      `export: --with-edge: ${dir} has no edge-case instance (no edge/build.json); equisql generate builds one`,
    );
  const sqlite = [...filesUnder(dir, 'sqlite'), ...filesUnder(dir, 'edge/sqlite')].filter((f) => f.endsWith('.sqlite'));
  const edge = [
    'edge/build.json',
    ...(existsSync(join(dir, 'edge', 'er.json')) ? ['edge/er.json'] : []),
    ...filesUnder(dir, 'edge/schemas'),
    ...filesUnder(dir, 'edge/dumps'),
  ];
  return { files: [...edge, ...sqlite].sort(), sqlite: sqlite.length > 0 };
}

/**
 * Copies the files `hub-files.txt` lists into `out`, a new or empty directory outside `dir`,
 * and returns how many. A ConfigError names what is wrong with `out`.
 */
export function layOutHub(dir: string, out: string, list: readonly string[]): number {
  const from = resolve(dir);
  const to = resolve(out);
  if (to === from || !relative(from, to).startsWith('..'))
    throw new ConfigError(`export: --hub-dir ${out}: must be outside the exported directory ${dir}`);
  if (existsSync(to) && (!statSync(to).isDirectory() || readdirSync(to).length > 0))
    throw new ConfigError(`export: --hub-dir ${out}: exists and is not an empty directory`);
  for (const rel of list) {
    mkdirSync(dirname(join(to, rel)), { recursive: true });
    copyFileSync(join(from, rel), join(to, rel));
  }
  return list.length;
}

/** Ratios as [train, validation, test]. */
function ratiosOf(r: Readonly<Record<string, unknown>> | undefined): unknown[] {
  return ['train', 'validation', 'test'].map((s) => r?.[s]);
}

/**
 * How `settings` differ from those the export in `manifest.json` was made with (`recorded`, its
 * `export` section), in words; undefined when they are the same. `--hub-dir` copies an export
 * `check` has seen, so it refuses to make another with other settings on the way.
 *
 * @example
 * exportSettingsDiffer({ split: 'skeleton', … }, { split: 'random', … }); // 'split "skeleton", not "random"'
 */
export function exportSettingsDiffer(
  recorded: Readonly<Record<string, unknown>>,
  settings: ExportSettings,
): string | undefined {
  const rows = recorded['row_controls'] as Record<string, unknown> | undefined;
  const pairs: [string, unknown, unknown][] = [
    ['split', recorded['split'], settings.split],
    // The manifest keeps its keys sorted: ratios are compared split by split.
    ['ratios', ratiosOf(recorded['ratios'] as Record<string, unknown> | undefined), ratiosOf(settings.ratios)],
    ['formats', [...((recorded['formats'] as string[] | undefined) ?? [])].sort(), [...settings.formats].sort()],
    ['prompt schema', recorded['prompt_schema'] ?? 'compact', settings.promptSchema],
    ['variants per question', rows?.['variants_per_question'], settings.rows.variantsPerQuestion],
    ['paraphrases per style', rows?.['paraphrases_per_style'], settings.rows.paraphrasesPerStyle],
    ['duplicates dropped', rows?.['dedupe'], settings.rows.dedupe],
    ['max rows', rows?.['max_rows'], settings.rows.maxRows],
  ];
  const differ = pairs.filter(([, a, b]) => JSON.stringify(a) !== JSON.stringify(b));
  return differ.length === 0
    ? undefined
    : differ.map(([k, a, b]) => `${k} ${JSON.stringify(a)}, not ${JSON.stringify(b)}`).join('; ');
}
