// @tier long
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUILT_IN_DOMAINS } from '../../generator/domains/index.ts';
import { indexDomain } from '../../generator/er-model/er-index.ts';
import { allPresets } from '../../generator/variants/variant-presets.ts';
import { buildRelationalSchema } from '../../generator/variants/build-schema.ts';
import { compileQuery } from '../../generator/compile/compile-query.ts';
import { parseSql } from '../../generator/sql/parser-adapter.ts';
import { loadPgParser, parsePostgres, statementKinds } from '../../generator/sql/pg-parser.ts';
import { SUITES } from '../../generator/suites/index.ts';
import { openDatabase, type Database } from '../../generator/database/database.ts';
import { buildDataset } from '../../generator/assemble/build-dataset.ts';
import { runQuestions } from '../../generator/suites/run-suite.ts';
import { REPO_ROOT } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import { createDatabase, describeServer } from '../helpers/postgres.ts';

const FIXTURES = join(REPO_ROOT, 'test/fixtures/compiled');
const UPDATE = process.env['EQUISQL_UPDATE_FIXTURES'] === '1';
const paper = SUITES['paper']!;
const DOMAIN_NAMES = Object.keys(paper.domains);

/** Compares with a committed fixture, or writes it when EQUISQL_UPDATE_FIXTURES=1. */
function matchFixture(path: string, text: string): void {
  if (UPDATE) {
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, text);
    return;
  }
  expect(existsSync(path), `${path} exists (run with EQUISQL_UPDATE_FIXTURES=1 to write it)`).toBe(true);
  expect(text, path).toBe(readFileSync(path, 'utf8'));
}

describe.each(DOMAIN_NAMES)('the paper suite for %s compiles', (domainName) => {
  const index = indexDomain(BUILT_IN_DOMAINS[domainName]!);
  const questions = paper.domains[domainName]!;

  it('has fifteen questions, each stored as its conceptual query in JSON', () => {
    expect(questions.map((q) => q.id)).toEqual(
      Array.from({ length: 15 }, (_, i) => `q${String(i + 1).padStart(2, '0')}`),
    );
    for (const q of questions)
      matchFixture(join(FIXTURES, domainName, 'queries', `${q.id}.json`), `${JSON.stringify(q.query, null, 2)}\n`);
  });

  it.each(allPresets(index).map((v) => [v.name, v] as const))('to the committed SQL for %s', (_name, variant) => {
    const schema = buildRelationalSchema(index, variant);
    for (const q of questions)
      matchFixture(
        join(FIXTURES, domainName, variant.name, `${q.id}.sql`),
        `${compileQuery(index, schema, q.query)};\n`,
      );
  });

  it("to SQL that PostgreSQL's own parser reads back as one SELECT, for every variant", async () => {
    await loadPgParser();
    for (const variant of allPresets(index)) {
      const schema = buildRelationalSchema(index, variant);
      for (const q of questions) {
        const sql = compileQuery(index, schema, q.query);
        expect(statementKinds(parsePostgres(sql)), `${variant.name} ${q.id}\n${sql}`).toEqual(['SelectStmt']);
      }
    }
  });

  it('to SQL that our node-sql-parser adapter reads back, for every variant', () => {
    for (const variant of allPresets(index)) {
      const schema = buildRelationalSchema(index, variant);
      for (const q of questions) {
        const sql = compileQuery(index, schema, q.query);
        expect(() => parseSql(sql, { dialect: 'postgresql' }), `${variant.name} ${q.id}`).not.toThrow();
      }
    }
  });

  it('under single-table inheritance, with no derived table where a filter suffices', () => {
    for (const name of ['full_sti', 'sti_junction_fks']) {
      const schema = buildRelationalSchema(index, allPresets(index).find((v) => v.name === name)!);
      for (const q of questions) {
        // The one derived table allowed computes the outputs once (`… ) AS t`), and holds none.
        const sql = compileQuery(index, schema, q.query).replace(
          /^SELECT [^\n]*\nFROM \(\n([\s\S]*)\n {2}\) AS t\d*\n/,
          '$1\n',
        );
        expect(sql, `${name} ${q.id}`).not.toMatch(/(FROM|JOIN) \(\s*SELECT/);
      }
    }
  });

  it('under class-table inheritance, with no join the query does not use', () => {
    const schema = buildRelationalSchema(index, allPresets(index).find((v) => v.name === 'full_cti')!);
    for (const q of questions) {
      const sql = compileQuery(index, schema, q.query);
      for (const [, alias] of sql.matchAll(/JOIN \w+ AS (\w+) ON/g)) {
        // Used somewhere besides the ON clause that joins it (whole alias names only).
        const uses = sql.match(new RegExp(`(?<![\\w".])${alias}\\.`, 'g'))?.length ?? 0;
        expect(uses, `${q.id}: ${alias} is joined but not used\n${sql}`).toBeGreaterThan(1);
      }
    }
  });
});

/** Builds a domain at small scale, default and edge-case profiles, and runs the suite. */
async function runPaperSuite(
  db: Database,
  domainName: string,
  profile: 'default' | 'edge',
  out: string,
  prefix: string,
) {
  const domain = BUILT_IN_DOMAINS[domainName]!;
  const built = await buildDataset({
    dataset: domainName,
    domain,
    variants: 'all',
    scale: 'small',
    seed: profile === 'edge' ? 3 : 1,
    profile,
    target: db,
    out,
    schemaPrefix: prefix,
  });
  return runQuestions(indexDomain(domain), built.manifest, db, paper.domains[domainName]!);
}

function expectAllAgree(outcomes: Awaited<ReturnType<typeof runQuestions>>): void {
  expect(outcomes).toHaveLength(15);
  for (const o of outcomes) {
    expect(o.comparison.differing, `${o.question} disagrees`).toEqual([]);
    expect(o.comparison.rowCount, `${o.question} is empty`).toBeGreaterThan(0);
    expect(o.answers).toHaveLength(10);
  }
}

describe('the paper suite on PGlite', () => {
  let db: Database;
  const tmp = tempDir('suite');
  beforeAll(async () => {
    db = await openDatabase({ kind: 'pglite' });
  });
  afterAll(async () => {
    await db?.close();
    tmp.remove();
  });
  it.each(
    DOMAIN_NAMES.flatMap(
      (d) =>
        [
          [d, 'default'],
          [d, 'edge'],
        ] as const,
    ),
  )('%s (%s instance): all fifteen agree on ten variants and are non-empty', async (domainName, profile) => {
    expectAllAgree(
      await runPaperSuite(
        db,
        domainName,
        profile,
        join(tmp.dir, `${domainName}-${profile}`),
        `${domainName}_${profile}_`,
      ),
    );
  });
});

describeServer('the paper suite on the server', (serverUrl) => {
  let db: Database;
  let drop: () => Promise<void>;
  const tmp = tempDir('suite-server');
  beforeAll(async () => {
    const fresh = await createDatabase(serverUrl, 'suite');
    drop = fresh.drop;
    db = await openDatabase({ kind: 'postgres', url: fresh.url });
  });
  afterAll(async () => {
    await db?.close();
    await drop?.();
    tmp.remove();
  });
  it.each(
    DOMAIN_NAMES.flatMap(
      (d) =>
        [
          [d, 'default'],
          [d, 'edge'],
        ] as const,
    ),
  )('%s (%s instance): all fifteen agree on ten variants and are non-empty', async (domainName, profile) => {
    expectAllAgree(
      await runPaperSuite(
        db,
        domainName,
        profile,
        join(tmp.dir, `${domainName}-${profile}`),
        `${domainName}_${profile}_`,
      ),
    );
  });
});
