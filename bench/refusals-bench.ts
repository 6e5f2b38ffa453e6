/**
 * npm run bench:refusals — the CPU time of refusing bad input: each bad flag, bad name
 * (dataset, variant, style, split) and bad file of test/robustness/ as a child process
 * `equisql …`, as a user meets it, and `equisql --help`. CPU is the child's user + system
 * time (GNU time), so a loaded machine slows the wall clock but not the figure. Each
 * refusal must exit 2 with one line on stderr, under 1 s of CPU; --help under 150 ms.
 * It runs the built CLI (dist/, as an installed package does: run `npm run build` first);
 * SOURCES=1 runs the TypeScript sources through tsx instead. RUNS=N repeats each (default 3)
 * and keeps the least.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const RUNS = Number(process.env['RUNS'] ?? 3);
const work = mkdtempSync(join(tmpdir(), 'equisql-bench-refusals-'));
const notJson = join(work, 'model.json');
writeFileSync(notJson, '{ "name": "shop", ');
const badConfig = join(work, 'bad.config.ts');
writeFileSync(badConfig, 'export default { datasets: 7 };\n');
const out = join(work, 'never');

const cases: { label: string; args: string[]; status: number }[] = [
  { label: 'help', args: ['--help'], status: 0 },
  { label: 'unknown command', args: ['buidl'], status: 2 },
  { label: 'unknown flag', args: ['build', '--dataset', 'retail', '--sede', '1', '--out', out], status: 2 },
  {
    label: 'repeated flag',
    args: ['build', '--dataset', 'retail', '--seed', '1', '--seed=2', '--out', out],
    status: 2,
  },
  { label: 'bad number', args: ['grammar', 'sample', '-n', '-5'], status: 2 },
  {
    label: 'bad count',
    args: ['build', '--dataset', 'social_media', '--count', 'Account=99999999999999999999', '--out', out],
    status: 2,
  },
  { label: 'dataset name (build)', args: ['build', '--dataset', 'social_medai', '--out', out], status: 2 },
  {
    label: 'dataset name (generate)',
    args: ['generate', '--dataset', 'social_medai', '--scale', 'tiny', '--groups', '2', '--out', out],
    status: 2,
  },
  {
    label: 'variant name (build)',
    args: ['build', '--dataset', 'social_media', '--variants', 'full_sti,ful_cti', '--scale', 'tiny', '--out', out],
    status: 2,
  },
  {
    label: 'variant name (generate)',
    args: [
      'generate',
      '--dataset',
      'social_media',
      '--variants',
      'full_sti,ful_cti',
      '--scale',
      'tiny',
      '--groups',
      '2',
      '--out',
      out,
    ],
    status: 2,
  },
  {
    label: 'variant name (variants)',
    args: ['variants', '--dataset', 'social_media', '--variants', 'ful_sti'],
    status: 2,
  },
  { label: 'suite name', args: ['suite', '--dir', 'nowhere', '--suite', '__proto__'], status: 2 },
  { label: 'style name', args: ['show', '--dir', out, '--style', 'florid'], status: 2 },
  { label: 'split name', args: ['export', '--dir', out, '--split', 'holdout'], status: 2 },
  { label: 'missing directory', args: ['export', '--dir', out], status: 2 },
  { label: 'not a directory', args: ['questions', '--dir', '/etc/passwd'], status: 2 },
  { label: 'model file not JSON', args: ['build', '--dataset', notJson, '--scale', 'tiny', '--out', out], status: 2 },
  { label: 'config file', args: ['build', '--config', badConfig, '--dataset', 'x', '--out', out], status: 2 },
  {
    label: 'grammar file',
    args: ['grammar', 'check', join(ROOT, 'test/fixtures/grammar/invalid/sum-not-one.pcfg')],
    status: 2,
  },
];

interface Measured {
  label: string;
  cpuMs: number;
  status: number;
  lines: number;
  first: string;
}

function measure(args: string[]): { cpuMs: number; status: number; stderr: string } {
  const run = spawnSync(
    '/usr/bin/time',
    ['-f', '%U %S', '-o', join(work, 'time'), process.execPath, join(ROOT, 'bin/equisql.js'), ...args],
    {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, DATABASE_URL: '', EQUISQL_BUILT: process.env['SOURCES'] === '1' ? '0' : '1' },
    },
  );
  const [user, system] = (
    spawnSync('cat', [join(work, 'time')], { encoding: 'utf8' })
      .stdout.trim()
      .split('\n')
      .pop() ?? '0 0'
  )
    .split(' ')
    .map(Number);
  return { cpuMs: ((user ?? 0) + (system ?? 0)) * 1000, status: run.status ?? -1, stderr: run.stderr };
}

if (process.env['SOURCES'] !== '1' && !existsSync(join(ROOT, 'dist/cli/main.js'))) {
  process.stderr.write('bench:refusals: no dist/cli/main.js: run npm run build first (or SOURCES=1 for the sources)\n');
  process.exit(2);
}
const results: Measured[] = [];
try {
  for (const c of cases) {
    let best: { cpuMs: number; status: number; stderr: string } | undefined;
    for (let i = 0; i < RUNS; i++) {
      const m = measure(c.args);
      if (!best || m.cpuMs < best.cpuMs) best = m;
    }
    const b = best as { cpuMs: number; status: number; stderr: string };
    const lines = b.stderr.split('\n').filter((l) => l !== '');
    results.push({ label: c.label, cpuMs: b.cpuMs, status: b.status, lines: lines.length, first: lines[0] ?? '' });
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

let failed = 0;
process.stdout.write('| case | CPU (ms) | exit | stderr lines | verdict |\n|---|---:|---:|---:|---|\n');
for (const [i, r] of results.entries()) {
  const c = cases[i] as (typeof cases)[number];
  const bound = c.label === 'help' ? 150 : 1000;
  const ok = r.cpuMs < bound && r.status === c.status && (c.status === 0 || r.lines === 1);
  if (!ok) failed += 1;
  process.stdout.write(
    `| ${r.label} | ${r.cpuMs.toFixed(0)} | ${r.status} | ${r.lines} | ${ok ? 'ok' : `FAIL (bound ${bound} ms, exit ${c.status}${c.status ? ', one line' : ''})`} |\n`,
  );
  if (!ok && r.first) process.stdout.write(`|   ${r.first.slice(0, 160)} | | | | |\n`);
}
process.stdout.write(`\n${results.length - failed} of ${results.length} within bounds (least of ${RUNS} runs each)\n`);
process.exitCode = failed === 0 ? 0 : 1;
