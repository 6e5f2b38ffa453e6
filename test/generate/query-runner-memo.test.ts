// @tier long
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../generator/database/database.ts';
import { BUILT_IN_DOMAINS } from '../../generator/domains/index.ts';
import { indexDomain } from '../../generator/er-model/er-index.ts';
import { asc, attr, cmp, count, entity, id, inner, lit, out, select } from '../../generator/query/query-builder.ts';
import type { Expr } from '../../generator/query/conceptual-query.ts';
import { compileSql } from '../../generator/compile/compile-query.ts';
import { prepareBuilds, type PreparedBuilds } from '../../generator/generate/prepare-builds.ts';
import { createQueryRunner, type QueryRunner } from '../../generator/generate/query-runner.ts';
import { verifyGroup, type CheckContext } from '../../generator/generate/group-checks.ts';
import { CandidateRejected } from '../../generator/records/group-record.ts';
import { ResultMemo } from '../../generator/generate/result-memo.ts';
import { tempDir } from '../helpers/build-fixtures.ts';

// A generation run asks the database a query once: the answers and planner estimates it got
// are kept (the data is read-only for the run), on a real database (PGlite).
const domain = BUILT_IN_DOMAINS['social_media']!;
const index = indexDomain(domain);
let db: Database;
let builds: PreparedBuilds;
const tmp = tempDir('runner-memo');

beforeAll(async () => {
  db = await openDatabase({ kind: 'pglite' });
  builds = await prepareBuilds({
    dataset: 'social_media',
    domain,
    variants: 'full_sti,full_cti,full_normalized',
    scale: 'tiny',
    seed: 1,
    db,
    out: tmp.dir,
  });
}, 120_000);

afterAll(async () => {
  await db?.close();
  tmp.remove();
});

const variant = (name: string) => builds.variants.find((v) => v.name === name)!;
const platforms = select({
  from: entity('Streamer', 's'),
  select: [out('platform', attr('s', 'platform')), out('streamers', count())],
  groupBy: [attr('s', 'platform')],
  orderBy: [asc('platform')],
});
const ctxWith = (runner: QueryRunner): CheckContext => ({
  index,
  variants: builds.variants,
  reference: 'full_normalized',
  runner,
});

describe('the query runner keeps what the database answered', () => {
  it('answers a query asked again in the same schema from memory, the same rows, and asks again in another schema', async () => {
    const runner = createQueryRunner([db], 20_000);
    const v = variant('full_normalized');
    const sql = compileSql(index, v.schema, platforms);
    expect(runner.kept(v.pgSchemas.main, sql)).toBeUndefined();
    const first = await runner.run(v.pgSchemas.main, sql);
    expect(runner.roundTrips()).toBe(1);
    const again = await runner.run(v.pgSchemas.main, compileSql(index, v.schema, platforms));
    expect(runner.roundTrips()).toBe(1);
    expect(runner.remembered()).toBe(1);
    expect(again.rows).toEqual(first.rows);
    expect(first.rows.length).toBeGreaterThan(1);
    expect(runner.kept(v.pgSchemas.main, sql)?.rows).toEqual(first.rows);
    // The edge-case instance holds other rows: the same text there is another question.
    const edge = await runner.run(v.pgSchemas.edge as string, sql);
    expect(runner.roundTrips()).toBe(2);
    expect(edge.rows).not.toEqual(first.rows);
    // Planner estimates likewise.
    const cost = await runner.cost(v.pgSchemas.main, sql);
    expect(await runner.cost(v.pgSchemas.main, sql)).toBe(cost);
    expect(runner.roundTrips()).toBe(3);
  });

  it('asks once for two callers waiting on the same query at the same time', async () => {
    const runner = createQueryRunner([db], 20_000);
    const v = variant('full_sti');
    const sql = compileSql(index, v.schema, platforms);
    const [a, b] = await Promise.all([runner.run(v.pgSchemas.main, sql), runner.run(v.pgSchemas.main, sql)]);
    expect(runner.roundTrips()).toBe(1);
    expect(b.rows).toEqual(a.rows);
  });

  it('does not keep a failure: a query that timed out is asked again', async () => {
    // Content → Tag → Content → Tag → Content: far beyond 100 ms on PGlite.
    const heavy = select({
      from: entity('Content', 'c1'),
      joins: [
        inner('tagged_with', 'c1', 'forward', 't1', 'Tag'),
        inner('tagged_with', 't1', 'reverse', 'c2', 'Content'),
        inner('tagged_with', 'c2', 'forward', 't2', 'Tag'),
        inner('tagged_with', 't2', 'reverse', 'c3', 'Content'),
        inner('tagged_with', 'c3', 'forward', 't3', 'Tag'),
        inner('tagged_with', 't3', 'reverse', 'c4', 'Content'),
      ],
      select: [out('n', count())],
    });
    const runner = createQueryRunner([db], 100);
    const v = variant('full_normalized');
    const sql = compileSql(index, v.schema, heavy);
    for (let i = 1; i <= 2; i++) {
      await expect(runner.run(v.pgSchemas.main, sql)).rejects.toMatchObject({ reason: 'timeout' });
      expect(runner.roundTrips()).toBe(i);
    }
    expect(runner.kept(v.pgSchemas.main, sql)).toBeUndefined();
  }, 60_000);

  it('verifies a query a second time with its batch alone, to the same answer', async () => {
    const runner = createQueryRunner([db], 20_000);
    const g = await verifyGroup(platforms, ctxWith(runner));
    const firstTrips = runner.roundTrips();
    const again = await verifyGroup(platforms, ctxWith(runner));
    // The planner estimate, the reference answer and the order check (the same query: no
    // LIMIT) are answered from memory; the other variants and the edge-case instance are
    // asked again (on PGlite one round trip each).
    expect(again).toEqual(g);
    const batch = builds.variants.length - 1 + builds.variants.length;
    expect(runner.roundTrips() - firstTrips).toBe(batch);
    expect(firstTrips).toBe(2 + batch);
  });

  it('refuses an order the collation decides from the reference answer, sending nothing else', async () => {
    const runner = createQueryRunner([db], 20_000);
    // "a" for the first accounts, "B" for the rest: C puts "B" first, English "a".
    const label: Expr = {
      kind: 'case',
      whens: [{ when: cmp(id('a'), '<', lit(5)), then: lit('a') }],
      else: lit('B'),
    };
    const byName = select({
      from: entity('Account', 'a'),
      select: [out('label', label)],
      orderBy: [asc('label')],
    });
    const error = await verifyGroup(byName, ctxWith(runner)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CandidateRejected);
    expect((error as CandidateRejected).reason).toBe('collation-dependent');
    // The planner estimate and the reference answer: no other variant, no edge-case instance.
    expect(runner.roundTrips()).toBe(2);
    // The same rows ordered by time pass.
    const byTime = select({
      from: entity('Channel', 'ch'),
      select: [out('name', attr('ch', 'name')), out('created_at', attr('ch', 'created_at')), out('id', id('ch'))],
      orderBy: [asc('created_at'), asc('id')],
    });
    expect((await verifyGroup(byTime, ctxWith(runner))).main.row_count).toBeGreaterThan(1);
  });
});

describe('ResultMemo', () => {
  it('holds answers up to its bound of values, dropping the least recently used first', () => {
    const memo = new ResultMemo<string>((s) => s.length, 10);
    memo.set('a', 'xxxx');
    memo.set('b', 'yyyy');
    expect(memo.get('a')).toBe('xxxx'); // a is now the most recent
    memo.set('c', 'zzzz'); // 12 values: b goes
    expect(memo.get('b')).toBeUndefined();
    expect(memo.get('a')).toBe('xxxx');
    expect(memo.get('c')).toBe('zzzz');
    // An answer larger than the bound is not kept, and drops nothing.
    memo.set('d', 'w'.repeat(11));
    expect(memo.get('d')).toBeUndefined();
    expect(memo.get('a')).toBe('xxxx');
  });
});
