/**
 * Import benchmark: `equisql import`'s reading and drafting of Pagila (PostgreSQL, the
 * database named by --db or DATABASE_URL, loaded with psql from ../shared/databases/pagila
 * when --db is not given) and of Chinook (its SQLite file). Three runs each; the median.
 *
 *   npm run bench:import [-- --db postgres://…/pagila]
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { draftModel } from '../generator/import/draft-model.ts';
import { readSource } from '../generator/import/read-source.ts';

const { values } = parseArgs({ options: { db: { type: 'string' } } });
const shared = resolve(import.meta.dirname, '../../shared/databases');
const say = (s: string) => process.stdout.write(`${s}\n`);

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
  for (const file of ['pagila-schema.sql', 'pagila-data.sql']) spawnSync('psql', ['-q', '-v', 'ON_ERROR_STOP=1', '-d', url, '-f', join(shared, 'pagila', file)], { stdio: 'ignore' });
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
  const chinook = join(shared, 'chinook/Chinook_Sqlite.sqlite');
  if (existsSync(chinook)) await timed('chinook (SQLite)', chinook);
  else say(`chinook: skipped (${chinook} absent)`);
} finally {
  await drop?.();
}
