// @tier long
import { beforeAll, describe, expect, it } from 'vitest';
import { oneLineSql } from '../../generator/export/formats/one-line-sql.ts';
import { loadPgParser, parsePostgres } from '../../generator/sql/pg-parser.ts';
import { openPglite } from '../../generator/database/pglite-database.ts';
import { createRng, type Rng } from '../../generator/common/rng.ts';

beforeAll(() => loadPgParser());

/** A parse tree without the byte offsets, which whitespace moves: what PostgreSQL understood. */
function meaning(sql: string): unknown {
  return JSON.parse(JSON.stringify(parsePostgres(sql).stmts.map((s) => s.stmt)), (k, v) =>
    k === 'location' ? undefined : v,
  );
}

describe('one-line SQL on hand-written hostile texts', () => {
  it('puts SQL on one line without changing what PostgreSQL reads or returns: strings, identifiers, comments and dollar quoting across lines', async () => {
    const db = await openPglite();
    try {
      await db.exec(
        'CREATE TABLE "odd\nname" ("two\tparts" text, n integer); INSERT INTO "odd\nname" VALUES (E\'line\\none\', 1), (\'tab\there\', 2), (\'back\\\\slash\', 3);',
      );
      const cases = [
        'SELECT n,\n  "two\tparts"\nFROM "odd\nname"\nORDER BY n',
        'SELECT n FROM "odd\nname" -- the rest of the line goes\nWHERE "two\tparts" = \'line\none\' /* nested /* comment */ still */ ORDER BY n',
        'SELECT n FROM "odd\nname" WHERE "two\tparts" = E\'line\\none\' OR "two\tparts" = E\'tab\\\there\' ORDER BY n',
        'SELECT n FROM "odd\nname" WHERE "two\tparts" IN ($$line\none$$, $q$back\\\\slash$q$, \'it\'\'s\') ORDER BY n',
        'SELECT\tn\r\nFROM "odd\nname"\r\nWHERE "two\tparts" LIKE \'tab\t%\'\n',
        "SELECT E'a\\\nb' AS escaped_break, 'x' || '\u2028' AS sep, n - -1 AS m FROM \"odd\nname\" ORDER BY n",
      ];
      for (const sql of cases) {
        const one = oneLineSql(sql);
        expect(one, sql).not.toMatch(/[\t\n\r\u2028]/u);
        expect(meaning(one), sql).toEqual(meaning(sql));
        expect(await db.queryText(one), sql).toEqual(await db.queryText(sql));
      }
      expect(oneLineSql("SELECT 'a\nb' AS x")).toBe("SELECT E'a\\nb' AS x");
      // Two literals joined across a line break are one string only on several lines.
      expect(() => oneLineSql("SELECT 'a'\n'b'")).toThrow(/continued on the next line at character 12/);
      expect(() => oneLineSql("SELECT 'open")).toThrow(/unterminated string at character 8/);
    } finally {
      await db.close();
    }
  });
});

/** Characters literals and identifiers are drawn from: line breaks of every kind, quotes, backslashes, dollars. */
const POOL = [
  'a',
  'Z',
  ' ',
  ',',
  ';',
  '\n',
  '\t',
  '\r',
  '\r\n',
  '\v',
  '\f',
  '\u2028',
  '\u0085',
  '\u001e',
  '\\',
  '"',
  "'",
  '$',
  'é',
  '{',
  '}',
  '-',
  '/',
  '*',
];
const BREAKS = ['\n', '\t', '\r', '\u2028', '\u0085'];

/** A random run of the pool, `'` doubled (a standard string's body). */
const body = (rng: Rng, n: number, quote: string): string =>
  Array.from({ length: rng.int(n === 0 ? 0 : 1, n) }, () => rng.pick(POOL))
    .join('')
    .replaceAll(quote, quote + quote);

/** One random value expression: every kind of literal the scanner rewrites, or a plain one. */
function randomValue(rng: Rng): string {
  switch (rng.int(0, 4)) {
    case 0:
      return `'${body(rng, 8, "'")}'`;
    case 1: {
      // An escape string: plain characters, raw line breaks, and escapes (a backslash before a line break is that break).
      const parts = ['x', 'é', ' ', ...BREAKS, '\\\\', '\\n', "\\'", "''", '\\\n', '\\\t'];
      return `E'${Array.from({ length: rng.int(0, 8) }, () => rng.pick(parts)).join('')}'`;
    }
    case 2:
      return `$q$${body(rng, 8, '$').replaceAll('$$', '')}$q$`;
    case 3:
      return `${rng.int(0, 99)}.${rng.int(0, 9)}`;
    default:
      return `(${rng.int(1, 9)} - -${rng.int(1, 9)})`;
  }
}

/** Whitespace and comments between tokens, line breaks included. */
const GAPS = [' ', '\n', '\t', '\r\n', '  \n\t', " -- a comment; 'quoted\n", '/* block /* nested */ \n */', '\f', '\v'];

describe('one-line SQL over seeded random statements', () => {
  it('leaves no line break or tab, and PostgreSQL parses the same statement, on 300 statements', () => {
    const rng = createRng('one-line-sql');
    const gap = (): string => rng.pick(GAPS);
    for (let n = 0; n < 300; n++) {
      const columns = Array.from(
        { length: rng.int(1, 4) },
        () => `${randomValue(rng)}${gap()}||${gap()}${randomValue(rng)}${gap()}AS${gap()}"${body(rng, 6, '"') || 'c'}"`,
      );
      const sql = `${gap()}SELECT${gap()}${columns.join(`${gap()},${gap()}`)}${gap()}`;
      const one = oneLineSql(sql);
      expect(one, JSON.stringify(sql)).not.toMatch(/[\t\n\r\v\f\u001c-\u001e\u0085\u2028\u2029]/u);
      expect(meaning(one), JSON.stringify(sql)).toEqual(meaning(sql));
    }
  });
});
