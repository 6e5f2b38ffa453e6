import { describe, expect, it } from 'vitest';
import { parseSql } from '../../generator/sql/parser-adapter.ts';
import { spiderHardness, constructCounts } from '../../generator/generate/difficulty.ts';
import { readSkeleton } from '../../generator/generate/skeleton-shape.ts';
import { fillQuery } from '../../generator/generate/fill/fill-query.ts';
import { aggregate } from '../../generator/generate/fill/aggregates.ts';
import { startFill } from '../../generator/generate/fill/fill-context.ts';
import { buildSchemaGraph } from '../../generator/generate/schema-graph.ts';
import { canonicalQueryText, groupId } from '../../generator/generate/canonical-query.ts';
import { CandidateRejected, type RejectionReason } from '../../generator/records/group-record.ts';
import { BUILT_IN_DOMAINS } from '../../generator/domains/index.ts';
import { indexDomain } from '../../generator/er-model/er-index.ts';
import { generateInstance } from '../../generator/instance/generate-instance.ts';
import { createRng } from '../../generator/common/rng.ts';
import { and, attr, cmp, count, entity, inner, lit, out, select } from '../../generator/query/query-builder.ts';
import type { Join } from '../../generator/query/conceptual-query.ts';

const tokens = (s: string): string[] => s.split(' ');

function reasonOf(f: () => unknown): RejectionReason | 'ok' {
  try {
    f();
    return 'ok';
  } catch (error) {
    if (error instanceof CandidateRejected) return error.reason;
    throw error;
  }
}

describe('readSkeleton', () => {
  it('reads slots, joins, conditions, order and limit', () => {
    const shape = readSkeleton(
      tokens(
        'SELECT <column> , COUNT ( * ) FROM <table> JOIN <table> ON <column> = <column> WHERE <column:numeric> > <value:number> GROUP BY <column> ORDER BY COUNT ( * ) DESC LIMIT 1',
      ),
    );
    expect(shape).toMatchObject({
      kind: 'select',
      items: [
        { kind: 'column', type: 'any' },
        { kind: 'aggregate', mode: 'star' },
      ],
      joins: 1,
      where: [[{ kind: 'compareValue', op: '>', column: { type: 'numeric' }, valueType: 'number' }]],
      groupBy: [{ kind: 'column' }],
      orderBy: [{ key: { kind: 'aggregate', mode: 'star' }, direction: 'desc' }],
      limit: 'one',
    });
  });

  it('reads set operations and subqueries', () => {
    const shape = readSkeleton(
      tokens(
        'SELECT <column> FROM <table> WHERE <column> NOT IN ( SELECT <column> FROM <table> WHERE <column:text> = <value:text> ) EXCEPT SELECT <column> FROM <table>',
      ),
    );
    expect(shape.kind).toBe('set');
    if (shape.kind !== 'set' || shape.left.kind !== 'select') throw new Error('expected a set of selects');
    expect(shape.op).toBe('except');
    expect(shape.left.where?.[0]?.[0]).toMatchObject({ kind: 'inSubquery', negated: true });
  });

  it('rejects skeletons a conceptual query cannot mean, each with its reason', () => {
    expect(
      reasonOf(() =>
        readSkeleton(
          tokens('SELECT DISTINCT COUNT ( * ) FROM <table> GROUP BY <column> HAVING COUNT ( * ) > <value:number>'),
        ),
      ),
    ).toBe('meaningless-skeleton');
    expect(reasonOf(() => readSkeleton(tokens('SELECT <column> , COUNT ( * ) FROM <table>')))).toBe(
      'meaningless-skeleton',
    );
    expect(reasonOf(() => readSkeleton(tokens('SELECT * FROM <table> JOIN <table> ON <column> = <column>')))).toBe(
      'meaningless-skeleton',
    );
    expect(reasonOf(() => readSkeleton(tokens('SELECT <column> FROM <table> CROSS JOIN <table>')))).toBe(
      'meaningless-skeleton',
    );
    expect(
      reasonOf(() => readSkeleton(tokens('SELECT <column> FROM <table> WHERE COUNT ( * ) > <value:number>'))),
    ).toBe('meaningless-skeleton');
  });
});

describe('fillQuery', () => {
  const domain = BUILT_IN_DOMAINS['social_media']!;
  const index = indexDomain(domain);
  const graph = buildSchemaGraph(index);
  const instance = generateInstance(domain, { seed: 1, scale: 'tiny' });
  const noProbe = async (): Promise<never> => {
    throw new Error('this skeleton needs no probe');
  };

  it('rejects x NOT IN (SELECT COUNT(*) …) as meaningless', async () => {
    const shape = readSkeleton(
      tokens('SELECT <column> FROM <table> WHERE <column> NOT IN ( SELECT COUNT ( * ) FROM <table> )'),
    );
    await expect(fillQuery(shape, { graph, instance, rng: createRng(1), probe: noProbe })).rejects.toMatchObject({
      reason: 'meaningless-skeleton',
    });
  });

  it('fills typed slots with attributes of that type and values that exist in the instance', async () => {
    const shape = readSkeleton(tokens('SELECT <column> FROM <table> WHERE <column:text> = <value:text>'));
    let checked = 0;
    for (let seed = 0; seed < 20; seed++) {
      const q = await fillQuery(shape, { graph, instance, rng: createRng(seed), probe: noProbe }).catch((e) => e);
      if (q instanceof CandidateRejected) continue;
      if (q.kind !== 'select') throw new Error('expected a select');
      const w = q.where;
      // Equality slots may become set membership, a subtype test or IS NULL, still grounded in the data.
      if (w?.kind === 'contains') {
        const e =
          q.from.alias === w.alias
            ? q.from.entity
            : ((q.joins ?? []).find((j: Join) => j.alias === w.alias) as { entity: string }).entity;
        const sets = (instance.objects[index.root(e).name] ?? []).flatMap(
          (o) => (o.values[w.attribute] as readonly unknown[] | null) ?? [],
        );
        expect(sets).toContain(w.value);
        checked += 1;
        continue;
      }
      if (w?.kind === 'isA') continue;
      // Or IS NULL on an optional attribute that is NULL for some object.
      if (w?.kind === 'isNull' && w.expr.kind === 'attribute') {
        const alias = w.expr.alias;
        const e =
          q.from.alias === alias
            ? q.from.entity
            : ((q.joins ?? []).find((j: Join) => j.alias === alias) as { entity: string }).entity;
        const attribute = w.expr.attribute;
        expect(index.allAttributes(e).find((a) => a.attribute.name === attribute)?.attribute.optional).toBe(true);
        expect((instance.objects[index.root(e).name] ?? []).some((o) => o.values[attribute] === null)).toBe(true);
        checked += 1;
        continue;
      }
      if (w?.kind !== 'compare' && w?.kind !== 'in') throw new Error(`expected a comparison, got ${w?.kind}`);
      const left = w.kind === 'compare' ? w.left : w.expr;
      const wanted = w.kind === 'compare' ? [w.right.kind === 'literal' ? w.right.value : undefined] : w.values;
      const aliasEntity = new Map([
        [q.from.alias, q.from.entity],
        ...(q.joins ?? []).flatMap((j: Join) =>
          j.kind === 'relationship' ? [[j.alias, j.entity] as [string, string]] : [],
        ),
      ]);
      if (left.kind !== 'attribute') continue;
      const e = aliasEntity.get(left.alias) as string;
      const type = index.allAttributes(e).find((a) => a.attribute.name === left.attribute)?.attribute.type.kind;
      expect(['text', 'enum']).toContain(type);
      const root = index.root(e).name;
      const values = (instance.objects[root] ?? []).map((o) => o.values[left.attribute]);
      for (const value of wanted) expect(values).toContain(value);
      checked += 1;
    }
    expect(checked).toBeGreaterThan(10);
  });

  it('gives a one-table `x = 3` an entity with a whole number to match, not one it must be filled again for', async () => {
    const shape = readSkeleton(tokens('SELECT <column> FROM <table> WHERE <column:numeric> = <value:number>'));
    const reasons: string[] = [];
    let matched = 0;
    for (let seed = 0; seed < 40; seed++) {
      const q = await fillQuery(shape, { graph, instance, rng: createRng(seed), probe: noProbe }).catch((e) => e);
      if (q instanceof CandidateRejected) {
        reasons.push(q.detail);
        continue;
      }
      if (q.kind !== 'select' || q.where?.kind !== 'compare' || q.where.left.kind !== 'attribute') continue;
      const { alias, attribute } = q.where.left;
      expect(alias).toBe(q.from.alias);
      const type = index.allAttributes(q.from.entity).find((a) => a.attribute.name === attribute)?.attribute.type;
      expect(['integer', 'bigint', 'smallint', 'numeric']).toContain(type?.kind);
      const root = index.root(q.from.entity).name;
      const right = q.where.right.kind === 'literal' ? q.where.right.value : undefined;
      expect((instance.objects[root] ?? []).map((o) => Number(o.values[attribute]))).toContain(Number(right));
      matched += 1;
    }
    // Most entities of the domain have no whole number to match: drawn among all, most fillings failed so.
    expect(reasons.filter((r) => r.startsWith('no column for ='))).toEqual([]);
    expect(matched).toBeGreaterThan(20);
  });

  it('gives two bounds on one table an entity with two numbers to bound, one each', async () => {
    const shape = readSkeleton(
      tokens(
        'SELECT <column> FROM <table> WHERE <column:numeric> > <value:number> AND <column:numeric> >= <value:number>',
      ),
    );
    const failed: string[] = [];
    for (let seed = 0; seed < 40; seed++) {
      const q = await fillQuery(shape, { graph, instance, rng: createRng(seed), probe: noProbe }).catch((e) => e);
      if (q instanceof CandidateRejected) failed.push(q.detail);
    }
    // A column is bounded once: an entity with one number fails the second slot every time.
    expect(failed.filter((d) => d.startsWith('no column for'))).toEqual([]);
  });

  it('takes a number, never a date, for the aggregate a HAVING threshold compares', () => {
    const slot = { kind: 'aggregate', mode: 'free' } as const;
    // Content has durations and creation times: an aggregate elsewhere may be the latest creation time.
    const scope = [{ alias: 'c', entity: 'Content' }];
    const kinds = (numbersOnly: boolean) =>
      Array.from({ length: 60 }, (_, seed) => {
        const f = startFill({ graph, instance, rng: createRng(seed), probe: noProbe });
        return aggregate(f, slot, scope, [], undefined, [], numbersOnly).kind;
      });
    expect(kinds(false)).toContain('temporal');
    expect(new Set(kinds(true))).toEqual(new Set(['numeric']));
  });
});

describe('labels', () => {
  it("computes Spider's hardness", () => {
    expect(spiderHardness(parseSql('SELECT count(*) FROM singer'))).toBe('easy');
    expect(spiderHardness(parseSql('SELECT name, country, age FROM singer ORDER BY age DESC'))).toBe('medium');
    expect(
      spiderHardness(
        parseSql(
          'SELECT T2.name, count(*) FROM concert AS T1 JOIN stadium AS T2 ON T1.stadium_id = T2.stadium_id GROUP BY T1.stadium_id',
        ),
      ),
    ).toBe('medium');
    expect(spiderHardness(parseSql('SELECT song_name FROM singer WHERE age > (SELECT avg(age) FROM singer)'))).toBe(
      'hard',
    );
    expect(
      spiderHardness(
        parseSql(
          'SELECT name FROM stadium EXCEPT SELECT T2.name FROM concert AS T1 JOIN stadium AS T2 ON T1.stadium_id = T2.stadium_id WHERE T1.year = 2014',
        ),
      ),
    ).toBe('hard');
    expect(
      spiderHardness(parseSql("SELECT count(*) FROM a JOIN b ON a.id = b.a_id WHERE a.x = 1 OR b.y LIKE '%z%'")),
    ).toBe('extra');
  });

  it('counts constructs and gives one id to queries that differ only in aliases and conjunct order', () => {
    const q1 = select({
      from: entity('Streamer', 's'),
      joins: [inner('produced_by', 's', 'reverse', 'c', 'Content')],
      select: [out('n', count())],
      where: and(cmp(attr('s', 'platform'), '=', lit('kick')), cmp(attr('c', 'duration'), '>', lit(60))),
    });
    const q2 = select({
      from: entity('Streamer', 'x'),
      joins: [inner('produced_by', 'x', 'reverse', 'y', 'Content')],
      select: [out('n', count())],
      where: and(cmp(attr('y', 'duration'), '>', lit(60)), cmp(attr('x', 'platform'), '=', lit('kick'))),
    });
    expect(canonicalQueryText(q1)).toBe(canonicalQueryText(q2));
    expect(groupId(q1)).toBe(groupId(q2));
    const q3 = select({ ...q1, where: cmp(attr('s', 'platform'), '=', lit('kick')) });
    expect(groupId(q3)).not.toBe(groupId(q1));
    expect(constructCounts(q1)).toEqual({ joins: 1, aggregates: 1, subqueries: 0, set_operations: 0 });
  });
});
