/**
 * Build benchmark: the ten social_media variants at `paper` scale, loaded into PGlite and
 * into a PostgreSQL server (DATABASE_URL or --db), against `psql -f` of the same dumps.
 *
 *   npm run bench:build [-- --scale paper --db postgres://…]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, cpus } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { BUILT_IN_DOMAINS } from '../generator/domains/index.ts';
import { indexDomain } from '../generator/er-model/er-index.ts';
import { generateInstance } from '../generator/instance/generate-instance.ts';
import { allPresets } from '../generator/variants/variant-presets.ts';
import { buildRelationalSchema } from '../generator/variants/build-schema.ts';
import { createShredContext } from '../generator/shred/shred-rows.ts';
import { loadVariant, renderDump, shredVariant, type TableData } from '../generator/load/load-variant.ts';
import { openDatabase, type Database } from '../generator/database/database.ts';
import type { ScalePreset } from '../generator/instance/conceptual-instance.ts';

const { values } = parseArgs({
  options: { scale: { type: 'string' }, db: { type: 'string' }, dataset: { type: 'string' } },
});
const scale = (values.scale ?? 'paper') as ScalePreset;
const datasetName = values.dataset ?? 'social_media';
const serverUrl = values.db ?? process.env['DATABASE_URL'];
const domain = BUILT_IN_DOMAINS[datasetName];
if (!domain) throw new Error(`unknown dataset ${datasetName}`);
const say = (s: string) => process.stdout.write(`${s}\n`);
const seconds = (t: number) => (performance.now() - t) / 1000;

say(`machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, node ${process.version}`);
const index = indexDomain(domain);
let t = performance.now();
const instance = generateInstance(domain, { seed: 1, scale });
say(`instance (${datasetName}, ${scale}): generated in ${seconds(t).toFixed(2)} s`);

t = performance.now();
const context = createShredContext(index, instance);
const variants = allPresets(index).map((v) => {
  const schema = buildRelationalSchema(index, v);
  return { schema, data: shredVariant(context, schema) };
});
const shredSeconds = seconds(t);
const rows = variants.reduce((sum, v) => sum + v.data.reduce((s, d) => s + d.rows, 0), 0);
say(
  `shredding: ${rows} rows over ${variants.length} variants in ${shredSeconds.toFixed(2)} s (${Math.round(rows / shredSeconds)} rows/s)`,
);

async function loadAll(db: Database, prefix: string): Promise<number> {
  const start = performance.now();
  for (const { schema, data } of variants)
    await loadVariant(db, `${prefix}${schema.variant.name}`, schema, data as TableData[]);
  return seconds(start);
}

t = performance.now();
const lite = await openDatabase({ kind: 'pglite' });
say(`PGlite: started in ${seconds(t).toFixed(2)} s`);
const liteSeconds = await loadAll(lite, 'bench_');
await lite.close();
say(`PGlite load: ${liteSeconds.toFixed(2)} s, ${Math.round(rows / liteSeconds)} rows/s`);

if (!serverUrl) {
  say('server: skipped (set DATABASE_URL or pass --db)');
} else {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  const dbName = `equisql_bench_${process.pid}`;
  await admin.query(`DROP DATABASE IF EXISTS ${dbName}`);
  await admin.query(`CREATE DATABASE ${dbName}`);
  const url = new URL(serverUrl);
  url.pathname = `/${dbName}`;
  const server = await openDatabase({ kind: 'postgres', url: url.toString() });
  const serverSeconds = await loadAll(server, 'bench_');
  await server.close();
  say(`server load (COPY through pg): ${serverSeconds.toFixed(2)} s, ${Math.round(rows / serverSeconds)} rows/s`);

  const dir = mkdtempSync(join(tmpdir(), 'equisql-bench-'));
  let psqlSeconds = 0;
  for (const { schema, data } of variants) {
    const file = join(dir, `${schema.variant.name}.sql`);
    writeFileSync(file, renderDump(schema, data, '-- bench'));
    const name = `${dbName}_${schema.variant.name}`;
    await admin.query(`CREATE DATABASE ${name}`);
    const target = new URL(serverUrl);
    target.pathname = `/${name}`;
    const start = performance.now();
    const run = spawnSync('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', target.toString(), '-f', file], {
      encoding: 'utf8',
    });
    psqlSeconds += seconds(start);
    if (run.status !== 0) throw new Error(`psql failed on ${file}: ${run.stderr}`);
    await admin.query(`DROP DATABASE ${name}`);
  }
  rmSync(dir, { recursive: true, force: true });
  await admin.query(`DROP DATABASE ${dbName} WITH (FORCE)`);
  await admin.end();
  say(`psql -f of the same dumps: ${psqlSeconds.toFixed(2)} s, ${Math.round(rows / psqlSeconds)} rows/s`);
  say(`ratio, our server load time / psql -f time: ${(serverSeconds / psqlSeconds).toFixed(2)}`);
  say(`ratio, PGlite load time / psql -f time: ${(liteSeconds / psqlSeconds).toFixed(2)}`);
}
