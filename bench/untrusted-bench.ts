/**
 * Untrusted SQL benchmark: how many texts per second the executor for untrusted SQL runs
 * (`createUntrustedExecutor`: both readers of the guard, the extended protocol, pages and
 * caps), as the evaluation runs a model's predictions: every text distinct (a prediction is
 * rarely repeated, so each is parsed), over a pool of connections on a server and one on
 * PGlite. The texts are the paper suite's queries compiled for every variant, each made
 * distinct by a trailing comment; the guard's own rate (no database) is given beside.
 *
 *   npm run bench:untrusted [-- --n 3000 --connections 4 --db postgres://… --skip-pglite]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { BUILT_IN_DOMAINS } from '../generator/domains/index.ts';
import { indexDomain } from '../generator/er-model/er-index.ts';
import { buildRelationalSchema } from '../generator/variants/build-schema.ts';
import { buildDataset } from '../generator/assemble/build-dataset.ts';
import { compileQuery } from '../generator/compile/compile-query.ts';
import { PAPER_SOCIAL_MEDIA } from '../generator/suites/paper-social-media.ts';
import { openDatabase, type Database, type DatabaseTarget } from '../generator/database/database.ts';
import { createUntrustedExecutor, variantTables } from '../generator/execute/untrusted-query.ts';
import { guardQuery } from '../generator/execute/query-guard.ts';
import { loadPgParser } from '../generator/sql/pg-parser.ts';

const { values } = parseArgs({
  options: {
    n: { type: 'string' },
    connections: { type: 'string' },
    db: { type: 'string' },
    'skip-pglite': { type: 'boolean' },
  },
});
const n = Number(values.n ?? 3000);
const width = Number(values.connections ?? 4);
const serverUrl = values.db ?? process.env['DATABASE_URL'];
const say = (s: string) => process.stdout.write(`${s}\n`);
const domain = BUILT_IN_DOMAINS['social_media'];
if (!domain) throw new Error('social_media is a built-in domain');
const index = indexDomain(domain);
say(
  `machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, node ${process.version}; social_media, scale small, all variants, ${n} distinct texts`,
);

async function bench(label: string, target: DatabaseTarget, connections: number): Promise<void> {
  const out = mkdtempSync(join(tmpdir(), 'equisql-bench-untrusted-'));
  try {
    const { manifest } = await buildDataset({
      dataset: 'social_media',
      domain: domain!,
      variants: 'all',
      scale: 'small',
      seed: 1,
      profile: 'default',
      target,
      out,
    });
    const base = manifest.variants.flatMap((v) =>
      PAPER_SOCIAL_MEDIA.map((q) => ({
        pgSchema: v.pg_schema,
        sql: compileQuery(index, buildRelationalSchema(index, v.spec), q.query),
      })),
    );
    const texts = Array.from({ length: n }, (_, i) => ({
      pgSchema: base[i % base.length]!.pgSchema,
      sql: `${base[i % base.length]!.sql}\n-- prediction ${i}`,
    }));
    const pool: Database[] = [];
    for (let i = 0; i < connections; i++) pool.push(await openDatabase(target));
    try {
      await loadPgParser();
      for (const db of pool) for (const v of manifest.variants) await variantTables(db, v.pg_schema);
      // The guard alone, on texts of its own (its verdicts are kept per text).
      const tables = new Map<string, ReadonlySet<string>>();
      for (const v of manifest.variants) tables.set(v.pg_schema, await variantTables(pool[0]!, v.pg_schema));
      let t = performance.now();
      for (const [i, q] of texts.entries())
        guardQuery(`${q.sql} guard-only ${i}`, { pgSchema: q.pgSchema, tables: tables.get(q.pgSchema)! });
      const guardRate = n / ((performance.now() - t) / 1000);
      const executor = createUntrustedExecutor(pool, { timeoutMs: 30_000 });
      t = performance.now();
      const outcomes = await Promise.all(texts.map((q) => executor.run(q.pgSchema, q.sql)));
      const seconds = (performance.now() - t) / 1000;
      const kinds = new Map<string, number>();
      for (const o of outcomes) kinds.set(o.kind, (kinds.get(o.kind) ?? 0) + 1);
      say(
        `\n${label} (${connections} connection${connections === 1 ? '' : 's'}): ${n} texts in ${seconds.toFixed(1)} s = ${(n / seconds).toFixed(0)} texts/s; outcomes ${[...kinds].map(([k, c]) => `${k} ${c}`).join(', ')}`,
      );
      say(`  the guard alone (both readers, no database): ${guardRate.toFixed(0)} texts/s on one thread`);
    } finally {
      for (const db of pool) await db.close();
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

if (!values['skip-pglite']) {
  const dir = mkdtempSync(join(tmpdir(), 'equisql-bench-untrusted-pglite-'));
  try {
    await bench('PGlite', { kind: 'pglite', dir: join(dir, 'pglite') }, 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
if (serverUrl) {
  const name = `equisql_bench_untrusted_${process.pid}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  try {
    await bench('server', { kind: 'postgres', url: url.toString() }, width);
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}
