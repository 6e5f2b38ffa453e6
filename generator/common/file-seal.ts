/**
 * Seals of stage files: the SHA-256 and line count of a file a stage closed, recorded in the
 * directory's `manifest.json` under `seals` (keyed by the file's path relative to the
 * directory). The next stage, `--resume`, `merge` and `check` compare a file against its seal
 * before trusting it, so a line changed, deleted or repeated after the stage wrote it is
 * refused in one line instead of flowing into the data.
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync, readSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from './errors.ts';
import { stableStringify } from './hash.ts';
import { writeFileAtomic } from './atomic-write.ts';

/** What a stage recorded of a file it closed. */
export interface FileSeal {
  readonly sha256: string;
  readonly lines: number;
}

export type Seals = Readonly<Record<string, FileSeal>>;

/** The seal of a file as it is now (a missing file seals as empty). */
export function sealFile(path: string): FileSeal {
  return sealPrefix(path, Infinity).seal;
}

/**
 * The seal of a file's first `lines` lines (all of it for Infinity), read a chunk at a time;
 * `whole` is false when the file has fewer lines than asked for.
 */
function sealPrefix(path: string, lines: number): { seal: FileSeal; whole: boolean } {
  const hash = createHash('sha256');
  if (!existsSync(path))
    return { seal: { sha256: hash.digest('hex'), lines: 0 }, whole: lines === 0 || lines === Infinity };
  refuseNonFile(path);
  const fd = openSync(path, 'r');
  const buffer = Buffer.alloc(1 << 20);
  let count = 0;
  // Bytes after the last newline: an unfinished last line, a line of the file's bytes too.
  let unfinished = false;
  try {
    for (;;) {
      const n = readSync(fd, buffer, 0, buffer.length, null);
      if (n === 0) break;
      let start = 0;
      for (let i = 0; i < n && count < lines; i++) {
        if (buffer[i] !== 0x0a) continue;
        count++;
        hash.update(buffer.subarray(start, i + 1));
        start = i + 1;
      }
      if (count >= lines) {
        unfinished = false;
        break;
      }
      hash.update(buffer.subarray(start, n));
      unfinished = buffer[n - 1] !== 0x0a;
    }
  } finally {
    closeSync(fd);
  }
  const total = count + (unfinished ? 1 : 0);
  return { seal: { sha256: hash.digest('hex'), lines: total }, whole: lines === Infinity || count >= lines };
}

/** A directory (or another non-file) where a stage file should be: one line, exit 2. */
export function refuseNonFile(path: string): void {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat && !stat.isFile())
    throw new ConfigError(
      `${path}: ${stat.isDirectory() ? 'a directory' : 'not a regular file'} where a file should be`,
    );
}

const HEX64 = /^[0-9a-f]{64}$/u;

/**
 * The `seals` of a parsed manifest, checked: undefined for a directory written before seals
 * existed (or by hand), which is trusted as it is. A wrong type is a one-line ConfigError.
 */
export function manifestSeals(manifest: Readonly<Record<string, unknown>>, manifestPath: string): Seals | undefined {
  const seals = manifest['seals'];
  if (seals === undefined) return undefined;
  if (seals === null || typeof seals !== 'object' || Array.isArray(seals))
    throw new ConfigError(`${manifestPath}: "seals" must be an object of {sha256, lines} by file`);
  for (const [rel, seal] of Object.entries(seals as Record<string, unknown>)) {
    const s = seal as Partial<FileSeal> | null;
    if (
      s === null ||
      typeof s !== 'object' ||
      typeof s.sha256 !== 'string' ||
      !HEX64.test(s.sha256) ||
      !Number.isSafeInteger(s.lines) ||
      (s.lines as number) < 0
    ) {
      throw new ConfigError(
        `${manifestPath}: seals.${rel} must be {"sha256": 64 hex digits, "lines": a whole number}, got ${JSON.stringify(seal)?.slice(0, 80)}`,
      );
    }
  }
  return seals as Seals;
}

/** `DIR/manifest.json` parsed, or undefined when there is none; a one-line ConfigError when it is not a JSON object. */
export function readManifestObject(dir: string): Record<string, unknown> | undefined {
  const path = join(dir, 'manifest.json');
  if (!existsSync(path)) return undefined;
  refuseNonFile(path);
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ConfigError(`${path}: not JSON: ${(error as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new ConfigError(`${path}: not a JSON object`);
  return value as Record<string, unknown>;
}

/** The seals `DIR/manifest.json` records (undefined: none recorded, nothing to check). */
export function readSeals(dir: string): Seals | undefined {
  const manifest = readManifestObject(dir);
  return manifest ? manifestSeals(manifest, join(dir, 'manifest.json')) : undefined;
}

/**
 * Records seals (or, for `null`, removes them: a file being reopened is no longer sealed) in
 * `DIR/manifest.json`, when there is one; its keys stay sorted, as every stage writes them.
 */
export function updateSeals(dir: string, changes: Readonly<Record<string, FileSeal | null>>): void {
  const manifest = readManifestObject(dir);
  if (!manifest) return;
  const seals: Record<string, FileSeal> = { ...(manifestSeals(manifest, join(dir, 'manifest.json')) ?? {}) };
  for (const [rel, seal] of Object.entries(changes)) {
    if (seal === null) delete seals[rel];
    else seals[rel] = seal;
  }
  writeFileAtomic(
    join(dir, 'manifest.json'),
    `${JSON.stringify(JSON.parse(stableStringify({ ...manifest, seals })), null, 2)}\n`,
  );
}

/** Seals of files of `dir`, by relative path, as they are now. */
export function sealFiles(dir: string, rels: readonly string[]): Record<string, FileSeal> {
  return Object.fromEntries(rels.map((rel) => [rel, sealFile(join(dir, rel))]));
}

const shortSeal = (s: FileSeal): string =>
  `${s.lines} ${s.lines === 1 ? 'line' : 'lines'}, sha256 ${s.sha256.slice(0, 12)}…`;

/**
 * Refuses `DIR/rel` unless it is what its seal says. `exact` (the next stage, `check`): the
 * whole file; `prefix` (`--resume`, which may find lines appended after the seal by a run
 * cut short): its first sealed lines. With `mustBeSealed`, seals recorded but none for a
 * file that exists means the stage writing it did not finish: refused too (`exact` only). Without any seals
 * (a directory written by hand or before seals), nothing is checked.
 *
 * @example
 * checkSeal('output/retail', 'groups/retail.jsonl', readSeals('output/retail'), 'exact', 'export', 'rerun equisql generate --resume');
 * // throws "export: output/retail/groups/retail.jsonl differs from its seal in …"
 */
export function checkSeal(
  dir: string,
  rel: string,
  seals: Seals | undefined,
  how: 'exact' | 'prefix',
  who: string,
  rerun: string,
  options: { readonly sealsFile?: string; readonly changed?: string; readonly mustBeSealed?: boolean } = {},
): void {
  const sealsFile = options.sealsFile ?? 'manifest.json';
  if (!seals) return;
  const path = join(dir, rel);
  const seal = seals[rel];
  if (!seal) {
    if (how === 'exact' && options.mustBeSealed === true && existsSync(path))
      throw new ConfigError(
        `${who}: ${path} is not sealed in ${join(dir, sealsFile)}: the run writing it did not finish (${rerun})`,
      );
    return;
  }
  const problem = sealMismatch(path, seal, how);
  if (problem !== undefined)
    throw new ConfigError(
      `${who}: ${path} differs from its seal in ${join(dir, sealsFile)} (${problem}): it was changed after its stage wrote it (${options.changed ?? rerun})`,
    );
}

/** How the file at `path` differs from `seal` (all of it, or its first sealed lines), or undefined when it does not. */
export function sealMismatch(path: string, seal: FileSeal, how: 'exact' | 'prefix' = 'exact'): string | undefined {
  const found = sealPrefix(path, how === 'exact' ? Infinity : seal.lines);
  const same =
    found.whole && found.seal.sha256 === seal.sha256 && (how === 'prefix' || found.seal.lines === seal.lines);
  if (same) return undefined;
  return `${how === 'prefix' && !found.whole ? `fewer than ${seal.lines} ${seal.lines === 1 ? 'line' : 'lines'}` : shortSeal(found.seal)}; sealed: ${shortSeal(seal)}`;
}

/** The seal of text about to be written (a file written whole). */
export function sealText(text: string): FileSeal {
  return {
    sha256: createHash('sha256').update(text, 'utf8').digest('hex'),
    lines: (text.match(/\n/gu)?.length ?? 0) + (text !== '' && !text.endsWith('\n') ? 1 : 0),
  };
}

/** `.name.<pid>.tmp`: what `writeFileAtomic` and the Parquet writer write before their rename. */
const TEMP = /^\..+\.\d+\.tmp$/u;

/**
 * Removes what a killed run of ours left in `dir`'s folders `subs` ('' for `dir` itself):
 * temporary files of atomic writes. The caller holds the directory's lock, so no live run of
 * ours is writing them.
 */
export function removeStaleTemps(dir: string, subs: readonly string[]): string[] {
  const removed: string[] = [];
  for (const sub of subs) {
    const folder = join(dir, sub);
    const stat = statSync(folder, { throwIfNoEntry: false });
    if (!stat?.isDirectory()) continue;
    for (const name of readdirSync(folder)) {
      if (!TEMP.test(name)) continue;
      const path = join(folder, name);
      if (!statSync(path, { throwIfNoEntry: false })?.isFile()) continue;
      rmSync(path, { force: true });
      removed.push(sub === '' ? name : `${sub}/${name}`);
    }
  }
  return removed;
}
