import { describe, expect, it } from 'vitest';
import { BUILT_IN_DOMAINS } from '../../generator/domains/index.ts';
import { indexDomain } from '../../generator/er-model/er-index.ts';
import { buildRelationalSchema } from '../../generator/variants/build-schema.ts';
import { presetVariant } from '../../generator/variants/variant-presets.ts';
import { compileQuery } from '../../generator/compile/compile-query.ts';
import { rememberCompiled, wasCompiled } from '../../generator/compile/compiled-texts.ts';
import { guardQuery } from '../../generator/execute/query-guard.ts';

// The guard skips its parse for a text the compiler printed, and only for such a text; the
// lexer's reading still holds every text to the list of functions.

describe('texts the compiler printed', () => {
  it('are remembered by compileQuery, byte for byte', () => {
    const index = indexDomain(BUILT_IN_DOMAINS['retail']!);
    const schema = buildRelationalSchema(index, presetVariant(index, 'full_normalized'));
    const sql = compileQuery(index, schema, {
      kind: 'select',
      from: { entity: 'Product', alias: 'p' },
      select: [{ name: 'n', expr: { kind: 'aggregate', fn: 'count' } }],
    });
    expect(wasCompiled(sql)).toBe(true);
    expect(wasCompiled(`${sql} `)).toBe(false);
  });

  it('skip the parse: a form the parser cannot read passes once the compiler printed it', () => {
    // node-sql-parser cannot read `position(… IN …)`, which PostgreSQL runs.
    const sql = "SELECT position('a' IN name) AS at FROM customer AS c";
    expect(() => guardQuery(sql, 'v1')).toThrow(/refused: postgresql/);
    rememberCompiled(sql);
    expect(() => guardQuery(sql, 'v1')).not.toThrow();
  });

  it('are still read by the lexer: a call off the list is refused', () => {
    const sql = "SELECT pg_read_file('/etc/passwd') AS f FROM customer AS c";
    rememberCompiled(sql);
    expect(() => guardQuery(sql, 'v1')).toThrow(/function pg_read_file at character 8 is not on the list/);
    const two = 'SELECT 1 AS a FROM customer AS c; SELECT 2';
    rememberCompiled(two);
    expect(() => guardQuery(two, 'v1')).toThrow(/several statements/);
  });

  it('are the only texts that skip it: the same catalog read, never printed, is refused by the parse', () => {
    expect(() => guardQuery('SELECT count(*) AS n FROM pg_catalog.pg_authid AS a', 'v1')).toThrow(/only its variant's tables/);
  });
});
