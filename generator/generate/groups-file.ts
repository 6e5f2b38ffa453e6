/**
 * The files of the groups stage: `groups/<dataset>.jsonl` (one accepted group a line) and
 * `rejections.jsonl` (one rejected candidate a line). Both are appended line by line; a
 * crash can leave at most one unfinished last line, which reading for a resume cuts off.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, truncateSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ConfigError, FileSystemError } from '../common/errors.ts';
import { describeFileSystemError, isFileSystemError } from '../common/input-file.ts';
import { REJECTION_REASONS, type GroupRecord, type Rejection, type RejectionReason } from './group-record.ts';

export function groupsPath(out: string, dataset: string): string {
  return join(out, 'groups', `${dataset}.jsonl`);
}

export function rejectionsPath(out: string): string {
  return join(out, 'rejections.jsonl');
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
    if (isFileSystemError(error)) throw new FileSystemError(`cannot append to ${describeFileSystemError(error, path)}; free the space and continue with --resume`, { cause: error });
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
        throw new ConfigError(`${path}:${i + 1}: not a JSON object (a record a line), got ${Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`}`);
      }
      return value as T;
    });
}

export interface GroupsState {
  readonly groups: readonly GroupRecord[];
  readonly rejections: readonly Rejection[];
  /** The next candidate to try: one past the last candidate either file records. */
  readonly nextCandidate: number;
}

/** What an earlier run left in `out` (nothing for a fresh directory). */
export function readGroupsState(out: string, dataset: string, repair: boolean): GroupsState {
  const groups = readJsonLines<GroupRecord>(groupsPath(out, dataset), repair);
  const rejections = readJsonLines<Rejection>(rejectionsPath(out), repair);
  let last = -1;
  for (const g of groups) last = Math.max(last, g.candidate);
  for (const r of rejections) last = Math.max(last, r.candidate);
  return { groups, rejections, nextCandidate: last + 1 };
}

/** Rejections counted by reason, every reason present (zero when unused), in the closed order. */
export function countRejections(rejections: readonly Rejection[]): Record<RejectionReason, number> {
  const counts = Object.fromEntries(REJECTION_REASONS.map((r) => [r, 0])) as Record<RejectionReason, number>;
  for (const r of rejections) counts[r.reason] += 1;
  return counts;
}
