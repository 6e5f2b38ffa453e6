import { describe, expect, it } from 'vitest';
import { createRng } from '../../generator/common/rng.ts';
import { parseSql } from '../../generator/sql/parser-adapter.ts';
import { printSql } from '../../generator/sql/sql-printer.ts';
import { canonicalizeQuery, canonicalizeSql, normalizeSqlText } from '../../generator/structure/canonical-structure.ts';
import { fixture, spiderQueries } from '../sql/corpus-path.ts';

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/** Blocks separated by blank lines; `--` lines are comments. */
function blocks(text: string): string[][] {
  return text
    .split(/\n\s*\n/u)
    .map((block) => block.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('--')))
    .filter((lines) => lines.length > 0);
}

function pairs(name: string): [string, string][] {
  return blocks(fixture(`structure/${name}`)).map((lines) => {
    if (lines.length !== 2) throw new Error(`${name}: a block must hold two queries, got: ${lines.join(' | ')}`);
    return [lines[0] as string, lines[1] as string];
  });
}

const hash = (sql: string): string => canonicalizeSql(sql, { dialect: 'sqlite', fallback: true }).structureHash;
const same = pairs('same.sql');
const different = pairs('different.sql');

describe('canonical structure', () => {
  it('has at least 40 pairs of each kind', () => {
    expect(same.length).toBeGreaterThanOrEqual(40);
    expect(different.length).toBeGreaterThanOrEqual(40);
  });

  it.each(same)('shares a structure hash: %s  ~  %s', (a, b) => {
    expect(hash(a)).toBe(hash(b));
  });

  it.each(different)('has different structure hashes: %s  ≁  %s', (a, b) => {
    expect(hash(a)).not.toBe(hash(b));
  });

  it.each(
    blocks(fixture('structure/canonical.sql')).map((lines) => {
      const [sql, expected] = lines;
      if (!sql || !expected?.startsWith('=> ')) throw new Error(`bad block: ${lines.join(' | ')}`);
      return [sql, expected.slice(3)] as const;
    }),
  )('canonical string of %s', (sql, expected) => {
    expect(canonicalizeSql(sql, { dialect: 'sqlite', fallback: true }).canonical).toBe(expected);
  });

  it('normalizes text: semicolons, blanks, line breaks, case', () => {
    expect(normalizeSqlText('SELECT  a\n FROM\tT ;;  ')).toBe('select a from t');
  });

  it('is idempotent on 2,500 Spider training queries: canonicalizing a canonical string changes nothing', () => {
    const unstable: string[] = [];
    for (const sql of createRng('idempotence').sample(spiderQueries(), 2500)) {
      const once = canonicalizeSql(sql, { dialect: 'sqlite', fallback: true });
      // Lower-casing can turn a keyword-like identifier into something a dialect reads
      // differently, so the canonical string is read back with the same fallback.
      const twice = canonicalizeSql(once.canonical, { dialect: 'sqlite', fallback: true });
      if (twice.canonical !== once.canonical) unstable.push(`${once.canonical}\n  → ${twice.canonical}`);
    }
    expect(unstable.slice(0, 3)).toEqual([]);
  });

  it('does not change the parsed query it is given (every rule builds a new tree)', () => {
    const query = parseSql(
      'SELECT T1.a AS x FROM t AS T1 WHERE NOT T1.d LIKE 1 AND T1.c = 1 AND T1.b = 2 ORDER BY x ASC',
      { dialect: 'sqlite' },
    );
    const before = JSON.stringify(query);
    // Frozen, so a rule that assigns to a node throws instead of passing silently.
    const canonical = canonicalizeQuery(deepFreeze(query));
    expect(JSON.stringify(query)).toBe(before);
    expect(printSql(canonical)).toBe(
      'SELECT t1.a FROM t AS t1 WHERE t1.b = 2 AND t1.c = 1 AND t1.d NOT LIKE 1 ORDER BY t1.a',
    );
  });
});
