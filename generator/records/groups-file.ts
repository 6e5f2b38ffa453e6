/**
 * The files of the groups stage: `groups/<dataset>.jsonl` (one accepted group a line) and
 * `rejections.jsonl` (one rejected candidate a line). Both are appended line by line; a
 * crash can leave at most one unfinished last line, which reading for a resume cuts off.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, truncateSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ConfigError, FileSystemError } from '../common/errors.ts';
import { describeFileSystemError, isFileSystemError } from '../common/input-file.ts';
import {
  checkShape,
  GROUP_SHAPE,
  REJECTION_REASONS,
  REJECTION_SHAPE,
  type GroupRecord,
  type Rejection,
  type RejectionReason,
} from './group-record.ts';

export function groupsPath(out: string, dataset: string): string {
  return join(out, 'groups', `${dataset}.jsonl`);
}

export function rejectionsPath(out: string): string {
  return join(out, 'rejections.jsonl');
}

/** The files the groups stage writes (and seals), relative to its directory. */
export function stageFiles(dataset: string): string[] {
  return [`groups/${dataset}.jsonl`, 'rejections.jsonl'];
}

/**
 * Appends one line (which must end in a newline), creating the folder. A file system that
 * refuses (a full disk) is a one-line FileSystemError naming the file; what it left of the
 * line has no newline, so a `--resume` cuts it off and writes the line again.
 */
export function appendLine(path: string, line: string): void {
  try {
    mkdirSync(dirname(path), { recursive: true });
    appendFileSync(path, line);
  } catch (error) {
    if (isFileSystemError(error))
      throw new FileSystemError(
        `cannot append to ${describeFileSystemError(error, path)}; free the space and continue with --resume`,
        { cause: error },
      );
    throw error;
  }
}

/**
 * Reads a JSON Lines file written by `appendLine`. An unfinished last line (no newline) is
 * cut off the file when `repair` is set, so appending continues on a line boundary.
 */
export function readJsonLines<T>(path: string, repair: boolean): T[] {
  if (!existsSync(path)) return [];
  const text = readFileSync(path, 'utf8');
  const end = text.lastIndexOf('\n') + 1;
  if (end < text.length && repair) truncateSync(path, Buffer.byteLength(text.slice(0, end), 'utf8'));
  return text
    .slice(0, end)
    .split('\n')
    .filter((line) => line !== '')
    .map((line, i) => {
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        throw new ConfigError(`${path}:${i + 1}: not a JSON line`);
      }
      // Every stage file holds one record (an object) a line; `42` or `[]` is not one.
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        throw new ConfigError(
          `${path}:${i + 1}: not a JSON object (a record a line), got ${Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`}`,
        );
      }
      return value as T;
    });
}

/**
 * Reads a stage file's records, each checked against its type's shape (`checkShape`) and,
 * with `key`, unique by that field: a line repeated is refused, naming both lines.
 */
export function readRecords<T>(
  path: string,
  repair: boolean,
  what: string,
  shape: Parameters<typeof checkShape>[3],
  key?: keyof T & string,
): T[] {
  const records = readJsonLines<unknown>(path, repair).map((value, i) =>
    checkShape<T>(value, `${path}:${i + 1}`, what, shape),
  );
  if (key) {
    const first = new Map<unknown, number>();
    for (const [i, r] of records.entries()) {
      const id = r[key];
      const earlier = first.get(id);
      if (earlier !== undefined)
        throw new ConfigError(
          `${path}:${i + 1}: ${key} ${String(id).slice(0, 16)} repeats line ${earlier + 1} (a line written twice?)`,
        );
      first.set(id, i);
    }
  }
  return records;
}

/** The groups of a groups file, each line checked to be a group and no group_id twice. */
export function readGroups(path: string, repair = false): GroupRecord[] {
  return readRecords<GroupRecord>(path, repair, 'a group', GROUP_SHAPE, 'group_id');
}

export interface GroupsState {
  readonly groups: readonly GroupRecord[];
  readonly rejections: readonly Rejection[];
  /** The next candidate to try: one past the last candidate either file records. */
  readonly nextCandidate: number;
}

/** What an earlier run left in `out` (nothing for a fresh directory). */
export function readGroupsState(out: string, dataset: string, repair: boolean): GroupsState {
  const groups = readGroups(groupsPath(out, dataset), repair);
  const rejections = readRecords<Rejection>(rejectionsPath(out), repair, 'a rejection', REJECTION_SHAPE, 'candidate');
  const nextCandidate = checkCandidates(groupsPath(out, dataset), groups, rejections);
  return { groups, rejections, nextCandidate };
}

/**
 * Every candidate of a run is in exactly one of its two files, in order: candidates 0…n−1
 * are decided one after another and each is appended as a group or as a rejection. A gap
 * (a line deleted) or a candidate in both files (a line copied) means the files were changed
 * after the run wrote them; a resume over them would continue into another dataset. Returns n.
 */
export function checkCandidates(
  groupsFile: string,
  groups: readonly GroupRecord[],
  rejections: readonly Rejection[],
): number {
  const rejectionsFile = join(dirname(dirname(groupsFile)), 'rejections.jsonl');
  const where = new Map<number, string>();
  const note = (candidate: number, file: string, line: number, previous: number): void => {
    if (candidate <= previous)
      throw new ConfigError(
        `${file}:${line}: candidate ${candidate} after candidate ${previous} (the run writes them in order; a line moved or copied?)`,
      );
    const other = where.get(candidate);
    if (other !== undefined)
      throw new ConfigError(`${file}:${line}: candidate ${candidate} is also ${other} (a line copied?)`);
    where.set(candidate, `${file}:${line}`);
  };
  groups.forEach((g, i) =>
    note(g.candidate, groupsFile, i + 1, i === 0 ? -1 : (groups[i - 1] as GroupRecord).candidate),
  );
  rejections.forEach((r, i) =>
    note(r.candidate, rejectionsFile, i + 1, i === 0 ? -1 : (rejections[i - 1] as Rejection).candidate),
  );
  const n = where.size;
  for (let c = 0; c < n; c++) {
    if (!where.has(c))
      throw new ConfigError(
        `${groupsFile}: candidate ${c} is in neither it nor ${rejectionsFile}, though later ones are (a line deleted?); choose another --out or start the run anew`,
      );
  }
  return n;
}

/** Rejections counted by reason, every reason present (zero when unused), in the closed order. */
export function countRejections(rejections: readonly Rejection[]): Record<RejectionReason, number> {
  const counts = Object.fromEntries(REJECTION_REASONS.map((r) => [r, 0])) as Record<RejectionReason, number>;
  // A reason of the SQLite checks is counted only where it occurs (see `EngineRejectionReason`).
  for (const r of rejections) counts[r.reason] = (counts[r.reason] ?? 0) + 1;
  return counts;
}
