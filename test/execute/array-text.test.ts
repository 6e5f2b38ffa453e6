import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../generator/database/database.ts';
import { arrayElements, sortedArrayText } from '../../generator/execute/array-text.ts';
import { normalizeResult, runReadOnly } from '../../generator/execute/run-query.ts';
import { createDatabase, describeServer } from '../helpers/postgres.ts';

describe('the text form of an array', () => {
  it('splits into elements as PostgreSQL wrote them, quotes and escapes kept', () => {
    expect(arrayElements('{}')).toEqual([]);
    expect(arrayElements('{M,"X L",NULL}')).toEqual(['M', '"X L"', 'NULL']);
    expect(arrayElements('{"a,}b","c\\"d",e}')).toEqual(['"a,}b"', '"c\\"d"', 'e']);
    expect(arrayElements('{"a\\\\"}')).toEqual(['"a\\\\"']);
  });
  it('is not taken for an array when it is other text', () => {
    for (const text of ['', 'plain', '{', '{a', 'a}', '{{1,2},{3,4}}', '{"open}', '{a"b}'])
      expect(arrayElements(text), text).toBeUndefined();
    expect(sortedArrayText('{"open}')).toBe('{"open}');
  });
  it('sorts elements into one order, so the same set prints the same', () => {
    expect(sortedArrayText('{XL,M,S}')).toBe('{M,S,XL}');
    expect(sortedArrayText('{"b c",a}')).toBe(sortedArrayText('{a,"b c"}'));
    expect(sortedArrayText('{a,b}')).not.toBe(sortedArrayText('{a,c}'));
  });
});

// One set stored three ways, in different orders: an array column, a child table, JSONB.
const SETUP = `
  CREATE SCHEMA va; CREATE SCHEMA vt; CREATE SCHEMA vj;
  CREATE TABLE va.item (id integer PRIMARY KEY, sizes text[]);
  INSERT INTO va.item VALUES (1, '{XL,"S M",L}'), (2, '{}');
  CREATE TABLE vt.item (id integer PRIMARY KEY);
  CREATE TABLE vt.item_sizes (item_id integer REFERENCES vt.item, size text, PRIMARY KEY (item_id, size));
  INSERT INTO vt.item VALUES (1), (2);
  INSERT INTO vt.item_sizes VALUES (1, 'L'), (1, 'S M'), (1, 'XL');
  CREATE TABLE vj.item (id integer PRIMARY KEY, sizes jsonb);
  INSERT INTO vj.item VALUES (1, '["S M","XL","L"]'), (2, '[]');
`;

function agreement(open: () => Promise<Database>) {
  let db: Database;
  beforeAll(async () => {
    db = await open();
    await db.exec(SETUP);
  });
  afterAll(async () => {
    await db?.close();
  });

  it('lets variants that store a set in different orders agree, and no others', async () => {
    const run = async (schema: string, sql: string) => normalizeResult(await runReadOnly(db, schema, sql), false);
    const array = await run('va', 'SELECT i.id, i.sizes FROM item AS i');
    const table = await run(
      'vt',
      'SELECT i.id, ARRAY(SELECT s.size FROM item_sizes AS s WHERE s.item_id = i.id) AS sizes FROM item AS i',
    );
    const jsonb = await run(
      'vj',
      'SELECT i.id, ARRAY(SELECT s.value FROM jsonb_array_elements_text(i.sizes) AS s(value)) AS sizes FROM item AS i',
    );
    expect(array.rows).toEqual([
      ['1', '{"S M",L,XL}'],
      ['2', '{}'],
    ]);
    expect(table.hash).toBe(array.hash);
    expect(jsonb.hash).toBe(array.hash);
    const fewer = await run(
      'vt',
      "SELECT i.id, ARRAY(SELECT s.size FROM item_sizes AS s WHERE s.item_id = i.id AND s.size <> 'L') AS sizes FROM item AS i",
    );
    expect(fewer.hash).not.toBe(array.hash);
  });
}

describe('array answers on PGlite', () => agreement(() => openDatabase({ kind: 'pglite' })));

describeServer('array answers on the server', (serverUrl) => {
  let drop: (() => Promise<void>) | undefined;
  afterAll(async () => drop?.());
  agreement(async () => {
    const fresh = await createDatabase(serverUrl, 'arrays');
    drop = fresh.drop;
    return openDatabase({ kind: 'postgres', url: fresh.url });
  });
});
