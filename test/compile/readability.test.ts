import { describe, expect, it } from 'vitest';
import { READABILITY_CHECKS, readabilityFindings, type ReadabilityCheck } from '../../generator/compile/readability.ts';

const checksOf = (sql: string): ReadabilityCheck[] => [...new Set(readabilityFindings(sql).map((f) => f.check))];

/** For each check: hand-made texts that show it, and the careful version that does not. */
const CASES: Record<ReadabilityCheck, { readonly fires: readonly string[]; readonly clean: readonly string[] }> = {
  'constant-case': {
    fires: [
      "SELECT CASE WHEN TRUE THEN 'Product' WHEN a.id IS NOT NULL THEN 'Apparel' END AS kind\nFROM product AS p",
      'SELECT CASE WHEN FALSE THEN 1 ELSE 2 END AS k\nFROM t AS t',
    ],
    clean: [
      "SELECT 'Product' AS kind\nFROM product AS p",
      "SELECT CASE WHEN p.type = 'x' THEN 'TRUE' END AS k\nFROM product AS p",
    ],
  },
  'unreachable-arm': {
    fires: [
      "SELECT CASE WHEN a.type IN ('creator', 'streamer') THEN 'Creator' WHEN a.type = 'streamer' THEN 'Streamer' END AS kind\nFROM accounts AS a",
      "SELECT CASE WHEN a.x > 1 THEN 'a' WHEN TRUE THEN 'b' WHEN a.y = 2 THEN 'c' END AS k\nFROM t AS a",
    ],
    clean: [
      "SELECT CASE WHEN a.type = 'streamer' THEN 'Streamer' WHEN a.type IN ('creator', 'streamer') THEN 'Creator' END AS kind\nFROM accounts AS a",
    ],
  },
  'unused-left-join': {
    fires: [
      'SELECT p.name\nFROM product AS p\n  LEFT JOIN apparel AS a ON a.id = p.id',
      'SELECT p.name, count(*) AS n\nFROM product AS p\n  LEFT JOIN apparel AS a ON a.id = p.id\nGROUP BY p.id, p.name, a.id',
    ],
    clean: ['SELECT p.name, a.size\nFROM product AS p\n  LEFT JOIN apparel AS a ON a.id = p.id'],
  },
  'single-coalesce': {
    fires: ['SELECT rank() OVER (PARTITION BY coalesce(p.price + 1) ORDER BY p.id) AS r\nFROM product AS p'],
    clean: [
      'SELECT coalesce(p.price, 0) AS price\nFROM product AS p',
      "SELECT coalesce(x(p.a, p.b), 'a, b') AS c\nFROM product AS p",
    ],
  },
  'having-in-derived-table': {
    fires: [
      'SELECT dimensions, count\nFROM (\n    SELECT pp.dimensions, count(*) AS count\n    FROM products AS pp\n    GROUP BY pp.dimensions\n  ) AS t\nWHERE count = 7',
    ],
    clean: [
      'SELECT pp.dimensions, count(*) AS product_count\nFROM products AS pp\nGROUP BY pp.dimensions\nHAVING count(*) = 7',
      // Row-level values computed once and filtered outside: no grouping inside, nothing to move.
      'SELECT name, order_count\nFROM (\n    SELECT c.name, (SELECT count(*) FROM orders AS o WHERE o.customer_id = c.id) AS order_count\n    FROM users AS c\n  ) AS t\nWHERE order_count >= 3',
    ],
  },
  'implied-bound': {
    fires: [
      'SELECT m.name\nFROM products AS m\nWHERE m.quantity >= 53\n  AND m.quantity > 34',
      'SELECT m.name\nFROM products AS m\nWHERE m.quantity >= 138\n  AND m.quantity = 230',
      'SELECT c.name, count(*) AS n\nFROM c AS c\nGROUP BY c.name\nHAVING count(*) >= 5 AND count(*) > 2',
    ],
    clean: [
      'SELECT m.name\nFROM products AS m\nWHERE m.quantity >= 53\n  AND m.quantity < 90',
      'SELECT m.name\nFROM products AS m\nWHERE m.quantity BETWEEN 1 AND 5\n  AND m.price > 3',
    ],
  },
  'implied-not-null': {
    fires: [
      'SELECT o.id\nFROM orders AS o\nWHERE o.customer_id IS NOT NULL\n  AND o.customer_id >= 3',
      'SELECT count(*) AS n\nFROM orders AS o\nWHERE o.c IS NOT NULL AND o.c = 5',
    ],
    clean: [
      'SELECT o.id\nFROM orders AS o\nWHERE o.customer_id IS NOT NULL',
      'SELECT o.id\nFROM orders AS o\nWHERE o.customer_id IS NOT NULL\n  AND (o.customer_id = 3 OR o.total > 5)',
    ],
  },
  'negated-comparison': {
    fires: [
      "SELECT count(*) AS product_count\nFROM products AS p\nWHERE NOT (p.type = 'apparel')",
      'SELECT p.id\nFROM p AS p\nWHERE NOT (p.x IS NULL)',
      'SELECT p.id\nFROM p AS p\nWHERE NOT (p.x IN (1, 2))',
    ],
    clean: [
      "SELECT p.id\nFROM p AS p\nWHERE NOT ('x' = ANY (p.tags))",
      'SELECT p.id\nFROM p AS p\nWHERE NOT (p.a = 1 AND p.b = 2)',
      "SELECT p.id\nFROM p AS p\nWHERE p.type <> 'apparel'",
    ],
  },
  'generic-column-name': {
    fires: [
      'SELECT count(*) AS count\nFROM users AS u',
      'SELECT c.name, sum(o.total) AS sum\nFROM c AS c\nGROUP BY c.name',
      'SELECT count(*) AS count_2\nFROM users AS u',
    ],
    clean: ['SELECT count(*) AS user_count\nFROM users AS u', 'SELECT c.count_of_things\nFROM c AS c'],
  },
  'self-alias': {
    fires: [
      'SELECT t.tag AS tag\nFROM tags AS t',
      'SELECT tag AS tag\nFROM (\n    SELECT t.tag\n    FROM tags AS t\n  ) AS x',
    ],
    clean: [
      'SELECT t.tag\nFROM tags AS t',
      'SELECT CAST(t.date AS date) AS day\nFROM t AS t',
      'SELECT CAST(cm.value::integer AS integer) AS n\nFROM t AS cm',
    ],
  },
  'bracketed-clause': {
    fires: [
      "SELECT p.name\nFROM p AS p\nWHERE (p.format IN ('mp4', 'epub') OR p.rating > 3)",
      'SELECT p.name, count(*) AS n\nFROM p AS p\nGROUP BY p.name\nHAVING (count(*) > 1 OR p.name = 1)',
    ],
    clean: [
      "SELECT p.name\nFROM p AS p\nWHERE p.format IN ('mp4', 'epub') OR p.rating > 3",
      'SELECT p.name\nFROM p AS p\nWHERE (p.a = 1 OR p.b = 2)\n  AND p.c = 3',
      'SELECT p.name\nFROM p AS p\nWHERE (\n    SELECT count(*)\n    FROM o AS o\n  ) > 2',
    ],
  },
};

describe('each readability check', () => {
  it('has hand-made cases', () => {
    expect(Object.keys(CASES).sort()).toEqual([...READABILITY_CHECKS].sort());
  });
  describe.each(READABILITY_CHECKS.map((c) => [c] as const))('%s', (check) => {
    it('fires on the texts that show it', () => {
      for (const sql of CASES[check].fires) expect(checksOf(sql), sql).toContain(check);
    });
    it('stays quiet on the careful versions', () => {
      for (const sql of CASES[check].clean) expect(checksOf(sql), sql).not.toContain(check);
    });
  });
  it('does not read inside string literals', () => {
    expect(readabilityFindings("SELECT p.id\nFROM p AS p\nWHERE p.note = 'CASE WHEN TRUE THEN x AS count'")).toEqual(
      [],
    );
  });
  it('quotes what it found, literals restored', () => {
    expect(readabilityFindings("SELECT CASE WHEN TRUE THEN 'It''s' END AS k\nFROM t AS t")).toEqual([
      { check: 'constant-case', excerpt: "CASE WHEN TRUE THEN 'It''s' END" },
    ]);
  });
});
