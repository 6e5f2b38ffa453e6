/**
 * A corpus split over the tasks of an array job by whole databases: `generate --corpus NAME
 * --shard i/N` runs the databases whose place k in the corpus has k mod N = i−1, each the
 * very run the unsharded corpus makes of it (the same code, flags and seed), into
 * `DIR_i/databases/<db_id>/`, and writes no export. `merge` then gathers every database
 * into one folder and exports it as the unsharded corpus does, so the result is its bytes.
 * No task repeats another's work, unlike one dataset's shards (merge-shards.ts), which must
 * each look past their share for the candidates the merged run will need.
 *
 * A shard's folder holds `corpus-shard.json` (the corpus, the settings and the databases it
 * owns) from its start and `shard.done` (each database's manifest hash) once every one of
 * them has finished.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { writeFileAtomic } from '../common/atomic-write.ts';
import { ConfigError } from '../common/errors.ts';
import { sha256, stableStringify } from '../common/hash.ts';
import { checkOutputDir } from '../common/make-directory.ts';
import { exportDataset } from '../export/export-dataset.ts';
import {
  firstDifference,
  noteShard,
  refuseMissingShards,
  type MergeOptions,
  type MergeReport,
} from './merge-shards.ts';
import type { ShardSpec } from './shard-run.ts';

export const CORPUS_SHARD_FILE = 'corpus-shard.json';
const DONE_FILE = 'shard.done';

/** What a corpus shard is: written when it starts, read by `merge`. */
export interface CorpusShardState {
  readonly stage: 'corpus-shard';
  /** The corpus section of the unsharded run's manifest: its name and every database. */
  readonly corpus: { readonly name: string; readonly databases: readonly { readonly db_id: string }[] };
  /** The unsharded run's settings, as its manifest records them. */
  readonly settings: Readonly<Record<string, unknown>>;
  /** The other flags that decide the databases' data (scale, variants, grammar, …), as given. */
  readonly run: Readonly<Record<string, unknown>>;
  readonly shard: ShardSpec;
  /** The db_ids this shard runs, in corpus order. */
  readonly databases: readonly string[];
}

interface CorpusShardDone {
  readonly stage: 'corpus-shard-done';
  readonly corpus: string;
  readonly shard: ShardSpec;
  /** Each database's manifest.json hash as the shard finished it. */
  readonly databases: Readonly<Record<string, string>>;
}

/** The databases of shard `shard`: those whose place k in the corpus has k mod N = i−1. */
export function ownedDatabases<T>(databases: readonly T[], shard: ShardSpec): T[] {
  return databases.filter((_, k) => k % shard.count === shard.index - 1);
}

const json = (value: unknown): string => `${JSON.stringify(JSON.parse(stableStringify(value)), null, 2)}\n`;
const manifestHash = (dir: string, dbId: string): string =>
  sha256(readFileSync(join(dir, 'databases', dbId, 'manifest.json'), 'utf8'));

/**
 * Starts a corpus shard in `out`, or checks that the shard already there is this one (a
 * `--resume`): another corpus, settings or shard is refused in one line.
 */
export function startCorpusShard(out: string, state: CorpusShardState, resume: boolean): void {
  const path = join(out, CORPUS_SHARD_FILE);
  if (existsSync(path)) {
    if (!resume)
      throw new ConfigError(
        `generate: ${out} already holds a corpus shard; give --resume to continue it, or another --out`,
      );
    if (readFileSync(path, 'utf8') !== json(state))
      throw new ConfigError(
        `generate: ${path}: another corpus, settings or shard was generated here; give another --out`,
      );
    rmSync(join(out, DONE_FILE), { force: true });
    return;
  }
  if (existsSync(join(out, 'manifest.json')))
    throw new ConfigError(`generate: ${out} already holds a run; give another --out`);
  mkdirSync(out, { recursive: true });
  writeFileAtomic(path, json(state));
}

/** Marks the shard in `out` complete: every database it owns has finished. */
export function finishCorpusShard(out: string, state: CorpusShardState): void {
  const done: CorpusShardDone = {
    stage: 'corpus-shard-done',
    corpus: state.corpus.name,
    shard: state.shard,
    databases: Object.fromEntries(state.databases.map((db) => [db, manifestHash(out, db)])),
  };
  writeFileAtomic(join(out, DONE_FILE), json(done));
}

/** Whether `dir` is a corpus shard's folder. */
export function isCorpusShard(dir: string): boolean {
  return existsSync(join(dir, CORPUS_SHARD_FILE));
}

function readJson<T>(path: string): T {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch (error) {
    throw new ConfigError(`merge: ${path}: not JSON: ${(error as Error).message}`);
  }
}

/** The shards, checked to be every shard of one corpus run, each complete. */
function checkCorpusShards(dirs: readonly string[]): { dir: string; state: CorpusShardState }[] {
  const shards = dirs.map((dir) => {
    if (!isCorpusShard(dir))
      throw new ConfigError(
        `merge: ${dir}: not a shard of a corpus (no ${CORPUS_SHARD_FILE}), but ${dirs[0]} is one: merge the shards of one run`,
      );
    const path = join(dir, CORPUS_SHARD_FILE);
    const state = readJson<CorpusShardState | null>(path);
    if (
      state === null ||
      typeof state !== 'object' ||
      state.stage !== 'corpus-shard' ||
      typeof state.shard?.index !== 'number' ||
      typeof state.shard?.count !== 'number' ||
      !Array.isArray(state.corpus?.databases) ||
      !Array.isArray(state.databases)
    )
      throw new ConfigError(
        `merge: ${path} is not a corpus shard's state (run its generate command again into a new --out)`,
      );
    return { dir, state };
  });
  const first = shards[0] as (typeof shards)[number];
  const count = first.state.shard.count;
  const seen = new Map<number, string>();
  for (const { dir, state } of shards) {
    if (stableStringify(state.corpus) !== stableStringify(first.state.corpus))
      throw new ConfigError(`merge: ${dir} is a shard of another corpus than ${first.dir}`);
    for (const part of ['settings', 'run'] as const) {
      const a = (state[part] ?? {}) as Record<string, unknown>;
      const b = (first.state[part] ?? {}) as Record<string, unknown>;
      const key = firstDifference(a, b);
      if (key !== undefined)
        throw new ConfigError(
          `merge: ${dir} was generated with ${key} ${stableStringify(a[key] ?? null)}, but ${first.dir} with ${stableStringify(b[key] ?? null)}`,
        );
    }
    noteShard(seen, dir, state.shard, first.dir, count);
    const own = ownedDatabases(
      first.state.corpus.databases.map((d) => d.db_id),
      state.shard,
    );
    if (stableStringify(own) !== stableStringify(state.databases))
      throw new ConfigError(
        `merge: ${join(dir, CORPUS_SHARD_FILE)} lists other databases than shard ${state.shard.index}/${count} runs`,
      );
    const donePath = join(dir, DONE_FILE);
    if (!existsSync(donePath))
      throw new ConfigError(
        `merge: shard ${state.shard.index}/${count} in ${dir} is incomplete: no completion marker ${DONE_FILE} (its task did not finish: rerun its generate command with --resume)`,
      );
    const done = readJson<CorpusShardDone>(donePath);
    for (const db of state.databases) {
      const recorded = done.databases?.[db];
      const manifest = join(dir, 'databases', db, 'manifest.json');
      if (recorded === undefined || !existsSync(manifest) || recorded !== manifestHash(dir, db))
        throw new ConfigError(
          `merge: ${donePath} does not match ${manifest} (database ${db} changed after the shard finished, or is missing): run shard ${state.shard.index}/${count} again into a new --out`,
        );
    }
  }
  refuseMissingShards(seen, count, ` of corpus ${first.state.corpus.name}`);
  return shards.sort((a, b) => a.state.shard.index - b.state.shard.index);
}

/**
 * Gathers the databases of every corpus shard into `out` and exports them as the unsharded
 * corpus run does: its manifest, its databases' folders and its export, byte for byte.
 *
 * @example
 * await mergeCorpusShards({ out: 'out/corpus', shards: ['out/c-0', 'out/c-1'], ...exportSettings('merge', {}) });
 */
export async function mergeCorpusShards(options: MergeOptions): Promise<MergeReport> {
  const { out } = options;
  checkOutputDir(out, '--out');
  if (existsSync(out) && readdirSync(out).length > 0)
    throw new ConfigError(`merge: --out ${out} is not empty (merge writes a new directory)`);
  const shards = checkCorpusShards(options.shards);
  const { corpus, settings } = (shards[0] as (typeof shards)[number]).state;
  const staging = join(dirname(out), `.${basename(out)}.merging`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(join(staging, 'databases'), { recursive: true });
  writeFileAtomic(join(staging, 'manifest.json'), json({ corpus, settings }));
  let groups = 0;
  for (const { dir, state } of shards) {
    for (const db of state.databases) {
      cpSync(join(dir, 'databases', db), join(staging, 'databases', db), { recursive: true });
      const manifest = readJson<{ counts?: { accepted?: number } }>(join(dir, 'databases', db, 'manifest.json'));
      groups += manifest.counts?.accepted ?? 0;
    }
  }
  options.progress?.(
    `merge: ${corpus.databases.length} databases of corpus ${corpus.name} from ${shards.length} shards`,
  );
  const exported = await exportDataset({
    dir: staging,
    split: options.split,
    ratios: options.ratios,
    formats: options.formats,
    promptSchema: options.promptSchema,
    rows: options.rows,
    ...(options.progress ? { progress: options.progress } : {}),
    ...(options.tick ? { tick: options.tick } : {}),
  });
  if (existsSync(out)) rmSync(out, { recursive: true });
  renameSync(staging, out);
  const target = Number(settings['groups'] ?? 0) * corpus.databases.length;
  return { groups, candidates: 0, target, rows: exported.rows };
}
