import { closeSync, fsyncSync, openSync, realpathSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { createHash } from 'node:crypto';
import { ConfigError } from './errors.ts';

/**
 * True when `a` and `b` name the same existing file, however written: relative or absolute,
 * through symbolic links, or as two hard links to it.
 *
 * @example
 * sameFile('corpus.sql', './data/../corpus.sql'); // true
 */
export function sameFile(a: string, b: string): boolean {
  try {
    const x = statSync(a);
    const y = statSync(b);
    return x.dev === y.dev && x.ino === y.ino;
  } catch {
    return false;
  }
}

/** Where writing `path` lands: a symbolic link's target, else the path itself. */
function target(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/**
 * Writes `text` to `path` whole or not at all: into a temporary file beside it, flushed,
 * then renamed over it, so a crash or a full disk leaves the old file in place. A symbolic
 * link at `path` keeps pointing where it did; the file it points to is replaced.
 *
 * @example
 * writeFileAtomic('grammars/mine.pcfg', formatGrammar(grammar));
 */
export function writeFileAtomic(path: string, text: string): void {
  writeAtomic(path, (fd) => writeSync(fd, text));
}

/**
 * `writeFileAtomic` for text given in pieces (lines of a large export), written a chunk at a
 * time so no string holds the whole file; returns the SHA-256 (hex) of the bytes written.
 *
 * @example
 * const sha = writeLinesAtomic('data/train.jsonl', records.map(serializeRecord));
 */
export function writeLinesAtomic(path: string, pieces: Iterable<string>): string {
  const hash = createHash('sha256');
  writeAtomic(path, (fd) => {
    let chunk = '';
    const flush = (): void => {
      const bytes = Buffer.from(chunk, 'utf8');
      hash.update(bytes);
      writeSync(fd, bytes);
      chunk = '';
    };
    for (const piece of pieces) {
      chunk += piece;
      if (chunk.length >= 1 << 20) flush();
    }
    flush();
  });
  return hash.digest('hex');
}

/** Runs `write` on a temporary file beside `path`, flushes it and renames it over `path`. */
function writeAtomic(path: string, write: (fd: number) => void): void {
  const final = target(path);
  const temp = join(dirname(final), `.${basename(final)}.${process.pid}.tmp`);
  try {
    const fd = openSync(temp, 'w');
    try {
      write(fd);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, final);
  } catch (error) {
    rmSync(temp, { force: true });
    throw new ConfigError(`cannot write ${path}: ${(error as Error).message}`, { cause: error });
  }
}
