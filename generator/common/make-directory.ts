import { mkdirSync, statSync } from 'node:fs';
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
  return isFileSystemError(error) ? new FileSystemError(`cannot create the directory ${describeFileSystemError(error, path)}`, { cause: error }) : error;
}
