// @tier long
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { BUILT_IN_DOMAINS } from '../../generator/domains/index.ts';
import { indexDomain } from '../../generator/er-model/er-index.ts';
import { allPresets } from '../../generator/variants/variant-presets.ts';
import { buildRelationalSchema } from '../../generator/variants/build-schema.ts';
import { compileTree } from '../../generator/compile/compile-query.ts';
import { printSql } from '../../generator/compile/print-sql.ts';
import { COMPILE_RULES, rulesThrough } from '../../generator/compile/rules/index.ts';
import { openDatabase, type Database } from '../../generator/database/database.ts';
import { buildDataset, type BuildManifest } from '../../generator/assemble/build-dataset.ts';
import {
  compareResults,
  normalizeResult,
  runReadOnly,
  type NormalizedResult,
} from '../../generator/execute/run-query.ts';
import { isOrdered } from '../../generator/query/conceptual-query.ts';
import { REPO_ROOT } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import { createDatabase, describeServer } from '../helpers/postgres.ts';
import { readRuleFixtures, writeRuleFixtures, type RuleFixture } from './rule-fixtures.ts';

/**
 * Every compile rule against its fixtures (test/fixtures/compile-rules/<rule>.sql), as
 * sqlglot tests its optimizer: the SQL before and after the rule is the committed text on
 * the entry's variant, the rule changes it, and both sides, compiled for every variant of
 * the domain, give one answer on two instances (one rich in edge cases), on PGlite and on a
 * server. EQUISQL_UPDATE_FIXTURES=1 rewrites the texts from the entries' queries.
 */
const DIR = join(REPO_ROOT, 'test/fixtures/compile-rules');
const UPDATE = process.env['EQUISQL_UPDATE_FIXTURES'] === '1';
const INSTANCES = [
  { seed: 1, profile: 'default' as const },
  { seed: 3, profile: 'edge' as const },
];

const domains = new Map(
  Object.entries(BUILT_IN_DOMAINS).map(([name, domain]) => {
    const index = indexDomain(domain);
    return [
      name,
      { domain, index, schemas: new Map(allPresets(index).map((v) => [v.name, buildRelationalSchema(index, v)])) },
    ] as const;
  }),
);

/** The SQL of an entry's query on one variant, before and after its rule. */
function sides(rule: string, f: RuleFixture, variant: string): { before: string; after: string } {
  const d = domains.get(f.domain);
  const schema = d?.schemas.get(variant);
  if (!d || !schema) throw new Error(`${rule}: "${f.title}": no domain ${f.domain} or variant ${variant}`);
  return {
    before: printSql(compileTree(d.index, schema, f.query, rulesThrough(rule, { inclusive: false }))),
    after: printSql(compileTree(d.index, schema, f.query, rulesThrough(rule))),
  };
}

const files = new Map(
  COMPILE_RULES.map((r) => {
    const path = join(DIR, `${r.name}.sql`);
    let fixtures = readRuleFixtures(path);
    if (UPDATE) {
      fixtures = fixtures.map((f) => ({ ...f, ...sides(r.name, f, f.variant) }));
      writeRuleFixtures(path, fixtures);
    }
    return [r.name, fixtures] as const;
  }),
);

describe('the compile rules', () => {
  it('each have a fixture file, and no file is left without its rule', () => {
    const names = readdirSync(DIR)
      .filter((f) => f.endsWith('.sql'))
      .map((f) => f.replace(/\.sql$/u, ''))
      .sort();
    expect(names).toEqual(COMPILE_RULES.map((r) => r.name).sort());
  });

  it.each(COMPILE_RULES.map((r) => [r.name] as const))('%s has fixtures on both domains', (rule) => {
    expect([...new Set(files.get(rule)!.map((f) => f.domain))].sort()).toEqual([...domains.keys()].sort());
  });

  it.each(COMPILE_RULES.map((r) => [r.name] as const))('%s turns each fixture input into its expected text', (rule) => {
    for (const f of files.get(rule)!) {
      const { before, after } = sides(rule, f, f.variant);
      expect(before, `${rule}: ${f.title} (before)`).toBe(f.before);
      expect(after, `${rule}: ${f.title} (after)`).toBe(f.after);
      expect(after, `${rule}: ${f.title}: the rule changes nothing`).not.toBe(before);
    }
  });
});

/** Builds both domains on `db`, two instances each, and checks every fixture's answers there. */
function executedOn(label: string, open: () => Promise<{ db: Database; close: () => Promise<void> }>): void {
  let db: Database;
  let close: () => Promise<void>;
  const tmp = tempDir(`rules-${label}`);
  const builds = new Map<string, { label: string; manifest: BuildManifest }[]>();
  beforeAll(async () => {
    ({ db, close } = await open());
    for (const [name, d] of domains) {
      const list: { label: string; manifest: BuildManifest }[] = [];
      for (const { seed, profile } of INSTANCES) {
        const prefix = `${name}_${seed}_${profile}`;
        const built = await buildDataset({
          dataset: name,
          domain: d.domain,
          variants: 'all',
          scale: 'tiny',
          seed,
          profile,
          target: db,
          out: join(tmp.dir, prefix),
          schemaPrefix: `${prefix}_`,
        });
        list.push({ label: prefix, manifest: built.manifest });
      }
      builds.set(name, list);
    }
  }, 600_000);
  afterAll(async () => {
    await close?.();
    tmp.remove();
  });

  it.each(COMPILE_RULES.map((r) => [r.name] as const))(
    `%s: input and expected give one answer on every variant, on ${label}`,
    async (rule) => {
      for (const f of files.get(rule)!) {
        let rows = 0;
        for (const build of builds.get(f.domain)!) {
          const results = new Map<string, NormalizedResult>();
          const texts = new Map<string, string>();
          for (const v of build.manifest.variants) {
            const { before, after } = sides(rule, f, v.name);
            for (const [side, sql] of [
              ['before', before],
              ['after', after],
            ] as const) {
              texts.set(`${v.name} ${side}`, sql);
              results.set(
                `${v.name} ${side}`,
                normalizeResult(await runReadOnly(db, v.pg_schema, sql), isOrdered(f.query)),
              );
            }
          }
          const comparison = compareResults(results);
          const detail = comparison.differing
            .map((d) => `--- ${d.variant}: ${d.sample.join(' ')}\n${texts.get(d.variant)}`)
            .join('\n');
          expect(comparison.agree, `${rule}: ${f.title} on ${build.label}\n${detail}`).toBe(true);
          rows += comparison.rowCount;
        }
        // An answer that is empty on every instance would prove little.
        expect(rows, `${rule}: ${f.title}: no rows on any instance`).toBeGreaterThan(0);
      }
    },
    300_000,
  );
}

describe('the compile rules, executed on PGlite', () => {
  executedOn('PGlite', async () => {
    const db = await openDatabase({ kind: 'pglite' });
    return { db, close: () => db.close() };
  });
});

describeServer('the compile rules, executed on a PostgreSQL server', (serverUrl) => {
  executedOn('the server', async () => {
    const created = await createDatabase(serverUrl, 'rules');
    const db = await openDatabase({ kind: 'postgres', url: created.url });
    return {
      db,
      close: async () => {
        await db.close();
        await created.drop();
      },
    };
  });
});
