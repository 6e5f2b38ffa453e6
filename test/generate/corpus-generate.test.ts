// @tier long
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runMain } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import { sized } from '../helpers/tiers.ts';
import { describeServer } from '../helpers/postgres.ts';
import { CHINOOK_SQLITE, hasChinook, hasPagila, loadPagila } from '../helpers/shared-databases.ts';

// `generate --corpus`: every database of a corpus (built-in domains, a model file, a SQLite
// file, a PostgreSQL database) generated with one command and exported together, each record
// naming its database, and `--split database` keeping each database in one split, as check proves.
const tmp = tempDir('corpus-generate');
afterAll(() => tmp.remove());
const noServer = { DATABASE_URL: undefined };
const LIBRARY = join(REPO_ROOT, 'test/fixtures/er-model/valid/library.json');
const CHINOOK = CHINOOK_SQLITE;
const GROUPS = String(sized('EQUISQL_CORPUS_GROUPS', 2, 20));

/** Every data row of an export, by split. */
function rowsBySplit(dir: string): Map<string, Record<string, unknown>[]> {
  const out = new Map<string, Record<string, unknown>[]>();
  for (const name of readdirSync(join(dir, 'data'))
    .filter((n) => n.endsWith('.jsonl'))
    .sort()) {
    const split = name.split('-')[0] as string;
    out.set(
      split,
      readFileSync(join(dir, 'data', name), 'utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    );
  }
  return out;
}

/** The split each db_id is in: a database in two splits shows as two. */
function splitsOfDatabases(dir: string): Map<string, Set<string>> {
  const where = new Map<string, Set<string>>();
  for (const [split, rows] of rowsBySplit(dir))
    for (const r of rows) where.set(String(r['db_id']), (where.get(String(r['db_id'])) ?? new Set()).add(split));
  return where;
}

/** The corpus's export split by database holds each database whole in one split, and check passes. */
async function expectDatabaseSplit(dir: string, dbIds: readonly string[]): Promise<void> {
  const rows = [...rowsBySplit(dir).values()].flat();
  expect(rows.length).toBeGreaterThan(0);
  for (const r of rows) {
    expect(dbIds).toContain(r['db_id']);
    expect(r['db_id']).toBe(r['dataset']);
    expect(String(r['schema_id']).startsWith(`${String(r['db_id'])}/`)).toBe(true);
  }
  const where = splitsOfDatabases(dir);
  expect([...where.keys()].sort()).toEqual([...dbIds].sort());
  for (const [db, splits] of where) expect([...splits], db).toHaveLength(1);
  const check = await runMain(['check', '--dir', dir]);
  expect(check.stdout).toBe('');
  expect(check.status).toBe(0);
}

describe.runIf(hasChinook)('generate --corpus (built-in domains, a model file, Chinook)', () => {
  const out = join(tmp.dir, 'corpus');
  const DBS = ['retail', 'social_media', 'library', 'chinook_sqlite'];
  let generated: Awaited<ReturnType<typeof runMain>>;
  beforeAll(async () => {
    const list = join(tmp.dir, 'four.json');
    writeFileSync(list, JSON.stringify(['retail', 'social_media', LIBRARY, CHINOOK]));
    generated = await runMain(
      [
        'generate',
        '--corpus',
        list,
        '--groups',
        GROUPS,
        '--scale',
        'tiny',
        '--variants',
        'full_sti,full_cti',
        '--split',
        'database',
        '--formats',
        'jsonl',
        '--out',
        out,
      ],
      { env: noServer },
    );
  }, 300_000);

  it('generates every database in one command: each record has its db_id, each database one split, check passes', async () => {
    expect(generated.status, generated.stderr.slice(-2000)).toBe(0);
    expect(generated.stderr).toMatch(/^corpus four: database 4\/4: chinook_sqlite$/mu);
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
    expect(manifest.corpus).toEqual({
      name: 'four',
      databases: DBS.map((db_id, k) => ({
        db_id,
        source: ['dataset', 'dataset', 'model', 'import'][k],
        dir: `databases/${db_id}`,
      })),
    });
    for (const db of DBS) {
      expect(
        readFileSync(join(out, 'databases', db, 'groups', `${db}.jsonl`), 'utf8')
          .split('\n')
          .filter((l) => l !== ''),
      ).toHaveLength(Number(GROUPS));
      expect(existsSync(join(out, 'datasets', db, 'schemas', 'full_sti.sql'))).toBe(true);
    }
    expect(readFileSync(join(out, 'README.md'), 'utf8')).toContain(
      'over a corpus of 4 databases (`retail`, `social_media`, `library`, `chinook_sqlite`;',
    );
    await expectDatabaseSplit(out, DBS);
  });

  it('a re-export gives the same bytes; a random split puts databases in several splits, still with their db_id', async () => {
    const before = readFileSync(join(out, 'data', 'train-00000-of-00001.jsonl'));
    expect(
      (await runMain(['export', '--dir', out, '--split', 'database', '--formats', 'jsonl', '--quiet'])).status,
    ).toBe(0);
    expect(readFileSync(join(out, 'data', 'train-00000-of-00001.jsonl')).equals(before)).toBe(true);
    const again = join(tmp.dir, 'random');
    // The databases' runs come along (the export reads them), their PGlite directories do not.
    cpSync(out, again, { recursive: true, filter: (src) => !src.split('/').includes('pglite') });
    expect(
      (await runMain(['export', '--dir', again, '--split', 'random', '--formats', 'jsonl', '--quiet'])).status,
    ).toBe(0);
    expect([...splitsOfDatabases(again).values()].some((s) => s.size > 1)).toBe(true);
    expect((await runMain(['check', '--dir', again])).status).toBe(0);
  });

  it('check names the database whose rows were moved into another split', async () => {
    const tampered = join(tmp.dir, 'tampered');
    cpSync(out, tampered, { recursive: true, filter: (src) => !src.startsWith(join(out, 'databases')) });
    const bySplit = rowsBySplit(tampered);
    // One group of a database moves to another split's file: the database is in two splits.
    const [from, rows] = [...bySplit].find(([, r]) => new Set(r.map((x) => x['group_id'])).size > 1) as [
      string,
      Record<string, unknown>[],
    ];
    const db = String(rows[0]?.['db_id']);
    const group = rows.find((r) => r['db_id'] === db)?.['group_id'];
    const to = [...bySplit.keys()].find((s) => s !== from) as string;
    const moved = rows.filter((r) => r['group_id'] === group).map((r) => ({ ...r, split: to }));
    const file = (s: string) => join(tampered, 'data', `${s}-00000-of-00001.jsonl`);
    writeFileSync(
      file(from),
      rows
        .filter((r) => r['group_id'] !== group)
        .map((r) => `${JSON.stringify(r)}\n`)
        .join(''),
    );
    writeFileSync(file(to), readFileSync(file(to), 'utf8') + moved.map((r) => `${JSON.stringify(r)}\n`).join(''));
    const check = await runMain(['check', '--dir', tampered]);
    expect(check.status).toBe(1);
    expect(check.stdout).toMatch(new RegExp(`^database-leak: database ${db} in `, 'mu'));
    expect(check.stdout).toMatch(new RegExp(`^schema-leak: schema ${db}/`, 'mu'));
  });
});

describe('generate --corpus refuses bad input in one line, before anything is built', () => {
  let tries = 0;
  const refused = async (entries: readonly string[], extra: readonly string[] = []): Promise<string> => {
    tries++;
    const list = join(tmp.dir, `bad-${tries}.json`);
    writeFileSync(list, JSON.stringify(entries));
    const out = join(tmp.dir, `bad-out-${tries}`);
    const run = await runMain(
      ['generate', '--corpus', list, '--groups', '1', '--scale', 'tiny', ...extra, '--out', out],
      { env: noServer },
    );
    expect(run.status).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(existsSync(out)).toBe(false);
    return run.stderr;
  };

  it('an unknown dataset, a missing file, a db_id twice, too few databases for the database split', async () => {
    expect(await refused(['retail', 'no_such_dataset'])).toMatch(
      /\[1\]: "no_such_dataset" is not a dataset of the config/u,
    );
    expect(await refused(['retail', './missing-model.json'])).toMatch(
      /\[1\]: "\.\/missing-model\.json" is not a dataset/u,
    );
    expect(await refused(['retail', './missing.sqlite'])).toMatch(/missing\.sqlite: no such file/u);
    expect(await refused(['retail', LIBRARY, 'retail'])).toMatch(
      /db_id "retail" twice \(dataset retail and dataset retail\)/u,
    );
    expect(await refused(['retail', 'social_media'], ['--split', 'database'])).toMatch(
      /--split database needs at least 3 databases \(one per non-empty split\), got 2 \(retail, social_media\)/u,
    );
    expect(await refused(['retail', 'social_media'], ['--from-suite', 'x.jsonl'])).toMatch(
      /--from-suite belongs to one dataset's run/u,
    );
    const missing = await runMain([
      'generate',
      '--corpus',
      join(tmp.dir, 'none.json'),
      '--out',
      join(tmp.dir, 'never'),
    ]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/--corpus: ".*none\.json" is neither a corpus of the config/u);
  });

  it('a single dataset with --split database is refused before its build', async () => {
    const out = join(tmp.dir, 'single');
    const run = await runMain(['generate', '--dataset', 'retail', '--split', 'database', '--out', out], {
      env: noServer,
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(
      /generate: --split database needs at least 3 databases \(one per non-empty split\), got 1 \(retail\)/u,
    );
    expect(existsSync(out)).toBe(false);
  });
});

describeServer('generate --corpus with Pagila on the server', (serverUrl) => {
  let url = '';
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    if (!hasPagila) return;
    ({ url, drop } = await loadPagila(serverUrl, 'corpus_pagila'));
  }, 120_000);
  afterAll(async () => {
    await drop?.();
  });

  it.skipIf(!hasPagila || !hasChinook)(
    'both built-in domains, library.json, Chinook and Pagila in one command, split by database',
    async () => {
      const list = join(tmp.dir, 'five.json');
      writeFileSync(list, JSON.stringify(['retail', 'social_media', LIBRARY, CHINOOK, url]));
      const out = join(tmp.dir, 'five');
      const run = await runMain(
        [
          'generate',
          '--corpus',
          list,
          '--groups',
          GROUPS,
          '--scale',
          'tiny',
          '--variants',
          'full_sti,full_cti',
          '--split',
          'database',
          '--formats',
          'jsonl',
          '--out',
          out,
        ],
        { env: noServer },
      );
      expect(run.status, run.stderr.slice(-2000)).toBe(0);
      await expectDatabaseSplit(out, [
        'retail',
        'social_media',
        'library',
        'chinook_sqlite',
        new URL(url).pathname.slice(1),
      ]);
    },
    600_000,
  );
});
