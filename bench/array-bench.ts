/**
 * Array-job benchmark: one process against K processes of an array job (`--shard auto`,
 * JOB_COMPLETION_INDEX 0 … K−1, run at once) and their `merge`, each timed on the wall clock
 * from a copy of one build, as separate processes (node start-up included, as a task pays it).
 * Reports groups per hour of each and whether the merge is byte-identical to the one process.
 * On a shared machine the seconds move with the load; compare the ratio within one run.
 * With `--corpus FILE` (a JSON list of databases), the run is that corpus, `--groups` per
 * database, and each arm builds its own databases (as each task does), timed with the rest.
 *
 *   npm run bench:array [-- --groups 6 --tasks 2 --dataset retail --margin 1]
 *   npm run bench:array -- --corpus four.json --groups 300 --tasks 2
 */
import { spawn } from 'node:child_process';
import { cpus, loadavg, tmpdir } from 'node:os';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { main } from '../generator/cli/main.ts';

const { values } = parseArgs({
  options: {
    groups: { type: 'string' },
    tasks: { type: 'string' },
    dataset: { type: 'string' },
    variants: { type: 'string' },
    margin: { type: 'string' },
    corpus: { type: 'string' },
  },
});
// A few groups a shard make its estimate of the run's end rough: a wider margin than the default.
const margin = values.margin ?? '1';
const groups = Number(values.groups ?? 6);
const tasks = Number(values.tasks ?? 2);
const dataset = values.dataset ?? 'retail';
const variants = values.variants ?? 'full_normalized,full_sti';
const BIN = resolve(fileURLToPath(import.meta.url), '../../bin/equisql.js');
const say = (s: string) => process.stdout.write(`${s}\n`);
say(
  `machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, node ${process.version}, load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')} (shared)`,
);
const env = { ...process.env } as Record<string, string | undefined>;
delete env['DATABASE_URL'];
const corpus = values.corpus !== undefined ? resolve(values.corpus) : undefined;
const args = [
  'generate',
  ...(corpus ? ['--corpus', corpus] : ['--dataset', dataset]),
  '--variants',
  variants,
  '--scale',
  'tiny',
  '--groups',
  String(groups),
];

/** Runs `equisql …` as its own process; its exit status (its stderr said when it fails). */
function cli(argv: readonly string[], extra: Record<string, string> = {}): Promise<number> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [BIN, ...argv], {
      env: { ...env, ...extra } as NodeJS.ProcessEnv,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr = (stderr + c).slice(-2000)));
    child.on('error', fail);
    child.on('close', (code) => {
      if (code !== 0) say(`equisql ${argv[0]} exited ${code}: ${stderr.trim().split('\n').pop()}`);
      done(code ?? -1);
    });
  });
}

/** Every file but PGlite's and the lock, as hex; each manifest without its timings. */
function files(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (name === 'pglite' || name === '.equisql.lock') continue;
      if (statSync(path).isDirectory()) walk(path);
      else if (name === 'manifest.json') {
        const m = JSON.parse(readFileSync(path, 'utf8'));
        delete m.timings;
        out.set(relative(dir, path), JSON.stringify(m));
      } else out.set(relative(dir, path), readFileSync(path).toString('hex'));
    }
  };
  walk(dir);
  return out;
}

const dir = mkdtempSync(join(tmpdir(), 'equisql-bench-array-'));
const built = (to: string): string => {
  if (corpus) return to;
  for (const f of ['build.json', 'er.json', 'schemas', 'dumps', 'edge', 'pglite'])
    cpSync(join(dir, 'build', f), join(to, f), { recursive: true });
  return to;
};
const timed = async (run: () => Promise<unknown>): Promise<number> => {
  const t = performance.now();
  await run();
  return (performance.now() - t) / 1000;
};
try {
  // The build every timed run starts from (not timed); a corpus's arms build their own.
  if (!corpus)
    await main([...args, '--out', join(dir, 'build')], {
      out: () => {},
      err: () => {},
      readStdin: async () => '',
      env,
    });
  const whole = built(join(dir, 'whole'));
  const one = await timed(() => cli([...args, '--out', whole]));
  const dirs = Array.from({ length: tasks }, (_, t) => built(join(dir, `task-${t}`)));
  const many = await timed(() =>
    Promise.all(
      dirs.map((d, t) =>
        cli([...args, '--shard', 'auto', ...(corpus ? [] : ['--shard-margin', margin]), '--out', d], {
          JOB_COMPLETION_INDEX: String(t),
          EQUISQL_SHARD_COUNT: String(tasks),
        }),
      ),
    ),
  );
  const merged = join(dir, 'merged');
  let status = -1;
  const merge = await timed(async () => (status = await cli(['merge', '--out', merged, join(dir, 'task-*')])));
  const a = files(whole);
  const b = status === 0 ? files(merged) : new Map();
  const same = a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);
  const total = corpus ? groups * (JSON.parse(readFileSync(corpus, 'utf8')) as unknown[]).length : groups;
  const perHour = (s: number): string => ((3600 * total) / s).toFixed(0);
  say(`1 process: ${total} groups in ${one.toFixed(1)} s (${perHour(one)} groups/h)`);
  say(
    `${tasks} processes${corpus ? '' : ` (--shard-margin ${margin})`}: ${many.toFixed(1)} s, merge ${merge.toFixed(1)} s (exit ${status}, byte-identical: ${same ? 'yes' : 'no'}); ${perHour(many + merge)} groups/h with the merge (${(one / (many + merge)).toFixed(2)}×), ${perHour(many)} without (${(one / many).toFixed(2)}×)`,
  );
  say(
    `load average after: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
