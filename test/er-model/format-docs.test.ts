// @tier long
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { parseDomainJson } from '../../generator/er-model/domain-json.ts';
import { indexDomain } from '../../generator/er-model/er-index.ts';
import { queryOfDocument, isOrdered, type QueryDocument } from '../../generator/query/conceptual-query.ts';
import { compileQuery } from '../../generator/compile/compile-query.ts';
import { selectVariants } from '../../generator/variants/select-variants.ts';
import { buildRelationalSchema } from '../../generator/variants/build-schema.ts';
import { buildDataset } from '../../generator/assemble/build-dataset.ts';
import { openDatabase, type Database } from '../../generator/database/database.ts';
import {
  compareResults,
  normalizeResult,
  runReadOnly,
  type NormalizedResult,
} from '../../generator/execute/run-query.ts';
import { REPO_ROOT } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/build-fixtures.ts';

/** The first ```json block of a doc that contains `marker`. */
function example(doc: string, marker: string): string {
  const text = readFileSync(join(REPO_ROOT, 'docs', doc), 'utf8');
  const block = [...text.matchAll(/```json\n([\s\S]*?)```/g)]
    .map((m) => m[1] as string)
    .find((b) => b.includes(marker));
  if (!block) throw new Error(`docs/${doc}: no json example containing ${marker}`);
  return block;
}

const ajv = new Ajv({ allErrors: true });
const schemaOf = (file: string) => ajv.compile(JSON.parse(readFileSync(join(REPO_ROOT, 'schemas', file), 'utf8')));
const modelText = example('er-model.md', '"entities"');
const queryDocument = JSON.parse(example('conceptual-query.md', '"kind": "select"')) as QueryDocument;

let db: Database;
const tmp = tempDir('format-docs');
beforeAll(async () => {
  db = await openDatabase({ kind: 'pglite' });
});
afterAll(async () => {
  await db?.close();
  tmp.remove();
});

describe('the worked examples of docs/er-model.md and docs/conceptual-query.md', () => {
  it('validate against their JSON Schemas', () => {
    const er = schemaOf('er-model.schema.json');
    expect(er(JSON.parse(modelText)), ajv.errorsText(er.errors)).toBe(true);
    const query = schemaOf('conceptual-query.schema.json');
    expect(query(queryDocument), ajv.errorsText(query.errors)).toBe(true);
  });

  it('build, and the query compiles for every variant and returns the same non-empty answer on each', async () => {
    const domain = parseDomainJson(modelText, 'docs/er-model.md');
    const index = indexDomain(domain);
    const query = queryOfDocument(queryDocument);
    const variants = selectVariants(index, 'all', 1);
    expect(variants.length).toBeGreaterThanOrEqual(8);
    const result = await buildDataset({
      dataset: 'shop',
      domain,
      variants: 'all',
      scale: 'tiny',
      seed: 1,
      profile: 'default',
      target: db,
      out: join(tmp.dir, 'shop'),
    });
    const results = new Map<string, NormalizedResult>();
    for (const built of result.manifest.variants) {
      const sql = compileQuery(index, buildRelationalSchema(index, built.spec), query);
      results.set(built.name, normalizeResult(await runReadOnly(db, built.pg_schema, sql), isOrdered(query)));
    }
    const comparison = compareResults(results);
    expect(comparison.differing).toEqual([]);
    expect(comparison.rowCount).toBeGreaterThan(0);
  }, 300_000);
});
