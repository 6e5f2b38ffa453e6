import type { ExprKind } from '../../generator/sql/sql-ast.ts';

/**
 * One query per expression kind of the typed AST. The `Record` makes a kind added to the
 * AST without a query here a type error, so "every node kind has a production" is checked
 * for every kind there is.
 */
export const BY_KIND: Record<ExprKind, string> = {
  column: 'SELECT a FROM t',
  star: 'SELECT * FROM t',
  number: 'SELECT 3 FROM t',
  string: "SELECT 'x' FROM t",
  null: 'SELECT a FROM t WHERE b = NULL',
  boolean: 'SELECT a FROM t WHERE b = TRUE',
  comparison: 'SELECT a FROM t WHERE lower(b) = c',
  arithmetic: 'SELECT a FROM t WHERE (b + c) % 2 = 0',
  logical: 'SELECT CASE WHEN a > 1 OR b < 2 THEN 1 END FROM t',
  not: 'SELECT a FROM t WHERE NOT (b = 1 OR c = 2)',
  negate: 'SELECT -a FROM t',
  like: "SELECT a FROM t WHERE upper(b) ILIKE 'x%'",
  'in-list': 'SELECT a FROM t WHERE b + 1 IN (1, 2)',
  'in-subquery': 'SELECT a FROM t WHERE lower(b) IN (SELECT c FROM u)',
  exists: 'SELECT a FROM t WHERE EXISTS (SELECT 1 FROM u)',
  between: 'SELECT a FROM t WHERE b BETWEEN (SELECT min(c) FROM u) AND 9',
  'is-null': 'SELECT a FROM t WHERE abs(b) IS NULL',
  subquery: 'SELECT (SELECT max(b) FROM u) FROM t',
  aggregate: 'SELECT count(DISTINCT a), avg(a * 2) FROM t',
  function: "SELECT string_agg(a, ',' ORDER BY b) FROM t",
  case: "SELECT CASE a WHEN 1 THEN 'one' ELSE 'other' END FROM t",
  cast: 'SELECT CAST(a AS REAL) / NULLIF(b, 0) FROM t',
  operator: "SELECT a FROM t WHERE b ->> 'k' = 'v'",
  'array-subquery': 'SELECT ARRAY(SELECT b FROM u) FROM t',
  array: 'SELECT ARRAY[a, b] FROM t',
  window: 'SELECT rank() OVER (PARTITION BY a ORDER BY b DESC ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM t',
  filtered: 'SELECT count(*) FILTER (WHERE a > 1) FROM t',
  extract: 'SELECT a FROM t WHERE EXTRACT(YEAR FROM b) = 2012',
  interval: "SELECT a FROM t WHERE b > c - INTERVAL '1 day'",
  clock: 'SELECT a FROM t WHERE b < CURRENT_DATE',
};
