import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';

export const REPO_ROOT = resolve(fileURLToPath(import.meta.url), '../../..');
const BIN = resolve(REPO_ROOT, 'bin/equisql.js');

export interface CliRun {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `equisql …` as a user would, in a child process, and captures everything. */
export function runCli(args: readonly string[], options: { cwd?: string; env?: Record<string, string | undefined>; input?: string } = {}): CliRun {
  const env = { ...process.env, ...options.env };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
  const result = spawnSync(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? REPO_ROOT,
    env: env as NodeJS.ProcessEnv,
    input: options.input,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}
