import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildDataset } from '../../generator/assemble/build-dataset.ts';
import { verifyDataset } from '../../generator/assemble/verify-dataset.ts';
import { main } from '../../generator/cli/main.ts';
import { openDatabase } from '../../generator/database/database.ts';
import { domainToJson } from '../../generator/er-model/domain-json.ts';
import { normalizeResult } from '../../generator/execute/run-query.ts';
import type { Domain } from '../../generator/er-model/er-model.ts';
import { draftModel } from '../../generator/import/draft-model.ts';
import { readDatabaseSource, readSource, type SourceRead } from '../../generator/import/read-source.ts';
import { describeServer } from '../helpers/postgres.ts';
import { catalogShape } from '../helpers/catalog-shape.ts';
import { sized } from '../helpers/tiers.ts';

const GROUPS = sized('EQUISQL_PAGILA_GROUPS', 30, 200);

const PAGILA = resolve(import.meta.dirname, '../../../shared/databases/pagila');
const hasPagila = existsSync(join(PAGILA, 'pagila-schema.sql')) && existsSync(join(PAGILA, 'pagila-data.sql'));

/** The text psql prints for NULL (`--pset null=…`), so an empty string stays an empty field. */
const NULL_MARK = '\\N';

/** psql's CSV output (`--csv -t`): fields split on commas, quoted ones unquoted, rows on newlines outside quotes. */
function parseCsv(text: string): (string | null)[][] {
  const rows: (string | null)[][] = [];
  let row: (string | null)[] = [];
  let field = '';
  let quoted = false;
  let wasQuoted = false;
  const endField = (): void => {
    row.push(!wasQuoted && field === NULL_MARK ? null : field);
    field = '';
    wasQuoted = false;
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') {
      quoted = true;
      wasQuoted = true;
    } else if (ch === ',') endField();
    else if (ch === '\n') {
      endField();
      rows.push(row);
      row = [];
    } else field += ch;
  }
  if (field !== '' || row.length > 0 || wasQuoted) {
    endField();
    rows.push(row);
  }
  return rows;
}

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
    name = `${new URL(serverUrl).pathname.slice(1) || 'equisql'}_native_pagila_${process.pid}`
      .toLowerCase()
      .replace(/[^a-z0-9_]/gu, '_');
    await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name}`));
    await admin((c) => c.query(`CREATE DATABASE ${name}`));
    url = databaseUrl(name);
    for (const file of ['pagila-schema.sql', 'pagila-data.sql'])
      execFileSync('psql', ['-q', '-v', 'ON_ERROR_STOP=1', '-d', url, '-f', join(PAGILA, file)], { stdio: 'ignore' });
    source = await readSource(url);
    domain = draftModel(source, { name: 'pagila' }).domain;
  }, 120_000);
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    if (name) {
      await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
      await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name}_built WITH (FORCE)`));
      await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name}_gen WITH (FORCE)`));
    }
  });

  it.skipIf(!hasPagila)(
    'builds the imported tables with their columns, types, nullability, keys and foreign keys, and reads back its instance',
    async () => {
      await admin((c) => c.query(`CREATE DATABASE ${name}_built`));
      const db = await openDatabase({ kind: 'postgres', url: databaseUrl(`${name}_built`) });
      try {
        const out = join(dir, 'built');
        const built = await buildDataset({
          dataset: 'pagila',
          domain,
          variants: 'native,full_sti',
          scale: 'tiny',
          seed: 11,
          profile: 'default',
          target: db,
          out,
          schemaPrefix: 'pagila_',
        });
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
    },
    300_000,
  );

  it.skipIf(!hasPagila)(
    `generates ${GROUPS} groups on Pagila's own rows (--instance-from), and every gold SQL of the native variant returns its recorded answer with psql on the untouched database`,
    async () => {
      await admin((c) => c.query(`CREATE DATABASE ${name}_gen`));
      const model = join(dir, 'pagila.er.json');
      writeFileSync(model, domainToJson(domain));
      const out = join(dir, 'gen');
      const err: string[] = [];
      const args = [
        'generate',
        '--dataset',
        model,
        '--instance-from',
        url,
        '--variants',
        'native,full_cti,full_sti',
        '--scale',
        'tiny',
        '--seed',
        '3',
        '--groups',
        String(GROUPS),
        '--db',
        databaseUrl(`${name}_gen`),
        '--out',
        out,
        '--quiet',
      ];
      const status = await main(args, { out: () => {}, err: (t) => err.push(t), readStdin: async () => '', env: {} });
      expect(status, err.join('\n')).toBe(0);
      const build = JSON.parse(readFileSync(join(out, 'build.json'), 'utf8')) as { instance_from?: { source: string } };
      expect(build.instance_from?.source).toBe(url);
      const groups = readFileSync(join(out, 'groups', 'pagila.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map(
          (line) =>
            JSON.parse(line) as {
              ordered: boolean;
              variants: Record<string, { sql: string; result_hash: string; row_count: number }>;
            },
        );
      expect(groups).toHaveLength(GROUPS);
      const script = join(dir, 'gold.sql');
      for (const g of groups) {
        const gold = g.variants['native'];
        expect(gold).toBeDefined();
        // As the runner reads answers: UTC, ISO dates; the SQL itself unchanged.
        writeFileSync(script, `SET TimeZone = 'UTC';\nSET DateStyle = 'ISO, YMD';\n${gold?.sql};\n`);
        const csv = execFileSync(
          'psql',
          ['-X', '-q', '--csv', '-t', `--pset=null=${NULL_MARK}`, '-v', 'ON_ERROR_STOP=1', '-d', url, '-f', script],
          { encoding: 'utf8' },
        );
        const rows = parseCsv(csv);
        const answer = normalizeResult({ columns: [], rows }, g.ordered);
        expect(rows.length, gold?.sql).toBe(gold?.row_count);
        expect(answer.hash, gold?.sql).toBe(gold?.result_hash);
      }
    },
    900_000,
  );
});
