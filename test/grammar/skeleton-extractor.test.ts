import { describe, expect, it } from 'vitest';
import { GrammarError } from '../../generator/common/errors.ts';
import { corpusSkeletons, readCorpus } from '../../generator/grammar/corpus-skeletons.ts';
import { rulesOf } from '../../generator/grammar/derivation.ts';
import { deriveQuery, extractSkeleton } from '../../generator/grammar/skeleton-extractor.ts';
import { parseGrammar } from '../../generator/grammar/pcfg.ts';
import { parseSql } from '../../generator/sql/parser-adapter.ts';
import { fixture } from '../sql/corpus-path.ts';

const pairs = fixture('grammar/skeletons.sql')
  .split(/\n\s*\n/u)
  .map((block) => block.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('--')))
  .filter((lines) => lines.length > 0)
  .map((lines) => {
    const [sql, expected] = lines;
    if (!sql || !expected?.startsWith('=> ')) throw new Error(`bad fixture block: ${lines.join(' | ')}`);
    return [sql, expected.slice(3)] as const;
  });

const skeleton = (sql: string): string => extractSkeleton(parseSql(sql, { dialect: 'sqlite', fallback: true })).text;

describe('skeleton extraction', () => {
  it.each(pairs)('%s', (sql, expected) => {
    expect(skeleton(sql)).toBe(expected);
  });

  it('gives queries that differ only in names and literals the same skeleton', () => {
    expect(skeleton("SELECT a FROM t WHERE b = 'x' AND c > 3")).toBe(
      skeleton('SELECT name FROM singer WHERE country = "France" AND age > 40'),
    );
    expect(skeleton('SELECT a FROM t')).not.toBe(skeleton('SELECT DISTINCT a FROM t'));
  });

  it('derives only rules of the default grammar for the fixture queries', () => {
    const known = new Set(parseGrammar(fixture('../../grammars/default.pcfg')).rules.map((r) => r.key));
    for (const [sql] of pairs) {
      const unknown = rulesOf(deriveQuery(parseSql(sql, { dialect: 'sqlite', fallback: true }))).filter(
        (r) => !known.has(r),
      );
      expect(unknown, sql).toEqual([]);
    }
  });

  it.each([
    ['SELECT a FROM t OFFSET 2', /OFFSET without LIMIT/u],
    ['SELECT a FROM t WHERE b IN (SELECT c, d FROM u)', /more than one column/u],
    ['WITH a AS (SELECT 1 FROM t) SELECT x FROM a UNION SELECT y FROM b', /WITH before a set operation/u],
    [
      'SELECT d.x FROM (WITH c AS (SELECT 1 AS x FROM t) SELECT x FROM c) AS d',
      /WITH inside a subquery, a derived table/u,
    ],
    ['SELECT COUNT(DISTINCT (SELECT 1 FROM u)) FROM t', /aggregate argument/u],
  ])('names the construct the grammar lacks: %s', (sql, reason) => {
    const query = parseSql(sql, { dialect: 'postgresql', fallback: true });
    expect(() => extractSkeleton(query)).toThrow(GrammarError);
    expect(() => extractSkeleton(query)).toThrow(reason);
  });

  it('reports each query it cannot read with a reason, and reads the rest', () => {
    const queries = readCorpus('SELECT a FROM t\n\n-- a comment\nSELECT a FROM t OFFSET 5\nSELECT FROM\n');
    expect(queries.map((q) => q.line)).toEqual([1, 4, 5]);
    const result = corpusSkeletons(queries, { dialect: 'sqlite' });
    expect(result).toMatchObject({ total: 3, parsed: 1 });
    expect(result.unparsed.map((u) => [u.line, u.reason])).toEqual([
      [4, expect.stringMatching(/OFFSET without LIMIT/u)],
      [5, expect.stringMatching(/line 1, column/u)],
    ]);
  });
});
