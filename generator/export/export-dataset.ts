/**
 * The export stage: groups and questions in, the files users take away out — `data/`
 * (JSON Lines and Parquet, the same rows), `finetune/` (chat and prompt–completion lines),
 * the dataset card `README.md`, and an `export` section in `manifest.json`. It never touches
 * the database, so a re-export with another split or other formats is cheap.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { escapeControl } from '../common/user-text.ts';
import { ConfigError } from '../common/errors.ts';
import { sha256, stableStringify } from '../common/hash.ts';
import { writeFileAtomic, writeLinesAtomic } from '../common/atomic-write.ts';
import {
  checkCandidates,
  groupsPath,
  readGroups,
  readRecords,
  rejectionsPath,
  stageFiles,
} from '../records/groups-file.ts';
import { REJECTION_SHAPE, type GroupRecord, type Rejection } from '../records/group-record.ts';
import { questionShape, type QuestionRecord } from '../records/question-record.ts';
import {
  checkSeal,
  manifestSeals,
  readManifestObject,
  refuseNonFile,
  removeStaleTemps,
  sealText,
} from '../common/file-seal.ts';
import { suiteQuestions } from '../questions/suite-questions.ts';
import { serializeRecord, type ExportRecord } from '../records/export-record.ts';
import { planSplits, SPLIT_NAMES, type SplitKind, type SplitName, type SplitRatios } from './split-assign.ts';
import { writeMessagesParquet, writeParquet } from './parquet-sink.ts';
import { fullDdl as promptDdl, type PromptSchema } from './prompt-schema.ts';
import { type BuiltSchemas, builtSchemas, promptSchemaTexts } from './prompt-schema-source.ts';
import { DEFOG_DATA_DIR, defogDataFiles } from './formats/defog-data.ts';
import type { RelationalSchema } from '../variants/relational-schema.ts';
import {
  finetuneParquetFile,
  finetuneSplit,
  finetuneTokens,
  llamaFactoryInfo,
  axolotlSnippet,
  LLAMA_FACTORY_FILE,
  AXOLOTL_FILE,
  type FinetuneFormat,
} from './finetune-files.ts';
import type { RowTokens } from './token-lengths.ts';
import { DEFAULT_ROW_CONTROLS, splitRows, type RowControls } from './row-selection.ts';
import { RECORD_SCHEMA_PATH } from './check-export.ts';
import { HUB_LIST_FILE, hubFiles, GITATTRIBUTES } from './hub-folder.ts';
import type { CardMetadata } from '../config/define-config.ts';
import { datasetCard } from './dataset-card.ts';
import type { ProgressTick } from '../common/progress-tick.ts';
import {
  EVALUATOR_FORMATS,
  evaluatorFiles,
  leftOutNote,
  prepareEvaluatorDirs,
  removeStaleEvaluatorFiles,
  type EvaluatorFormat,
} from './formats/evaluator-formats.ts';
import { RL_FORMATS } from './rl/rl-formats.ts';
import { removeStaleRlFiles, rlWriter, type RlSection } from './rl/rl-export.ts';
import { truthSource } from './rl/ground-truth.ts';
import { SQLITE_DATABASE_DIR, sqliteDatabaseRel, sqliteDatabases, sqliteSource } from './formats/sqlite-files.ts';
import { SPIDER_TABLES_FILE, spiderTables } from './formats/spider-tables.ts';

import { DEFAULT_FORMATS, EXPORT_FORMATS, type ExportFormat } from './export-settings.ts';

// The format names live with the flags that choose them (export-settings.ts), which a refusal reads without loading this module.
export { DEFAULT_FORMATS, EXPORT_FORMATS, type ExportFormat };

export interface ExportOptions {
  /** A directory `equisql generate` wrote (groups, schemas, manifest). */
  readonly dir: string;
  readonly split: SplitKind;
  readonly ratios: SplitRatios;
  readonly formats: readonly ExportFormat[];
  /** Other generated directories whose groups join this export (`--include`; the domain split needs them). */
  readonly include?: readonly string[];
  /** The schema the fine-tuning prompts show (default `compact`). */
  readonly promptSchema?: PromptSchema;
  /** How many rows a group becomes in train and validation (default `DEFAULT_ROW_CONTROLS`). */
  readonly rows?: RowControls;
  /** The dataset card's metadata, from the config. */
  readonly card?: CardMetadata;
  /** Progress lines (the CLI prints them on stderr). */
  readonly progress?: (line: string) => void;
  /** Rows written out of all, after each split (the CLI draws a bar or prints lines). */
  readonly tick?: ProgressTick;
}

export interface ExportFileEntry {
  readonly rows: number;
  readonly sha256: string;
}

export interface ExportReport {
  readonly rows: number;
  readonly groups: number;
  readonly splits: Readonly<Partial<Record<SplitName, { rows: number; groups: number }>>>;
  readonly files: Readonly<Record<string, ExportFileEntry>>;
  readonly seconds: { readonly jsonl: number; readonly parquet: number; readonly total: number };
}

/** `data/<split>-00000-of-00001.<ext>`: Hugging Face's shard naming, one shard a split. */
export function dataFile(split: SplitName, ext: 'jsonl' | 'parquet'): string {
  return `data/${split}-00000-of-00001.${ext}`;
}

function readJson(path: string, what: string): Record<string, unknown> {
  if (!existsSync(path)) throw new ConfigError(`export: ${path}: no ${what} (run equisql generate --out DIR first)`);
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch (error) {
    throw new ConfigError(`export: ${path}: not JSON: ${(error as Error).message}`);
  }
}

/** The questions of a generated directory: the questions stage's file, else the suite's own questions. */
export function loadQuestions(
  dir: string,
  dataset: string,
  groups: readonly GroupRecord[],
): { questions: QuestionRecord[]; source: string } {
  const path = join(dir, 'questions', `${dataset}.jsonl`);
  if (existsSync(path))
    return {
      questions: readRecords<QuestionRecord>(path, false, 'a question', questionShape, 'question_id'),
      source: `questions/${dataset}.jsonl`,
    };
  return { questions: suiteQuestions(groups), source: 'suite' };
}

interface Source {
  readonly dir: string;
  readonly dataset: string;
  readonly domain: string;
  readonly seed: string | number;
  readonly variants: readonly string[];
  readonly groups: readonly GroupRecord[];
  readonly questions: readonly QuestionRecord[];
  readonly questionSource: string;
  /** Per variant, the DDL a prompt shows. */
  readonly ddl: ReadonlyMap<string, string>;
}

/** What the export reads of one generated directory; a ConfigError names what is missing. */
function loadSource(dir: string, progress: ((line: string) => void) | undefined): Source {
  const build = readJson(join(dir, 'build.json'), 'build.json');
  const dataset = String(build['dataset']);
  // The name becomes a path (groups/<dataset>.jsonl, datasets/<dataset>/): `../x` or `a/b` would write outside DIR.
  if (!/^[\p{L}\p{N}_][\p{L}\p{N}_.-]{0,127}$/u.test(dataset) || dataset.includes('..')) {
    throw new ConfigError(
      `export: ${join(dir, 'build.json')}: dataset ${JSON.stringify(escapeControl(dataset.slice(0, 80)))} is not a dataset name (letters, digits, _ . -; no path)`,
    );
  }
  const variants = (build['variants'] as { name: string }[]).map((v) => v.name);
  const gpath = groupsPath(dir, dataset);
  if (!existsSync(gpath))
    throw new ConfigError(`export: ${gpath}: no groups file (run equisql generate --out ${dir} first)`);
  // Only what the stages before sealed is exported: a line changed, repeated or deleted
  // since, or a questions file a crashed run left half-written, is refused by name.
  const manifest = readManifestObject(dir);
  const seals = manifest ? manifestSeals(manifest, join(dir, 'manifest.json')) : undefined;
  for (const rel of stageFiles(dataset))
    checkSeal(dir, rel, seals, 'exact', 'export', `rerun equisql generate --out ${dir} --resume`, {
      changed: 'restore it, or generate the groups again into a new --out',
    });
  checkSeal(
    dir,
    `questions/${dataset}.jsonl`,
    seals,
    'exact',
    'export',
    `rerun equisql questions --dir ${dir} --resume`,
    { changed: `write them again: equisql questions --dir ${dir}`, mustBeSealed: true },
  );
  if (manifest && seals) checkSameBuild(dir, manifest, build);
  const groups = readGroups(gpath);
  if (seals)
    checkCandidates(
      gpath,
      groups,
      readRecords<Rejection>(rejectionsPath(dir), false, 'a rejection', REJECTION_SHAPE, 'candidate'),
    );
  const { questions, source } = loadQuestions(dir, dataset, groups);
  if (questions.length === 0)
    progress?.(
      `export: no questions for the ${groups.length} groups of ${dir} (no questions/${dataset}.jsonl and no suite questions): they give no rows`,
    );
  const known = new Set(groups.map((g) => g.group_id));
  for (const q of questions)
    if (!known.has(q.group_id))
      throw new ConfigError(
        `export: ${join(dir, source)}: question ${q.question_id} names group ${q.group_id}, which is not in ${gpath}`,
      );
  const ddl = new Map<string, string>();
  for (const v of variants) {
    const path = join(dir, 'schemas', `${v}.sql`);
    if (!existsSync(path)) throw new ConfigError(`export: ${path}: missing (the build wrote no DDL for variant ${v})`);
    ddl.set(v, promptDdl(readFileSync(path, 'utf8')));
  }
  return {
    dir,
    dataset,
    domain: String(build['domain']),
    seed: build['seed'] as string | number,
    variants,
    groups,
    questions,
    questionSource: source,
    ddl,
  };
}

/** What a corpus run's manifest says of its databases: `corpus.databases[].dir`, relative to DIR. */
export interface CorpusSection {
  readonly name: string;
  readonly dirs: readonly string[];
}

/**
 * The `corpus` section of a corpus run's manifest (`generate --corpus`), its databases'
 * directories resolved; undefined for a dataset's own run. A malformed section is refused in
 * one line naming the field.
 */
export function corpusSection(
  manifest: Readonly<Record<string, unknown>>,
  manifestPath: string,
  dir: string,
): CorpusSection | undefined {
  const section = manifest['corpus'];
  if (section === undefined) return undefined;
  const c = section as { name?: unknown; databases?: unknown } | null;
  if (
    c === null ||
    typeof c !== 'object' ||
    typeof c.name !== 'string' ||
    !Array.isArray(c.databases) ||
    c.databases.length === 0
  ) {
    throw new ConfigError(`export: ${manifestPath}: corpus must be {"name": a string, "databases": a non-empty list}`);
  }
  const dirs = c.databases.map((d: unknown, k) => {
    const rel = (d as { dir?: unknown } | null)?.dir;
    // Each database was generated under DIR: a path leaving it is not this run's.
    if (typeof rel !== 'string' || !/^databases\/[\p{L}\p{N}_][\p{L}\p{N}_.-]*$/u.test(rel) || rel.includes('..')) {
      throw new ConfigError(
        `export: ${manifestPath}: corpus.databases[${k}].dir must be databases/<db_id>, got ${JSON.stringify(rel)?.slice(0, 80)}`,
      );
    }
    return join(dir, rel);
  });
  return { name: c.name, dirs };
}

/**
 * The groups stage recorded the instance and variants its groups were verified on; a build
 * swapped in since (another seed, other variants) leaves them unverified.
 */
function checkSameBuild(
  dir: string,
  manifest: Readonly<Record<string, unknown>>,
  build: Readonly<Record<string, unknown>>,
): void {
  const instances = manifest['instances'] as { main?: unknown } | undefined;
  const names = (build['variants'] as { name: string }[]).map((v) => v.name);
  const checked = manifest['variants'];
  if (instances?.main !== undefined && instances.main !== build['instance_hash']) {
    throw new ConfigError(
      `export: ${join(dir, 'build.json')}: another build than the one the groups were verified on (instance ${String(build['instance_hash']).slice(0, 12)}…, the groups' ${String(instances.main).slice(0, 12)}…): generate the groups again for it`,
    );
  }
  if (Array.isArray(checked) && JSON.stringify(checked) !== JSON.stringify(names)) {
    throw new ConfigError(
      `export: ${join(dir, 'build.json')}: variants ${names.join(',')}, but the groups were verified on ${checked.join(',')}: generate the groups again for them`,
    );
  }
}

/**
 * Sets of groups that share a question text or an SQL text (compared as `equisql check`
 * compares them), which the split must keep together.
 */
function sharedTexts(groups: readonly GroupRecord[], questions: readonly QuestionRecord[]): string[][] {
  const byText = new Map<string, Set<string>>();
  const add = (text: string, group: string): void => {
    byText.set(text, (byText.get(text) ?? new Set()).add(group));
  };
  for (const q of questions) add(`q\u0000${q.question.trim().toLowerCase()}`, q.group_id);
  for (const g of groups)
    for (const v of Object.values(g.variants)) add(`s\u0000${v.sql.replace(/\s+/gu, ' ').trim()}`, g.group_id);
  return [...byText.values()].filter((s) => s.size > 1).map((s) => [...s].sort());
}

/**
 * Exports a generated directory. Same inputs, split, ratios and seed → the same bytes in
 * every file written; files of an earlier export that this one does not write are removed.
 *
 * @example
 * await exportDataset({ dir: 'output/social_media', split: 'random', ratios: DEFAULT_RATIOS, formats: DEFAULT_FORMATS });
 */
export async function exportDataset(options: ExportOptions): Promise<ExportReport> {
  const started = performance.now();
  const { dir } = options;
  const manifestPath = join(dir, 'manifest.json');
  refuseNonFile(manifestPath);
  const manifest = readJson(manifestPath, 'manifest.json');
  for (const sub of ['data', 'finetune', 'datasets']) {
    const stat = statSync(join(dir, sub), { throwIfNoEntry: false });
    if (stat && !stat.isDirectory())
      throw new ConfigError(`export: ${join(dir, sub)}: a file where the export's folder should be`);
    // The export's folders hold files only: a folder in them is refused before anything is written.
    if (stat && sub !== 'datasets') {
      const folder = readdirSync(join(dir, sub)).find((name) => statSync(join(dir, sub, name)).isDirectory());
      if (folder !== undefined)
        throw new ConfigError(`export: ${join(dir, sub, folder)}: a directory where the export writes its files`);
    }
  }
  // A corpus run's DIR holds no dataset of its own: its databases were generated under it.
  const corpus = corpusSection(manifest, manifestPath, dir);
  const main = corpus ? undefined : loadSource(dir, options.progress);
  // Other generated directories whose rows join this export (a corpus's databases, --include):
  // their schemas and dumps are copied under datasets/<dataset>/ so the export stands alone.
  const sources = [
    ...(main ? [main] : []),
    ...[...(corpus?.dirs ?? []), ...(options.include ?? [])].map((d) => loadSource(d, options.progress)),
  ];
  const names = new Set<string>();
  for (const src of sources) {
    if (names.has(src.dataset))
      throw new ConfigError(
        `export: dataset ${src.dataset} is given twice (--dir and --include name the same dataset)`,
      );
    names.add(src.dataset);
  }
  // The RL files reach the databases of one generated directory (their paths are relative to
  // it); what they need of it is checked before anything is written.
  const rlFormats = RL_FORMATS.filter((f) => options.formats.includes(f));
  if (rlFormats.length > 0 && (sources.length > 1 || !main))
    throw new ConfigError(
      `export: --formats ${rlFormats.join(',')}: the RL files name the databases of one generated directory; export without --include`,
    );
  // The SQLite layout copies the SQLite files of one generated directory.
  if (options.formats.includes('sqlite') && (sources.length > 1 || !main))
    throw new ConfigError(
      'export: --formats sqlite: the SQLite layout holds the databases of one generated directory; export without --include',
    );
  const sqliteFrom =
    options.formats.includes('sqlite') && main
      ? sqliteSource(dir, main.groups, manifest['settings'] as Record<string, unknown> | undefined)
      : undefined;
  const rlSource =
    rlFormats.length > 0 && main
      ? truthSource(dir, main.groups, manifest['settings'] as Record<string, unknown> | undefined)
      : undefined;
  const dataset = main?.dataset ?? (corpus?.name as string);
  const domain = main?.domain ?? [...new Set(sources.map((src) => src.domain))].join(', ');
  const seed = (manifest['settings'] as { seed?: string | number } | undefined)?.seed ?? (sources[0] as Source).seed;
  const variantNames = [...new Set(sources.flatMap((src) => src.variants))];
  const groups = sources.flatMap((src) => src.groups);
  const questions = sources.flatMap((src) => src.questions);
  const source = sources.map((src) => src.questionSource).join(', ');
  const byGroup = new Map<string, QuestionRecord[]>();
  for (const q of questions) byGroup.set(q.group_id, [...(byGroup.get(q.group_id) ?? []), q]);
  const domainOf = new Map(sources.flatMap((src) => src.groups.map((g) => [g.group_id, src.domain] as const)));
  // A record's db_id is its dataset's name (unique in an export: checked above).
  const dbOf = new Map(sources.flatMap((src) => src.groups.map((g) => [g.group_id, src.dataset] as const)));

  const plan = planSplits(
    groups.map((g) => ({
      group_id: g.group_id,
      skeleton: g.skeleton,
      domain: domainOf.get(g.group_id) as string,
      db_id: dbOf.get(g.group_id) as string,
    })),
    variantNames,
    options.split,
    options.ratios,
    seed,
    sharedTexts(groups, questions),
  );
  const controls = options.rows ?? DEFAULT_ROW_CONTROLS;
  let crossed = 0;
  const units = groups.map((g) => {
    const split = plan.groups.get(g.group_id) as SplitName;
    const qs = byGroup.get(g.group_id) ?? [];
    const variants = plan.variants
      ? Object.keys(g.variants).filter((v) => plan.variants?.get(v) === split)
      : Object.keys(g.variants);
    if (plan.variants) crossed += qs.length * (Object.keys(g.variants).length - variants.length);
    return { group: g, split, questions: qs, variants, domain: domainOf.get(g.group_id) as string };
  });
  const { rows, duplicates } = splitRows(units, controls, seed);
  const promptSchema = options.promptSchema ?? 'compact';
  // Each source's schemas are built once: the prompt schemas and defog's metadata read them.
  const builtOf = new Map<string, BuiltSchemas>();
  const built = (src: Source): BuiltSchemas => {
    let b = builtOf.get(src.dir);
    if (b === undefined) {
      b = builtSchemas(src.dir);
      builtOf.set(src.dir, b);
    }
    return b;
  };
  const ddl = new Map<string, string>(
    sources.flatMap((src) =>
      [...(promptSchema === 'full' ? src.ddl : promptSchemaTexts(src.dir, promptSchema, built(src)))].map(
        ([v, text]) => [`${src.dataset}/${v}`, text] as const,
      ),
    ),
  );
  const schemas: Record<string, { ddl: string; dump: string }> = {};
  rmSync(join(dir, 'datasets'), { recursive: true, force: true });
  for (const src of sources) {
    const prefix = src === main ? '' : `datasets/${src.dataset}/`;
    if (src !== main) {
      for (const sub of ['schemas', 'dumps']) cpSync(join(src.dir, sub), join(dir, prefix, sub), { recursive: true });
    }
    for (const v of src.variants)
      schemas[`${src.dataset}/${v}`] = { ddl: `${prefix}schemas/${v}.sql`, dump: `${prefix}dumps/${v}.sql` };
  }

  mkdirSync(join(dir, 'data'), { recursive: true });
  mkdirSync(join(dir, 'finetune'), { recursive: true });
  // What a killed export left: temporary files beside the ones it was writing.
  removeStaleTemps(dir, ['', 'data', 'finetune']);
  const files: Record<string, ExportFileEntry> = {};
  // Lines are written a chunk at a time: a large export's file does not fit in one string.
  const put = (rel: string, lines: Iterable<string>, count: number): void => {
    files[rel] = { rows: count, sha256: writeLinesAtomic(join(dir, rel), lines) };
  };
  const seconds = { jsonl: 0, parquet: 0 };
  // Token lengths and the trainers' settings follow the fine-tuning text, in JSON Lines or Parquet.
  const finetuneFormats = (['chat', 'prompt'] as const).filter((f) => options.formats.includes(f)) as FinetuneFormat[];
  const tunedFiles = (['chat', 'prompt'] as const).flatMap((f) => [
    ...(options.formats.includes(f) ? [[f, 'jsonl'] as const] : []),
    ...(options.formats.includes(`${f}-parquet`) ? [[f, 'parquet'] as const] : []),
  ]);
  const rowTokens = new Map<SplitName, readonly RowTokens[]>();
  // The files standard evaluators read (evaluators/<format>/), and the records a format cannot hold.
  const evaluatorFormats = EVALUATOR_FORMATS.filter((f) => options.formats.includes(f));
  const leftOut: Partial<Record<EvaluatorFormat, number>> = {};
  prepareEvaluatorDirs(dir, evaluatorFormats);
  const sqliteHeld: ExportRecord[] = [];
  const rl = rlSource ? rlWriter(rlSource, rlFormats, files) : undefined;
  let rlSection: RlSection | undefined;
  const splits: Partial<Record<SplitName, { rows: number; groups: number }>> = {};
  try {
    const totalRows = SPLIT_NAMES.reduce((a, s) => a + rows[s].length, 0);
    let rowsDone = 0;
    options.tick?.({ stage: 'export', done: 0, total: totalRows, unit: 'rows' });
    for (const split of SPLIT_NAMES) {
      const list = rows[split];
      if (list.length === 0) continue;
      splits[split] = { rows: list.length, groups: new Set(list.map((r) => r.group_id)).size };
      if (options.formats.includes('jsonl')) {
        const t = performance.now();
        put(dataFile(split, 'jsonl'), mapLines(list, serializeRecord), list.length);
        seconds.jsonl += (performance.now() - t) / 1000;
      }
      if (options.formats.includes('parquet')) {
        const t = performance.now();
        const rel = dataFile(split, 'parquet');
        await writeParquet(join(dir, rel), list);
        files[rel] = {
          rows: list.length,
          sha256: createHash('sha256')
            .update(readFileSync(join(dir, rel)))
            .digest('hex'),
        };
        seconds.parquet += (performance.now() - t) / 1000;
      }
      const tuned = finetuneSplit(
        split,
        list,
        finetuneFormats,
        (r) => ddl.get(r.schema_id) as string,
        tunedFiles.length > 0,
      );
      for (const f of tuned.files) put(f.rel, f.lines, f.count);
      for (const kind of ['chat', 'prompt'] as const) {
        if (!options.formats.includes(`${kind}-parquet`)) continue;
        const rel = finetuneParquetFile(split, kind);
        await writeMessagesParquet(join(dir, rel), kind, list, (r) => ddl.get(r.schema_id) as string);
        files[rel] = {
          rows: list.length,
          sha256: createHash('sha256')
            .update(readFileSync(join(dir, rel)))
            .digest('hex'),
        };
      }
      if (tunedFiles.length > 0) rowTokens.set(split, tuned.tokens);
      const evaluated = evaluatorFiles(split, list, evaluatorFormats, sqliteFrom);
      for (const f of evaluated.files) put(f.rel, f.lines, f.count);
      sqliteHeld.push(...evaluated.sqliteRows);
      if (evaluatorFormats.includes('sqlite'))
        options.progress?.(
          `export: ${split}: sqlite: ${evaluated.spiderRows} of ${evaluated.sqliteRows.length} rows in the grammar of Spider's evaluator (evaluators/sqlite/spider/)`,
        );
      for (const [f, n] of Object.entries(evaluated.leftOut) as [EvaluatorFormat, number][])
        leftOut[f] = (leftOut[f] ?? 0) + n;
      await rl?.split(split, list, (r) => ddl.get(r.schema_id) as string);
      options.progress?.(`export: ${split}: ${list.length} rows of ${splits[split]?.groups} groups`);
      rowsDone += list.length;
      options.tick?.({ stage: 'export', done: rowsDone, total: totalRows, unit: 'rows' });
    }
    // The SQLite files the layout's rows run on, copied where the evaluators look for them.
    if (sqliteFrom) {
      const uses = new Map<string, number>();
      for (const r of sqliteHeld) uses.set(r.schema_id, (uses.get(r.schema_id) ?? 0) + 1);
      for (const [rel, { file, dbId }] of [...sqliteDatabases(sqliteHeld, sqliteFrom)].sort(([a], [b]) =>
        a < b ? -1 : 1,
      )) {
        mkdirSync(dirname(join(dir, rel)), { recursive: true });
        copyFileSync(file, join(dir, rel));
        files[rel] = {
          rows: uses.get(dbId) ?? 0,
          sha256: createHash('sha256')
            .update(readFileSync(join(dir, rel)))
            .digest('hex'),
        };
      }
      // Spider's schema file, read off the copies the evaluators open.
      const ids = [...new Set(sqliteHeld.map((r) => r.schema_id))].sort();
      const entries = ids.map((id) => spiderTables(id, join(dir, sqliteDatabaseRel(id, 'main'))));
      put(SPIDER_TABLES_FILE, [`${JSON.stringify(entries, null, 2)}\n`], ids.length);
    }
    // sql-eval looks each db_name up in a defog-data package: the export's databases as one.
    if (evaluatorFormats.includes('defog')) {
      const schemas = new Map(
        sources.flatMap((src) => {
          const { schemas } = built(src);
          return src.variants.map((v) => [`${src.dataset}/${v}`, schemas.get(v) as RelationalSchema] as const);
        }),
      );
      mkdirSync(join(dir, DEFOG_DATA_DIR), { recursive: true });
      for (const f of defogDataFiles(schemas)) put(f.rel, f.lines, f.count);
    }
    rlSection = rl?.finish();
    if (rlSection && rlSection.left_out > 0)
      options.progress?.(`export: rl: ${rlSection.left_out} rows left out (their gold SQL does not run on SQLite)`);
  } finally {
    rl?.close();
  }
  const tokens = finetuneTokens(rowTokens, tunedFiles);
  const tunedSplits = [...rowTokens.keys()];
  if (finetuneFormats.includes('chat') && tunedSplits.length > 0) {
    put(LLAMA_FACTORY_FILE, [llamaFactoryInfo(dataset, tunedSplits)], 1);
    put(AXOLOTL_FILE, [axolotlSnippet(dataset, tunedSplits, tokens.suggested)], 1);
  }
  // The rows' JSON Schema travels with them, so the folder checks and documents itself.
  put('record.schema.json', [readFileSync(RECORD_SCHEMA_PATH, 'utf8')], 1);
  put('.gitattributes', [GITATTRIBUTES], 1);
  // An earlier export's files that this one did not write would mix two exports.
  for (const sub of ['data', 'finetune']) {
    for (const name of readdirSync(join(dir, sub)))
      if (!name.startsWith('.') && !files[`${sub}/${name}`])
        rmSync(join(dir, sub, name), { force: true, recursive: true });
  }
  removeStaleEvaluatorFiles(dir, evaluatorFormats, files);
  removeStaleRlFiles(dir, files);
  for (const [f, n] of Object.entries(leftOut) as [EvaluatorFormat, number][])
    if (n > 0) options.progress?.(`export: ${leftOutNote(f, n)}`);

  const all = SPLIT_NAMES.flatMap((s) => rows[s]);
  const exportSection = {
    split: options.split,
    ratios: options.ratios,
    seed,
    formats: [...options.formats],
    prompt_schema: promptSchema,
    row_controls: {
      variants_per_question: controls.variantsPerQuestion,
      paraphrases_per_style: controls.paraphrasesPerStyle,
      dedupe: controls.dedupe,
      ...(controls.maxRows !== undefined ? { max_rows: controls.maxRows } : {}),
    },
    questions: source,
    counts: {
      ...(sources.length > 1 ? { datasets: sources.map((src) => src.dataset) } : {}),
      groups: groups.length,
      groups_with_questions: groups.filter((g) => (byGroup.get(g.group_id) ?? []).length > 0).length,
      questions: questions.length,
      rows: all.length,
      ...(plan.variants ? { rows_left_out_crossing_variant_split: crossed } : {}),
      duplicates_dropped: duplicates,
    },
    ...(tunedFiles.length > 0 ? { tokens } : {}),
    ...(evaluatorFormats.length > 0 ? { evaluators: { formats: evaluatorFormats, left_out: leftOut } } : {}),
    ...(rlSection ? { rl: rlSection } : {}),
    splits,
    ...(plan.variants
      ? { variant_splits: Object.fromEntries([...plan.variants].sort(([a], [b]) => (a < b ? -1 : 1))) }
      : {}),
    schemas,
    files,
  };
  const cardExtras = {
    promptSchema,
    controls,
    duplicates,
    tokens,
    fields: recordFieldDescriptions(),
    ...(options.card ? { metadata: options.card } : {}),
  };
  // What belongs on the Hub: the card, the manifest, the export's files, schemas and dumps.
  // The Hub takes no databases: the SQLite layout's copies stay out of its list.
  const hubText = hubFiles(
    dir,
    Object.keys(files).filter((f) => !f.startsWith(SQLITE_DATABASE_DIR)),
  )
    .map(
      (f) => `${f}
`,
    )
    .join('');
  const card = datasetCard({
    dataset,
    domain,
    description: main
      ? String((readJson(join(dir, 'er.json'), 'er.json')['description'] as string | undefined) ?? '')
      : '',
    ...(main ? {} : { databases: sources.map((src) => src.dataset) }),
    split: options.split,
    rows: all,
    splits,
    files,
    variants: variantNames,
    seed,
    questionSource: source,
    ...cardExtras,
  });
  // The card and the list first, the manifest (which seals them) last: a kill between them
  // leaves a manifest whose seals the new card does not match, which check reports.
  writeFileAtomic(join(dir, HUB_LIST_FILE), hubText);
  writeFileAtomic(join(dir, 'README.md'), card);
  const seals = {
    ...(manifestSeals(manifest, manifestPath) ?? {}),
    [HUB_LIST_FILE]: sealText(hubText),
    'README.md': sealText(card),
  };
  const merged = { ...manifest, export: exportSection, seals };
  writeFileAtomic(manifestPath, `${JSON.stringify(JSON.parse(stableStringify(merged)), null, 2)}\n`);
  options.progress?.(`export: ${all.length} rows of ${groups.length} groups (${options.split} split) into ${dir}`);
  return {
    rows: all.length,
    groups: groups.length,
    splits,
    files,
    seconds: { ...seconds, total: (performance.now() - started) / 1000 },
  };
}

/** The lines of `items`, made one at a time as they are written. */
function* mapLines<T>(items: readonly T[], line: (item: T) => string): Generator<string> {
  for (const item of items) yield line(item);
}

/** Each record field's description, as record.schema.json gives it. */
function recordFieldDescriptions(): Record<string, string> {
  const schema = JSON.parse(readFileSync(RECORD_SCHEMA_PATH, 'utf8')) as {
    properties: Record<string, { description?: string }>;
  };
  return Object.fromEntries(Object.entries(schema.properties).map(([k, v]) => [k, v.description ?? '']));
}
