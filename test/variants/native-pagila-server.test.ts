import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildDataset } from '../../generator/assemble/build-dataset.ts';
import { verifyDataset } from '../../generator/assemble/verify-dataset.ts';
import { openDatabase } from '../../generator/database/database.ts';
import type { Domain } from '../../generator/er-model/er-model.ts';
import { draftModel } from '../../generator/import/draft-model.ts';
import { readDatabaseSource, readSource, type SourceRead } from '../../generator/import/read-source.ts';
import { describeServer } from '../helpers/postgres.ts';
import { catalogShape } from '../helpers/catalog-shape.ts';

const PAGILA = resolve(import.meta.dirname, '../../../shared/databases/pagila');
const hasPagila = existsSync(join(PAGILA, 'pagila-schema.sql')) && existsSync(join(PAGILA, 'pagila-data.sql'));

describeServer('the native variant of Pagila', (serverUrl) => {
  let url = '';
  let name = '';
  let source: SourceRead;
  let domain: Domain;
  const dir = mkdtempSync(join(tmpdir(), 'equisql-native-pagila-'));
  const admin = async <T>(fn: (c: pg.Client) => Promise<T>): Promise<T> => {
    const c = new pg.Client({ connectionString: serverUrl });
    await c.connect();
    try {
      return await fn(c);
    } finally {
      await c.end();
    }
  };
  const databaseUrl = (db: string): string => {
    const u = new URL(serverUrl);
    u.pathname = `/${db}`;
    return u.toString();
  };
  beforeAll(async () => {
    if (!hasPagila) return;
    // Named after the database the server gave this checkout, so it is ours to drop.
    name = `${new URL(serverUrl).pathname.slice(1) || 'equisql'}_native_pagila_${process.pid}`.toLowerCase().replace(/[^a-z0-9_]/gu, '_');
    await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name}`));
    await admin((c) => c.query(`CREATE DATABASE ${name}`));
    url = databaseUrl(name);
    for (const file of ['pagila-schema.sql', 'pagila-data.sql']) execFileSync('psql', ['-q', '-v', 'ON_ERROR_STOP=1', '-d', url, '-f', join(PAGILA, file)], { stdio: 'ignore' });
    source = await readSource(url);
    domain = draftModel(source, { name: 'pagila' }).domain;
  }, 120_000);
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    if (name) {
      await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
      await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name}_built WITH (FORCE)`));
    }
  });

  it.skipIf(!hasPagila)('builds the imported tables with their columns, types, nullability, keys and foreign keys, and reads back its instance', async () => {
    await admin((c) => c.query(`CREATE DATABASE ${name}_built`));
    const db = await openDatabase({ kind: 'postgres', url: databaseUrl(`${name}_built`) });
    try {
      const out = join(dir, 'built');
      const built = await buildDataset({ dataset: 'pagila', domain, variants: 'native,full_sti', scale: 'tiny', seed: 11, profile: 'default', target: db, out, schemaPrefix: 'pagila_' });
      const native = built.manifest.variants.find((v) => v.name === 'native');
      const rebuilt = await readDatabaseSource(db, { schema: native?.pg_schema as string });
      // Every table the import read as an entity, a link or a child table: the payment
      // partitions fold into payment, which the native variant builds as one plain table.
      const imported = rebuilt.catalog.tables.map((t) => t.name);
      expect(imported.sort()).toEqual(source.catalog.tables.map((t) => t.name).sort());
      expect(catalogShape(rebuilt.catalog)).toEqual(catalogShape(source.catalog, imported));
      expect(rebuilt.catalog.enums).toEqual(source.catalog.enums.filter((e) => e.name === 'mpaa_rating'));
      const checks = await verifyDataset(out, db);
      expect(checks.map((c) => c.variant)).toEqual(['native', 'full_sti']);
      for (const check of checks) expect(check.differences, check.variant).toEqual([]);
    } finally {
      await db.close();
    }
  }, 300_000);
});
