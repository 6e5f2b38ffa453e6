/**
 * Export benchmark: rows per second written as JSON Lines and as Parquet, and the share of a
 * whole `generate` run spent outside the database. Generates the paper's social_media
 * questions (`--from-suite`, all variants, tiny scale) once, then writes a questions file with
 * P paraphrases a group so the export has enough rows to time.
 *
 *   npm run bench:export [-- --paraphrases 300]
 */
import { writeSuiteParaphrases } from './suite-paraphrases.ts';
import { cpus, tmpdir } from 'node:os';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { main } from '../generator/cli/main.ts';
import { exportDataset } from '../generator/export/export-dataset.ts';
import { DEFAULT_RATIOS } from '../generator/export/split-assign.ts';
import { PAPER_SOCIAL_MEDIA } from '../generator/suites/paper-social-media.ts';

const { values } = parseArgs({ options: { paraphrases: { type: 'string' } } });
const paraphrases = Number(values.paraphrases ?? 300);
const say = (s: string) => process.stdout.write(`${s}\n`);
say(`machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, node ${process.version}`);

const dir = mkdtempSync(join(tmpdir(), 'equisql-bench-export-'));
try {
  const suite = join(dir, 'suite.jsonl');
  writeFileSync(
    suite,
    PAPER_SOCIAL_MEDIA.map((q) => JSON.stringify({ id: q.id, query: q.query, question: q.question })).join('\n') + '\n',
  );
  const out = join(dir, 'out');
  const quiet = {
    out: () => {},
    err: () => {},
    readStdin: async () => '',
    env: { ...process.env, DATABASE_URL: undefined },
  };
  const started = performance.now();
  const status = await main(
    [
      'generate',
      '--dataset',
      'social_media',
      '--scale',
      'tiny',
      '--from-suite',
      suite,
      '--difficulty',
      'easy=1,medium=1,hard=1,extra=1',
      '--out',
      out,
    ],
    quiet,
  );
  const wall = (performance.now() - started) / 1000;
  const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
  const t = manifest.timings;
  say(
    `generate, whole run (build of both instances, ${manifest.counts.accepted} groups, export), exit ${status}: ${wall.toFixed(1)} s wall; groups stage ${t.total_seconds} s, of which ${t.database_seconds} s waiting on the database and ${t.own_seconds} s in our code (${(100 * (1 - t.database_share)).toFixed(0)}%); the other ${(wall - t.total_seconds).toFixed(1)} s are the builds (instance, shredding, loading and reading back through PGlite) and the export`,
  );

  writeSuiteParaphrases(out, 'social_media', paraphrases);
  // Every question on every variant, duplicates kept: the rows of the figures before row controls.
  const rows = { variantsPerQuestion: 'all', paraphrasesPerStyle: 'all', dedupe: false } as const;
  for (const format of ['jsonl', 'parquet'] as const) {
    const report = await exportDataset({ dir: out, split: 'random', ratios: DEFAULT_RATIOS, formats: [format], rows });
    const s = report.seconds[format];
    say(
      `${format}: ${report.rows} rows in ${s.toFixed(2)} s = ${Math.round(report.rows / s)} rows/s (whole export incl. reading, records, card: ${report.seconds.total.toFixed(2)} s)`,
    );
  }
  // The fine-tuning files with their token counts, for each prompt schema.
  for (const promptSchema of ['full', 'compact', 'compact+values'] as const) {
    const report = await exportDataset({
      dir: out,
      split: 'random',
      ratios: DEFAULT_RATIOS,
      formats: ['chat', 'prompt'],
      rows,
      promptSchema,
    });
    say(
      `chat+prompt (${promptSchema}): ${report.rows} rows, whole export ${report.seconds.total.toFixed(2)} s = ${Math.round(report.rows / report.seconds.total)} rows/s`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
