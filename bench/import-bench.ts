/**
 * Import benchmark: `equisql import`'s reading and drafting of Pagila (PostgreSQL, the
 * database named by --db or DATABASE_URL, loaded with psql from ../shared/databases/pagila
 * when --db is not given) and of Chinook (its SQLite file). Three runs each; the median.
 * With a server, also `build --instance-from` of Pagila (its rows read through the native
 * variant, shredded and loaded into a fresh database) against loading Pagila's own files
 * into a fresh database with psql, three runs each.
 *
 *   npm run bench:import [-- --db postgres://…/pagila]
 */
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { buildDataset } from '../generator/assemble/build-dataset.ts';
import { openDatabase } from '../generator/database/database.ts';
import { indexDomain } from '../generator/er-model/er-index.ts';
import { readSourceInstance } from '../generator/instance/source-instance.ts';
import { draftModel } from '../generator/import/draft-model.ts';
import { readSource } from '../generator/import/read-source.ts';

const { values } = parseArgs({ options: { db: { type: 'string' } } });
const shared = resolve(import.meta.dirname, '../../shared/databases');
const say = (s: string) => process.stdout.write(`${s}\n`);
const median = (runs: number[]): string =>
  `median ${[...runs].sort((a, b) => a - b)[1]?.toFixed(2)} s (runs ${runs.map((r) => r.toFixed(2)).join(', ')})`;

/** A fresh database on the server for `body`, dropped after. */
async function freshDatabase<T>(server: string, name: string, body: (url: string) => Promise<T>): Promise<T> {
  const admin = async (sql: string): Promise<void> => {
    const c = new pg.Client({ connectionString: server });
    await c.connect();
    await c.query(sql);
    await c.end();
  };
  await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin(`CREATE DATABASE ${name}`);
  const u = new URL(server);
  u.pathname = `/${name}`;
  try {
    return await body(u.toString());
  } finally {
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

/** `build --instance-from` of Pagila (native variant) against psql loading Pagila's files, each into a fresh database. */
async function instanceFrom(server: string, source: string): Promise<void> {
  const base = `${new URL(server).pathname.slice(1) || 'equisql'}_bench_target`;
  const domain = draftModel(await readSource(source), { name: 'pagila' }).domain;
  const index = indexDomain(domain);
  const psqlRuns: number[] = [];
  const buildRuns: number[] = [];
  let rows = 0;
  for (let i = 0; i < 3; i++) {
    await freshDatabase(server, base, async (url) => {
      const t = performance.now();
      for (const file of ['pagila-schema.sql', 'pagila-data.sql'])
        spawnSync('psql', ['-q', '-v', 'ON_ERROR_STOP=1', '-d', url, '-f', join(shared, 'pagila', file)], {
          stdio: 'ignore',
        });
      psqlRuns.push((performance.now() - t) / 1000);
    });
    await freshDatabase(server, base, async (url) => {
      const t = performance.now();
      const instance = await readSourceInstance(index, source);
      const db = await openDatabase({ kind: 'postgres', url });
      try {
        const out = join(process.env['TMPDIR'] ?? '/tmp', `equisql-bench-instance-from-${process.pid}`);
        const built = await buildDataset({
          dataset: 'pagila',
          domain,
          variants: 'native',
          scale: 'tiny',
          seed: 1,
          profile: 'default',
          target: db,
          out,
          instance: { instance, source },
        });
        rows = built.rows;
      } finally {
        await db.close();
      }
      buildRuns.push((performance.now() - t) / 1000);
    });
  }
  rmSync(join(process.env['TMPDIR'] ?? '/tmp', `equisql-bench-instance-from-${process.pid}`), {
    recursive: true,
    force: true,
  });
  say(`pagila loaded from its files with psql: ${median(psqlRuns)}`);
  say(
    `build --instance-from pagila --variants native (${rows} rows read, shredded, written and loaded): ${median(buildRuns)}`,
  );
}

async function timed(label: string, source: string): Promise<void> {
  const runs: number[] = [];
  let summary = '';
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    const read = await readSource(source);
    const { domain, findings } = draftModel(read);
    runs.push((performance.now() - t) / 1000);
    summary = `${read.catalog.tables.length} tables, ${domain.entities.length} entities, ${domain.relationships.length} relationships, ${findings.length} report lines`;
  }
  runs.sort((a, b) => a - b);
  say(`${label}: ${summary}; median ${runs[1]?.toFixed(2)} s (runs ${runs.map((r) => r.toFixed(2)).join(', ')})`);
}

let url = values.db;
let drop: (() => Promise<void>) | undefined;
const server = process.env['DATABASE_URL'];
if (!url && server && existsSync(join(shared, 'pagila/pagila-schema.sql'))) {
  const name = `${new URL(server).pathname.slice(1) || 'equisql'}_bench_pagila`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name}`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(server);
  u.pathname = `/${name}`;
  url = u.toString();
  const t = performance.now();
  for (const file of ['pagila-schema.sql', 'pagila-data.sql'])
    spawnSync('psql', ['-q', '-v', 'ON_ERROR_STOP=1', '-d', url, '-f', join(shared, 'pagila', file)], {
      stdio: 'ignore',
    });
  say(`pagila loaded with psql in ${((performance.now() - t) / 1000).toFixed(2)} s`);
  drop = async () => {
    const c = new pg.Client({ connectionString: server });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.end();
  };
}
try {
  if (url) await timed('pagila (PostgreSQL)', url);
  else say('pagila: skipped (give --db or DATABASE_URL)');
  if (url && server && existsSync(join(shared, 'pagila/pagila-data.sql'))) await instanceFrom(server, url);
  else say('build --instance-from: skipped (needs DATABASE_URL and ../shared/databases/pagila)');
  const chinook = join(shared, 'chinook/Chinook_Sqlite.sqlite');
  if (existsSync(chinook)) await timed('chinook (SQLite)', chinook);
  else say(`chinook: skipped (${chinook} absent)`);
} finally {
  await drop?.();
}
