import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PGlite } from '@electric-sql/pglite';
import { BUILT_IN_DOMAINS } from '../../generator/domains/index.ts';
import { indexDomain } from '../../generator/er-model/er-index.ts';
import { writeTemplateQuestion } from '../../generator/questions/template-writer.ts';
import type { Query } from '../../generator/query/conceptual-query.ts';

// What the template questions say about SQL's conventions, checked by running SQL on
// PostgreSQL (PGlite): each case pairs a phrase the writer emits for a query with a query
// whose answer shows the phrase is true.

const index = indexDomain(BUILT_IN_DOMAINS.social_media!);
const ask = (query: Query) =>
  (['precise', 'implicit'] as const).map((style) => {
    const w = writeTemplateQuestion(index, query, style, 0, 'conventions');
    return `${w.question} ${w.evidence}`;
  });

let db: PGlite;

beforeAll(async () => {
  db = new PGlite();
  await db.exec(`
    CREATE TABLE a (id int PRIMARY KEY, v int);
    CREATE TABLE b (id int PRIMARY KEY, a_id int REFERENCES a (id), w int);
    INSERT INTO a VALUES (1, 10), (2, NULL), (3, 30);
    INSERT INTO b VALUES (1, 1, 5), (2, 1, NULL), (3, 3, 7);
  `);
});

afterAll(async () => {
  await db.close();
});

async function rows(sql: string): Promise<unknown[][]> {
  const result = await db.query<Record<string, unknown>>(sql);
  return result.rows.map((r) => Object.values(r));
}

const streamer = { kind: 'attribute', alias: 's', attribute: 'id' } as const;

describe('conventions the questions state hold in PostgreSQL', () => {
  it('a count over a LEFT join is 0 for an object with no partner, and the unmatched object is kept once', async () => {
    const q: Query = {
      kind: 'select',
      from: { entity: 'Streamer', alias: 's' },
      joins: [
        {
          kind: 'relationship',
          type: 'left',
          relationship: 'hosted_by',
          from: 's',
          direction: 'reverse',
          alias: 'l',
          entity: 'LiveStream',
        },
      ],
      select: [
        { name: 'id', expr: streamer },
        {
          name: 'n',
          expr: { kind: 'aggregate', fn: 'count', arg: { kind: 'attribute', alias: 'l', attribute: 'id' } },
        },
      ],
      groupBy: [streamer],
    };
    for (const text of ask(q)) {
      expect(text).toMatch(/0 when there are none/u);
      // A count per streamer of its live streams: every streamer, the partnerless ones too.
      expect(text).toMatch(/(every streamer|all streamers), including those without any live stream/u);
      expect(text).toMatch(
        /number of live streams hosted by the streamer( \(0 when there are none\)| is 0 when there are none)/u,
      );
    }
    expect(
      await rows('SELECT a.id, count(b.id) FROM a LEFT JOIN b ON b.a_id = a.id GROUP BY a.id ORDER BY a.id'),
    ).toEqual([
      [1, 2],
      [2, 0],
      [3, 1],
    ]);
    expect(await rows('SELECT a.id FROM a LEFT JOIN b ON b.a_id = a.id WHERE a.id = 2')).toEqual([[2]]);
  });

  it('COUNT(*) over a LEFT join counts an unmatched row as one', async () => {
    const q: Query = {
      kind: 'select',
      from: { entity: 'Streamer', alias: 's' },
      joins: [
        {
          kind: 'relationship',
          type: 'left',
          relationship: 'hosted_by',
          from: 's',
          direction: 'reverse',
          alias: 'l',
          entity: 'LiveStream',
        },
      ],
      select: [
        { name: 'id', expr: streamer },
        { name: 'n', expr: { kind: 'aggregate', fn: 'count' } },
      ],
      groupBy: [streamer],
    };
    for (const text of ask(q))
      expect(text).toMatch(
        /the (number|count) of pairings of a streamer with a live stream \(a streamer with no live stream still counts as one\)/u,
      );
    expect(await rows('SELECT count(*) FROM a LEFT JOIN b ON b.a_id = a.id WHERE a.id = 2')).toEqual([[1]]);
  });

  it('missing values sort first in descending order and last in ascending order', async () => {
    const bio = { kind: 'attribute', alias: 's', attribute: 'bio' } as const;
    const q = (direction: 'asc' | 'desc'): Query => ({
      kind: 'select',
      from: { entity: 'Streamer', alias: 's' },
      select: [
        { name: 'bio', expr: bio },
        { name: 'id', expr: streamer },
      ],
      orderBy: [
        { expr: bio, direction },
        { expr: streamer, direction: 'asc' },
      ],
    });
    for (const text of ask(q('desc'))) expect(text).toMatch(/in descending order, missing values first/u);
    for (const text of ask(q('asc'))) expect(text).toMatch(/in ascending order, missing values last/u);
    expect(await rows('SELECT v FROM a ORDER BY v DESC')).toEqual([[null], [30], [10]]);
    expect(await rows('SELECT v FROM a ORDER BY v ASC')).toEqual([[10], [30], [null]]);
  });

  it('a condition on a missing value does not match, negated or not', async () => {
    const age = { kind: 'attribute', alias: 'c', attribute: 'age' } as const;
    const q: Query = {
      kind: 'select',
      from: { entity: 'ConsumerAccount', alias: 'c' },
      select: [{ name: 'id', expr: { kind: 'attribute', alias: 'c', attribute: 'id' } }],
      where: { kind: 'in', expr: age, values: [20, 30], negated: true },
    };
    for (const text of ask(q)) expect(text).toMatch(/no value/u);
    expect(await rows('SELECT id FROM a WHERE v NOT IN (10) ORDER BY id')).toEqual([[3]]);
    expect(await rows('SELECT id FROM a WHERE NOT (v IN (10)) ORDER BY id')).toEqual([[3]]);
  });

  it('averages ignore missing values; a missing group key forms one group; BETWEEN is inclusive', async () => {
    const q: Query = {
      kind: 'select',
      from: { entity: 'ConsumerAccount', alias: 'c' },
      select: [
        { name: 'p', expr: { kind: 'attribute', alias: 'c', attribute: 'preferences' } },
        { name: 'a', expr: { kind: 'aggregate', fn: 'avg', arg: { kind: 'attribute', alias: 'c', attribute: 'age' } } },
      ],
      groupBy: [{ kind: 'attribute', alias: 'c', attribute: 'preferences' }],
      where: {
        kind: 'between',
        expr: { kind: 'attribute', alias: 'c', attribute: 'id' },
        low: { kind: 'literal', value: 1 },
        high: { kind: 'literal', value: 9 },
      },
    };
    for (const text of ask(q)) {
      expect(text).toMatch(/ignoring missing values/u);
      expect(text).toMatch(/form one group of their own/u);
      expect(text).toMatch(/\(inclusive\)/u);
    }
    expect(await rows('SELECT avg(v)::int FROM a')).toEqual([[20]]);
    expect(
      await rows('SELECT count(*) FROM (SELECT v FROM a UNION ALL SELECT NULL) t GROUP BY v ORDER BY v NULLS LAST'),
    ).toEqual([[1], [1], [2]]);
    expect(await rows('SELECT id FROM a WHERE v BETWEEN 10 AND 30 ORDER BY id')).toEqual([[1], [3]]);
  });

  it('UNION, INTERSECT and EXCEPT give distinct values; UNION ALL keeps repeats', async () => {
    const side = (entity: string, alias: string): Query => ({
      kind: 'select',
      from: { entity, alias },
      select: [{ name: 'id', expr: { kind: 'attribute', alias, attribute: 'id' } }],
    });
    for (const op of ['union', 'intersect', 'except'] as const)
      for (const text of ask({ kind: 'set', op, left: side('Account', 'x'), right: side('Streamer', 'y') }))
        expect(text).toMatch(
          /the distinct ids found in (either|both) list|the distinct ids of the first list that are not in the second/u,
        );
    for (const text of ask({ kind: 'set', op: 'union all', left: side('Account', 'x'), right: side('Streamer', 'y') }))
      expect(text).toMatch(/repeats kept/u);
    expect(await rows('SELECT a_id FROM b UNION SELECT a_id FROM b ORDER BY 1')).toEqual([[1], [3]]);
    expect(await rows('SELECT a_id FROM b UNION ALL SELECT 3 ORDER BY 1')).toEqual([[1], [1], [3], [3]]);
    expect(await rows('SELECT a_id FROM b EXCEPT SELECT 3 ORDER BY 1')).toEqual([[1]]);
  });
});
