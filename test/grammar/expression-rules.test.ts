import { describe, expect, it } from 'vitest';
import { corpusSkeletons, readCorpus } from '../../generator/grammar/corpus-skeletons.ts';
import { countRules, estimateGrammar } from '../../generator/grammar/pcfg-estimator.ts';
import { extractSkeleton } from '../../generator/grammar/skeleton-extractor.ts';
import { instantiateSkeleton } from '../../generator/grammar/skeleton-instantiator.ts';
import { parseSql } from '../../generator/sql/parser-adapter.ts';
import type { Expr, ExprKind, Query } from '../../generator/sql/sql-ast.ts';
import { BY_KIND } from './expression-kinds.ts';
import { transformQuery } from '../../generator/structure/query-transform.ts';

/** The kinds a query contains, by walking it. */
function kindsOf(query: Query): Set<ExprKind> {
  const kinds = new Set<ExprKind>();
  transformQuery(query, {
    expr: (e: Expr) => {
      kinds.add(e.kind);
      return e;
    },
  });
  return kinds;
}

describe('the grammar read off the AST', () => {
  it.each(Object.entries(BY_KIND))(
    'derives an expression of kind %s, and its skeleton reads back the same',
    (kind, sql) => {
      const query = parseSql(sql, { dialect: 'postgresql' });
      expect(kindsOf(query).has(kind as ExprKind), `${sql} holds no ${kind}`).toBe(true);
      const skeleton = extractSkeleton(query);
      const again = extractSkeleton(parseSql(instantiateSkeleton(skeleton.tokens), { dialect: 'postgresql' }));
      expect(again.text).toBe(skeleton.text);
    },
  );

  it.each([
    ['SELECT a FROM t ORDER BY count(*) >= 5', 'SELECT <column> FROM <table> ORDER BY COUNT ( * ) >= <value:number>'],
    ['SELECT a FROM t1 JOIN t2 ON t1.x > t2.y', 'SELECT <column> FROM <table> JOIN <table> ON <column> > <column>'],
    ['SELECT a FROM t LIMIT 1 OFFSET 2', 'SELECT <column> FROM <table> LIMIT 1 OFFSET <value:number>'],
    ['SELECT a FROM t ORDER BY a DESC NULLS LAST', 'SELECT <column> FROM <table> ORDER BY <column> DESC NULLS LAST'],
    // NOT over IS NULL reads as IS NOT NULL, as NOT over LIKE reads as NOT LIKE.
    ['SELECT a FROM t WHERE NOT b IS NULL', 'SELECT <column> FROM <table> WHERE <column> IS NOT NULL'],
    [
      "SELECT CAST(SUM(CASE WHEN c = 'EUR' THEN 1 ELSE 0 END) AS REAL) / NULLIF(SUM(CASE WHEN c = 'CZK' THEN 1 ELSE 0 END), 0) FROM customers",
      'SELECT CAST ( <agg> ( CASE WHEN <column:text> = <value:text> THEN <value:number> ELSE <value:number> END ) AS <type:numeric> ) / NULLIF ( <agg> ( CASE WHEN <column:text> = <value:text> THEN <value:number> ELSE <value:number> END ) , <value:number> ) FROM <table>',
    ],
    [
      "SELECT name FROM t WHERE EXTRACT(YEAR FROM d) = 2012 AND SUBSTR(x, 1, 4) = '2012'",
      'SELECT <column> FROM <table> WHERE EXTRACT ( YEAR FROM <column> ) = <value:number> AND <fn:text> ( <column> , <value:number> , <value:number> ) = <value:text>',
    ],
    [
      'WITH a AS (SELECT x FROM t) SELECT x, ROW_NUMBER() OVER (PARTITION BY x ORDER BY y DESC) FROM a',
      'WITH <alias> AS ( SELECT <column> FROM <table> ) SELECT <column> , <fn:window> ( ) OVER ( PARTITION BY <column> ORDER BY <column> DESC ) FROM <table>',
    ],
    [
      "SELECT COUNT(*) FILTER (WHERE x > 1), d - INTERVAL '1 day', CURRENT_DATE FROM t",
      'SELECT COUNT ( * ) FILTER ( WHERE <column:numeric> > <value:number> ) , <column:numeric> - INTERVAL <value:interval> , CURRENT_DATE FROM <table>',
    ],
  ])('reads analytic SQL: %s', (sql, expected) => {
    expect(extractSkeleton(parseSql(sql, { dialect: 'postgresql' })).text).toBe(expected);
  });

  it('keeps the Spider-shaped skeleton where the clause rules cover a query', () => {
    // The expression rules write the same text the clause rules would, so which one derived
    // a part never shows in the skeleton.
    expect(
      extractSkeleton(parseSql("SELECT a FROM t WHERE b = 'x' AND c > 3 ORDER BY count(*) DESC LIMIT 1")).text,
    ).toBe(
      'SELECT <column> FROM <table> WHERE <column:text> = <value:text> AND <column:numeric> > <value:number> ORDER BY COUNT ( * ) DESC LIMIT 1',
    );
  });

  it('estimating on a corpus with new constructs adds their rules, with counts, instead of failing', () => {
    const corpus = readCorpus(Object.values(BY_KIND).join('\n'));
    const result = corpusSkeletons(corpus, { dialect: 'postgresql' });
    expect(result.unparsed).toEqual([]);
    const grammar = estimateGrammar(countRules(result.derivations));
    const keys = new Set(grammar.rules.map((r) => r.key));
    for (const rule of [
      'x_atom -> "CAST" "(" x_any_op "AS" <type:numeric> ")"',
      'x_call -> "COUNT" "(" "*" ")"',
      'statement -> query',
    ]) {
      expect(keys.has(rule), rule).toBe(true);
    }
    expect(grammar.rules.find((r) => r.key === 'x_over -> "OVER" "(" x_window_spec ")"')?.count).toBe(1);
  });
});
