/**
 * RL reward benchmark: predictions the shipped reward (`rewards/equisql_reward.py`) scores
 * per second, in one Python process on one core, on SQLite with the gold answers
 * precomputed. Generates the paper's social_media questions on four variants (tiny scale),
 * checked on SQLite too (`--engines postgres,sqlite`, which writes the SQLite files),
 * exports the RL formats, then scores N predictions: each row's gold SQL with a comment of
 * its own (each text is guarded and run on the main and the edge
 * instance, as a model's would be).
 *
 *   npm run bench:reward [-- --predictions 4000 --python /path/to/python]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { PAPER_SOCIAL_MEDIA } from '../generator/suites/paper-social-media.ts';

const { values } = parseArgs({ options: { predictions: { type: 'string' }, python: { type: 'string' } } });
const count = Number(values.predictions ?? 4000);
const python = values.python ?? process.env['EQUISQL_PYTHON'] ?? 'python3';
const say = (s: string) => process.stdout.write(`${s}\n`);
const work = mkdtempSync(join(tmpdir(), 'equisql-reward-bench-'));
try {
  const dir = join(work, 'generated');
  const suite = join(work, 'suite.jsonl');
  writeFileSync(
    suite,
    PAPER_SOCIAL_MEDIA.map((q) => JSON.stringify({ id: q.id, query: q.query, question: q.question })).join('\n') + '\n',
  );
  const cli = (args: string[]): void => {
    const run = spawnSync(process.execPath, [join(import.meta.dirname, '../bin/equisql.js'), ...args, '--quiet'], {
      encoding: 'utf8',
      env: { ...process.env, DATABASE_URL: '' },
    });
    if (run.status !== 0 && !(args[0] === 'generate' && run.status === 1))
      throw new Error(`equisql ${args[0]}: ${run.stderr}`);
  };
  cli([
    'generate',
    '--dataset',
    'social_media',
    '--variants',
    'full_normalized,full_sti,full_cti,full_concrete',
    '--scale',
    'tiny',
    '--engines',
    'postgres,sqlite',
    '--from-suite',
    suite,
    '--variants-per-question',
    'all',
    '--out',
    dir,
  ]);
  cli(['export', '--dir', dir, '--formats', 'jsonl,trl-grpo', '--ratios', 'train=1']);
  const rows = readFileSync(join(dir, 'rl/trl-grpo/train.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { id: string; ground_truth: string });
  const sql = new Map(
    readFileSync(join(dir, 'data/train-00000-of-00001.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { id: string; sql: string })
      .map((r) => [r.id, r.sql]),
  );
  const cases = Array.from({ length: count }, (_, i) => {
    const row = rows[i % rows.length] as { id: string; ground_truth: string };
    return JSON.stringify({
      completion: `\`\`\`sql\n-- prediction ${i}\n${sql.get(row.id)}\n\`\`\``,
      ground_truth: row.ground_truth,
    });
  });
  const file = join(work, 'cases.jsonl');
  writeFileSync(file, cases.join('\n') + '\n');
  say(
    `machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(
        ' ',
      )}; ${python}; ${rows.length} rows of social_media (tiny, 4 variants), ${count} predictions, main and edge instance each`,
  );
  const run = spawnSync(
    'taskset',
    ['-c', '0', python, join(import.meta.dirname, '../test/rl/score_cases.py'), dir, file],
    { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
  );
  if (run.status !== 0) throw new Error(run.stderr);
  const out = JSON.parse(run.stdout) as { results: { score: number }[]; per_second: number };
  const right = out.results.filter((r) => r.score === 1).length;
  say(`reward: ${out.per_second.toFixed(0)} predictions/s on one core (${right} of ${count} scored 1)`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
