import { linkSync, mkdirSync, readFileSync, rmdirSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BusyError } from '../common/errors.ts';
import { makeDirectory } from '../common/make-directory.ts';

/** The lock file of a dataset directory, held by whichever command is writing it. */
export const LOCK_FILE = '.equisql.lock';

/** Who holds a directory's lock, as written in the lock file. */
export interface LockHolder {
  readonly pid: number;
  readonly command: string;
  /** ISO time the lock was taken; only for messages, never for output files. */
  readonly since: string;
}

/** The holder recorded in `dir`'s lock file, or undefined when there is none or it is unreadable. */
export function readLockHolder(dir: string): LockHolder | undefined {
  return readLockHolderAt(join(dir, LOCK_FILE));
}

function readLockHolderAt(path: string): LockHolder | undefined {
  try {
    const holder = JSON.parse(readFileSync(path, 'utf8')) as LockHolder;
    return typeof holder.pid === 'number' ? holder : undefined;
  } catch {
    return undefined;
  }
}

/** True if a process with this id exists (the test a stale lock or leftover fails). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The live process holding `dir`'s lock, or undefined if the directory is free (or its holder died). */
export function liveLockHolder(dir: string): LockHolder | undefined {
  const holder = readLockHolder(dir);
  return holder && holder.pid !== process.pid && alive(holder.pid) ? holder : undefined;
}

function describe(dir: string, holder: LockHolder): string {
  // A pid can be reused after a crash; the hint says how out of that.
  return `${dir} is in use by equisql ${holder.command} (pid ${holder.pid}, since ${holder.since}); wait for it to finish (or, if pid ${holder.pid} is no equisql, remove ${join(dir, LOCK_FILE)})`;
}

/**
 * Removes a lock whose holder is dead. Two processes may find the same stale lock; the
 * guard directory lets one at a time look again and remove it, so the second cannot remove
 * the fresh lock the first has just linked. A guard left by a process killed inside this
 * function is itself stale after a few seconds.
 */
function removeStaleLock(path: string): void {
  const guard = `${path}.takeover`;
  try {
    mkdirSync(guard);
  } catch {
    try {
      if (Date.now() - statSync(guard).mtimeMs > 5000) rmdirSync(guard);
    } catch {
      // Gone meanwhile: the next attempt decides.
    }
    return;
  }
  try {
    const holder = readLockHolderAt(path);
    // An unreadable lock cannot come from a live holder (locks are linked in whole), so it is stale too.
    if (!holder || !alive(holder.pid)) unlinkSync(path);
  } catch {
    // Removed by someone else first: the next attempt decides.
  } finally {
    rmdirSync(guard);
  }
}

/**
 * Takes the exclusive lock of a dataset directory (creating the directory) and returns the
 * function that releases it. The lock file is linked into place whole, so it is never seen
 * half-written; a lock whose process is dead (a build killed with -9) is stale and taken
 * over. A live holder gives a one-line BusyError naming the directory and the holder.
 *
 * @example
 * const release = lockDir('output/retail', 'build');
 * try { … } finally { release(); }
 */
export function lockDir(dir: string, command: string): () => void {
  makeDirectory(dir);
  const path = join(dir, LOCK_FILE);
  const mine: LockHolder = { pid: process.pid, command, since: new Date().toISOString() };
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, JSON.stringify(mine));
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(tmp, path);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const holder = readLockHolder(dir);
        if (holder && alive(holder.pid)) throw new BusyError(describe(dir, holder));
        if (attempt >= 3)
          throw new BusyError(`${dir}: cannot take the lock ${path}; another equisql process keeps taking it`);
        removeStaleLock(path);
      }
    }
  } finally {
    unlinkSync(tmp);
  }
  return () => {
    if (readLockHolder(dir)?.pid === process.pid) unlinkSync(path);
  };
}

/** Refuses a directory whose lock a live process holds: it may be half-written. */
export function refuseIfLocked(dir: string): void {
  const holder = liveLockHolder(dir);
  if (holder) throw new BusyError(describe(dir, holder));
}
