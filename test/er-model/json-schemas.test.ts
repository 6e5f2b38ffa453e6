import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { renderJsonSchemas } from '../../scripts/json-schemas.ts';
import { BUILT_IN_DOMAINS } from '../../generator/domains/index.ts';
import { domainToJson, parseDomainJson } from '../../generator/er-model/domain-json.ts';
import { queryOfDocument, type QueryDocument } from '../../generator/query/conceptual-query.ts';
import { REPO_ROOT } from '../helpers/run-cli.ts';

const read = (path: string): string => readFileSync(join(REPO_ROOT, path), 'utf8');
const ajv = new Ajv({ allErrors: true });
const erSchema = ajv.compile(JSON.parse(read('schemas/er-model.schema.json')));
const querySchema = ajv.compile(JSON.parse(read('schemas/conceptual-query.schema.json')));
const errorsOf = (validate: typeof erSchema): string => ajv.errorsText(validate.errors);

describe('the JSON Schemas of the E/R model and the conceptual query', () => {
  it('are what the TypeScript types generate today (npm run schemas rewrites them)', () => {
    for (const [file, text] of Object.entries(renderJsonSchemas())) expect(read(file), file).toBe(text);
  }, 120_000);

  it('accept every shipped domain as written to er.json, and the valid fixtures', () => {
    for (const domain of Object.values(BUILT_IN_DOMAINS)) {
      expect(erSchema(JSON.parse(domainToJson(domain))), `${domain.name}: ${errorsOf(erSchema)}`).toBe(true);
    }
    for (const file of readdirSync(join(REPO_ROOT, 'test/fixtures/er-model/valid'))) {
      expect(erSchema(JSON.parse(read(`test/fixtures/er-model/valid/${file}`))), `${file}: ${errorsOf(erSchema)}`).toBe(
        true,
      );
    }
  });

  it('reject the malformed fixtures whose fault is one of shape (a misspelled key, a wrong type, a missing field)', () => {
    const structural = [
      'bad-cardinality',
      'bad-participation',
      'missing-lexicon',
      'not-an-object',
      'unknown-attribute-type',
      'unknown-key-typo',
      'wrong-field-type',
    ];
    for (const name of structural) {
      expect(erSchema(JSON.parse(read(`test/fixtures/er-model/malformed/${name}.json`))), name).toBe(false);
    }
    // Faults of meaning (a cycle, an unknown parent) are the validator's to find, not the schema's.
    expect(erSchema(JSON.parse(read('test/fixtures/er-model/malformed/inheritance-cycle.json')))).toBe(true);
  });

  it('accept every query of the compiled paper suites', () => {
    const root = join(REPO_ROOT, 'test/fixtures/compiled');
    let count = 0;
    for (const domain of readdirSync(root)) {
      for (const file of readdirSync(join(root, domain, 'queries'))) {
        const query = JSON.parse(readFileSync(join(root, domain, 'queries', file), 'utf8'));
        expect(querySchema(query), `${domain}/${file}: ${errorsOf(querySchema)}`).toBe(true);
        count++;
      }
    }
    expect(count).toBe(30);
  });

  it('reject malformed queries', () => {
    const good = JSON.parse(read('test/fixtures/compiled/retail/queries/q01.json')) as Record<string, unknown>;
    expect(querySchema(good)).toBe(true);
    const bad: Record<string, unknown>[] = [
      { ...good, kind: 'selec' },
      { ...good, from: undefined },
      { ...good, limit: '10' },
      { ...good, select: [{ name: 'x', expr: { kind: 'attribute', alias: 'p' } }] },
      { kind: 'set', op: 'union', left: good, right: good, orderBy: 'x' },
      { kind: 'set', op: 'union', left: good, right: good, orderBy: [null] },
    ].map((q) => JSON.parse(JSON.stringify(q)));
    for (const q of bad) expect(querySchema(q), JSON.stringify(q).slice(0, 80)).toBe(false);
  });

  it('a document may name its schema with "$schema"; readers drop the key', () => {
    const text = domainToJson(BUILT_IN_DOMAINS['retail']!);
    const withSchema = text.replace('{', '{\n  "$schema": "../schemas/er-model.schema.json",');
    expect(erSchema(JSON.parse(withSchema))).toBe(true);
    expect(domainToJson(parseDomainJson(withSchema, 'retail.json'))).toBe(text);

    const query = JSON.parse(read('test/fixtures/compiled/retail/queries/q01.json')) as QueryDocument;
    const document = { $schema: '../schemas/conceptual-query.schema.json', ...query } as QueryDocument;
    expect(querySchema(document)).toBe(true);
    expect(queryOfDocument(document)).toEqual(query);
  });
});
