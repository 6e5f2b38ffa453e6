import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { BUILT_IN_DOMAINS } from '../../generator/domains/index.ts';
import { indexDomain } from '../../generator/er-model/er-index.ts';
import { allPresets } from '../../generator/variants/variant-presets.ts';
import { buildRelationalSchema } from '../../generator/variants/build-schema.ts';
import { SUITES } from '../../generator/suites/index.ts';
import { REPO_ROOT } from '../helpers/run-cli.ts';
import { readabilityFindings } from '../../generator/compile/readability.ts';
import { findImpliedNotNull, findLongAliases, findNeedlessJoins, findRepeatedExpressions } from './gold-readability.ts';

/**
 * The committed compiled paper suite (both domains, every variant) reads as an engineer's
 * SQL: the checks themselves are in gold-readability.ts, and the fixture directory can be
 * swapped (EQUISQL_GOLD_FIXTURES=dir) to show that they reject an older compiler's output.
 */
const FIXTURES = process.env['EQUISQL_GOLD_FIXTURES'] ?? join(REPO_ROOT, 'test/fixtures/compiled');
const DOMAIN_NAMES = Object.keys(SUITES['paper']!.domains);

const cases = DOMAIN_NAMES.flatMap((domainName) => {
  const index = indexDomain(BUILT_IN_DOMAINS[domainName]!);
  return allPresets(index).map((variant) => {
    const schema = buildRelationalSchema(index, variant);
    const linkTables = new Map(
      schema.tables
        .filter((t) => t.role.kind === 'relationship')
        .map((t) => [t.name, new Map(t.foreignKeys.map((fk) => [fk.columns[0] as string, fk.table]))]),
    );
    const dir = join(FIXTURES, domainName, variant.name);
    const files = readdirSync(dir)
      .filter((f) => f.endsWith('.sql'))
      .sort();
    return {
      label: `${domainName}/${variant.name}`,
      linkTables,
      queries: files.map((f) => ({ name: f, sql: readFileSync(join(dir, f), 'utf8') })),
    };
  });
});

describe('the checks recognise the patterns they look for', () => {
  it('an IS NOT NULL beside a comparison of the same column', () => {
    expect(findImpliedNotNull('SELECT 1 FROM o WHERE o.c IS NOT NULL\n  AND o.c = x.id')).toEqual(['o.c']);
    expect(findImpliedNotNull('SELECT 1 FROM o WHERE o.c IS NOT NULL')).toEqual([]);
    expect(findImpliedNotNull('SELECT CASE WHEN o.c IS NOT NULL THEN 1 END FROM o WHERE o.c = 2')).toEqual([]);
  });
  it('aliases over six characters or with _link', () => {
    expect(findLongAliases('SELECT 1 FROM a AS ch_link JOIN b AS e_product ON TRUE JOIN c AS ok ON TRUE')).toEqual([
      'ch_link',
      'e_product',
    ]);
    expect(findLongAliases('SELECT (\n  SELECT 1\n) AS a_long_output_name\nFROM t AS t')).toEqual([]);
    expect(findLongAliases('SELECT 1\nFROM (\n    SELECT 1\n  ) AS derived_t\nWHERE TRUE')).toEqual(['derived_t']);
    expect(findLongAliases('SELECT v.value FROM t CROSS JOIN unnest(t.xs) AS values_x(value)')).toEqual(['values_x']);
  });
  it('a subquery written twice under other aliases, and an aggregate call written twice', () => {
    const sql =
      'SELECT (SELECT count(*) FROM o AS o2 WHERE o2.c = c.id) AS n FROM c WHERE (SELECT count(*) FROM o AS o1 WHERE o1.c = c.id) >= 3';
    expect(findRepeatedExpressions(sql)).toHaveLength(1);
    expect(
      findRepeatedExpressions('SELECT count(DISTINCT s.id) AS n FROM t ORDER BY count(DISTINCT s.id) + 1'),
    ).toEqual(['count(DISTINCT s.id)']);
    expect(findRepeatedExpressions('SELECT count(*) AS n, count(*) AS m FROM t')).toEqual([]);
  });
  it('a join to a table used only to reach a link table', () => {
    const sql =
      'SELECT count(*)\nFROM orders AS o\n  JOIN employee_processes AS ep ON ep.cust_order_id = o.id\nWHERE ep.employee_id = 1';
    const links = new Map([
      [
        'employee_processes',
        new Map([
          ['cust_order_id', 'orders'],
          ['employee_id', 'employees'],
        ]),
      ],
    ]);
    expect(findNeedlessJoins(sql, links)).toEqual(['o']);
    expect(findNeedlessJoins(sql.replace('count(*)', 'o.total'), links)).toEqual([]);
    // A subclass's table filters the link rows; a LEFT join keeps the rows without one.
    expect(findNeedlessJoins(sql.replace('orders AS o', 'big_orders AS o'), links)).toEqual([]);
    expect(
      findNeedlessJoins(sql.replace('  JOIN employee_processes', '  LEFT JOIN employee_processes'), links),
    ).toEqual([]);
  });
});

describe.each(cases)('the committed compiled SQL of $label', ({ queries, linkTables }) => {
  it('has no IS NOT NULL that a comparison of the same column implies', () => {
    for (const q of queries) expect(findImpliedNotNull(q.sql), `${q.name}\n${q.sql}`).toEqual([]);
  });
  it('names tables with aliases of at most six characters and no _link', () => {
    for (const q of queries) expect(findLongAliases(q.sql), `${q.name}\n${q.sql}`).toEqual([]);
  });
  it('computes each subquery and aggregate once', () => {
    for (const q of queries) expect(findRepeatedExpressions(q.sql), `${q.name}\n${q.sql}`).toEqual([]);
  });
  it('passes every readability check of compile/readability.ts', () => {
    for (const q of queries) expect(readabilityFindings(q.sql), `${q.name}\n${q.sql}`).toEqual([]);
  });
  it('joins no table that only leads to a link table', () => {
    for (const q of queries) expect(findNeedlessJoins(q.sql, linkTables), `${q.name}\n${q.sql}`).toEqual([]);
  });
});
