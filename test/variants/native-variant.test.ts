import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDataset } from '../../generator/assemble/build-dataset.ts';
import { verifyDataset } from '../../generator/assemble/verify-dataset.ts';
import { openDatabase, type Database } from '../../generator/database/database.ts';
import { retail } from '../../generator/domains/retail.ts';
import { indexDomain } from '../../generator/er-model/er-index.ts';
import { draftModel } from '../../generator/import/draft-model.ts';
import { readDatabaseSource, readSource } from '../../generator/import/read-source.ts';
import { selectVariants } from '../../generator/variants/select-variants.ts';
import { instanceHash } from '../../generator/instance/canonical-instance.ts';
import { sampleInstance } from '../../generator/instance/sample-instance.ts';
import { readDatabaseInstance, readSourceInstance } from '../../generator/instance/source-instance.ts';
import type { Domain } from '../../generator/er-model/er-model.ts';
import Sqlite from 'better-sqlite3';
import { tempDir } from '../helpers/build-fixtures.ts';
import { catalogShape } from '../helpers/catalog-shape.ts';

const CHINOOK = resolve(import.meta.dirname, '../../../shared/databases/chinook/Chinook_Sqlite.sqlite');

describe('the native variant', () => {
  let db: Database;
  const tmp = tempDir('native-variant');
  beforeAll(async () => {
    db = await openDatabase({ kind: 'pglite' });
  });
  afterAll(async () => {
    await db?.close();
    tmp.remove();
  });

  /** The source `name`'s own rows read through `domain`, built into its native variant, and read back from there. */
  async function rebuiltFromRows(name: string, domain: Domain, seed: number) {
    const index = indexDomain(domain);
    const rows = await readDatabaseInstance(db, index, { schema: name });
    const again = await buildDataset({
      dataset: name,
      domain,
      variants: 'native',
      scale: 'tiny',
      seed,
      profile: 'default',
      target: db,
      out: join(tmp.dir, `${name}-rows`),
      schemaPrefix: `${name}rows_`,
      instance: { instance: rows, source: name },
    });
    const copy = again.manifest.variants[0]?.pg_schema as string;
    return { rows, back: await readDatabaseInstance(db, index, { schema: copy }), copy };
  }

  /** `domain` built as its native variant alone from a generated instance: the schema it went into. */
  async function nativeBuilt(name: string, domain: Domain): Promise<string> {
    const built = await buildDataset({
      dataset: name,
      domain,
      variants: 'native',
      scale: 'tiny',
      seed: 4,
      profile: 'default',
      target: db,
      out: join(tmp.dir, name),
      schemaPrefix: `${name}_`,
    });
    return built.manifest.variants[0]?.pg_schema as string;
  }

  /** A built table's column names, in order of name. */
  async function columnsOf(schema: string, table: string): Promise<unknown[]> {
    const rows = await db.query(
      `SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER BY 1`,
      [schema, table],
    );
    return rows.map((c) => c['column_name']);
  }

  it('is refused in one line for a model without physical names', () => {
    expect(() => selectVariants(indexDomain(retail), 'native', 1)).toThrow(
      /^variant native: model retail has no physical names \(entity \w+ has no "storage"\)/u,
    );
    // `all` of such a model stays the ten presets.
    expect(selectVariants(indexDomain(retail), 'all', 1)).toHaveLength(10);
  });

  it.skipIf(!existsSync(CHINOOK))(
    'builds Chinook (read from its SQLite file) as the same tables, columns, types, keys and foreign keys in PostgreSQL, and reads back its instance',
    async () => {
      const source = await readSource(CHINOOK);
      const { domain } = draftModel(source, { name: 'chinook' });
      const out = join(tmp.dir, 'chinook');
      const built = await buildDataset({
        dataset: 'chinook',
        domain,
        variants: 'native,full_cti',
        scale: 'tiny',
        seed: 5,
        profile: 'default',
        target: db,
        out,
        schemaPrefix: 'chinook_',
      });
      const native = built.manifest.variants.find((v) => v.name === 'native');
      expect(native).toBeDefined();
      const rebuilt = await readDatabaseSource(db, { schema: native?.pg_schema as string });
      expect(catalogShape(rebuilt.catalog)).toEqual(catalogShape(source.catalog));
      const checks = await verifyDataset(out, db);
      expect(checks.map((c) => c.variant)).toEqual(['native', 'full_cti']);
      for (const check of checks) expect(check.differences, check.variant).toEqual([]);
    },
    120_000,
  );

  it.skipIf(!existsSync(CHINOOK))(
    "takes Chinook's own rows as the instance: the built native variant answers as the SQLite file does, and a sample keeps every foreign key closed",
    async () => {
      const { domain } = draftModel(await readSource(CHINOOK), { name: 'chinook' });
      const index = indexDomain(domain);
      const instance = await readSourceInstance(index, CHINOOK);
      expect(instance.objects['Track']).toHaveLength(3503);
      const out = join(tmp.dir, 'chinook-rows');
      const built = await buildDataset({
        dataset: 'chinook',
        domain,
        variants: 'native,full_sti',
        scale: 'tiny',
        seed: 5,
        profile: 'default',
        target: db,
        out,
        schemaPrefix: 'rows_',
        instance: { instance, source: CHINOOK },
      });
      expect(built.manifest.instance_from).toEqual({ source: CHINOOK });
      expect(built.manifest.instance_hash).toBe(instanceHash(instance));
      for (const check of await verifyDataset(out, db)) expect(check.differences, check.variant).toEqual([]);
      // The same question on the file and on the built native schema: revenue by genre.
      const sql =
        'SELECT g."Name", sum(il."UnitPrice" * il."Quantity") AS revenue, count(*) AS n FROM "InvoiceLine" il JOIN "Track" t ON t."TrackId" = il."TrackId" JOIN "Genre" g ON g."GenreId" = t."GenreId" GROUP BY g."Name" ORDER BY g."Name"';
      const file = new Sqlite(CHINOOK, { readonly: true, fileMustExist: true });
      const expected = (file.prepare(sql).raw().all() as [string, number, number][]).map(([name, revenue, n]) => [
        name,
        revenue.toFixed(2),
        String(n),
      ]);
      file.close();
      const native = built.manifest.variants.find((v) => v.name === 'native')?.pg_schema as string;
      await db.exec(`SET search_path TO ${native}`);
      const rows = await db.query(sql);
      await db.exec('RESET search_path');
      expect(rows.map((r) => [r['Name'], String(r['revenue']), String(r['n'])])).toEqual(expected);

      const sample = sampleInstance(index, instance, 20, 9);
      expect(sampleInstance(index, instance, 20, 9)).toEqual(sample);
      expect(sample.objects['InvoiceLine']).toHaveLength(20);
      const kept = (entity: string): Set<number> => new Set((sample.objects[entity] ?? []).map((o) => o.id));
      for (const rel of domain.relationships) {
        for (const link of sample.links[rel.name] ?? []) {
          expect(
            kept(index.root(rel.from).name).has(link.from) && kept(index.root(rel.to).name).has(link.to),
            rel.name,
          ).toBe(true);
        }
        // Every reference a kept object makes is kept: the sample's foreign keys are closed.
        if (rel.cardinality === 'many-to-many') continue;
        const from = kept(index.root(rel.from).name);
        const whole = (instance.links[rel.name] ?? []).filter((l) => from.has(l.from));
        expect(sample.links[rel.name], rel.name).toEqual(whole);
      }
    },
    120_000,
  );

  it('keeps names with spaces, quotes and reserved words, a one-to-one key, a child table, an enum type and opaque columns exactly', async () => {
    await db.exec(`CREATE SCHEMA odd;
      SET search_path TO odd;
      CREATE TYPE "mood kind" AS ENUM ('calm', 'tense');
      CREATE TABLE "select" ("the id" integer PRIMARY KEY, "na""me" varchar(30) NOT NULL, "order" smallint, mood "mood kind", code char(4) UNIQUE,
        blob bytea, name_len integer GENERATED ALWAYS AS (length("na""me")) STORED, seen timestamptz NOT NULL DEFAULT now());
      CREATE TABLE "my table" (id bigint PRIMARY KEY, "select id" integer NOT NULL UNIQUE REFERENCES "select", "when" date, tags text[]);
      CREATE TABLE "my table tags" ("my table id" bigint REFERENCES "my table", tag text, PRIMARY KEY ("my table id", tag));
      INSERT INTO "select" ("the id", "na""me", "order", mood, code) VALUES (1, 'a', 1, 'calm', 'ab'), (2, 'b', 2, 'tense', 'cd'), (3, 'c', NULL, NULL, NULL);
      INSERT INTO "my table" VALUES (10, 1, '2024-01-02', '{x}'), (11, 2, NULL, NULL);
      INSERT INTO "my table tags" VALUES (10, 'p'), (10, 'q'), (11, 'p');
      RESET search_path;`);
    const source = await readDatabaseSource(db, { schema: 'odd' });
    const { domain } = draftModel(source, { name: 'odd' });
    const out = join(tmp.dir, 'odd');
    const built = await buildDataset({
      dataset: 'odd',
      domain,
      variants: 'native,full_cti',
      scale: 'tiny',
      seed: 2,
      profile: 'edge',
      target: db,
      out,
      schemaPrefix: 'odd_',
    });
    const native = built.manifest.variants.find((v) => v.name === 'native')?.pg_schema as string;
    const rebuilt = await readDatabaseSource(db, { schema: native });
    expect(catalogShape(rebuilt.catalog)).toEqual(catalogShape(source.catalog));
    expect(rebuilt.catalog.enums).toEqual(source.catalog.enums);
    for (const check of await verifyDataset(out, db)) expect(check.differences, check.variant).toEqual([]);
    // The source's own rows read through those names, and built again: the same instance.
    const { rows, back } = await rebuiltFromRows('odd', domain, 2);
    expect(rows.objects['Select']?.map((o) => o.values['na_me'])).toEqual(['a', 'b', 'c']);
    expect(back).toEqual(rows);
  }, 120_000);

  it("keeps a source's own discriminator (an enum type, its values) and flag columns, and reads its rows back into the same instance", async () => {
    await db.exec(`CREATE SCHEMA kinds;
      SET search_path TO kinds;
      CREATE TYPE pay_kind AS ENUM ('card', 'cash', 'voucher');
      CREATE TABLE payment (payment_id integer PRIMARY KEY, amount numeric(6,2) NOT NULL, kind pay_kind NOT NULL,
        card_last4 char(4), voucher_code text);
      CREATE TABLE member (member_id integer PRIMARY KEY, full_name text NOT NULL, has_locker boolean NOT NULL,
        locker_no integer, CHECK (has_locker = (locker_no IS NOT NULL)));
      INSERT INTO payment VALUES (1, 9.50, 'card', '1234', NULL), (2, 3.00, 'cash', NULL, NULL), (3, 20.00, 'voucher', NULL, 'V-7'),
        (4, 4.25, 'card', '9876', NULL), (5, 1.00, 'cash', NULL, NULL), (6, 12.00, 'voucher', NULL, 'V-9');
      INSERT INTO member VALUES (1, 'Ann Lee', true, 12), (2, 'Bo Chen', false, NULL), (3, 'Cy Diaz', true, 40);
      RESET search_path;`);
    const source = await readDatabaseSource(db, { schema: 'kinds' });
    const { domain } = draftModel(source, { name: 'kinds' });
    const payment = domain.entities.find((e) => e.storage?.table === 'payment');
    expect(payment?.storage?.discriminator).toMatchObject({ column: 'kind', sqlType: 'pay_kind' });
    expect(Object.values(payment?.storage?.discriminator?.values ?? {}).sort()).toEqual(['card', 'cash', 'voucher']);
    expect(Object.values(domain.entities.find((e) => e.storage?.table === 'member')?.storage?.flags ?? {})).toEqual([
      'has_locker',
    ]);
    const built = await buildDataset({
      dataset: 'kinds',
      domain,
      variants: 'native,full_cti',
      scale: 'tiny',
      seed: 4,
      profile: 'default',
      target: db,
      out: join(tmp.dir, 'kinds'),
      schemaPrefix: 'kinds_',
    });
    const native = built.manifest.variants.find((v) => v.name === 'native')?.pg_schema as string;
    const rebuilt = await readDatabaseSource(db, { schema: native });
    expect(catalogShape(rebuilt.catalog)).toEqual(catalogShape(source.catalog));
    // The source's rows, read through the draft and built into the native variant, read back the same.
    const { rows, back, copy } = await rebuiltFromRows('kinds', domain, 4);
    expect(back).toEqual(rows);
    const kinds = await db.query(
      `SELECT kind::text AS kind, count(*)::int AS n FROM ${copy}.payment GROUP BY 1 ORDER BY 1`,
    );
    expect(kinds).toEqual([
      { kind: 'card', n: 2 },
      { kind: 'cash', n: 2 },
      { kind: 'voucher', n: 2 },
    ]);
  }, 120_000);

  it("reads a root whose rows fill a group's column, and kinds that overlap a subclass table, without a crash", async () => {
    await db.exec(`CREATE SCHEMA kinds3;
      SET search_path TO kinds3;
      CREATE TABLE item (item_id integer PRIMARY KEY, title text NOT NULL, kind text NOT NULL, runtime integer,
        pages integer, director text, album text);
      INSERT INTO item VALUES (1, 'a', 'item', 10, NULL, NULL, NULL), (2, 'b', 'item', 20, NULL, NULL, NULL),
        (3, 'c', 'book', 30, 100, NULL, NULL), (4, 'd', 'book', 40, 200, NULL, NULL), (5, 'e', 'film', 50, NULL, 'x', NULL),
        (6, 'f', 'film', 60, NULL, 'y', NULL), (7, 'g', 'song', NULL, NULL, NULL, 'z'), (8, 'h', 'song', NULL, NULL, NULL, 'w');
      CREATE TABLE payment (payment_id integer PRIMARY KEY, amount numeric(6,2) NOT NULL, kind text NOT NULL,
        card_last4 char(4), voucher_code text);
      CREATE TABLE refund (payment_id integer PRIMARY KEY REFERENCES payment, reason text NOT NULL);
      INSERT INTO payment VALUES (1, 9.50, 'card', '1234', NULL), (2, 3.00, 'voucher', NULL, 'V-1'),
        (3, 20.00, 'voucher', NULL, 'V-7'), (4, 4.25, 'card', '9876', NULL), (5, 1.00, 'payment', NULL, NULL),
        (6, 2.00, 'payment', NULL, NULL);
      INSERT INTO refund VALUES (2, 'late'), (4, 'broken'), (5, 'x');
      RESET search_path;`);
    // 'item' rows fill runtime with books and films: the value stays the root's alone.
    const { domain } = draftModel(await readDatabaseSource(db, { schema: 'kinds3' }), { name: 'kinds3' });
    const values = domain.entities.find((e) => e.storage?.table === 'item')?.storage?.discriminator?.values ?? {};
    expect(Object.entries(values).sort()).toEqual([
      ['Book', 'book'],
      ['Film', 'film'],
      ['Item', 'item'],
      ['Song', 'song'],
    ]);
    // A card may also be refunded: a generated object of two kinds is kept by flags, not one type column.
    const native = await nativeBuilt('kinds3', domain);
    expect(await columnsOf(native, 'item')).toContain('kind');
    expect(await columnsOf(native, 'payment')).toEqual([
      'amount',
      'card_last4',
      'is_card',
      'is_voucher',
      'payment_id',
      'voucher_code',
    ]);
  }, 120_000);

  it('builds a discriminator that names no value for a class rows may be typed as with columns of its own, not a crash', async () => {
    // Every payment has a kind, and refunds hang under Payment itself: Payment can have rows of
    // its own (a refund's payment is of some kind), for which the source has no value.
    await db.exec(`CREATE SCHEMA kinds2;
      SET search_path TO kinds2;
      CREATE TABLE payment (payment_id integer PRIMARY KEY, amount numeric(6,2) NOT NULL, kind text NOT NULL,
        card_last4 char(4), voucher_code text);
      CREATE TABLE refund (payment_id integer PRIMARY KEY REFERENCES payment, reason text NOT NULL);
      INSERT INTO payment VALUES (1, 9.50, 'card', '1234', NULL), (2, 3.00, 'voucher', NULL, 'V-1'),
        (3, 20.00, 'voucher', NULL, 'V-7'), (4, 4.25, 'card', '9876', NULL);
      INSERT INTO refund VALUES (2, 'late'), (4, 'broken');
      RESET search_path;`);
    const { domain } = draftModel(await readDatabaseSource(db, { schema: 'kinds2' }), { name: 'kinds2' });
    expect(domain.entities.find((e) => e.storage?.table === 'payment')?.storage?.discriminator?.column).toBe('kind');
    const native = await nativeBuilt('kinds2', domain);
    // Payment's kinds may overlap its refunds, so they are flags of the builder's own here.
    expect(await columnsOf(native, 'payment')).toEqual([
      'amount',
      'card_last4',
      'is_card',
      'is_voucher',
      'payment_id',
      'voucher_code',
    ]);
  }, 120_000);
});
