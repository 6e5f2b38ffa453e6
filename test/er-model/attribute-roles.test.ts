import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { attributeRoles, describeRole, inferRole, roleOf } from '../../generator/er-model/attribute-roles.ts';
import { parseDomainJson, domainToJson } from '../../generator/er-model/domain-json.ts';
import { BUILT_IN_DOMAINS } from '../../generator/domains/index.ts';
import type { Attribute } from '../../generator/er-model/er-model.ts';
import { REPO_ROOT, runCli } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/build-fixtures.ts';

const docs = readFileSync(join(REPO_ROOT, 'docs/er-model.md'), 'utf8');
const blocks = (lang: string) =>
  [...docs.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1] as string);
const docsModel = blocks('json').find((b) => b.includes('"entities"')) as string;
const library = readFileSync(join(REPO_ROOT, 'test/fixtures/er-model/valid/library.json'), 'utf8');
const tmp = tempDir('attribute-roles');
afterAll(() => tmp.remove());

describe('attribute roles', () => {
  it('are declared on every attribute of both built-in domains and the library fixture', () => {
    for (const domain of [...Object.values(BUILT_IN_DOMAINS), parseDomainJson(library, 'library.json')]) {
      const roles = attributeRoles(domain);
      const attributes =
        domain.entities.flatMap((e) => e.attributes).length +
        domain.relationships.flatMap((r) => r.attributes ?? []).length;
      expect(roles).toHaveLength(attributes);
      expect(roles.filter((r) => r.inferred).map((r) => `${domain.name}.${r.owner}.${r.attribute}`)).toEqual([]);
    }
    expect(roleOf(BUILT_IN_DOMAINS['retail']!, 'Product', 'price')).toEqual({
      kind: 'measure',
      unit: 'USD',
      additive: true,
      multipliedBy: ['quantity'],
    });
    expect(roleOf(BUILT_IN_DOMAINS['social_media']!, 'ConsumerAccount', 'age')).toMatchObject({
      kind: 'measure',
      additive: false,
    });
    expect(roleOf(BUILT_IN_DOMAINS['social_media']!, 'Clip', 'id')).toEqual({ kind: 'identifier' });
  });

  it('carry the words the question writer compares and flags with', () => {
    const sm = BUILT_IN_DOMAINS['social_media']!;
    const attribute = (entity: string, name: string) =>
      sm.entities.find((e) => e.name === entity)?.attributes.find((a) => a.name === name);
    expect(attribute('CreatorAccount', 'verified')?.lexicon?.adjective).toBe('verified');
    expect(attribute('LiveContent', 'is_live')?.lexicon?.adjective).toBe('live');
    expect(attribute('Content', 'duration')?.lexicon).toMatchObject({ high: 'long', low: 'short', unit: 'seconds' });
    expect(attribute('RecordedContent', 'file_size_mb')?.lexicon?.unit).toBe('MB');
    expect(attribute('ConsumerAccount', 'age')?.lexicon).toMatchObject({ high: 'old', low: 'young' });
  });

  it('survive the JSON form unchanged', () => {
    const domain = parseDomainJson(library, 'library.json');
    expect(attributeRoles(parseDomainJson(domainToJson(domain), 'again.json'))).toEqual(attributeRoles(domain));
  });

  it('are inferred for the worked model of docs/er-model.md, as the docs print them', () => {
    const printed = docs.slice(
      docs.indexOf('roles inferred for'),
      docs.indexOf('```', docs.indexOf('roles inferred for')),
    );
    const lines = attributeRoles(parseDomainJson(docsModel, 'docs/er-model.md')).map((r) => {
      expect(r.inferred).toBe(true);
      return `  ${r.owner}.${r.attribute}: ${describeRole(r.role)}, from ${r.because}`;
    });
    expect(printed.trim().split('\n').slice(1)).toEqual(lines);
  });

  it('are inferred by the table of docs/er-model.md, row by row', () => {
    const infer = (a: Partial<Attribute> & Pick<Attribute, 'type'>) => inferRole({ name: 'x', ...a }).role;
    expect(infer({ type: { kind: 'boolean' } })).toEqual({ kind: 'flag' });
    expect(infer({ type: { kind: 'enum', values: ['a', 'b'] } })).toEqual({ kind: 'category' });
    expect(infer({ type: { kind: 'date' } })).toEqual({ kind: 'date' });
    expect(infer({ type: { kind: 'timestamptz' } })).toEqual({ kind: 'time' });
    expect(infer({ type: { kind: 'text' }, hints: { pool: ['a', 'b'] } })).toEqual({ kind: 'category' });
    expect(infer({ type: { kind: 'text' }, hints: { faker: 'phone.number' } })).toEqual({ kind: 'contact' });
    expect(infer({ type: { kind: 'text' }, hints: { faker: 'lorem.sentence' } })).toEqual({ kind: 'description' });
    expect(infer({ type: { kind: 'text' }, hints: { faker: 'commerce.productDescription' } })).toEqual({
      kind: 'description',
    });
    expect(infer({ type: { kind: 'text' }, hints: { unique: true } })).toEqual({ kind: 'name' });
    expect(infer({ name: 'display_name', type: { kind: 'text' } })).toEqual({ kind: 'name' });
    expect(infer({ name: 'notes', type: { kind: 'text' } })).toEqual({ kind: 'description' });
    expect(infer({ type: { kind: 'bigint' }, hints: { unique: true } })).toEqual({ kind: 'identifier' });
    expect(infer({ name: 'view_count', type: { kind: 'integer' } })).toEqual({ kind: 'count' });
    expect(infer({ name: 'stars', type: { kind: 'integer' }, hints: { min: 1, max: 5 } })).toEqual({ kind: 'score' });
    expect(
      infer({ name: 'weight', type: { kind: 'numeric', precision: 6, scale: 2 }, hints: { min: 1, max: 90 } }),
    ).toEqual({ kind: 'measure', unit: 'weight', additive: true });
    expect(infer({ name: 'age', type: { kind: 'integer' }, hints: { min: 13, max: 90 } })).toEqual({
      kind: 'measure',
      unit: 'age',
      additive: false,
    });
  });

  it('are printed by build where inferred', () => {
    const model = join(tmp.dir, 'shop.er.json');
    writeFileSync(model, docsModel);
    const build = runCli(
      ['build', '--dataset', model, '--variants', 'full_normalized', '--scale', 'tiny', '--out', join(tmp.dir, 'shop')],
      { env: { DATABASE_URL: undefined } },
    );
    expect(build.status, build.stderr).toBe(0);
    expect(build.stderr).toContain('roles inferred for 9 attributes of shop');
    expect(build.stderr).toContain('  Book.isbn: name, from unique text');
    const quiet = runCli(
      [
        'build',
        '--dataset',
        'retail',
        '--variants',
        'full_normalized',
        '--scale',
        'tiny',
        '--out',
        join(tmp.dir, 'retail'),
      ],
      { env: { DATABASE_URL: undefined } },
    );
    expect(quiet.status, quiet.stderr).toBe(0);
    expect(quiet.stderr).not.toContain('roles inferred');
  });
});
