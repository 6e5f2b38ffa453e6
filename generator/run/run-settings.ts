/**
 * What makes `--resume` safe: the settings of a generation run, written to `DIR/.run.json`
 * before its first group, so that a later command can tell a directory holding a run (whole
 * or cut short) from one holding only builds, and a resume with the same settings from one
 * with other settings, which would splice two runs into one file.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../common/errors.ts';
import { stableStringify } from '../common/hash.ts';
import { writeFileAtomic } from '../common/atomic-write.ts';
import { groupsPath, rejectionsPath } from '../records/groups-file.ts';

/** `DIR/.run.json` (hidden: it is the run's bookkeeping, not part of the dataset). */
export function runSettingsPath(out: string): string {
  return join(out, '.run.json');
}

/**
 * Settings that may change between a run and its resume without changing any output byte
 * but the manifest's record of them: how many connections ran the queries.
 */
const FREE = new Set(['concurrency']);

/** Records the run's settings (and its shard, if one) before any group is written. */
export function writeRunSettings(out: string, settings: Readonly<Record<string, unknown>>, shard?: string): void {
  writeFileAtomic(
    runSettingsPath(out),
    `${JSON.stringify(JSON.parse(stableStringify({ settings, shard: shard ?? null })), null, 2)}\n`,
  );
}

function readRun(out: string): { settings: Record<string, unknown>; shard: string | null } | undefined {
  const path = runSettingsPath(out);
  if (existsSync(path)) {
    try {
      return JSON.parse(readFileSync(path, 'utf8')) as { settings: Record<string, unknown>; shard: string | null };
    } catch (error) {
      throw new ConfigError(`${path}: not JSON: ${(error as Error).message}`);
    }
  }
  // Directories written before `.run.json` existed: the manifest's settings, when it has them.
  const manifest = join(out, 'manifest.json');
  if (!existsSync(manifest)) return undefined;
  try {
    const m = JSON.parse(readFileSync(manifest, 'utf8')) as { settings?: Record<string, unknown> };
    return m.settings ? { settings: m.settings, shard: null } : undefined;
  } catch {
    return undefined;
  }
}

/** True when `out` holds a generation run, whole or cut short (builds alone are not one). */
export function holdsRun(out: string, dataset: string): boolean {
  return (
    existsSync(runSettingsPath(out)) ||
    existsSync(groupsPath(out, dataset)) ||
    existsSync(rejectionsPath(out)) ||
    existsSync(join(out, 'shard.json'))
  );
}

/** A recorded setting; a run on PostgreSQL alone records no `engines`. */
const setting = (settings: Readonly<Record<string, unknown>>, key: string): unknown =>
  key === 'engines' ? (settings[key] ?? ['postgres']) : settings[key];

const shown = (value: unknown): string =>
  value === undefined || value === null ? 'none' : typeof value === 'string' ? value : stableStringify(value);

/**
 * The rule of `--resume`. Without it, a directory that holds a run is refused (the command
 * would otherwise continue or overwrite it silently); with it, the run's recorded settings
 * must be these settings (and the same shard), and a directory with no run simply starts
 * one. Each refusal is a one-line ConfigError saying what to do.
 *
 * @example
 * checkResume('output/retail', 'retail', settings, false); // throws when output/retail holds a run
 */
export function checkResume(
  out: string,
  dataset: string,
  settings: Readonly<Record<string, unknown>>,
  resume: boolean,
  shard?: string,
): void {
  if (!holdsRun(out, dataset)) return;
  if (!resume)
    throw new ConfigError(
      `generate: ${out} holds a run already; pass --resume to continue it (same settings), or choose another --out`,
    );
  const run = readRun(out);
  if (!run)
    throw new ConfigError(
      `generate: --resume: ${out} holds groups but no record of their settings (${runSettingsPath(out)}); choose another --out`,
    );
  if ((run.shard ?? null) !== (shard ?? null))
    throw new ConfigError(
      `generate: --resume: ${out} holds ${run.shard ? `shard ${run.shard}` : 'an unsharded run'}, not ${shard ? `shard ${shard}` : 'an unsharded run'}`,
    );
  for (const key of [...new Set([...Object.keys(run.settings), ...Object.keys(settings)])].sort()) {
    if (FREE.has(key)) continue;
    const was = setting(run.settings, key);
    const now = setting(settings, key);
    if (stableStringify(was ?? null) !== stableStringify(now ?? null)) {
      throw new ConfigError(
        `generate: --resume: ${out} was generated with ${key} ${shown(was)}, not ${shown(now)}; resume with the same settings or choose another --out`,
      );
    }
  }
}
