import Sqlite from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LoadError } from '../../generator/common/errors.ts';
import { draftModel } from '../../generator/import/draft-model.ts';
import { readSource } from '../../generator/import/read-source.ts';

const CHINOOK = resolve(import.meta.dirname, '../../../shared/databases/chinook/Chinook_Sqlite.sqlite');
const dir = mkdtempSync(join(tmpdir(), 'equisql-import-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const digest = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

/** A SQLite file built by `sql`, in the test's temporary directory. */
function sqliteFile(name: string, sql: string): string {
  const file = join(dir, name);
  const db = new Sqlite(file);
  db.exec(sql);
  db.close();
  return file;
}

describe.skipIf(!existsSync(CHINOOK))('Chinook from its SQLite file', () => {
  it('drafts the model with PlaylistTrack as many-to-many and leaves the file unchanged', async () => {
    const before = digest(CHINOOK);
    const { domain, findings } = draftModel(await readSource(CHINOOK), { name: 'chinook' });
    expect(digest(CHINOOK)).toBe(before);
    expect(domain.entities.map((e) => e.name).sort()).toEqual([
      'Album',
      'Artist',
      'Customer',
      'Employee',
      'Genre',
      'Invoice',
      'InvoiceLine',
      'MediaType',
      'Playlist',
      'Track',
    ]);
    expect(domain.relationships.find((r) => r.name === 'playlist_track')).toMatchObject({
      from: 'Playlist',
      to: 'Track',
      cardinality: 'many-to-many',
    });
    expect(domain.relationships.find((r) => r.name === 'employee_reports_to')).toMatchObject({
      from: 'Employee',
      to: 'Employee',
      role: 'reports_to',
    });
    expect(
      domain.entities.find((e) => e.name === 'Track')?.attributes.find((a) => a.name === 'unit_price')?.type,
    ).toEqual({ kind: 'numeric', precision: 10, scale: 2 });
    // DATETIME is the model's timestamp (without a zone), as the native variant declares it.
    expect(
      domain.entities.find((e) => e.name === 'Employee')?.attributes.find((a) => a.name === 'birth_date'),
    ).toMatchObject({
      type: { kind: 'timestamp' },
      storage: { column: 'BirthDate', sqlType: 'timestamp without time zone' },
    });
    expect(findings.some((f) => f.rule === 'column-type' && f.subject === 'Employee.BirthDate')).toBe(false);
  });
});

describe('concrete tables in a SQLite file', () => {
  it('reads tables sharing columns with keys that never meet as one hierarchy, and an _id column without a key as a reference into it', async () => {
    const shared = 'name TEXT NOT NULL, price NUMERIC NOT NULL, stock INTEGER NOT NULL';
    const file = sqliteFile(
      'concrete.sqlite',
      `CREATE TABLE shirts (id INTEGER PRIMARY KEY, ${shared}, material TEXT NOT NULL, size TEXT NOT NULL, fit TEXT);
       CREATE TABLE cups (id INTEGER PRIMARY KEY, ${shared}, material TEXT NOT NULL, size TEXT NOT NULL, volume INTEGER);
       CREATE TABLE ebooks (id INTEGER PRIMARY KEY, ${shared}, pages INTEGER);
       CREATE TABLE reviews (id INTEGER PRIMARY KEY, stars INTEGER NOT NULL, product_id INTEGER NOT NULL);
       INSERT INTO shirts VALUES (1, 'Oxford', 30, 4, 'cotton', 'M', 'slim'), (2, 'Polo', 25, 9, 'pique', 'L', 'regular');
       INSERT INTO cups VALUES (3, 'Mug', 8, 40, 'clay', 'small', 300), (4, 'Beaker', 6, 12, 'glass', 'large', 500);
       INSERT INTO ebooks VALUES (5, 'Dune', 9, 999, 612), (6, 'Emma', 3, 999, 474);
       INSERT INTO reviews VALUES (1, 5, 1), (2, 4, 3), (3, 2, 5), (4, 5, 6), (5, 3, 2);
       CREATE TABLE "odd notes" (id INTEGER PRIMARY KEY, "x.product_id" INTEGER);
       INSERT INTO "odd notes" VALUES (1, 1), (2, 2), (3, 3), (4, 4), (5, 6);`,
    );
    const { domain } = draftModel(await readSource(file), { name: 'shop' });
    const parent = (name: string) => domain.entities.find((e) => e.name === name)?.parent;
    // The root is named after the reference into it; shirts and cups share two columns more: a class between.
    expect(parent('Shirt')).toBe(parent('Cup'));
    expect(parent(parent('Shirt') as string)).toBe('Product');
    expect(parent('Ebook')).toBe('Product');
    expect(domain.entities.find((e) => e.name === 'Product')?.specialization).toEqual({ disjoint: true, total: true });
    expect(domain.entities.find((e) => e.name === 'Product')?.storage).toBeUndefined();
    expect(domain.entities.find((e) => e.name === 'Shirt')?.storage?.concrete).toBe(true);
    // A column named with a dot, in a table named with a space, is read the same way.
    expect(domain.relationships.map((r) => `${r.from} → ${r.to} (${r.storage?.column})`).sort()).toEqual([
      'OddNote → Product (x.product_id)',
      'Review → Product (product_id)',
    ]);
  });
});

describe('hostile SQLite files', () => {
  it('reads names with spaces, quotes, brackets and reserved words', async () => {
    const file = sqliteFile(
      'names.sqlite',
      `CREATE TABLE [Order Items] ([Item Id] INTEGER PRIMARY KEY, "say ""hi""" TEXT, [select] TEXT, [group] INTEGER);
       CREATE TABLE "from" (id INTEGER PRIMARY KEY, [Order Items Id] INTEGER REFERENCES [Order Items]);
       INSERT INTO [Order Items] VALUES (1, 'a', 'b', 2);`,
    );
    const before = digest(file);
    const { domain } = draftModel(await readSource(file));
    expect(digest(file)).toBe(before);
    expect(domain.entities.find((e) => e.name === 'OrderItem')?.attributes.map((a) => a.name)).toEqual([
      'say_hi',
      'select',
      'group',
    ]);
    expect(domain.relationships.map((r) => `${r.from}>${r.to}`)).toEqual(['From>OrderItem']);
  });

  it('reports tables without a key, empty tables, cycles and columns past the cap of an entity', async () => {
    const wide = `CREATE TABLE wide (id INTEGER PRIMARY KEY, ${Array.from({ length: 499 }, (_, i) => `c${i} INTEGER`).join(', ')});`;
    const file = sqliteFile(
      'shapes.sqlite',
      `${wide}
       CREATE TABLE heap (a TEXT, b TEXT);
       CREATE TABLE pair (x INTEGER, y INTEGER, PRIMARY KEY (x, y));
       CREATE TABLE hen (id INTEGER PRIMARY KEY, egg_id INTEGER REFERENCES egg);
       CREATE TABLE egg (id INTEGER PRIMARY KEY, hen_id INTEGER REFERENCES hen);`,
    );
    const { domain, findings } = draftModel(await readSource(file));
    // 200 attributes an entity may have: the rest are reported, not dropped silently.
    expect(domain.entities.find((e) => e.name === 'Wide')?.attributes).toHaveLength(200);
    expect(findings.filter((f) => f.rule === 'left-out' && f.subject.startsWith('wide.'))).toHaveLength(299);
    expect(findings.find((f) => f.subject === 'heap')?.text).toMatch(/no primary key/u);
    expect(domain.entities.find((e) => e.name === 'Pair')?.counts?.paper).toBe(1);
    expect(findings.find((f) => f.rule === 'foreign-key-cycle')?.subject).toBe('egg, hen');
  });

  it('names the first table past the cap of a model, and imports a chosen part of it', async () => {
    const many = Array.from(
      { length: 300 },
      (_, i) =>
        `CREATE TABLE t${i} (id INTEGER PRIMARY KEY, v TEXT${i > 0 ? `, prev_id INTEGER REFERENCES t${i - 1}` : ''});`,
    ).join('\n');
    const file = sqliteFile('many.sqlite', many);
    const read = await readSource(file);
    expect(() => draftModel(read)).toThrow(
      /300 entities, more than the 200 a model may have \(the first beyond is table t\d+\): choose tables with --tables$/u,
    );
    const part = draftModel(await readSource(file, { tables: ['t0', 't1', 't2'] }));
    expect(part.domain.relationships.map((r) => r.name)).toEqual(['t1_prev', 't2_prev']);
  });

  it('refuses a file that is not SQLite, and a missing one, in one line without changing it', async () => {
    const file = join(dir, 'not.sqlite');
    writeFileSync(file, 'hello, not a database\n'.repeat(100));
    const before = digest(file);
    const error = await readSource(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LoadError);
    expect((error as Error).message).toMatch(/not\.sqlite: cannot read as a SQLite database: file is not a database$/u);
    expect(digest(file)).toBe(before);
    await expect(readSource(join(dir, 'absent.sqlite'))).rejects.toThrow(/absent\.sqlite: no such file/u);
  });

  it('refuses a URL where nothing listens, in one line', async () => {
    await expect(readSource('postgres://nobody@127.0.0.1:1/none')).rejects.toThrow(
      /^cannot connect to postgres:\/\/nobody@127\.0\.0\.1:1\/none: /u,
    );
  });
});
