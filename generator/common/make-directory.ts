import { lstatSync, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { FileSystemError } from './errors.ts';
import { describeFileSystemError, isFileSystemError } from './input-file.ts';

/**
 * `mkdir -p` that always ends: Node's recursive mkdir retries forever where the kernel
 * answers ENOENT for a parent that exists (`/proc/x`), spinning at 100% CPU. Here each
 * missing component is made in turn, and any refusal is a one-line FileSystemError naming
 * the path.
 *
 * @example makeDirectory('output/retail') // creates output/ and output/retail/
 */
export function makeDirectory(path: string): void {
  const target = resolve(path);
  const missing: string[] = [];
  for (let at = target; ; at = dirname(at)) {
    let isDir: boolean;
    try {
      isDir = statSync(at).isDirectory();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' && dirname(at) !== at) {
        missing.push(at);
        continue;
      }
      throw asFileSystemError(error, at);
    }
    if (!isDir) throw new FileSystemError(`${at}: exists and is not a directory`);
    break;
  }
  for (const dir of missing.reverse()) {
    try {
      mkdirSync(dir);
    } catch (error) {
      // Made meanwhile by another process: fine, as long as it is a directory.
      if ((error as NodeJS.ErrnoException).code === 'EEXIST' && statSync(dir).isDirectory()) continue;
      throw asFileSystemError(error, dir);
    }
  }
}

function asFileSystemError(error: unknown, path: string): unknown {
  return isFileSystemError(error)
    ? new FileSystemError(`cannot create the directory ${describeFileSystemError(error, path)}`, { cause: error })
    : error;
}

/**
 * Refuses, before any work, an output directory that cannot be one: a symbolic link that
 * loops or leads nowhere, a file, or a path under something that is not a directory. A
 * path that does not exist yet is fine (its nearest existing ancestor must be a directory).
 *
 * @example checkOutputDir('/tmp/loopA', '--out') // FileSystemError: --out /tmp/loopA: too many levels of symbolic links (a symlink loop) (ELOOP, stat)
 */
export function checkOutputDir(path: string, flag: string): void {
  const target = resolve(path);
  for (let at = target; ; at = dirname(at)) {
    let isDir: boolean;
    try {
      isDir = statSync(at).isDirectory();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' && dirname(at) !== at) {
        // A dangling symbolic link is not a directory to be made.
        let link = false;
        try {
          link = lstatSync(at).isSymbolicLink();
        } catch {
          // Nothing there at all.
        }
        if (link) throw new FileSystemError(`${flag} ${target}: ${at} is a symbolic link to nothing`);
        continue;
      }
      if (isFileSystemError(error))
        throw new FileSystemError(`${flag} ${describeFileSystemError(error, at)}`, { cause: error });
      throw error;
    }
    if (!isDir)
      throw new FileSystemError(
        at === target
          ? `${flag} ${target}: exists and is not a directory`
          : `${flag} ${target}: ${at} is not a directory`,
      );
    return;
  }
}
