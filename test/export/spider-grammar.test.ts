// spiderForm: which SQLite gold queries Spider's test-suite evaluator can read, and the form
// it reads them in. Hand-made queries on a small SQLite database: every accepted form returns
// the rows its query returns; every refusal names a construct outside the evaluator's grammar.
// (test/export/evaluators-run.test.ts runs the evaluator's own parser on an export's lines.)
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { spiderForm } from '../../generator/export/formats/spider-grammar.ts';
import { readSpiderSchema } from '../../generator/export/formats/sqlite-files.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import { join } from 'node:path';
import { existsSync, mkdirSync, copyFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const tmp = tempDir('spider-grammar');
afterAll(() => tmp.remove());
const file = join(tmp.dir, 'shop.sqlite');
const db = new Database(file);
db.exec(`
  CREATE TABLE customer (id INTEGER PRIMARY KEY, name TEXT NOT NULL, city TEXT);
  CREATE TABLE purchase (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customer (id), amount NUMERIC, kind TEXT);
  INSERT INTO customer VALUES (1, 'Ada', 'Oslo'), (2, 'Bo', 'Rome'), (3, 'Cy', NULL);
  INSERT INTO purchase VALUES (1, 1, 10, 'book'), (2, 1, 25, 'pen'), (3, 2, 5, 'book'), (4, 2, 5, 'book');
`);
db.close();
const schema = readSpiderSchema(file);
const rows = (sql: string): unknown[][] => {
  const conn = new Database(file, { readonly: true });
  try {
    return conn.prepare(sql).raw().all() as unknown[][];
  } finally {
    conn.close();
  }
};

/** Queries spiderForm reads, and the form it gives. */
const ACCEPTED: [string, string][] = [
  ['SELECT c.name FROM customer AS c', 'SELECT c.name FROM customer AS c'],
  [
    "SELECT count(*) AS purchase_count FROM purchase AS p WHERE p.kind = 'book'",
    "SELECT count(*) FROM purchase AS p WHERE p.kind = 'book'",
  ],
  [
    'SELECT c.name, sum(p.amount) AS total FROM customer AS c JOIN purchase AS p ON p.customer_id = c.id GROUP BY c.name HAVING count(*) >= 2 ORDER BY sum(p.amount) DESC LIMIT 1',
    'SELECT c.name, sum(p.amount) FROM customer AS c JOIN purchase AS p ON p.customer_id = c.id GROUP BY c.name HAVING count(*) >= 2 ORDER BY sum(p.amount) DESC LIMIT 1',
  ],
  [
    'SELECT count(DISTINCT p.kind) AS kinds FROM purchase AS p WHERE p.amount BETWEEN 5 AND 20',
    'SELECT count(DISTINCT p.kind) FROM purchase AS p WHERE p.amount BETWEEN 5 AND 20',
  ],
  [
    "SELECT c.name FROM customer AS c WHERE c.id NOT IN (SELECT p.customer_id FROM purchase AS p WHERE p.kind LIKE '%oo%')",
    "SELECT c.name FROM customer AS c WHERE c.id NOT IN (SELECT p.customer_id FROM purchase AS p WHERE p.kind LIKE '%oo%')",
  ],
  [
    "SELECT c.name FROM customer AS c EXCEPT SELECT c.name FROM customer AS c WHERE c.city = 'Rome'",
    "SELECT c.name FROM customer AS c EXCEPT SELECT c.name FROM customer AS c WHERE c.city = 'Rome'",
  ],
  [
    'SELECT c.name FROM customer AS c ORDER BY c.city DESC NULLS FIRST LIMIT 2',
    'SELECT c.name FROM customer AS c ORDER BY c.city DESC NULLS FIRST LIMIT 2',
  ],
  ['SELECT DISTINCT name FROM customer', 'SELECT DISTINCT name FROM customer'],
];

/** Queries the evaluator's parser stops at (each refused above): one of them in a gold file ends the whole run. */
const STOPS_THE_EVALUATOR: string[] = [
  'SELECT c.name FROM customer AS c JOIN purchase AS p ON p.customer_id = c.id WHERE p.id = c.id OR p.amount BETWEEN 1 AND 5',
  'SELECT c.name FROM customer AS c WHERE c.id IN (SELECT p.customer_id FROM purchase AS p WHERE p.id = p.customer_id OR p.id IN (SELECT c.id FROM customer AS c))',
  "SELECT count(*) FROM purchase AS p WHERE p.kind = 'book' HAVING count(*) > 0",
  'SELECT p.id FROM purchase AS p WHERE p.amount>=5',
  'SELECT p.id FROM purchase AS p WHERE p.amount=5',
  'SELECT p.amount+p.id FROM purchase AS p',
  'SELECT p.cannot FROM purchase AS p',
  'SELECT none FROM purchase',
  'SELECT c.name FROM customer AS c LEFT JOIN purchase AS p ON p.customer_id = c.id',
  "SELECT c.name FROM customer AS c WHERE c.city IN ('Oslo', 'Rome')",
  'SELECT count(*) AS n FROM purchase AS p',
];

describe('spiderForm', () => {
  it('reads the tables and columns of the SQLite file, lower-cased', () => {
    expect([...schema.keys()].sort()).toEqual(['customer', 'purchase']);
    expect([...(schema.get('purchase') ?? [])]).toEqual(['id', 'customer_id', 'amount', 'kind']);
  });

  it('gives a file with a table named like a keyword no schema: the evaluator cannot list it, so it reads no query there', () => {
    const other = join(tmp.dir, 'keyword.sqlite');
    const conn = new Database(other);
    conn.exec('CREATE TABLE purchase (id INTEGER PRIMARY KEY); CREATE TABLE "order" (id INTEGER PRIMARY KEY)');
    conn.close();
    const kept = readSpiderSchema(other);
    expect(kept.size).toBe(0);
    expect(spiderForm('SELECT p.id FROM purchase AS p', kept)).toBeUndefined();
  });

  it.each(ACCEPTED)('reads %s as %s, with the same rows', (sql, form) => {
    expect(spiderForm(sql, schema)).toBe(form);
    expect(rows(form)).toEqual(rows(sql));
  });

  it.each([
    ['a LEFT JOIN', 'SELECT c.name FROM customer AS c LEFT JOIN purchase AS p ON p.customer_id = c.id'],
    ['a comma join', 'SELECT c.name FROM customer AS c, purchase AS p'],
    ['IN with a list of values', "SELECT c.name FROM customer AS c WHERE c.city IN ('Oslo', 'Rome')"],
    ['IS NULL', 'SELECT c.name FROM customer AS c WHERE c.city IS NULL'],
    ['EXISTS', 'SELECT c.name FROM customer AS c WHERE EXISTS (SELECT 1 FROM purchase AS p)'],
    ['a function', 'SELECT round(avg(p.amount), 2) FROM purchase AS p'],
    ['CAST', 'SELECT CAST(p.amount AS REAL) FROM purchase AS p'],
    ['a CASE', "SELECT CASE WHEN p.amount > 5 THEN 'big' END FROM purchase AS p"],
    ['a quote inside a string', "SELECT c.name FROM customer AS c WHERE c.name = 'O''Neil'"],
    ['a double-quoted name', 'SELECT c."name" FROM customer AS c'],
    ['<>', 'SELECT c.name FROM customer AS c WHERE c.id <> 1'],
    [
      'an output name that ORDER BY reads',
      'SELECT count(*) AS n, p.kind FROM purchase AS p GROUP BY p.kind ORDER BY n',
    ],
    ['UNION ALL', 'SELECT c.name FROM customer AS c UNION ALL SELECT c.city FROM customer AS c'],
    ['a derived table', 'SELECT t.n FROM (SELECT count(*) AS n FROM purchase) AS t'],
    ['an alias that is a table name', 'SELECT purchase.name FROM customer AS purchase'],
    [
      'NULLS LAST inside a subquery',
      'SELECT c.name FROM customer AS c WHERE c.id IN (SELECT p.customer_id FROM purchase AS p ORDER BY p.amount NULLS LAST)',
    ],
    [
      'parenthesized conditions',
      "SELECT c.name FROM customer AS c WHERE (c.city = 'Oslo' OR c.city = 'Rome') AND c.id > 1",
    ],
    ['arithmetic with a number', 'SELECT p.amount * 2 FROM purchase AS p'],
    ['a negative number', 'SELECT p.id FROM purchase AS p WHERE p.amount > -1'],
    ['a column the FROM does not open', 'SELECT kind FROM customer'],
    ['OFFSET', 'SELECT c.name FROM customer AS c LIMIT 1 OFFSET 1'],
    ['a second statement', 'SELECT c.name FROM customer AS c; SELECT 1'],
    [
      'OR after a comparison with a column (the evaluator swallows it)',
      'SELECT c.name FROM customer AS c JOIN purchase AS p ON p.customer_id = c.id WHERE p.id = c.id OR p.amount BETWEEN 1 AND 5',
    ],
    [
      'OR after a comparison with a column inside a subquery',
      'SELECT c.name FROM customer AS c WHERE c.id IN (SELECT p.customer_id FROM purchase AS p WHERE p.id = p.customer_id OR p.id IN (SELECT c.id FROM customer AS c))',
    ],
    ['HAVING without GROUP BY', "SELECT count(*) FROM purchase AS p WHERE p.kind = 'book' HAVING count(*) > 0"],
    ['an operator without spaces', 'SELECT p.id FROM purchase AS p WHERE p.amount>=5'],
    ['= without spaces', 'SELECT p.id FROM purchase AS p WHERE p.amount=5'],
    ['arithmetic without spaces', 'SELECT p.amount+p.id FROM purchase AS p'],
    ['a word nltk splits', 'SELECT p.cannot FROM purchase AS p'],
    ['a bare name the grammar reads as an operator', 'SELECT none FROM purchase'],
    ['an alias that is a keyword', 'SELECT in.id FROM purchase AS in'],
    ['a string its exec step rewrites', "SELECT p.id FROM purchase AS p WHERE p.kind = 'a > = b'"],
  ])('refuses %s', (_what, sql) => {
    expect(spiderForm(sql, schema)).toBeUndefined();
  });
});

const PYTHON = process.env['EQUISQL_PYTHON'] || 'python3';
const SPIDER = process.env['EQUISQL_SPIDER_EVAL'];
const spiderMissing = ((): string | undefined => {
  if (!SPIDER)
    return 'set EQUISQL_SPIDER_EVAL to a checkout of test-suite-sql-eval, and EQUISQL_PYTHON to a Python with nltk';
  if (!existsSync(join(SPIDER, 'process_sql.py'))) return `EQUISQL_SPIDER_EVAL=${SPIDER} holds no process_sql.py`;
  const run = spawnSync(PYTHON, ['-c', 'import process_sql\nprocess_sql.tokenize("SELECT a FROM b")'], {
    cwd: SPIDER,
    encoding: 'utf8',
  });
  if (run.error) return `EQUISQL_PYTHON=${PYTHON} does not run (${run.error.message})`;
  return run.status === 0 ? undefined : `EQUISQL_PYTHON=${PYTHON}: ${run.stderr.trim().split('\n').at(-1)}`;
})();

describe.skipIf(spiderMissing !== undefined)(
  `spiderForm against the evaluator's own parser${spiderMissing ? ` (skipped: ${spiderMissing})` : ''}`,
  () => {
    it('every query it accepts, the evaluator reads; the refusals above that the evaluator would stop at, it stops at', () => {
      const root = join(tmp.dir, 'spider-db');
      mkdirSync(join(root, 'shop'), { recursive: true });
      copyFileSync(file, join(root, 'shop', 'shop.sqlite'));
      const accepted = ACCEPTED.map(([sql]) => spiderForm(sql, schema) as string);
      const crashing = STOPS_THE_EVALUATOR;
      const code = [
        'import json, os, sys',
        'from process_sql import get_schema, Schema, get_sql',
        'schema = Schema(get_schema(os.path.join(sys.argv[1], "shop", "shop.sqlite")))',
        'out = []',
        'for sql in json.loads(sys.stdin.read()):',
        '    try:',
        '        get_sql(schema, sql)',
        '        out.append(True)',
        '    except Exception:',
        '        out.append(False)',
        'print(json.dumps(out))',
      ].join('\n');
      const run = spawnSync(PYTHON, ['-c', code, root], {
        cwd: SPIDER,
        encoding: 'utf8',
        input: JSON.stringify([...accepted, ...crashing]),
      });
      expect(run.status, run.stderr).toBe(0);
      const read = JSON.parse(run.stdout) as boolean[];
      expect(read.slice(0, accepted.length)).toEqual(accepted.map(() => true));
      // These the evaluator cannot read at all: what refusing them saves a whole run from.
      expect(read.slice(accepted.length)).toEqual(crashing.map(() => false));
    });
  },
);
