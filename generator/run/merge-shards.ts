/**
 * `equisql merge`: joins the directories of N shard runs (`generate --shard i/N`) into the
 * directory one unsharded `generate` with the same settings writes. The shards' builds are
 * the same bytes (same settings and seed), so the first one's is copied with its database; the groups and
 * rejections come from replaying every shard's candidate outcomes in candidate order
 * (shard-replay.ts); the questions and export stages then run on them as in `generate`.
 * Every file is the unsharded run's, byte for byte, except the manifest's `timings`, which
 * add up the shards' groups stages (they are of runs, not of the data).
 *
 * The merged directory is written beside `out` and renamed into place at the end, so a
 * crashed merge leaves no half directory and a rerun starts clean.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { checkOutputDir } from '../common/make-directory.ts';
import { ConfigError, FileSystemError } from '../common/errors.ts';
import { describeFileSystemError, isFileSystemError } from '../common/input-file.ts';
import { stableStringify } from '../common/hash.ts';
import { writeFileAtomic } from '../common/atomic-write.ts';
import { DIFFICULTIES, type Difficulty, type GroupRecord } from '../records/group-record.ts';
import { countRejections, groupsPath, rejectionsPath } from '../records/groups-file.ts';
import { checkSeal } from '../common/file-seal.ts';
import { writeManifest } from './generate-groups.ts';
import {
  candidatesFile,
  candidatesPath,
  readCandidates,
  readShardDone,
  readShardState,
  type CandidateOutcome,
  type ShardDone,
  type ShardSpec,
  type ShardState,
} from './shard-run.ts';
import { replayShards } from './shard-replay.ts';
import { writeRunSettings } from './run-settings.ts';
import { writeQuestionsAfterGroups } from '../questions/questions-stage.ts';
import { exportDataset } from '../export/export-dataset.ts';
import type { ExportSettings } from '../export/export-settings.ts';
import type { ProgressTick } from '../common/progress-tick.ts';

export interface MergeOptions extends ExportSettings {
  /** The merged directory; it must not exist yet (or be empty). */
  readonly out: string;
  /** The shard directories, in any order. */
  readonly shards: readonly string[];
  readonly progress?: (line: string) => void;
  readonly tick?: ProgressTick;
}

export interface MergeReport {
  readonly groups: number;
  readonly candidates: number;
  /** The target number of groups the shards were run for. */
  readonly target: number;
  readonly rows: number;
}

/**
 * A shard directory's own state, not copied; the rest is its build (files and the PGlite
 * database, if it used one), which the merged directory keeps so that verify and the LLM
 * writer find the database there as in an unsharded run's directory.
 */
const NOT_COPIED = new Set(['shard', 'shard.json', 'shard.done']);

const GLOB = /[*?[]/u;

/** One path segment's pattern (`*`, `?`, `[…]`) as a regular expression. */
function segmentPattern(segment: string): RegExp {
  let source = '';
  for (let i = 0; i < segment.length; i++) {
    const ch = segment[i] as string;
    if (ch === '*') source += '[^/]*';
    else if (ch === '?') source += '[^/]';
    else if (ch === '[') {
      const end = segment.indexOf(']', i + 2);
      if (end < 0) source += '\\[';
      else {
        const body = segment.slice(i + 1, end);
        const negate = body.startsWith('!') || body.startsWith('^');
        source += `[${negate ? '^' : ''}${(negate ? body.slice(1) : body).replace(/[\\\]^[]/gu, '\\$&')}]`;
        i = end;
      }
    } else source += ch.replace(/[.+^${}()|\\\]]/gu, '\\$&');
  }
  return new RegExp(`^${source}$`, 'u');
}

/**
 * The shard folders `merge` names: each operand a folder, or a pattern (`out/shard-*`,
 * `out/retail-[0-9]`) matched against folders here, as a shell would, for engines and
 * scripts that pass it quoted. Names starting with a dot match only a pattern starting with
 * one. A pattern matching no folder is refused in one line naming it; the result is sorted
 * within each pattern, and a folder named twice stays twice (the merge refuses it as given twice).
 *
 * @example
 * expandShardDirs(['out/retail-*'], process.cwd()); // ['/…/out/retail-0', '/…/out/retail-1', …]
 */
export function expandShardDirs(operands: readonly string[], cwd: string): string[] {
  const out: string[] = [];
  for (const operand of operands) {
    if (!GLOB.test(operand)) {
      out.push(resolve(cwd, operand));
      continue;
    }
    const absolute = isAbsolute(operand) ? operand : join(cwd, operand);
    const segments = absolute.split(sep).filter((s, i) => s !== '' || i === 0);
    let paths = [segments[0] === '' ? sep : (segments[0] as string)];
    for (const segment of segments.slice(1)) {
      if (!GLOB.test(segment)) {
        paths = paths.map((p) => join(p, segment));
        continue;
      }
      const pattern = segmentPattern(segment);
      paths = paths.flatMap((p) => {
        const stat = statSync(p, { throwIfNoEntry: false });
        if (!stat?.isDirectory()) return [];
        return readdirSync(p)
          .filter((name) => pattern.test(name) && (!name.startsWith('.') || segment.startsWith('.')))
          .sort()
          .map((name) => join(p, name));
      });
    }
    const dirs = paths.filter((p) => statSync(p, { throwIfNoEntry: false })?.isDirectory());
    if (dirs.length === 0) throw new ConfigError(`merge: ${operand} matches no directory`);
    out.push(...dirs);
  }
  return out;
}

/** The first top-level key whose values differ, for a one-line message. */
export function firstDifference(
  a: Readonly<Record<string, unknown>>,
  b: Readonly<Record<string, unknown>>,
): string | undefined {
  for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
    if (stableStringify(a[key] ?? null) !== stableStringify(b[key] ?? null)) return key;
  }
  return undefined;
}

/**
 * The directories a merge names, checked before anything is locked or read: every shard a
 * directory, `--out` a directory or nothing yet. One line each, naming the path.
 */
export function checkMergeDirs(out: string, shards: readonly string[]): void {
  for (const dir of shards) {
    const stat = statSync(dir, { throwIfNoEntry: false });
    if (!stat) throw new ConfigError(`merge: ${dir}: no such directory`);
    if (!stat.isDirectory())
      throw new ConfigError(
        `merge: ${dir}: a file, not a shard directory (name the directories generate --shard i/N wrote)`,
      );
  }
  const parent = statSync(dirname(out), { throwIfNoEntry: false });
  if (parent && !parent.isDirectory())
    throw new ConfigError(`merge: --out ${out}: ${dirname(out)} is a file, not a directory`);
  let stat: ReturnType<typeof statSync> | undefined;
  try {
    stat = statSync(out, { throwIfNoEntry: false });
  } catch (error) {
    // A symlink loop or another refusal of the file system: said as every command says it.
    if ((error as NodeJS.ErrnoException).code !== 'ENOTDIR' && isFileSystemError(error))
      throw new FileSystemError(`--out ${describeFileSystemError(error, out)}`, { cause: error });
    // A file further up the path.
    throw new ConfigError(
      `merge: --out ${out}: ${(error as NodeJS.ErrnoException).code === 'ENOTDIR' ? 'a file on the way, not a directory' : (error as Error).message}`,
    );
  }
  if (stat && !stat.isDirectory())
    throw new ConfigError(`merge: --out ${out}: a file, not a directory (merge writes a new directory)`);
}

/** Notes shard `shard` of `dir` in `seen` (index → folder); one of another count, or given twice, is refused. */
export function noteShard(
  seen: Map<number, string>,
  dir: string,
  shard: ShardSpec,
  firstDir: string,
  count: number,
): void {
  if (shard.count !== count)
    throw new ConfigError(
      `merge: ${dir} is shard ${shard.index}/${shard.count}, but ${firstDir} is one of ${count} shards`,
    );
  const other = seen.get(shard.index);
  if (other !== undefined)
    throw new ConfigError(`merge: shard ${shard.index}/${count} is given twice (${other} and ${dir})`);
  seen.set(shard.index, dir);
}

/** Refuses shards that leave one of 1 … count out, naming those missing and those given (`of`: what they are shards of). */
export function refuseMissingShards(seen: ReadonlyMap<number, string>, count: number, of: string): void {
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !seen.has(i));
  if (missing.length > 0)
    throw new ConfigError(
      `merge: shard ${missing.map((i) => `${i}/${count}`).join(', ')}${of} missing (given: ${[...seen.keys()]
        .sort((a, b) => a - b)
        .map((i) => `${i}/${count}`)
        .join(', ')})`,
    );
}

/** The shard states, checked to be one complete run of the same settings split N ways. */
function checkShards(
  dirs: readonly string[],
): { dir: string; state: ShardState & { readonly seals: ShardDone['seals'] } }[] {
  if (dirs.length === 0)
    throw new ConfigError('merge: name the shard directories (equisql merge --out DIR DIR_1 … DIR_N)');
  const shards = dirs.map((dir) => {
    if (!existsSync(dir)) throw new ConfigError(`merge: ${dir}: no such directory`);
    const state = readShardState(dir);
    if (!state)
      throw new ConfigError(
        `merge: ${dir}: not a shard run (no shard.json; run equisql generate … --shard i/N --out ${dir})`,
      );
    return { dir, state };
  });
  const first = shards[0] as (typeof shards)[number];
  const count = first.state.shard.count;
  const seen = new Map<number, string>();
  for (const { dir, state } of shards) {
    noteShard(seen, dir, state.shard, first.dir, count);
    const key = firstDifference(first.state.settings, state.settings);
    if (key !== undefined)
      throw new ConfigError(
        `merge: ${dir} was generated with ${key} ${stableStringify(state.settings[key] ?? null)}, but ${first.dir} with ${stableStringify(first.state.settings[key] ?? null)}`,
      );
    if (
      stableStringify(state.instances) !== stableStringify(first.state.instances) ||
      stableStringify(state.variants) !== stableStringify(first.state.variants)
    ) {
      throw new ConfigError(`merge: ${dir} checked other databases than ${first.dir} (instances or variants differ)`);
    }
    if (!state.complete)
      throw new ConfigError(
        `merge: shard ${state.shard.index}/${count} in ${dir} is unfinished: rerun its generate command with --resume`,
      );
    const done = readShardDone(dir);
    if (!done)
      throw new ConfigError(
        `merge: shard ${state.shard.index}/${count} in ${dir} is incomplete: no completion marker shard.done (its task did not finish: rerun its generate command with --resume)`,
      );
    if (
      done.dataset !== state.dataset ||
      done.shard.index !== state.shard.index ||
      done.shard.count !== state.shard.count ||
      stableStringify(done.seals) !== stableStringify(state.seals ?? {})
    ) {
      throw new ConfigError(
        `merge: ${join(dir, 'shard.done')} does not match ${join(dir, 'shard.json')} (another shard's marker, or one of them changed after the shard wrote it): run shard ${state.shard.index}/${count} again into a new --out`,
      );
    }
    const build = (d: string): string =>
      existsSync(join(d, 'build.json')) ? readFileSync(join(d, 'build.json'), 'utf8') : '';
    if (build(dir) !== build(first.dir))
      throw new ConfigError(
        `merge: ${join(dir, 'build.json')} differs from ${join(first.dir, 'build.json')} (shards of one run have the same build)`,
      );
  }
  refuseMissingShards(seen, count, '');
  return shards.sort((a, b) => a.state.shard.index - b.state.shard.index) as {
    dir: string;
    state: ShardState & { readonly seals: ShardDone['seals'] };
  }[];
}

/**
 * Merges shard directories into `out`, as one unsharded `generate` would have written it.
 *
 * @example
 * await mergeShards({ out: 'output/retail', shards: ['out/s1', 'out/s2'], split: 'random', ratios: DEFAULT_RATIOS, formats: EXPORT_FORMATS });
 */
export async function mergeShards(options: MergeOptions): Promise<MergeReport> {
  const { out } = options;
  // A symlink loop or a file at --out would fail only at the final rename, after the whole merge.
  checkOutputDir(out, '--out');
  checkMergeDirs(out, options.shards);
  if (existsSync(out) && readdirSync(out).length > 0)
    throw new ConfigError(`merge: --out ${out} is not empty (merge writes a new directory)`);
  const shards = checkShards(options.shards);
  const first = (shards[0] as (typeof shards)[number]).state;
  const dataset = first.dataset;
  const settings = first.settings as {
    groups: number;
    difficulty: Record<Difficulty, number> | null;
    from_suite: string | null;
    tail: number;
  };
  const hint = (index: number): string =>
    `continue shard ${index} with its generate command plus --resume and a larger --shard-margin (default 0.25)`;
  const replay = replayShards({
    shards: shards.map(({ dir, state }) => {
      // The candidates as the shard closed them, each line an outcome, in the shard's order.
      checkSeal(
        dir,
        candidatesFile(dataset),
        state.seals,
        'exact',
        'merge',
        `run shard ${state.shard.index}/${state.shard.count} again into a new --out`,
        { sealsFile: 'shard.json' },
      );
      const outcomes = readCandidates(candidatesPath(dir, dataset), state.shard, false, 'merge');
      return {
        dir,
        index: state.shard.index,
        outcomes: new Map(outcomes.map((o) => [o.candidate, o])),
        last: outcomes.length > 0 ? (outcomes[outcomes.length - 1] as CandidateOutcome).candidate : -1,
      };
    }),
    groups: settings.groups,
    attempts: first.attempts,
    maxCandidates: first.max_candidates,
    ...(settings.difficulty ? { difficultyMix: settings.difficulty } : {}),
    continueHint: hint,
    redoHint: () =>
      'another shard holds both its group and the spare filling shards verify; no shard tries a third: generate this run unsharded',
  });
  const staging = join(dirname(out), `.${basename(out)}.merging`);
  rmSync(staging, { recursive: true, force: true });
  // The build: the same bytes in every shard (checked above), so the first shard's.
  const source = (shards[0] as (typeof shards)[number]).dir;
  cpSync(source, staging, {
    recursive: true,
    filter: (src) => !NOT_COPIED.has(basename(src)) && !(src !== source && basename(src).startsWith('.')),
  });
  writeRunSettings(staging, first.settings);
  if (replay.groupLines.length > 0) mkdirSync(dirname(groupsPath(staging, dataset)), { recursive: true });
  if (replay.groupLines.length > 0) writeFileAtomic(groupsPath(staging, dataset), replay.groupLines.join(''));
  if (replay.rejections.length > 0)
    writeFileAtomic(rejectionsPath(staging), replay.rejections.map((r) => `${JSON.stringify(r)}\n`).join(''));
  const groups = replay.groupLines.map((line) => JSON.parse(line) as GroupRecord);
  const difficulty = Object.fromEntries(DIFFICULTIES.map((d) => [d, 0])) as Record<Difficulty, number>;
  for (const g of groups) difficulty[g.difficulty] += 1;
  const total = shards.reduce((a, s) => a + s.state.timings.total_seconds, 0);
  const database = shards.reduce((a, s) => a + s.state.timings.database_seconds, 0);
  writeManifest(
    {
      dataset,
      out: staging,
      settings: first.settings,
      instanceHashes: first.instances,
      variants: first.variants.map((name) => ({ name })),
      tail: settings.tail,
      ...(settings.from_suite !== null ? { suite: [] } : {}),
    },
    {
      accepted: groups.length,
      candidates: replay.candidates,
      rejected: countRejections(replay.rejections),
      seconds: { total, database, own: total - database },
      differs3: groups.length === 0 ? 0 : groups.filter((g) => g.distinct_sql >= 3).length / groups.length,
      longTail: groups.length === 0 ? 0 : groups.filter((g) => g.long_tail).length / groups.length,
      difficulty,
    },
  );
  options.progress?.(`merge: ${groups.length} groups from ${replay.candidates} candidates of ${shards.length} shards`);
  await writeQuestionsAfterGroups(staging, options.progress, options.tick);
  const exported =
    groups.length > 0
      ? await exportDataset({
          dir: staging,
          split: options.split,
          ratios: options.ratios,
          formats: options.formats,
          promptSchema: options.promptSchema,
          rows: options.rows,
          ...(options.progress ? { progress: options.progress } : {}),
          ...(options.tick ? { tick: options.tick } : {}),
        })
      : undefined;
  if (existsSync(out)) rmSync(out, { recursive: true });
  renameSync(staging, out);
  return { groups: groups.length, candidates: replay.candidates, target: settings.groups, rows: exported?.rows ?? 0 };
}
