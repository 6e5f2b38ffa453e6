import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { alive } from './dir-lock.ts';

/**
 * A build writes into a staging directory inside the dataset directory and swaps its
 * entries in at the end. The visible directory is then always one of: the old complete
 * build, the new complete build, or a directory marked as interrupted that every command
 * refuses by name. Files of later stages (groups/, questions/, data/) are never touched.
 */

/** Staging directories are named `.staging-<pid>`; any left by a killed build is removed by the next. */
export const STAGING_PREFIX = '.staging-';
/** Present while a build replaces its entries; records the sha256 of the build.json that ends the swap. */
export const SWAP_MARKER = '.swapping';
/** What a build owns in its directory, swapped in this order; build.json comes last. */
export const BUILD_ENTRIES = ['er.json', 'schemas', 'dumps', 'pglite', 'sqlite'] as const;

const sha256Of = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');

/**
 * Why `dir` holds no complete build, when a swap was interrupted: the marker is there and
 * build.json is not the one it announces. Undefined when the directory is not mid-swap.
 */
export function interruptedBuild(dir: string): string | undefined {
  const marker = join(dir, SWAP_MARKER);
  if (!existsSync(marker)) return undefined;
  let announced: { pid?: number; build_sha256?: string } = {};
  try {
    announced = JSON.parse(readFileSync(marker, 'utf8')) as typeof announced;
  } catch {
    // An unreadable marker still means a swap started.
  }
  const manifest = join(dir, 'build.json');
  // The swap had finished but for removing the marker: the directory is the new build, whole.
  if (announced.build_sha256 && existsSync(manifest) && sha256Of(readFileSync(manifest)) === announced.build_sha256)
    return undefined;
  return `a build${announced.pid ? ` (pid ${announced.pid})` : ''} was interrupted while replacing its files, so they are a mix of two builds`;
}

/** A staging directory or temporary file, with the id of the process that made it. */
const LEFTOVER = /^\.staging-(\d+)$|\.tmp-(\d+)$/;

/**
 * Removes staging directories and temporary files that dead processes left in `dir`. Call
 * with the lock held; a live process's temporary file (one about to take the lock) stays.
 */
export function removeLeftovers(dir: string): void {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir)) {
    const pid = LEFTOVER.exec(name);
    if (!pid) continue;
    const owner = Number(pid[1] ?? pid[2]);
    if (owner === process.pid || !alive(owner)) rmSync(join(dir, name), { recursive: true, force: true });
  }
}

/** A fresh staging directory for this process, with empty `schemas/` and `dumps/`. */
export function createStaging(dir: string): string {
  const staging = join(dir, `${STAGING_PREFIX}${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(join(staging, 'schemas'), { recursive: true });
  mkdirSync(join(staging, 'dumps'), { recursive: true });
  return staging;
}

/**
 * Swaps a staged build into `dir`: marks the directory as mid-swap, removes the old
 * build.json (so the old build is no longer claimed), runs `beforeFiles` (a server build
 * renames its staged schemas there), moves each staged entry over the old one, and puts
 * the new build.json in place last. A kill at any point leaves the old build, the new
 * build, or a marked directory.
 */
export async function swapIn(
  dir: string,
  staging: string,
  manifestText: string,
  beforeFiles?: () => Promise<void>,
): Promise<void> {
  const marker = join(dir, SWAP_MARKER);
  writeFileSync(
    `${marker}.tmp-${process.pid}`,
    JSON.stringify({ pid: process.pid, build_sha256: sha256Of(manifestText) }),
  );
  renameSync(`${marker}.tmp-${process.pid}`, marker);
  rmSync(join(dir, 'build.json'), { force: true });
  await beforeFiles?.();
  const old = join(staging, '.old');
  mkdirSync(old, { recursive: true });
  for (const entry of BUILD_ENTRIES) {
    if (!existsSync(join(staging, entry))) {
      // SQLite files of an older build would not match the new instance: they go with it.
      if (entry === 'sqlite' && existsSync(join(dir, entry))) renameSync(join(dir, entry), join(old, entry));
      continue;
    }
    if (existsSync(join(dir, entry))) renameSync(join(dir, entry), join(old, entry));
    renameSync(join(staging, entry), join(dir, entry));
  }
  writeFileSync(join(staging, 'build.json'), manifestText);
  renameSync(join(staging, 'build.json'), join(dir, 'build.json'));
  rmSync(marker, { force: true });
  rmSync(staging, { recursive: true, force: true });
}
