import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonRecord } from '../../generator/cli/canon-command.ts';
import { SqlParseError } from '../../generator/common/errors.ts';
import { corpusSkeletons } from '../../generator/grammar/corpus-skeletons.ts';
import { parseSql } from '../../generator/sql/parser-adapter.ts';
import type { Query } from '../../generator/sql/sql-ast.ts';
import { MAX_SQL_DEPTH, MAX_SQL_LENGTH, MAX_SQL_TOKENS } from '../../generator/sql/sql-scanner.ts';

/** The 1.1 MB SELECT that used to exhaust V8's heap; generated, never committed. */
function wideSelect(columns: number): string {
  return `SELECT ${Array.from({ length: columns }, (_, i) => `column_${i}`).join(', ')} FROM t`;
}

function where(query: Query): unknown {
  return query.kind === 'select' ? query.where : undefined;
}

describe('finding 12: size limits per query', () => {
  it('refuses a 110,000-column SELECT as that query only, with the limit named', () => {
    const sql = wideSelect(110_000);
    expect(sql.length).toBeGreaterThan(1_000_000);
    expect(() => parseSql(sql, { dialect: 'sqlite', fallback: true })).toThrow(
      new RegExp(`query too long: ${sql.length} characters \\(at most ${MAX_SQL_LENGTH}\\)`, 'u'),
    );
  });

  it('refuses too many tokens and too deep nesting before the parser sees them', () => {
    expect(() => parseSql(`SELECT ${Array.from({ length: MAX_SQL_TOKENS }, () => '1').join('+')} FROM t`)).toThrow(
      /query too large: more than 10000 tokens at line 1, column \d+/u,
    );
    const deep = `SELECT ${'('.repeat(MAX_SQL_DEPTH + 1)}1${')'.repeat(MAX_SQL_DEPTH + 1)} FROM t`;
    expect(() => parseSql(deep)).toThrow(/query nested too deeply: more than 100 parentheses at line 1, column 108/u);
    // At the limit the query is read, canonicalized and given a skeleton without trouble.
    const atLimit = canonRecord(
      `SELECT ${'('.repeat(MAX_SQL_DEPTH)}1${')'.repeat(MAX_SQL_DEPTH)} FROM t`,
      'sqlite',
      true,
    );
    expect(atLimit).toMatchObject({ canonical: 'select 1 from t' });
  });

  it("reports a chain of operators too deep for the tree walks as that line's error", () => {
    const chain = `SELECT ${Array.from({ length: 4_900 }, () => '1').join(' + ')} FROM t`;
    expect(() => parseSql(chain, { dialect: 'sqlite' })).toThrow(SqlParseError);
    expect(canonRecord(chain, 'sqlite', false)).toEqual({ error: expect.stringMatching(/nested too deeply/u) });
  });

  it('canon and estimate go on after a huge line', () => {
    const lines = ['SELECT a FROM t', wideSelect(110_000), 'SELECT b FROM u WHERE c = 1'];
    const records = lines.map((sql) => canonRecord(sql, 'sqlite', true));
    expect(records.map((r) => Object.keys(r)[0])).toEqual(['canonical', 'error', 'canonical']);
    const result = corpusSkeletons(lines.map((sql, i) => ({ line: i + 1, sql })));
    expect(result.parsed).toBe(2);
    expect(result.unparsed.map((u) => [u.line, u.reason])).toEqual([[2, expect.stringMatching(/^query too long/u)]]);
  });
});

describe('finding 14: quotes read as the engines read them', () => {
  let db: PGlite;
  beforeAll(async () => {
    db = await PGlite.create();
    await db.exec(`CREATE TABLE t (a text, "a""b" int); INSERT INTO t VALUES ('x', 1), ('y', 2);`);
  });
  afterAll(async () => {
    await db.close();
  });

  const injection = `SELECT * FROM t WHERE a = 'x\\' OR 1=1 --'`;

  it('PostgreSQL ends a standard string at the second quote: OR 1=1 is a condition', async () => {
    // The meaning, on a real PostgreSQL: every row comes back, so OR 1=1 is live.
    const rows = (await db.query(injection)).rows;
    expect(rows).toHaveLength(2);
    for (const dialect of ['postgresql', 'sqlite'] as const) {
      const w = where(parseSql(injection, { dialect }));
      expect(w).toMatchObject({
        kind: 'logical',
        op: 'or',
        left: { kind: 'comparison', right: { kind: 'string', value: 'x\\' } },
        right: { kind: 'comparison', left: { kind: 'number', text: '1' } },
      });
      expect(canonRecord(injection, dialect, false)['canonical']).toBe("select * from t where a = 'x\\' or 1 = 1");
    }
  });

  it('keeps backslashes and doubled quotes in standard strings as written; refuses E strings rather than misread them', async () => {
    const [value] = (await db.query<{ v: string }>(String.raw`SELECT 'it''s \n' AS v`)).rows.map((r) => r.v);
    expect(value).toBe(String.raw`it's \n`);
    const w = where(
      parseSql(String.raw`SELECT a FROM t WHERE a <> 'it''s \n' AND a <> 'y'`, { dialect: 'postgresql' }),
    );
    expect(w).toMatchObject({
      left: { right: { kind: 'string', value } },
      right: { right: { kind: 'string', value: 'y' } },
    });
    // E'it\'s' is one string to PostgreSQL; the scanner does not end it early, the adapter refuses it whole.
    expect(() => parseSql(String.raw`SELECT a FROM t WHERE a <> E'it\'s' OR 1=1`, { dialect: 'postgresql' })).toThrow(
      /unsupported expression "default"/u,
    );
  });

  it('ends a -- comment where PostgreSQL does, at a line feed or a carriage return: what follows is code', () => {
    for (const end of ['\n', '\r']) {
      const q = parseSql(`SELECT --${end}'a\\' AS x FROM t`, { dialect: 'postgresql' });
      expect(q.kind === 'select' ? q.columns[0] : undefined, JSON.stringify(end)).toEqual({
        expr: { kind: 'string', value: 'a\\' },
        alias: 'x',
      });
    }
  });

  it('reads "a""b" as the identifier a"b in PostgreSQL', async () => {
    const rows = (await db.query<Record<string, number>>('SELECT "a""b" FROM t ORDER BY 1')).rows;
    expect(Object.keys(rows[0] ?? {})).toEqual(['a"b']);
    const query = parseSql('SELECT "a""b" FROM t', { dialect: 'postgresql' });
    expect(query.kind === 'select' ? query.columns : null).toEqual([
      { expr: { kind: 'column', table: null, name: 'a"b' }, alias: null },
    ]);
    expect(canonRecord('SELECT "a""b" FROM t', 'postgresql', false)['canonical']).toBe('select "a""b" from t');
  });

  it('in SQLite, "x" is a column where SQLite would find one and a string where a value is compared', () => {
    const query = parseSql('SELECT "name" FROM singer WHERE "country" = "France" GROUP BY "name"', {
      dialect: 'sqlite',
    });
    expect(query).toMatchObject({
      columns: [{ expr: { kind: 'column', name: 'name' } }],
      where: {
        kind: 'comparison',
        left: { kind: 'column', name: 'country' },
        right: { kind: 'string', value: 'France' },
      },
      groupBy: [{ kind: 'column', name: 'name' }],
    });
    // Spider's usage stays a string: LIKE patterns and IN lists.
    expect(
      where(parseSql('SELECT a FROM t WHERE b LIKE "%x%" AND c IN ("p", "q")', { dialect: 'sqlite' })),
    ).toMatchObject({
      left: { pattern: { kind: 'string', value: '%x%' } },
      right: {
        values: [
          { kind: 'string', value: 'p' },
          { kind: 'string', value: 'q' },
        ],
      },
    });
  });
});
