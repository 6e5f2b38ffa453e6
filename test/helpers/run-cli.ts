import { spawn, spawnSync } from 'node:child_process';
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
export function runCli(
  args: readonly string[],
  options: { cwd?: string; env?: Record<string, string | undefined>; input?: string } = {},
): CliRun {
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

/**
 * `runCli` without blocking this process: for a child that talks to a server the test runs
 * in this same process (a blocked event loop could not answer it).
 */
export function runCliAsync(
  args: readonly string[],
  options: { cwd?: string; env?: Record<string, string | undefined> } = {},
): Promise<CliRun> {
  const env = { ...process.env, ...options.env };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd ?? REPO_ROOT,
      env: env as NodeJS.ProcessEnv,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('error', fail);
    child.on('close', (code) => done({ status: code ?? -1, stdout, stderr }));
  });
}

let queue: Promise<unknown> = Promise.resolve();

/**
 * `equisql …` in this process, through `main()`, as `runCli` would run it in a child: the
 * same exit status, stdout and stderr (progress as plain lines; nothing on stderr but the
 * failure line under --quiet), in `cwd` with `env` over this process's environment. Runs
 * one at a time, since a run may change the working directory. For every test where the
 * child process is not the point: it skips the child's start-up (tsx, module loading).
 */
export function runMain(
  args: readonly string[],
  options: { cwd?: string; env?: Record<string, string | undefined>; input?: string } = {},
): Promise<CliRun> {
  const run = queue.then(async () => {
    const { main } = await import('../../generator/cli/main.ts');
    const env: Record<string, string | undefined> = { ...process.env, ...options.env };
    for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
    let stdout = '';
    let stderr = '';
    const line = (text: string) => (text.endsWith('\n') ? text : `${text}\n`);
    const quiet = args.slice(1).includes('--quiet');
    const before = process.cwd();
    process.chdir(options.cwd ?? REPO_ROOT);
    try {
      const status = await main(args, {
        out: (text) => void (stdout += line(text)),
        err: quiet ? () => {} : (text) => void (stderr += line(text)),
        fail: (text) => void (stderr += text),
        readStdin: async () => options.input ?? '',
        env,
      });
      return { status, stdout, stderr };
    } finally {
      process.chdir(before);
    }
  });
  queue = run.catch(() => {});
  return run;
}
