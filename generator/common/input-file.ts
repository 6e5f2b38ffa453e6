/**
 * Files the user names on the command line (a query, a suite, a groups file) are read with a
 * size cap and a check that they are regular files: `/dev/zero` must not be read without
 * bound, nor a directory fail with a message that names no path.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { ConfigError } from './errors.ts';
import { escapeControl } from './user-text.ts';

/** The default cap on a file a user gives: larger than any query or suite a person writes. */
export const INPUT_FILE_CAP_BYTES = 64 * 1024 * 1024;

/** What the OS said about a path, as words a user reads (the code stays in parentheses). */
const FS_CODES: Readonly<Record<string, string>> = {
  ENOENT: 'no such file or directory',
  EEXIST: 'exists and is not a directory',
  EISDIR: 'is a directory, not a file',
  ENOTDIR: 'a part of the path is not a directory',
  ELOOP: 'too many levels of symbolic links (a symlink loop)',
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENAMETOOLONG: 'name too long',
  EMFILE: 'too many open files',
  EIO: 'input/output error',
  EINVAL: 'invalid argument (a path where files cannot be written, such as /proc?)',
};

/** A Node file-system error (it carries `code` and `syscall`), as opposed to a bug. */
export function isFileSystemError(error: unknown): error is NodeJS.ErrnoException & { code: string; syscall: string } {
  const e = error as NodeJS.ErrnoException | undefined;
  return e instanceof Error && typeof e.code === 'string' && /^E[A-Z]+$/u.test(e.code) && typeof e.syscall === 'string';
}

/**
 * One line for a file-system error: the path, what went wrong in words, the code and call.
 *
 * @example describeFileSystemError(eexist) // "/etc/passwd: exists and is not a directory (EEXIST, mkdir)"
 */
export function describeFileSystemError(
  error: NodeJS.ErrnoException & { code: string; syscall: string },
  path?: string,
): string {
  const where = path ?? error.path ?? (error as { dest?: string }).dest;
  const words = FS_CODES[error.code] ?? error.message.replace(/^E[A-Z]+:\s*/u, '').split(/[,\n]/u)[0];
  return `${where !== undefined ? `${escapeControl(String(where))}: ` : ''}${words} (${error.code}, ${error.syscall})`;
}

/**
 * Reads a file the user named, as UTF-8, refusing a directory, a missing file and anything
 * over `capBytes` (read in bounded chunks, so a device that never ends is cut at the cap).
 *
 * @example readInputFile('q.json', '--query') // the file's text
 */
export function readInputFile(path: string, flag: string, capBytes = INPUT_FILE_CAP_BYTES): string {
  const shown = escapeControl(path);
  let fd: number;
  try {
    if (statSync(path).isDirectory()) throw new ConfigError(`${flag}: ${shown} is a directory, not a file`);
    fd = openSync(path, 'r');
  } catch (error) {
    if (isFileSystemError(error))
      throw new ConfigError(`${flag}: ${describeFileSystemError(error, path)}`, { cause: error });
    throw error;
  }
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    const chunk = Buffer.alloc(1 << 20);
    for (;;) {
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      total += n;
      if (total > capBytes)
        throw new ConfigError(
          `${flag}: ${shown} is larger than ${Math.round(capBytes / (1024 * 1024))} MB, more than such a file holds`,
        );
      chunks.push(Buffer.from(chunk.subarray(0, n)));
    }
    return Buffer.concat(chunks).toString('utf8');
  } catch (error) {
    if (isFileSystemError(error))
      throw new ConfigError(`${flag}: ${describeFileSystemError(error, path)}`, { cause: error });
    throw error;
  } finally {
    closeSync(fd);
  }
}
