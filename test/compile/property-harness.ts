import { expect } from 'vitest';
import { join } from 'node:path';
import { BUILT_IN_DOMAINS } from '../../generator/domains/index.ts';
import { indexDomain } from '../../generator/er-model/er-index.ts';
import type { Database } from '../../generator/database/database.ts';
import { buildDataset, type BuildManifest } from '../../generator/assemble/build-dataset.ts';
import { buildRelationalSchema } from '../../generator/variants/build-schema.ts';
import { compileQuery } from '../../generator/compile/compile-query.ts';
import { compareResults, normalizeResult, runReadOnly, type NormalizedResult } from '../../generator/execute/run-query.ts';
import { isOrdered, type Query } from '../../generator/query/conceptual-query.ts';
import { randomQuery } from '../../generator/query/random-query.ts';
import { parseSql } from '../../generator/sql/parser-adapter.ts';
import { generateInstance } from '../../generator/instance/generate-instance.ts';
import { createRng } from '../../generator/common/rng.ts';
import { INSTANCES } from '../helpers/build-fixtures.ts';
import type { Domain } from '../../generator/er-model/er-model.ts';

/** Queries per CI run, split evenly over the two reference domains. */
export const PROPERTY_QUERIES = Number(process.env['EQUISQL_PROPERTY_QUERIES'] ?? 1000);

/** The constructs a query uses, by name, for the coverage check. */
export function constructsOf(query: Query): Set<string> {
  const found = new Set<string>();
  const walk = (node: unknown, parent?: string): void => {
    if (Array.isArray(node)) {
      node.forEach((n) => walk(n, parent));
      return;
    }
    if (!node || typeof node !== 'object') return;
    const n = node as Record<string, unknown>;
    const kind = n['kind'] as string | undefined;
    if (kind === 'relationship') found.add(`join:${n['type']}:${n['direction']}`);
    else if (kind === 'elements') found.add(`elements:${n['type']}`);
    else if (kind === 'like') found.add(n['caseInsensitive'] ? 'ilike' : 'like');
    else if (kind === 'exists') found.add(n['negated'] ? 'not exists' : 'exists');
    else if (kind === 'aggregate') {
      found.add(`aggregate:${n['fn']}${n['distinct'] ? ' distinct' : ''}${n['arg'] ? '' : ' *'}`);
      if (n['filter']) found.add('aggregate filter');
      if (n['fn'] === 'sum' && (n['arg'] as { kind?: string } | undefined)?.kind === 'case') found.add('sum of case');
    } else if (kind === 'cast') found.add(`cast:${n['to']}`);
    else if (kind === 'textFunction') found.add(`textFunction:${n['fn']}`);
    else if (kind === 'ratio') found.add(n['percent'] ? 'percentage' : 'ratio');
    else if (kind === 'arithmetic' && n['op'] === '||') found.add('concat');
    else if (kind === 'set') found.add(`set:${n['op']}`);
    else if (kind === 'select') {
      const q = n as unknown as { distinct?: boolean; groupBy?: unknown[]; having?: unknown; orderBy?: unknown[]; limit?: number; joins?: { kind: string; relationship?: string }[] };
      if (q.distinct) found.add('distinct');
      for (const o of (q.orderBy ?? []) as { nulls?: string }[]) if (o.nulls) found.add(`nulls ${o.nulls}`);
      if ((q.groupBy?.length ?? 0) > 0) found.add('group by');
      if (q.having) found.add('having');
      if ((q.orderBy?.length ?? 0) > 0 && q.limit !== undefined) found.add('order by + limit');
      const rels = (q.joins ?? []).filter((j) => j.kind === 'relationship').map((j) => j.relationship);
      if (new Set(rels).size < rels.length) found.add('relationship joined twice');
    } else if (kind !== undefined && kind !== 'attribute' && kind !== 'literal' && kind !== 'output') found.add(kind);
    if (n['negated'] === true && kind === 'inQuery') found.add('not in query');
    if (kind === 'relationship' && n['on']) found.add('join on');
    for (const [k, v] of Object.entries(n)) if (k !== 'kind') walk(v, kind);
  };
  walk(query);
  return found;
}

/** Every construct of the IR the property test must exercise. */
export const REQUIRED_CONSTRUCTS = [
  'join:inner:forward', 'join:inner:reverse', 'join:left:forward', 'join:left:reverse', 'join on', 'relationship joined twice',
  'elements:inner', 'elements:left', 'compare', 'in', 'like', 'ilike', 'between', 'isNull', 'contains', 'isA', 'and', 'or', 'not',
  'exists', 'not exists', 'inQuery', 'not in query', 'scalarSubquery', 'aggregate:count *', 'aggregate:count', 'aggregate:count distinct',
  'aggregate:sum', 'aggregate:avg', 'aggregate:min', 'aggregate:max', 'group by', 'having', 'order by + limit', 'distinct',
  'set:union', 'set:union all', 'set:intersect', 'set:except', 'setArray', 'setSize', 'classOf', 'round', 'element', 'arithmetic',
  // Scalar analytics.
  'case', 'simpleCase', 'cast:numeric', 'cast:real', 'cast:integer', 'cast:text', 'cast:date', 'nullif', 'coalesce',
  'aggregate filter', 'sum of case', 'percentage', 'ratio', 'extract', 'dateTrunc', 'dateShift', 'ageYears',
  'textFunction:lower', 'textFunction:upper', 'textFunction:length', 'substring', 'position', 'concat', 'nulls first', 'nulls last',
  'aggregate:sum distinct', 'aggregate:avg distinct', 'aggregate:min distinct', 'aggregate:max distinct',
];

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
    const built = await buildDataset({ dataset: domainName, domain, variants: options.variants ?? 'all', scale: 'tiny', seed, profile, target: db, out: join(outDir, label), schemaPrefix: `${label}_` });
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
  const literals = generateInstance(domain, { seed: INSTANCES[0]?.seed ?? 1, scale: 'tiny', profile: INSTANCES[0]?.profile ?? 'default' });
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
          throw new Error(`query ${i} does not compile for ${v.name}: ${(error as Error).message}\n${JSON.stringify(query)}`);
        }
        sql.set(v.name, text);
        // Every fourth query's SQL (first instance) also goes through our parser adapter.
        if (i % 4 === 0 && build === builds[0]) {
          try {
            parseSql(text, { dialect: 'postgresql' });
          } catch (error) {
            throw new Error(`query ${i} for ${v.name} compiles to SQL our adapter cannot read: ${(error as Error).message}\n${text}`);
          }
        }
        try {
          results.set(v.name, normalizeResult(await runReadOnly(db, v.pg_schema, text), isOrdered(query)));
        } catch (error) {
          throw new Error(`query ${i} fails on ${v.name} (${build.label}): ${(error as Error).message}\n${JSON.stringify(query)}\n${text}`);
        }
      }
      const comparison = compareResults(results);
      if (!comparison.agree) {
        const detail = comparison.differing.map((d) => `--- ${d.variant} (${d.rowCount} rows vs ${comparison.rowCount}): ${d.sample.join(' ')}\n${sql.get(d.variant)}`).join('\n');
        const reference = [...results].find(([, r]) => r.hash === comparison.hash)?.[0] as string;
        expect.fail(`query ${i} disagrees on ${build.label}\n${JSON.stringify(query)}\n--- ${reference} (majority)\n${sql.get(reference)}\n${detail}`);
      }
    }
  }
  return covered;
}
