import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../generator/database/database.ts';
import { openPglite } from '../../generator/database/pglite-database.ts';
import { draftModel } from '../../generator/import/draft-model.ts';
import { readDatabaseSource } from '../../generator/import/read-source.ts';

// One schema with each pattern the importer must recognize, and names that need quoting.
const SCHEMA = `
CREATE TYPE mood AS ENUM ('calm', 'tense');
CREATE TABLE "Person Table" ("id" integer PRIMARY KEY, "full ""name""" text NOT NULL, "select" text, kind text NOT NULL,
  school text, salary integer, nicknames text[], last_update timestamptz DEFAULT now(),
  name_len integer GENERATED ALWAYS AS (length("full ""name""")) STORED);
CREATE TABLE author ("id" integer PRIMARY KEY REFERENCES "Person Table" ("id"), pen_name text);
CREATE TABLE book (book_id integer PRIMARY KEY, title text NOT NULL, feel mood, status text CHECK (status IN ('draft', 'out')),
  author_id integer REFERENCES author ("id"), sequel_id integer REFERENCES book (book_id), labels jsonb, doc jsonb);
CREATE TABLE book_tags (book_id integer REFERENCES book (book_id), tag text, PRIMARY KEY (book_id, tag));
CREATE TABLE "order" (reader_id integer REFERENCES "Person Table" ("id"), book_id integer REFERENCES book (book_id), copies integer,
  last_update timestamptz, PRIMARY KEY (reader_id, book_id));
CREATE TABLE loose_notes (note text);
CREATE TABLE empty_shelf (shelf_id integer PRIMARY KEY, label text);
CREATE TABLE special_book (extra text) INHERITS (book);
CREATE VIEW titles AS SELECT title FROM book;
INSERT INTO "Person Table" ("id", "full ""name""", kind, school, salary, nicknames) VALUES
  (1, 'Ann', 'student', 'North', NULL, '{A}'), (2, 'Bo', 'student', 'South', NULL, '{}'), (3, 'Cy', 'teacher', NULL, 900, '{C}'), (4, 'Di', 'teacher', NULL, 800, NULL);
INSERT INTO author VALUES (3, 'C.');
INSERT INTO book VALUES (1, 'One', 'calm', 'out', 3, NULL, '["a", "b"]', '{"k": 1}'), (2, 'Two', 'tense', 'draft', 3, 1, '[]', '[1]');
INSERT INTO book_tags VALUES (1, 'x'), (1, 'y'), (2, 'x');
INSERT INTO "order" VALUES (1, 1, 2, now()), (2, 2, 1, now());
`;

describe('import from PostgreSQL (PGlite)', () => {
  let db: Database;
  beforeAll(async () => {
    db = await openPglite();
    await db.exec(SCHEMA);
  }, 60_000);
  afterAll(async () => {
    await db.close();
  });

  it('drafts a valid model with each pattern read, and leaves out what it must', async () => {
    const objects = async (): Promise<string> =>
      JSON.stringify(
        await db.query("SELECT relname, relkind FROM pg_class WHERE relnamespace = 'public'::regnamespace ORDER BY 1"),
      );
    const before = await objects();
    const read = await readDatabaseSource(db);
    expect(await objects()).toBe(before);
    const { domain, findings } = draftModel(read, { name: 'shelf' });
    const entity = (n: string) => domain.entities.find((e) => e.name === n);
    const rel = (n: string) => domain.relationships.find((r) => r.name === n);

    // Shared key → subclass; discriminator → subtypes named from the data; INHERITS → subclass.
    expect(entity('Author')?.parent).toBe('PersonTable');
    expect(entity('Student')).toMatchObject({ parent: 'PersonTable', fraction: 0.5 });
    expect(entity('Student')?.attributes.map((a) => a.name)).toEqual(['school']);
    expect(entity('Teacher')?.attributes.map((a) => a.name)).toEqual(['salary']);
    expect(entity('SpecialBook')).toMatchObject({ parent: 'Book' });
    expect(entity('SpecialBook')?.attributes.map((a) => a.name)).toEqual(['extra']);
    // Quoted and reserved names become model names; the generated column is left out (kept in
    // the DDL only), the audit column kept but never asked.
    expect(entity('PersonTable')?.attributes.map((a) => a.name)).toEqual([
      'full_name',
      'select',
      'nicknames',
      'last_update',
    ]);
    expect(entity('PersonTable')?.attributes.find((a) => a.name === 'last_update')).toMatchObject({
      neverAsked: true,
      storage: { column: 'last_update', sqlType: 'timestamp with time zone' },
    });
    expect(entity('PersonTable')?.storage).toMatchObject({
      table: 'Person Table',
      opaque: [{ column: 'name_len', nullable: true }],
    });
    expect(entity('PersonTable')?.attributes.find((a) => a.name === 'nicknames')).toMatchObject({
      multiValued: true,
      optional: true,
    });
    // Enum type and CHECK IN; owner-keyed child table.
    const book = entity('Book');
    expect(book?.attributes.find((a) => a.name === 'feel')?.type).toEqual({ kind: 'enum', values: ['calm', 'tense'] });
    expect(book?.attributes.find((a) => a.name === 'status')?.type).toEqual({ kind: 'enum', values: ['draft', 'out'] });
    expect(book?.attributes.find((a) => a.name === 'tags')).toMatchObject({ multiValued: true });
    // A JSON column of string arrays is a set of values; a JSON document is left out.
    expect(book?.attributes.find((a) => a.name === 'labels')).toMatchObject({
      multiValued: true,
      type: { kind: 'text' },
    });
    expect(book?.attributes.some((a) => a.name === 'doc')).toBe(false);
    // Link table under its own name, with its attribute; a self-reference with a role.
    expect(rel('order')).toMatchObject({ from: 'PersonTable', to: 'Book', cardinality: 'many-to-many' });
    expect(rel('order')?.attributes?.map((a) => a.name)).toEqual(['copies']);
    expect(rel('book_sequel')).toMatchObject({
      from: 'Book',
      to: 'Book',
      role: 'sequel',
      participation: { from: 'partial' },
    });
    expect(entity('EmptyShelf')?.counts?.paper).toBe(1);

    const lines = findings.map((f) => `${f.rule} ${f.subject}`);
    expect(lines).toContain('left-out loose_notes');
    expect(lines).toContain('left-out titles');
    expect(lines).toContain('left-out Person Table.name_len');
    expect(lines).toContain('audit-column order.last_update');
    expect(lines).toContain('left-out book.doc');
  });

  it('names a missing schema or table in one line', async () => {
    await expect(readDatabaseSource(db, { schema: 'nope' })).rejects.toThrow(/no schema "nope"/u);
    await expect(readDatabaseSource(db, { tables: ['book', 'ghost'] })).rejects.toThrow(/no table "ghost"/u);
  });

  it('reads only the tables asked for, reporting references out of the list', async () => {
    const { domain, findings } = draftModel(await readDatabaseSource(db, { tables: ['book', 'book_tags'] }), {
      name: 'part',
    });
    expect(domain.entities.map((e) => e.name)).toEqual(['Book']);
    expect(findings.some((f) => f.subject === 'book.author_id' && /not imported/u.test(f.text))).toBe(true);
  });
});
