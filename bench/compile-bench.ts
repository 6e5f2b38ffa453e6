/**
 * Compile benchmark: conceptual queries compiled per second (random queries and the paper
 * suite, all ten presets of both domains), and for the paper suite at `small` scale the
 * share of wall time spent inside the database versus in our code, on PGlite and on a
 * server (DATABASE_URL or --db).
 *
 *   npm run bench:compile [-- --queries 2000 --db postgres://…]
 */
import { cpus, tmpdir } from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { BUILT_IN_DOMAINS } from '../generator/domains/index.ts';
import { indexDomain } from '../generator/er-model/er-index.ts';
import { generateInstance } from '../generator/instance/generate-instance.ts';
import { allPresets } from '../generator/variants/variant-presets.ts';
import { buildRelationalSchema } from '../generator/variants/build-schema.ts';
import { compileQuery } from '../generator/compile/compile-query.ts';
import { randomQuery } from '../generator/query/random-query.ts';
import { createRng } from '../generator/common/rng.ts';
import { SUITES } from '../generator/suites/index.ts';
import { openDatabase, type Database } from '../generator/database/database.ts';
import { buildDataset } from '../generator/assemble/build-dataset.ts';
import { runQuestions } from '../generator/suites/run-suite.ts';

const { values } = parseArgs({ options: { queries: { type: 'string' }, db: { type: 'string' } } });
const perDomain = Number(values.queries ?? 2000);
const serverUrl = values.db ?? process.env['DATABASE_URL'];
const say = (s: string) => process.stdout.write(`${s}\n`);
say(`machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, node ${process.version}`);

// 1. Compile throughput.
let compiled = 0;
let seconds = 0;
let suiteCompiled = 0;
let suiteSeconds = 0;
for (const [name, domain] of Object.entries(BUILT_IN_DOMAINS)) {
  const index = indexDomain(domain);
  const schemas = allPresets(index).map((v) => buildRelationalSchema(index, v));
  const instance = generateInstance(domain, { seed: 1, scale: 'tiny' });
  const rng = createRng(`bench/${name}`);
  const queries = Array.from({ length: perDomain }, (_, i) => randomQuery(index, instance, rng.fork(String(i))));
  let t = performance.now();
  for (const q of queries) for (const s of schemas) compileQuery(index, s, q);
  seconds += (performance.now() - t) / 1000;
  compiled += queries.length * schemas.length;
  const suite = SUITES['paper']!.domains[name] ?? [];
  t = performance.now();
  for (let round = 0; round < 20; round++)
    for (const q of suite) for (const s of schemas) compileQuery(index, s, q.query);
  suiteSeconds += (performance.now() - t) / 1000;
  suiteCompiled += 20 * suite.length * schemas.length;
}
say(
  `compile, random queries: ${compiled} (query, variant) pairs in ${seconds.toFixed(2)} s = ${Math.round(compiled / seconds)} per second`,
);
say(
  `compile, paper suite: ${suiteCompiled} (question, variant) pairs in ${suiteSeconds.toFixed(2)} s = ${Math.round(suiteCompiled / suiteSeconds)} per second`,
);

// 2. Where a suite run's time goes.
async function suiteShare(db: Database, label: string): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'equisql-bench-'));
  let wall = 0;
  let inDb = 0;
  let answers = 0;
  for (const [name, domain] of Object.entries(BUILT_IN_DOMAINS)) {
    const built = await buildDataset({
      dataset: name,
      domain,
      variants: 'all',
      scale: 'small',
      seed: 1,
      profile: 'default',
      target: db,
      out: join(dir, name),
      schemaPrefix: `bench_${name}_`,
    });
    const index = indexDomain(domain);
    const questions = SUITES['paper']!.domains[name] ?? [];
    await runQuestions(index, built.manifest, db, questions); // warm-up
    const t = performance.now();
    const outcomes = await runQuestions(index, built.manifest, db, questions);
    wall += performance.now() - t;
    for (const o of outcomes)
      for (const a of o.answers) {
        inDb += a.db_ms;
        answers += 1;
      }
  }
  rmSync(dir, { recursive: true, force: true });
  say(
    `paper suite on ${label} (small scale, ${answers} answers): wall ${(wall / 1000).toFixed(2)} s, in the database ${(inDb / 1000).toFixed(2)} s (${((100 * inDb) / wall).toFixed(1)}%), in our code ${((wall - inDb) / 1000).toFixed(2)} s (${((100 * (wall - inDb)) / wall).toFixed(1)}%)`,
  );
}

const lite = await openDatabase({ kind: 'pglite' });
await suiteShare(lite, 'PGlite');
await lite.close();
if (serverUrl) {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  const name = `equisql_bench_compile_${process.pid}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const server = await openDatabase({ kind: 'postgres', url: url.toString() });
  await suiteShare(server, 'the server');
  await server.close();
  await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
  await admin.end();
} else {
  say('server: skipped (set DATABASE_URL or pass --db)');
}
