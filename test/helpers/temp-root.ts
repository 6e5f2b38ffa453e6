// vitest's global setup: every temporary folder of a run (the tests', and those of the CLI
// children they start) lands under one root, `equisql-test-<pid>` in the system's temporary
// directory, because TMPDIR points there for the workers. The root is removed when the run
// ends, when it is interrupted (SIGINT, SIGTERM, SIGHUP), and, for a run killed outright, by
// the next run, which sweeps roots whose process is gone.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PREFIX = 'equisql-test-';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes the roots of earlier runs whose process no longer exists. */
export function sweepStaleRoots(parent: string): string[] {
  const swept: string[] = [];
  for (const name of readdirSync(parent)) {
    const pid = Number(name.slice(PREFIX.length));
    if (!name.startsWith(PREFIX) || !Number.isInteger(pid) || pid === process.pid || alive(pid)) continue;
    removeRoot(join(parent, name));
    swept.push(name);
  }
  return swept;
}

/**
 * Removes a run's root. A file system a test mounted under it and left behind (a test killed
 * before its afterAll) is unmounted first; what still cannot go is reported, never thrown, so
 * the run's own result stands.
 */
function removeRoot(root: string): void {
  try {
    rmSync(root, { recursive: true, force: true });
  } catch {
    const mounts = readFileSync('/proc/mounts', 'utf8')
      .split('\n')
      .map((l) => l.split(' ')[1] ?? '')
      .filter((m) => m.startsWith(`${root}/`));
    for (const m of mounts.sort().reverse()) spawnSync('umount', [m]);
    try {
      rmSync(root, { recursive: true, force: true });
    } catch (error) {
      process.stderr.write(`temp-root: could not remove ${root}: ${(error as Error).message}\n`);
    }
  }
}

export default function setup(): () => void {
  const parent = tmpdir();
  sweepStaleRoots(parent);
  const root = join(parent, `${PREFIX}${process.pid}`);
  mkdirSync(root, { recursive: true });
  process.env['TMPDIR'] = root;
  const remove = () => removeRoot(root);
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  const onSignal = (signal: NodeJS.Signals) => {
    remove();
    for (const s of signals) process.removeListener(s, onSignal);
    process.kill(process.pid, signal);
  };
  for (const s of signals) process.on(s, onSignal);
  process.on('exit', remove);
  return () => {
    remove();
    for (const s of signals) process.removeListener(s, onSignal);
    process.removeListener('exit', remove);
  };
}
