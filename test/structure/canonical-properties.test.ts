import { describe, expect, it } from 'vitest';
import { createRng, type Rng } from '../../generator/common/rng.ts';
import { extractSkeleton } from '../../generator/grammar/skeleton-extractor.ts';
import { parseSql } from '../../generator/sql/parser-adapter.ts';
import type { Expr, Query, TableSource } from '../../generator/sql/sql-ast.ts';
import { printSql } from '../../generator/sql/sql-printer.ts';
import { canonicalizeSql } from '../../generator/structure/canonical-structure.ts';
import { transformQuery } from '../../generator/structure/query-transform.ts';
import { spiderQueries } from '../sql/corpus-path.ts';

const parse = (sql: string): Query => parseSql(sql, { dialect: 'sqlite', fallback: true });

function conjuncts(expr: Expr): Expr[] {
  return expr.kind === 'logical' && expr.op === 'and' ? [...conjuncts(expr.left), ...conjuncts(expr.right)] : [expr];
}

/** Every AND-chain's conjuncts in a random order. */
function shuffleConjuncts(query: Query, rng: Rng): Query {
  return transformQuery(query, {
    expr: (e) => {
      if (e.kind !== 'logical' || e.op !== 'and') return e;
      const [first, ...rest] = rng.shuffle(conjuncts(e));
      return rest.reduce<Expr>((left, right) => ({ kind: 'logical', op: 'and', left, right }), first as Expr);
    },
  });
}

/** Every table alias replaced by a fresh random name, references included. */
function renameAliases(query: Query, rng: Rng): Query {
  const names = new Map<string, string>();
  const rename = (alias: string): string => {
    const key = alias.toLowerCase();
    if (!names.has(key)) names.set(key, `a${names.size}_${rng.int(100, 999)}`);
    return names.get(key) as string;
  };
  const source = (s: TableSource): TableSource => (s.alias === null ? s : { ...s, alias: rename(s.alias) });
  // transformQuery works bottom-up, so the aliases are collected in a first pass.
  transformQuery(query, {
    select: (select) => {
      if (select.from) [select.from.first, ...select.from.joins.map((j) => j.source)].forEach(source);
      return select;
    },
  });
  return transformQuery(query, {
    select: (select) => ({
      ...select,
      from: select.from
        ? {
            first: source(select.from.first),
            joins: select.from.joins.map((j) => ({ ...j, source: source(j.source) })),
          }
        : null,
    }),
    expr: (e) =>
      (e.kind === 'column' || e.kind === 'star') && e.table !== null && names.has(e.table.toLowerCase())
        ? { ...e, table: names.get(e.table.toLowerCase()) as string }
        : e,
  });
}

/** Every table, column and literal replaced by another of its kind (LIMIT 1 stays 1). */
function renameContent(query: Query, rng: Rng): Query {
  const word = (): string => `w${rng.int(1000, 9999)}`;
  return transformQuery(query, {
    select: (select) => {
      const table = (s: TableSource): TableSource => (s.kind === 'table' ? { ...s, name: word() } : s);
      return {
        ...select,
        from: select.from
          ? {
              first: table(select.from.first),
              joins: select.from.joins.map((j) => ({ ...j, source: table(j.source) })),
            }
          : null,
        limit:
          select.limit && select.limit.kind === 'number' && select.limit.text !== '1'
            ? { kind: 'number', text: String(rng.int(2, 50)) }
            : select.limit,
      };
    },
    expr: (e) => {
      if (e.kind === 'column') return { ...e, name: word() };
      if (e.kind === 'string') return { kind: 'string', value: word() };
      return e;
    },
  });
}

describe('canonical structure and skeletons on Spider queries with seeded random edits', () => {
  const rng = createRng('canonical-properties');
  const queries = rng.sample(spiderQueries(), 800);

  it('a structure hash survives renamed table aliases and reordered AND-conjuncts', () => {
    const changed: string[] = [];
    for (const sql of queries) {
      const edited = printSql(shuffleConjuncts(renameAliases(parse(sql), rng), rng), { dialect: 'sqlite' });
      const a = canonicalizeSql(sql, { dialect: 'sqlite', fallback: true });
      const b = canonicalizeSql(edited, { dialect: 'sqlite', fallback: true });
      if (a.structureHash !== b.structureHash) changed.push(`${sql}\n  ${edited}`);
    }
    expect(changed.slice(0, 3)).toEqual([]);
  });

  it('a skeleton survives renamed tables and columns and other literals', () => {
    const changed: string[] = [];
    let compared = 0;
    for (const sql of queries) {
      let before: string;
      try {
        before = extractSkeleton(parse(sql)).text;
      } catch {
        continue; // outside the grammar
      }
      compared++;
      const edited = printSql(renameContent(parse(sql), rng), { dialect: 'sqlite' });
      const after = extractSkeleton(parse(edited)).text;
      if (after !== before) changed.push(`${sql}\n  ${edited}`);
    }
    expect(compared).toBeGreaterThan(780);
    expect(changed.slice(0, 3)).toEqual([]);
  });
});
