/**
 * Evaluation benchmark: (question, variant) predictions scored per second by `runEval` (the
 * guarded executor on one pool, on the main and the edge instance, answers normalized and
 * compared, lines written, the summary computed) on PGlite and on a server, at the paper
 * scale. Generates the paper's fifteen social_media questions (`--from-suite`) on all ten
 * variants, writes P paraphrases a group, exports every row to the test split, then scores
 * (1) a predictions file whose every text is distinct (the gold SQL with a comment of its
 * own: each is guarded and run, as a model's predictions are) and (2) the gold itself (the
 * paraphrases share their SQL: each text runs once). Beside them, the executor alone on the
 * texts of (1), main and edge instance, on the same pool: what the database and the guard
 * cost without the evaluation around them.
 *
 *   npm run bench:eval [-- --paraphrases 20 --rows 600 --connections 4 --db postgres://… --skip-pglite]
 */
import { writeSuiteParaphrases } from './suite-paraphrases.ts';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { main } from '../generator/cli/main.ts';
import { targetOf } from '../generator/assemble/verify-dataset.ts';
import { openDatabase, type Database } from '../generator/database/database.ts';
import { readEvalInputs } from '../generator/eval/eval-inputs.ts';
import { fileSource, goldSource, type PredictionSource } from '../generator/eval/prediction-source.ts';
import { runEval } from '../generator/eval/run-eval.ts';
import { createUntrustedExecutor } from '../generator/execute/untrusted-query.ts';
import { PAPER_SOCIAL_MEDIA } from '../generator/suites/paper-social-media.ts';

const { values } = parseArgs({
  options: {
    paraphrases: { type: 'string' },
    rows: { type: 'string' },
    connections: { type: 'string' },
    db: { type: 'string' },
    'skip-pglite': { type: 'boolean' },
    scale: { type: 'string' },
  },
});
/** Rows scored of the export (its first ones): the paper scale's queries take a while on a loaded machine. */
const maxRows = values.rows === undefined ? Infinity : Number(values.rows);
const paraphrases = Number(values.paraphrases ?? 20);
const width = Number(values.connections ?? 4);
const scale = values.scale ?? 'paper';
const serverUrl = values.db ?? process.env['DATABASE_URL'];
const say = (s: string) => process.stdout.write(`${s}\n`);
say(
  `machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, node ${process.version}, load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}; social_media, scale ${scale}, all ten variants, ${paraphrases} paraphrases a group`,
);

async function bench(label: string, db: string | undefined, connections: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'equisql-bench-eval-'));
  try {
    const suite = join(dir, 'suite.jsonl');
    writeFileSync(
      suite,
      PAPER_SOCIAL_MEDIA.map((q) => JSON.stringify({ id: q.id, query: q.query, question: q.question })).join('\n') +
        '\n',
    );
    const out = join(dir, 'out');
    const quiet = {
      out: () => {},
      err: () => {},
      readStdin: async () => '',
      env: { ...process.env, DATABASE_URL: db },
    };
    let t = performance.now();
    await main(
      [
        'generate',
        '--dataset',
        'social_media',
        '--scale',
        scale,
        '--from-suite',
        suite,
        '--out',
        out,
        ...(db ? ['--db', db] : []),
      ],
      quiet,
    );
    say(`\n${label}: generate (both instances built, groups checked) ${((performance.now() - t) / 1000).toFixed(1)} s`);
    const groupCount = new Set(writeSuiteParaphrases(out, 'social_media', paraphrases).map((q) => q.group_id)).size;
    await main(['export', '--dir', out, '--ratios', 'test=1', '--formats', 'jsonl', '--keep-duplicates'], quiet);
    const all = readEvalInputs(out, 'test');
    const inputs = { ...all, rows: all.rows.slice(0, maxRows) };
    const file = join(dir, 'predictions.jsonl');
    writeFileSync(
      file,
      inputs.rows.map((r, i) => JSON.stringify({ id: r.id, sql: `${r.sql}\n-- prediction ${i}` })).join('\n') + '\n',
    );
    const target = targetOf(out, inputs.manifest, db);
    const pool: Database[] = [];
    for (let i = 0; i < connections; i++) pool.push(await openDatabase(target));
    try {
      const executor = createUntrustedExecutor(pool, { timeoutMs: 30_000 });
      const schemas = new Map(inputs.variants.map((v) => [v.name, v]));
      t = performance.now();
      await Promise.all(
        inputs.rows.map(async (r, i) => {
          const v = schemas.get(r.variant);
          const text = `${r.sql}\n-- alone ${i}`;
          await executor.run(v?.mainSchema as string, text);
          if (v?.edgeSchema) await executor.run(v.edgeSchema, text);
        }),
      );
      const alone = (performance.now() - t) / 1000;
      say(
        `${label} (${connections} connection${connections === 1 ? '' : 's'}), the executor alone, main and edge: ${inputs.rows.length} texts in ${alone.toFixed(1)} s = ${(inputs.rows.length / alone).toFixed(0)} texts/s`,
      );
      for (const [what, source] of [
        ['distinct texts (a predictions file)', fileSource(file, 'distinct')],
        ['the gold (paraphrases share their SQL)', goldSource()],
      ] as [string, PredictionSource][]) {
        t = performance.now();
        const result = await runEval({
          inputs,
          source,
          connections: pool,
          context: 'ddl',
          concurrency: Math.max(4, connections),
          out: join(dir, `eval-${source.label}`),
          resume: false,
        });
        const seconds = (performance.now() - t) / 1000;
        const s = result.summary;
        say(
          `${label} (${connections} connection${connections === 1 ? '' : 's'}), ${what}: ${result.rows} predictions of ${groupCount} groups in ${seconds.toFixed(1)} s = ${(result.rows / seconds).toFixed(0)} predictions/s; EX ${((s?.ex.rate ?? 0) * 100).toFixed(1)}%, invalid ${s?.errors.invalid ?? '?'}`,
        );
      }
    } finally {
      for (const c of pool) await c.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (!values['skip-pglite']) await bench('PGlite', undefined, 1);
if (serverUrl) {
  const name = `equisql_bench_eval_${process.pid}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  try {
    await bench('server', url.toString(), width);
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}
