// @tier long
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { describe, expect, it } from 'vitest';
import { createRng } from '../../generator/common/rng.ts';
import { rulesOf } from '../../generator/grammar/derivation.ts';
import { sampleSkeletons } from '../../generator/grammar/pcfg-sampler.ts';
import { parseGrammar } from '../../generator/grammar/pcfg.ts';
import { extractSkeleton } from '../../generator/grammar/skeleton-extractor.ts';
import { instantiateSkeleton } from '../../generator/grammar/skeleton-instantiator.ts';
import { parseSql } from '../../generator/sql/parser-adapter.ts';
import { repoRoot } from '../sql/corpus-path.ts';
import { BY_KIND } from './expression-kinds.ts';

/**
 * Samples drawn from the mixed analytic grammar: 2,000 in every run, 10,000 (the figure the
 * grammar is held to) with EQUISQL_ROUND_TRIP_SAMPLES=10000.
 */
const MIX_SAMPLES = Number(process.env['EQUISQL_ROUND_TRIP_SAMPLES'] ?? 2000);

/**
 * Samples skeletons, prints each as SQL, parses it back with the adapter (PostgreSQL, the
 * dialect equisql compiles to) and extracts its skeleton again. Returns the failures and
 * the rules the samples used.
 */
function roundTrip(path: string, n: number, seed: string): { failures: string[]; unused: string[]; sql: string[] } {
  const grammar = parseGrammar(readFileSync(resolve(repoRoot, path), 'utf8'), path);
  const { samples } = sampleSkeletons(grammar, { n, seed, tail: 0.1 });
  expect(samples).toHaveLength(n);
  const failures: string[] = [];
  const printed: string[] = [];
  for (const sample of samples) {
    const sql = instantiateSkeleton(sample.tokens);
    printed.push(sql);
    try {
      const back = extractSkeleton(parseSql(sql, { dialect: 'postgresql' })).text;
      if (back !== sample.skeleton) failures.push(`${sample.skeleton}\n  came back as ${back}`);
    } catch (error) {
      failures.push(`${sql}\n  ${(error as Error).message}`);
    }
  }
  const used = new Set(samples.flatMap((s) => rulesOf(s.derivation)));
  return { failures, unused: grammar.rules.filter((r) => !used.has(r.key)).map((r) => r.key), sql: printed };
}

describe('round trip of sampled skeletons', () => {
  let printedSql: string[] = [];

  it('every one of 10,000 skeletons sampled from grammars/spider.pcfg prints as SQL that parses back into the same skeleton', () => {
    const { failures, unused, sql } = roundTrip('grammars/spider.pcfg', 10_000, 'round-trip');
    expect(failures.slice(0, 3)).toEqual([]);
    // The samples exercise every rule, the smoothed-in rare ones included.
    expect(unused).toEqual([]);
    printedSql = sql;
  });

  let mixSql: string[] = [];

  it(`every one of ${MIX_SAMPLES.toLocaleString('en-US')} skeletons sampled from grammars/analytic-mix.pcfg (CASE, CAST, windows, WITH, …) prints as SQL that parses back into the same skeleton`, () => {
    const { failures, sql } = roundTrip('grammars/analytic-mix.pcfg', MIX_SAMPLES, 'round-trip/mix');
    expect(failures.slice(0, 3)).toEqual([]);
    mixSql = sql;
  }, 600_000);

  it(`the printed SQL of 500 Spider samples, ${process.env['EQUISQL_ROUND_TRIP_SAMPLES'] ? `all ${MIX_SAMPLES.toLocaleString('en-US')}` : '500'} analytic samples and one query per AST node kind is valid PostgreSQL syntax`, async () => {
    // No tables exist, so PostgreSQL parses each statement and then stops at the first
    // unknown table or column; only a syntax error (42601) means the printer or the
    // grammar wrote something PostgreSQL cannot read.
    const byKind = Object.values(BY_KIND).map((q) =>
      instantiateSkeleton(extractSkeleton(parseSql(q, { dialect: 'postgresql' })).tokens),
    );
    const db = await PGlite.create();
    try {
      const syntaxErrors: string[] = [];
      const rng = createRng('round-trip/postgresql');
      // With EQUISQL_ROUND_TRIP_SAMPLES set (the acceptance run), every analytic sample.
      const mix = process.env['EQUISQL_ROUND_TRIP_SAMPLES'] ? mixSql : rng.sample(mixSql, 500);
      for (const sql of [...rng.sample(printedSql, 500), ...mix, ...byKind]) {
        try {
          await db.query(`EXPLAIN ${sql}`);
        } catch (error) {
          const code = (error as { code?: string }).code;
          if (code === '42601' || code === undefined)
            syntaxErrors.push(`${code ?? 'no code'} ${(error as Error).message}: ${sql}`);
        }
      }
      expect(syntaxErrors.slice(0, 3)).toEqual([]);
    } finally {
      await db.close();
    }
  }, 1_800_000);
});
