import { expect } from 'vitest';
import { join } from 'node:path';
import { BUILT_IN_DOMAINS } from '../../generator/domains/index.ts';
import { indexDomain } from '../../generator/er-model/er-index.ts';
import type { Database } from '../../generator/database/database.ts';
import { buildDataset, type BuildManifest } from '../../generator/assemble/build-dataset.ts';
import { buildRelationalSchema } from '../../generator/variants/build-schema.ts';
import { compileQuery } from '../../generator/compile/compile-query.ts';
import {
  compareResults,
  normalizeResult,
  runReadOnly,
  type NormalizedResult,
} from '../../generator/execute/run-query.ts';
import { isOrdered } from '../../generator/query/conceptual-query.ts';
import { constructsOf } from './construct-coverage.ts';

export { constructsOf, REQUIRED_CONSTRUCTS } from './construct-coverage.ts';
import { randomQuery } from '../../generator/query/random-query.ts';
import { parseSql } from '../../generator/sql/parser-adapter.ts';
import { generateInstance } from '../../generator/instance/generate-instance.ts';
import { createRng } from '../../generator/common/rng.ts';
import { INSTANCES } from '../helpers/build-fixtures.ts';
import type { Domain } from '../../generator/er-model/er-model.ts';
import { sized } from '../helpers/tiers.ts';

/**
 * Queries per run, split evenly over the two reference domains: 680 (the fewest whose retail
 * half draws every required construct), 1,000 in the acceptance tier.
 */
export const PROPERTY_QUERIES = sized('EQUISQL_PROPERTY_QUERIES', 680, 1000);

interface Built {
  readonly manifest: BuildManifest;
  readonly label: string;
}

/**
 * Draws `count` random conceptual queries for a domain, compiles each for every preset,
 * runs it on three instances (two ordinary, one rich in edge cases) and fails on the first
 * query whose variants disagree or fail, with the query's JSON, the variants that differ,
 * and their SQL.
 */
export async function checkRandomQueries(
  db: Database,
  domainName: string,
  count: number,
  outDir: string,
  options: { domain?: Domain; variants?: string } = {},
): Promise<Set<string>> {
  const domain = options.domain ?? BUILT_IN_DOMAINS[domainName];
  if (!domain) throw new Error(`no domain ${domainName}`);
  const index = indexDomain(domain);
  const builds: Built[] = [];
  for (const { seed, profile } of INSTANCES) {
    const label = `${domainName}_${seed}_${profile}`;
    const built = await buildDataset({
      dataset: domainName,
      domain,
      variants: options.variants ?? 'all',
      scale: 'tiny',
      seed,
      profile,
      target: db,
      out: join(outDir, label),
      schemaPrefix: `${label}_`,
    });
    builds.push({ manifest: built.manifest, label });
  }
  // Random variants differ with the seed, so each build compiles for its own variants.
  const schemaCache = new Map<string, ReturnType<typeof buildRelationalSchema>>();
  const schemaOf = (spec: BuildManifest['variants'][number]['spec']) => {
    const key = JSON.stringify(spec);
    let schema = schemaCache.get(key);
    if (!schema) schemaCache.set(key, (schema = buildRelationalSchema(index, spec)));
    return schema;
  };
  const literals = generateInstance(domain, {
    seed: INSTANCES[0]?.seed ?? 1,
    scale: 'tiny',
    profile: INSTANCES[0]?.profile ?? 'default',
  });
  const rng = createRng(`property/${domainName}`);
  const covered = new Set<string>();
  for (let i = 0; i < count; i++) {
    const query = randomQuery(index, literals, rng.fork(String(i)));
    for (const c of constructsOf(query)) covered.add(c);
    for (const build of builds) {
      const sql = new Map<string, string>();
      const results = new Map<string, NormalizedResult>();
      for (const v of build.manifest.variants) {
        let text: string;
        try {
          text = compileQuery(index, schemaOf(v.spec), query);
        } catch (error) {
          throw new Error(
            `query ${i} does not compile for ${v.name}: ${(error as Error).message}\n${JSON.stringify(query)}`,
          );
        }
        sql.set(v.name, text);
        // Every fourth query's SQL (first instance) also goes through our parser adapter.
        if (i % 4 === 0 && build === builds[0]) {
          try {
            parseSql(text, { dialect: 'postgresql' });
          } catch (error) {
            throw new Error(
              `query ${i} for ${v.name} compiles to SQL our adapter cannot read: ${(error as Error).message}\n${text}`,
            );
          }
        }
        try {
          results.set(v.name, normalizeResult(await runReadOnly(db, v.pg_schema, text), isOrdered(query)));
        } catch (error) {
          throw new Error(
            `query ${i} fails on ${v.name} (${build.label}): ${(error as Error).message}\n${JSON.stringify(query)}\n${text}`,
          );
        }
      }
      const comparison = compareResults(results);
      if (!comparison.agree) {
        const detail = comparison.differing
          .map(
            (d) =>
              `--- ${d.variant} (${d.rowCount} rows vs ${comparison.rowCount}): ${d.sample.join(' ')}\n${sql.get(d.variant)}`,
          )
          .join('\n');
        const reference = [...results].find(([, r]) => r.hash === comparison.hash)?.[0] as string;
        expect.fail(
          `query ${i} disagrees on ${build.label}\n${JSON.stringify(query)}\n--- ${reference} (majority)\n${sql.get(reference)}\n${detail}`,
        );
      }
    }
  }
  return covered;
}
