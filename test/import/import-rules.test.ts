import { describe, expect, it } from 'vitest';
import type { Catalog, CatalogColumn, CatalogTable, CatalogType } from '../../generator/import/catalog.ts';
import { parseInList } from '../../generator/import/catalog.ts';
import { pgType } from '../../generator/import/pg-catalog-reader.ts';
import { sqliteChecks, sqliteType } from '../../generator/import/sqlite-catalog-reader.ts';
import { isAuditColumn } from '../../generator/import/rules/audit-columns.ts';
import { columnType } from '../../generator/import/rules/attribute-types.ts';
import { detectChildTable } from '../../generator/import/rules/child-tables.ts';
import { detectRelationshipTable, detectSubclassTable } from '../../generator/import/rules/class-table-inheritance.ts';
import { readConcreteTables, sameColumnGroups } from '../../generator/import/rules/concrete-tables.ts';
import { ruleContext } from '../../generator/import/rules/finding.ts';
import { foreignKeyCycles, foreignKeyRelationship } from '../../generator/import/rules/foreign-key-relationships.ts';
import { className, isNotNoun, nounWords } from '../../generator/import/rules/lexicon-words.ts';
import { detectFlagClasses } from '../../generator/import/rules/flag-columns.ts';
import { detectLinkTable } from '../../generator/import/rules/link-tables.ts';
import { referenceAttributeColumns } from '../../generator/import/rules/reference-attributes.ts';
import { detectSingleTableHierarchy } from '../../generator/import/rules/single-table-inheritance.ts';
import { valueHints } from '../../generator/import/rules/value-hints.ts';
import { valueSet } from '../../generator/import/rules/value-sets.ts';

const int: CatalogType = { kind: 'integer' };
const txt: CatalogType = { kind: 'text' };
const col = (name: string, type: CatalogType = int, nullable = false): CatalogColumn => ({
  name,
  sqlType: type.kind,
  type,
  nullable,
});
const table = (name: string, columns: CatalogColumn[], more: Partial<CatalogTable> = {}): CatalogTable => ({
  name,
  columns,
  primaryKey: [columns[0]?.name ?? 'id'],
  uniques: [],
  foreignKeys: [],
  checks: [],
  inherits: [],
  partitions: [],
  rowCount: 10,
  ...more,
});
const catalog = (tables: CatalogTable[]): Catalog => ({
  engine: 'postgres',
  source: 'test',
  schema: 'public',
  tables,
  enums: [],
  others: [],
});
const fk = (columns: string[], target: string, references = ['id']) => ({ columns, table: target, references });

const actor = table('actor', [col('actor_id'), col('name', txt)], { primaryKey: ['actor_id'] });
const film = table('film', [col('film_id'), col('title', txt)], { primaryKey: ['film_id'] });

describe('link-table', () => {
  it('reads a table keyed by two foreign keys as many-to-many, its audit column aside', () => {
    const link = table(
      'film_actor',
      [col('actor_id'), col('film_id'), col('billing'), col('last_update', { kind: 'timestamptz' })],
      {
        primaryKey: ['actor_id', 'film_id'],
        foreignKeys: [fk(['actor_id'], 'actor', ['actor_id']), fk(['film_id'], 'film', ['film_id'])],
      },
    );
    const ctx = ruleContext(catalog([actor, film, link]), new Map());
    const found = detectLinkTable(link, ctx);
    expect(found?.from.table).toBe('actor');
    expect(found?.to.table).toBe('film');
    expect(found?.attributes.map((c) => c.name)).toEqual(['billing']);
    expect(found?.audit.map((c) => c.name)).toEqual(['last_update']);
  });
  it('does not read a table with its own surrogate key as a link', () => {
    const rental = table('rental', [col('rental_id'), col('actor_id'), col('film_id')], {
      primaryKey: ['rental_id'],
      foreignKeys: [fk(['actor_id'], 'actor'), fk(['film_id'], 'film')],
    });
    expect(detectLinkTable(rental, ruleContext(catalog([actor, film, rental]), new Map()))).toBeUndefined();
  });
});

describe('owner-keyed-child and shared-key-subtable', () => {
  const person = table('person', [col('id'), col('full_name', txt)]);
  it('reads an owner key plus one value column keyed by both as a multi-valued attribute', () => {
    const nick = table('person_nicknames', [col('person_id'), col('nickname', txt)], {
      primaryKey: ['person_id', 'nickname'],
      foreignKeys: [fk(['person_id'], 'person')],
    });
    const found = detectChildTable(nick, ruleContext(catalog([person, nick]), new Map()));
    expect(found?.value.name).toBe('nickname');
    // Two value columns: an entity of its own, not a set of values.
    const two = table('person_phone', [col('person_id'), col('phone', txt), col('kind', txt)], {
      primaryKey: ['person_id', 'phone'],
      foreignKeys: [fk(['person_id'], 'person')],
    });
    expect(detectChildTable(two, ruleContext(catalog([person, two]), new Map()))).toBeUndefined();
  });
  it('reads a key that is a foreign key to the parent key as a subclass, and a named one with a second key as a relationship table', () => {
    const author = table('author', [col('id'), col('pen_name', txt, true)], { foreignKeys: [fk(['id'], 'person')] });
    const ctx = ruleContext(catalog([person, author]), new Map());
    expect(detectSubclassTable(author, ctx)?.table).toBe('person');
    expect(detectRelationshipTable(author, ctx)).toBeUndefined();
    const relTable = table('person_mentor', [col('person_id'), col('mentor_id')], {
      foreignKeys: [fk(['person_id'], 'person'), fk(['mentor_id'], 'person')],
    });
    expect(detectRelationshipTable(relTable, ruleContext(catalog([person, relTable]), new Map()))?.to.columns).toEqual([
      'mentor_id',
    ]);
    // Named after its key where the table ends in that word: `card_holds` of `library_cards`.
    const cards = table('library_cards', [col('id'), col('card_no', txt)]);
    const holds = table('card_holds', [col('card_id'), col('holder_id'), col('issued_on', { kind: 'date' }, true)], {
      primaryKey: ['card_id'],
      foreignKeys: [fk(['card_id'], 'library_cards'), fk(['holder_id'], 'person')],
    });
    const withCards = ruleContext(catalog([person, cards, holds]), new Map());
    expect(detectRelationshipTable(holds, withCards)?.to.table).toBe('person');
    // A holder that may be missing is no link's row: a subclass with a reference.
    const optional = {
      ...holds,
      columns: holds.columns.map((c) => (c.name === 'holder_id' ? { ...c, nullable: true } : c)),
    };
    expect(
      detectRelationshipTable(optional, ruleContext(catalog([person, cards, optional]), new Map())),
    ).toBeUndefined();
    // `person_students` keyed by `person_id` of `people`: the key's word is not the table's, so a subclass.
    const people = table('people', [col('id'), col('name', txt)]);
    const students = table('person_students', [col('person_id'), col('school_id')], {
      primaryKey: ['person_id'],
      foreignKeys: [fk(['person_id'], 'people'), fk(['school_id'], 'person')],
    });
    expect(
      detectRelationshipTable(students, ruleContext(catalog([people, person, students]), new Map())),
    ).toBeUndefined();
  });
  it('reads a table named after a kind of the table its key references as that kind’s relationship table', () => {
    const content = table('content', [col('id'), col('type', txt), col('title', txt)]);
    const streamer = table('streamer', [col('id'), col('platform', txt)]);
    const hosted = table('live_stream_hosted_by', [col('live_stream_id'), col('host_id')], {
      primaryKey: ['live_stream_id'],
      foreignKeys: [fk(['live_stream_id'], 'content'), fk(['host_id'], 'streamer')],
    });
    const ctx = ruleContext(catalog([content, streamer, hosted]), new Map());
    expect(detectRelationshipTable(hosted, ctx)).toBeUndefined();
    const kinds = (t: string) => new Set(t === 'content' ? ['clip', 'live_stream'] : []);
    expect(detectRelationshipTable(hosted, ctx, kinds)?.to.table).toBe('streamer');
    // Or after its key, where the key's table begins with that word: `content_produced_by` of `content_items`.
    const items = table('content_items', [col('id'), col('title', txt)]);
    const producedBy = table('content_produced_by', [col('content_id'), col('producer_id')], {
      primaryKey: ['content_id'],
      foreignKeys: [fk(['content_id'], 'content_items'), fk(['producer_id'], 'streamer')],
    });
    expect(
      detectRelationshipTable(producedBy, ruleContext(catalog([items, streamer, producedBy]), new Map()))?.to.table,
    ).toBe('streamer');
  });
});

describe('foreign-key', () => {
  const f = table(
    'film',
    [col('film_id'), col('language_id'), col('original_language_id', int, true), col('poster_id')],
    {
      primaryKey: ['film_id'],
      uniques: [['poster_id']],
      foreignKeys: [
        fk(['language_id'], 'language'),
        fk(['original_language_id'], 'language'),
        fk(['poster_id'], 'poster'),
      ],
    },
  );
  it('gives cardinality, optionality and roles', () => {
    const [lang, orig, poster] = f.foreignKeys.map((k) => foreignKeyRelationship(f, k));
    expect(lang).toMatchObject({ cardinality: 'many-to-one', optional: false, role: 'language' });
    expect(orig).toMatchObject({ cardinality: 'many-to-one', optional: true, role: 'original_language' });
    expect(poster).toMatchObject({ cardinality: 'one-to-one', optional: false });
    expect(poster?.role).toBeUndefined();
  });
  it('finds cycles and self-references', () => {
    const store = table('store', [col('store_id'), col('manager_id')], { foreignKeys: [fk(['manager_id'], 'staff')] });
    const staff = table('staff', [col('staff_id'), col('store_id'), col('boss_id', int, true)], {
      foreignKeys: [fk(['store_id'], 'store'), fk(['boss_id'], 'staff')],
    });
    expect(foreignKeyCycles([store, staff, film])).toEqual([['staff', 'store']]);
    expect(foreignKeyRelationship(staff, staff.foreignKeys[1] as never)).toMatchObject({
      self: true,
      role: 'boss',
      optional: true,
    });
  });
});

describe('discriminator', () => {
  it('reads subtypes and their own columns from the rows', () => {
    const t = table('person', [
      col('id'),
      col('type', txt),
      col('school', txt, true),
      col('salary', int, true),
      col('nick', txt, true),
    ]);
    const byValue = new Map([
      [
        'student',
        {
          rows: 6,
          nonNull: new Map([
            ['id', 6],
            ['school', 6],
            ['salary', 0],
            ['nick', 2],
          ]),
        },
      ],
      [
        'staff',
        {
          rows: 4,
          nonNull: new Map([
            ['id', 4],
            ['school', 0],
            ['salary', 4],
            ['nick', 1],
          ]),
        },
      ],
    ]);
    const found = detectSingleTableHierarchy(t, [{ column: 'type', byValue }]);
    expect(found?.subtypes).toEqual([
      { value: 'student', rows: 6, columns: ['school'] },
      { value: 'staff', rows: 4, columns: ['salary'] },
    ]);
    expect(found?.groups).toEqual([]);
    // Columns filled by every value: a category, not a hierarchy.
    const flat = new Map(
      [...byValue].map(([v, s]) => [
        v,
        {
          rows: s.rows,
          nonNull: new Map([
            ['school', 1],
            ['salary', 1],
            ['nick', 1],
          ]),
        },
      ]),
    );
    expect(detectSingleTableHierarchy(t, [{ column: 'type', byValue: flat }])).toBeUndefined();
  });
});

describe('discriminator, nested', () => {
  it('reads columns filled by several values as an intermediate class of them', () => {
    const t = table('person', [
      col('id'),
      col('type', txt),
      col('joined', txt, true),
      col('school', txt, true),
      col('salary', int, true),
    ]);
    const stats = (rows: number, joined: number, school: number, salary: number) => ({
      rows,
      nonNull: new Map([
        ['joined', joined],
        ['school', school],
        ['salary', salary],
      ]),
    });
    const byValue = new Map([
      ['person', stats(5, 0, 0, 0)],
      ['member', stats(2, 2, 0, 0)],
      ['student', stats(3, 3, 3, 0)],
      ['staff', stats(4, 4, 0, 4)],
    ]);
    const found = detectSingleTableHierarchy(t, [{ column: 'type', byValue }]);
    expect(found?.groups).toEqual([{ values: ['staff', 'student', 'member'], columns: ['joined'] }]);
    expect(found?.subtypes.map((s) => [s.value, s.columns])).toEqual([
      ['person', []],
      ['staff', ['salary']],
      ['student', ['school']],
      ['member', []],
    ]);
  });
});

describe('value sets, types and hints', () => {
  it('reads CHECK … IN in both engines spellings', () => {
    expect(parseInList("CHECK ((status = ANY (ARRAY['open'::text, 'shut'::text])))")).toEqual({
      column: 'status',
      values: ['open', 'shut'],
    });
    expect(parseInList("status IN ('a', 'it''s')")).toEqual({ column: 'status', values: ['a', "it's"] });
    expect(parseInList("CHECK ((tags <@ ARRAY['a'::text, 'b'::text]))")).toEqual({
      column: 'tags',
      values: ['a', 'b'],
    });
    expect(parseInList('price > 0')).toBeUndefined();
    expect(
      sqliteChecks("CREATE TABLE t ([s] TEXT CHECK ([s] IN ('x', 'y)')), n INT CHECK (n > 0))").map(
        (c) => c.inList?.values,
      ),
    ).toEqual([['x', 'y)'], undefined]);
  });
  it('reports few repeated values as a pool, never as an enum, and takes enums and checks as closed', () => {
    const c = col('status', txt);
    const t = table('t', [col('id'), c], { checks: [] });
    const profile = {
      rows: 100,
      nulls: 0,
      distinct: 2,
      values: [
        { value: 'a', count: 60 },
        { value: 'b', count: 40 },
      ],
    };
    expect(valueSet(c, t, profile, new Map())).toEqual({ source: 'low-cardinality', values: ['a', 'b'] });
    expect(
      valueSet(
        c,
        { ...t, checks: [{ expression: '', inList: { column: 'status', values: ['a', 'b', 'c'] } }] },
        profile,
        new Map(),
      )?.source,
    ).toBe('check-in');
    expect(
      valueSet(col('r', { kind: 'enum', typeName: 'mpaa' }), t, undefined, new Map([['mpaa', ['G', 'R']]])),
    ).toEqual({ source: 'enum-type', name: 'mpaa', values: ['G', 'R'] });
    // An array column's list inside a subtype's larger CHECK.
    const tags = col('tags', { kind: 'array', element: txt }, true);
    const sub = table('item', [col('id'), col('type', txt), tags], {
      checks: [
        { expression: "CHECK (((type = 'book') = (tags IS NOT NULL)) AND (tags <@ ARRAY['new'::text, 'old'::text]))" },
      ],
    });
    expect(valueSet(tags, sub, undefined, new Map())).toEqual({ source: 'check-in', values: ['new', 'old'] });
    expect(valueSet(col('other_tags', { kind: 'array', element: txt }), sub, undefined, new Map())).toBeUndefined();
    // A JSON array's list: every element one of the strings of a JSON array (as PostgreSQL prints it).
    const sizes = col('sizes', { kind: 'json' }, true);
    const shop = table('item', [col('id'), sizes], {
      checks: [{ expression: `CHECK ((sizes <@ '["S", "M", "L''s"]'::jsonb))` }],
    });
    expect(valueSet(sizes, shop, undefined, new Map())).toEqual({ source: 'check-in', values: ['S', 'M', "L's"] });
    expect(
      valueSet(
        sizes,
        { ...shop, checks: [{ expression: `CHECK ((sizes <@ '[1, 2]'::jsonb))` }] },
        undefined,
        new Map(),
      ),
    ).toBeUndefined();
  });
  it('maps engine types, saying where it approximates', () => {
    expect(pgType('character varying(45)', new Set())).toEqual({ kind: 'text', length: 45 });
    expect(pgType('text[]', new Set())).toEqual({ kind: 'array', element: { kind: 'text' } });
    expect(pgType('tsvector', new Set())).toEqual({ kind: 'opaque', typeName: 'tsvector' });
    expect(sqliteType('NVARCHAR(120)')).toEqual({ kind: 'text', length: 120 });
    expect(sqliteType('NUMERIC(10,2)')).toEqual({ kind: 'numeric', precision: 10, scale: 2 });
    expect(columnType(col('n', { kind: 'smallint' }), new Map())).toEqual({
      type: { kind: 'integer' },
      approximated: 'smallint read as integer',
    });
    expect(columnType(col('tags', { kind: 'array', element: txt }), new Map())).toEqual({
      type: { kind: 'text' },
      multiValued: 'array',
    });
    expect('leftOut' in columnType(col('blob', { kind: 'opaque', typeName: 'bytea' }), new Map())).toBe(true);
  });
  it('turns a profile into hints', () => {
    expect(
      valueHints({ kind: 'integer' }, { rows: 10, nulls: 2, distinct: 8, min: '1', max: '9' }, true, undefined),
    ).toEqual({ min: 1, max: 9, nullRate: 0.2 });
    expect(
      valueHints(
        { kind: 'date' },
        { rows: 3, nulls: 0, distinct: 3, min: '2020-01-02', max: '2021-03-04' },
        false,
        undefined,
      ),
    ).toEqual({ min: '2020-01-02', max: '2021-03-04', unique: true });
  });
});

describe('words', () => {
  it('names classes and nouns from physical names, and flags non-nouns', () => {
    expect(className('film_actors')).toBe('FilmActor');
    expect(className('InvoiceLine')).toBe('InvoiceLine');
    expect(nounWords('InvoiceLines')).toEqual({ singular: 'invoice line', plural: 'invoice lines' });
    expect(isNotNoun('is_active')).toBe(true);
    expect(isNotNoun('archived')).toBe(true);
    expect(isNotNoun('rating')).toBe(false);
    expect(isAuditColumn(col('last_update', { kind: 'timestamptz' }))).toBe(true);
    expect(isAuditColumn(col('last_update', txt))).toBe(false);
  });
  it('groups tables that share columns as concrete-table candidates', () => {
    const a = table('customer', [col('id'), col('first_name', txt), col('last_name', txt), col('email', txt)]);
    const b = table('staff', [
      col('id'),
      col('first_name', txt),
      col('last_name', txt),
      col('email', txt),
      col('salary'),
    ]);
    expect(sameColumnGroups([a, b, film])).toEqual([
      { tables: ['customer', 'staff'], columns: ['first_name', 'last_name', 'email'] },
    ]);
  });
});

describe('concrete-tables and reference-by-rows', () => {
  // Product(name, price, stock) ├ Physical(material, size) ┬ Shirt(fit) ┬ Cup(volume)   └ Digital(format, bytes) ┬ Ebook(pages) ┬ Song(length)
  const shared = [col('id'), col('name', txt), col('price'), col('stock')];
  const physical = [col('material', txt), col('size', txt)];
  const digital = [col('format', txt), col('bytes')];
  const shirt = table('shirts', [...shared, ...physical, col('fit', txt)]);
  const cup = table('cups', [...shared, ...physical, col('volume')]);
  const ebook = table('ebooks', [...shared, ...digital, col('pages')]);
  const song = table('songs', [...shared, ...digital, col('length')]);
  const review = table('reviews', [col('id'), col('stars'), col('product_id')]);
  const tables = [shirt, cup, ebook, song, review];
  const found = (counts: Record<string, number>) => new Map(Object.entries(counts));
  const profile = {
    groups: [['shirts', 'cups', 'ebooks', 'songs']],
    references: new Map([
      [
        'reviews',
        new Map([
          ['product_id', { distinct: 9, found: found({ shirts: 2, cups: 3, ebooks: 3, songs: 1 }) }],
          // Only some values are keys of the group: not a reference into it.
          ['stars', { distinct: 5, found: found({ shirts: 1, cups: 1, ebooks: 1, songs: 1 }) }],
        ]),
      ],
    ]),
  };
  const read = readConcreteTables(catalog(tables), new Map(), profile);
  const byName = new Map(read.catalog.tables.map((t) => [t.name, t]));

  it('adds a class with no table for each set of columns tables share beyond their superclass', () => {
    const root = byName.get('product');
    expect(root?.concrete).toEqual({ rows: 40, abstract: true });
    expect(root?.columns.map((c) => c.name)).toEqual(['id', 'name', 'price', 'stock']);
    const middles = read.catalog.tables.filter((t) => t.concrete?.parent === 'product');
    expect(middles.map((t) => t.columns.map((c) => c.name).slice(4))).toEqual([
      ['material', 'size'],
      ['format', 'bytes'],
    ]);
    expect(middles.every((t) => t.concrete?.abstract === true && t.concrete.rows === 20)).toBe(true);
    expect(byName.get('shirts')?.concrete?.parent).toBe(middles[0]?.name);
    expect(byName.get('songs')?.concrete).toEqual({ parent: middles[1]?.name, rows: 10 });
  });

  it('reads a column whose every value is a key of the group as a reference to the class holding them all', () => {
    expect(byName.get('reviews')?.foreignKeys).toEqual([
      { columns: ['product_id'], table: 'product', references: ['id'], inferred: true },
    ]);
    expect(read.findings.filter((f) => f.rule === 'reference-by-rows').map((f) => f.subject)).toEqual([
      'reviews.product_id',
    ]);
  });

  it('reads a registry with its hierarchy: the tables’ keys and the references to it name the classes the rows tell', () => {
    const registry = table('product_registry', [col('id'), col('type', txt)]);
    const keyed = [shirt, cup, ebook, song].map((t) => ({ ...t, foreignKeys: [fk(['id'], 'product_registry')] }));
    const tag = table('product_tags', [col('product_id'), col('tag', txt)], {
      primaryKey: ['product_id', 'tag'],
      foreignKeys: [fk(['product_id'], 'product_registry')],
    });
    const withRegistry = readConcreteTables(catalog([registry, ...keyed, tag]), new Map(), {
      groups: [['shirts', 'cups', 'ebooks', 'songs']],
      references: new Map([
        [
          'product_tags',
          new Map([['product_id', { distinct: 4, found: found({ shirts: 2, cups: 2, ebooks: 0, songs: 0 }) }]]),
        ],
      ]),
      kinds: new Map([
        ['shirts', 'shirt'],
        ['cups', 'cup'],
        ['ebooks', 'ebook'],
        ['songs', 'song'],
      ]),
    });
    const named = new Map(withRegistry.catalog.tables.map((t) => [t.name, t]));
    expect(named.get('product_registry')?.concrete).toEqual({ rows: 10, isRegistry: true });
    // The root is named after the registry, and holds it with each table's kind.
    expect(named.get('product')?.concrete?.registry).toEqual({
      table: 'product_registry',
      column: 'type',
      kinds: { shirts: 'shirt', cups: 'cup', ebooks: 'ebook', songs: 'song' },
    });
    expect(named.get('shirts')?.foreignKeys).toEqual([]);
    // Tags of shirts and cups only: a reference to the class of both, not to the root.
    const physicalName = named.get('shirts')?.concrete?.parent;
    expect(named.get('product_tags')?.foreignKeys).toEqual([
      { columns: ['product_id'], table: physicalName, references: ['id'] },
    ]);
  });

  it('leaves declared keys, codes, other tables’ references and single tables alone', () => {
    const lookup = table('employees', [col('id'), col('name', txt)]);
    const categories = table('categories', [col('id'), col('label', txt)]);
    const orders = table(
      'orders',
      [col('id'), col('clerk_id'), col('status_id'), col('category_id'), col('shirt_ref_id')],
      {
        foreignKeys: [fk(['clerk_id'], 'employees')],
      },
    );
    const hits = (distinct: number, counts: Record<string, number>) => ({ distinct, found: found(counts) });
    const read = readConcreteTables(catalog([...tables, lookup, categories, orders]), new Map(), {
      groups: [['shirts', 'cups', 'ebooks', 'songs']],
      references: new Map([
        [
          'orders',
          new Map([
            // A declared key to a two-column table that is no group's registry.
            ['clerk_id', hits(6, { shirts: 2, cups: 2, ebooks: 1, songs: 1 })],
            // Three values: a code, not a reference.
            ['status_id', hits(3, { shirts: 1, cups: 1, ebooks: 1, songs: 0 })],
            // Named after the table `categories`.
            ['category_id', hits(6, { shirts: 2, cups: 2, ebooks: 1, songs: 1 })],
            // Every value in one table: a key the source could have declared, so not read from the rows.
            ['shirt_ref_id', hits(6, { shirts: 6, cups: 0, ebooks: 0, songs: 0 })],
          ]),
        ],
      ]),
    });
    const byTable = new Map(read.catalog.tables.map((t) => [t.name, t]));
    expect(byTable.get('orders')?.foreignKeys).toEqual([fk(['clerk_id'], 'employees')]);
    expect(read.findings.some((f) => f.rule === 'reference-by-rows')).toBe(false);
  });

  it('compares columns with the tables they reference, and lets a shared column hold NULL where any table does', () => {
    const people = table('people', [col('id'), col('name', txt)]);
    const firms = table('firms', [col('id'), col('name', txt)]);
    const common = [col('id'), col('brand', txt), col('colour', txt), col('year'), col('owner_id')];
    const bikes = table('bikes', [...common, col('gears')], { foreignKeys: [fk(['owner_id'], 'people')] });
    const cars = table(
      'cars',
      [...common.map((c) => (c.name === 'colour' ? { ...c, nullable: true } : c)), col('doors')],
      { foreignKeys: [fk(['owner_id'], 'firms')] },
    );
    const rentals = table('rentals', [col('id'), col('vehicle_id')]);
    const read = readConcreteTables(catalog([people, firms, bikes, cars, rentals]), new Map(), {
      groups: [['bikes', 'cars']],
      references: new Map([
        ['rentals', new Map([['vehicle_id', { distinct: 6, found: found({ bikes: 3, cars: 3 }) }]])],
      ]),
    });
    const root = read.catalog.tables.find((t) => t.concrete?.abstract === true);
    // owner_id references people from bikes and firms from cars: each table keeps its own.
    expect(root?.columns.map((c) => c.name)).toEqual(['id', 'brand', 'colour', 'year']);
    expect(root?.foreignKeys).toEqual([]);
    expect(root?.columns.find((c) => c.name === 'colour')?.nullable).toBe(true);
  });

  it('reads no group from shared columns and apart keys alone: a registry, a table inside another, or a reference says more', () => {
    // Students and faculty share names and ages, numbered apart; nothing refers to both.
    const person = [col('id'), col('first_name', txt), col('last_name', txt), col('age')];
    const students = table('students', [...person, col('major', txt)]);
    const faculty = table('faculty', [...person, col('rank', txt)]);
    const advises = table('advises', [col('id'), col('student_id'), col('faculty_id')], {
      foreignKeys: [fk(['student_id'], 'students'), fk(['faculty_id'], 'faculty')],
    });
    const read = readConcreteTables(catalog([students, faculty, advises]), new Map(), {
      groups: [['students', 'faculty']],
      references: new Map(),
    });
    expect(read.catalog.tables.some((t) => t.concrete !== undefined)).toBe(false);
    expect(read.findings).toEqual([]);
  });

  it('reads no group whose keys reference a table that is no registry of it', () => {
    const registry = table('thing_registry', [col('id'), col('type', txt)]);
    const keyed = [shirt, cup].map((t) => ({ ...t, foreignKeys: [fk(['id'], 'thing_registry')] }));
    const read = readConcreteTables(catalog([registry, ...keyed]), new Map(), {
      groups: [['shirts', 'cups']],
      references: new Map(),
      // Both tables' rows are of one kind: the registry does not tell them apart.
      kinds: new Map([
        ['shirts', 'thing'],
        ['cups', 'thing'],
      ]),
    });
    expect(read.catalog.tables.some((t) => t.concrete !== undefined)).toBe(false);
    expect(read.catalog.tables.find((t) => t.name === 'shirts')?.foreignKeys).toEqual([fk(['id'], 'thing_registry')]);
  });

  it('takes a table whose columns are all in another’s as its superclass, and reads nothing without a group', () => {
    const account = table('accounts', [col('id'), col('login', txt), col('email', txt), col('joined', txt)]);
    const creator = table('creators', [...account.columns, col('bio', txt)]);
    const twoLevels = readConcreteTables(catalog([account, creator]), new Map(), {
      groups: [['accounts', 'creators']],
      references: new Map(),
    });
    expect(twoLevels.catalog.tables.map((t) => [t.name, t.concrete])).toEqual([
      ['accounts', { rows: 20 }],
      ['creators', { parent: 'accounts', rows: 10 }],
    ]);
    const none = readConcreteTables(catalog(tables), new Map(), { groups: [], references: new Map() });
    expect(none.catalog.tables).toEqual(tables);
    expect(none.catalog.tables.some((t) => t.concrete !== undefined)).toBe(false);
  });
});

describe('reference-attribute', () => {
  it('reads a column a CHECK ties to a reference as an attribute of that relationship', () => {
    const loan = table(
      'copy',
      [
        col('id'),
        col('member_id', int, true),
        col('since', { kind: 'date' }, true),
        col('note', txt, true),
        col('shelf', txt, true),
      ],
      {
        foreignKeys: [fk(['member_id'], 'member')],
        checks: [
          { expression: 'CHECK (((member_id IS NULL) = (since IS NULL)))' },
          { expression: 'CHECK (((member_id IS NOT NULL) OR (note IS NULL)))' },
          { expression: 'CHECK ((shelf IS NULL) OR (length(shelf) > 0))' },
        ],
      },
    );
    expect(referenceAttributeColumns(loan, fk(['member_id'], 'member'))).toEqual(['since', 'note']);
    expect(referenceAttributeColumns({ ...loan, checks: [] }, fk(['member_id'], 'member'))).toEqual([]);
  });
});

describe('flag-column', () => {
  it('reads a boolean the CHECKs treat as a membership flag as a class, parents first, and leaves other booleans alone', () => {
    const bool: CatalogType = { kind: 'boolean' };
    const people = table(
      'people',
      [
        col('id'),
        col('is_student', bool),
        col('is_member', bool),
        col('active', bool),
        col('joined_on', { kind: 'date' }, true),
        col('school', txt, true),
        col('pen_name', txt, true),
        col('is_author', bool),
      ],
      {
        checks: [
          { expression: 'CHECK (((NOT is_student) OR is_member))' },
          { expression: 'CHECK ((is_member = (joined_on IS NOT NULL)))' },
          { expression: 'CHECK ((is_student = (school IS NOT NULL)))' },
          { expression: 'CHECK ((is_author OR (pen_name IS NULL)))' },
        ],
      },
    );
    expect(detectFlagClasses(people)).toEqual([
      { flag: 'is_member', columns: ['joined_on'] },
      { flag: 'is_author', columns: ['pen_name'] },
      { flag: 'is_student', parentFlag: 'is_member', columns: ['school'] },
    ]);
    expect(detectFlagClasses({ ...people, checks: [] })).toEqual([]);
  });
});
