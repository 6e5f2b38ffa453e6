import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../generator/common/errors.ts';
import { BUILT_IN_DOMAINS } from '../../generator/domains/index.ts';
import { indexDomain } from '../../generator/er-model/er-index.ts';
import { openDatabase, type Database } from '../../generator/database/database.ts';
import { buildDataset, type BuildManifest } from '../../generator/assemble/build-dataset.ts';
import { buildRelationalSchema } from '../../generator/variants/build-schema.ts';
import { compileQuery } from '../../generator/compile/compile-query.ts';
import { runReadOnly } from '../../generator/execute/run-query.ts';
import type { Expr, Query, SelectQuery } from '../../generator/query/conceptual-query.ts';
import { MAX_QUERY_DEPTH, scopeQuery } from '../../generator/query/query-scope.ts';
import { tempDir } from '../helpers/build-fixtures.ts';

const domain = BUILT_IN_DOMAINS['social_media']!;
const index = indexDomain(domain);

const at = (alias: string, attribute: string): Expr => ({ kind: 'attribute', alias, attribute });
const count: Expr = { kind: 'aggregate', fn: 'count' };
const contents = (alias: string): SelectQuery['from'] => ({ entity: 'Content', alias });

/** The message of the ConfigError `query` is refused with; fails when it is accepted. */
function refusal(query: unknown): string {
  try {
    scopeQuery(index, query as Query);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).not.toContain('\n');
    return (error as Error).message;
  }
  throw new Error('expected the query to be refused');
}

describe('finding 17: ungrouped attributes beside an aggregate', () => {
  it('refuses an attribute selected next to an aggregate without GROUP BY, naming it', () => {
    const query: Query = {
      kind: 'select',
      from: contents('c'),
      select: [
        { name: 'title', expr: at('c', 'title') },
        { name: 'n', expr: count },
      ],
    };
    expect(refusal(query)).toBe(
      'query.select[0].expr: c.title is neither grouped nor inside an aggregate: add it to groupBy, or group by c.id',
    );
  });

  it('refuses an attribute the GROUP BY does not cover, in select, order by, having and a correlated subquery', () => {
    const base: SelectQuery = {
      kind: 'select',
      from: contents('c'),
      groupBy: [at('c', 'duration')],
      select: [
        { name: 'duration', expr: at('c', 'duration') },
        { name: 'n', expr: count },
      ],
    };
    expect(refusal({ ...base, select: [...base.select, { name: 'title', expr: at('c', 'title') }] })).toMatch(
      /^query\.select\[2\]\.expr: c\.title is neither grouped/,
    );
    expect(refusal({ ...base, orderBy: [{ expr: at('c', 'created_at'), direction: 'asc' }] })).toMatch(
      /^query\.orderBy\[0\]\.expr: c\.created_at is neither grouped/,
    );
    expect(
      refusal({
        ...base,
        having: { kind: 'compare', op: '>', left: at('c', 'title'), right: { kind: 'literal', value: 'a' } },
      }),
    ).toMatch(/^query\.having\.left: c\.title is neither grouped/);
    const sub: Expr = {
      kind: 'scalarSubquery',
      query: {
        kind: 'select',
        from: { entity: 'Tag', alias: 't' },
        where: { kind: 'compare', op: '=', left: at('t', 'name'), right: at('c', 'title') },
        select: [{ name: 'k', expr: count }],
      },
    };
    expect(refusal({ ...base, select: [...base.select, { name: 's', expr: sub }] })).toMatch(
      /^query\.select\[2\]\.expr\.query: c\.title is neither grouped/,
    );
  });

  it('accepts what PostgreSQL accepts: grouped expressions, aggregates, and attributes of an alias whose id is grouped', () => {
    const byId: SelectQuery = {
      kind: 'select',
      from: contents('c'),
      groupBy: [at('c', 'id')],
      select: [
        { name: 'title', expr: at('c', 'title') },
        { name: 'n', expr: count },
      ],
      orderBy: [{ expr: at('c', 'created_at'), direction: 'desc' }],
    };
    expect(() => scopeQuery(index, byId)).not.toThrow();
    const byExpr: SelectQuery = {
      kind: 'select',
      from: contents('c'),
      groupBy: [{ kind: 'arithmetic', op: '*', left: at('c', 'duration'), right: { kind: 'literal', value: 2 } }],
      select: [
        {
          name: 'd2',
          expr: { kind: 'arithmetic', op: '*', left: { kind: 'literal', value: 2 }, right: at('c', 'duration') },
        },
      ],
    };
    // Only the very expression grouped is grouped: 2 * duration is not duration * 2.
    expect(refusal(byExpr)).toMatch(/c\.duration is neither grouped/);
    expect(() =>
      scopeQuery(index, {
        ...byExpr,
        select: [
          { name: 'd2', expr: (byExpr.groupBy as Expr[])[0] as Expr },
          { name: 'n', expr: count },
        ],
      }),
    ).not.toThrow();
  });

  describe('on PGlite', () => {
    let db: Database;
    let manifest: BuildManifest;
    const dir = tempDir('group-by');
    beforeAll(async () => {
      db = await openDatabase({ kind: 'pglite' });
      ({ manifest } = await buildDataset({
        dataset: 'g',
        domain,
        variants: 'full_sti,full_cti',
        scale: 'tiny',
        seed: 1,
        profile: 'default',
        target: db,
        out: dir.dir,
      }));
    }, 120_000);
    afterAll(async () => {
      await db.close();
      dir.remove();
    });

    it('runs the accepted grouped-by-id form on every variant, and PostgreSQL refuses the form now rejected', async () => {
      const accepted: SelectQuery = {
        kind: 'select',
        from: contents('c'),
        groupBy: [at('c', 'id')],
        select: [
          { name: 'title', expr: at('c', 'title') },
          { name: 'n', expr: count },
        ],
      };
      expect(manifest.variants.map((v) => v.name)).toEqual(['full_sti', 'full_cti']);
      for (const variant of manifest.variants) {
        const sql = compileQuery(index, buildRelationalSchema(index, variant.spec), accepted);
        const result = await runReadOnly(db, variant.pg_schema, sql);
        expect(result.rows.length, variant.name).toBeGreaterThan(0);
        // The same SQL without its GROUP BY is what the rejected form compiled to; PostgreSQL refuses it.
        const ungrouped = sql.replace(/\s+GROUP BY[\s\S]*$/, '');
        expect(ungrouped).not.toBe(sql);
        await expect(runReadOnly(db, variant.pg_schema, ungrouped), variant.name).rejects.toThrow(
          /must appear in the GROUP BY clause/,
        );
      }
    });
  });
});

describe('messages for malformed queries', () => {
  const left: SelectQuery = {
    kind: 'select',
    from: contents('a'),
    select: [{ name: 'title', expr: at('a', 'title') }],
  };
  const right: SelectQuery = {
    kind: 'select',
    from: contents('b'),
    select: [{ name: 'title', expr: at('b', 'title') }],
  };

  it('refuses a set query whose orderBy is a string or holds null, naming the place and what is allowed', () => {
    expect(refusal({ kind: 'set', op: 'union', left, right, orderBy: 'x' })).toBe(
      'query.orderBy: expected a list of {name, direction}, got "x"',
    );
    expect(refusal({ kind: 'set', op: 'union', left, right, orderBy: [null] })).toBe(
      'query.orderBy[0]: expected {name, direction}, got null',
    );
    expect(refusal({ kind: 'set', op: 'union', left, right, orderBy: [{ name: 'nope', direction: 'asc' }] })).toBe(
      'query.orderBy[0].name: no output column "nope" (outputs: title)',
    );
  });

  it('refuses a query nested 20,000 deep with its depth, not a stack overflow', () => {
    let where: unknown = { kind: 'isNull', expr: at('a', 'title') };
    for (let i = 0; i < 20_000; i++) where = { kind: 'not', arg: where };
    expect(refusal({ ...left, where })).toMatch(
      new RegExp(`^query\\.where\\.arg\\.arg.*…: the query is nested deeper than ${MAX_QUERY_DEPTH} levels$`),
    );
  });

  it('refuses aggregates where PostgreSQL does: in where, in groupBy, nested in another; but not inside a subquery there', () => {
    const n: Expr = { kind: 'aggregate', fn: 'count' };
    const where = { kind: 'compare', op: '>', left: n, right: { kind: 'literal', value: 1 } } as const;
    expect(refusal({ ...left, where })).toBe(
      'query.where.left: an aggregate is not allowed here (only in select, having and orderBy); filter groups with having',
    );
    expect(refusal({ ...left, groupBy: [n], select: [{ name: 'n', expr: n }] })).toBe(
      'query.groupBy[0]: an aggregate is not allowed here (only in select, having and orderBy); filter groups with having',
    );
    const nested: Expr = {
      kind: 'aggregate',
      fn: 'max',
      arg: { kind: 'arithmetic', op: '+', left: n, right: { kind: 'literal', value: 1 } },
    };
    expect(refusal({ ...left, select: [{ name: 'm', expr: nested }] })).toBe(
      'query.select[0].expr.arg.left: an aggregate cannot hold another aggregate',
    );
    const sub: Expr = {
      kind: 'scalarSubquery',
      query: { kind: 'select', from: { entity: 'Tag', alias: 't' }, select: [{ name: 'k', expr: n }] },
    };
    expect(() =>
      scopeQuery(index, {
        ...left,
        where: { kind: 'compare', op: '<', left: sub, right: { kind: 'literal', value: 1000 } },
      }),
    ).not.toThrow();
  });

  it('refuses ordering a distinct query by what it does not select', () => {
    const distinct: SelectQuery = {
      ...left,
      distinct: true,
      orderBy: [{ expr: at('a', 'created_at'), direction: 'asc' }],
    };
    expect(refusal(distinct)).toBe(
      'query.orderBy[0].expr: a distinct query can only be ordered by what it selects: select this expression, or order by an output column',
    );
    expect(() =>
      scopeQuery(index, { ...distinct, orderBy: [{ expr: at('a', 'title'), direction: 'asc' }] }),
    ).not.toThrow();
  });

  it('refuses a limit a double cannot print as digits', () => {
    expect(refusal({ ...left, limit: 1e308 })).toBe(
      'query.limit: expected a non-negative integer up to 2^53 - 1, got 1e+308',
    );
  });

  it('keeps a message on one line when a quoted value holds line breaks', () => {
    expect(refusal({ ...left, select: [{ name: 'title', expr: at('a', 'ti\ntle') }] })).toBe(
      'query.select[0].expr: Content has no attribute "ti\\u000atle"',
    );
  });
});
