// @tier long
import { afterAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import { defineDomain, attr, noun } from '../../generator/er-model/define-domain.ts';
import type { Attribute } from '../../generator/er-model/er-model.ts';
import { generateInstance, generateInstanceReport } from '../../generator/instance/generate-instance.ts';
import { ConfigError } from '../../generator/common/errors.ts';
import { ODD_TEXTS } from '../../generator/instance/value-generator.ts';

/** A one-entity domain whose only attribute is the one under test. */
function domainWith(attribute: Attribute, count: number) {
  return defineDomain({
    name: 'probe',
    entities: [
      {
        name: 'Item',
        lexicon: noun('item'),
        counts: { tiny: count, small: count, paper: count, large: count },
        attributes: [attribute],
      },
    ],
    relationships: [],
  });
}

const valuesOf = (attribute: Attribute, count: number, seed = 1) =>
  generateInstance(domainWith(attribute, count), { seed, scale: 'tiny' }).objects['Item']?.map(
    (o) => o.values[attribute.name],
  ) ?? [];

describe('finding 15: a unique attribute with a closed set of values', () => {
  it('refuses a pool smaller than the number of objects, naming the attribute and both numbers', () => {
    const attribute = attr.text('colour', { hints: { pool: ['red', 'blue'], unique: true } });
    expect(() => valuesOf(attribute, 20)).toThrow(ConfigError);
    expect(() => valuesOf(attribute, 20)).toThrow(
      'domains.probe.entities.Item.attributes.colour.hints.unique: 20 objects need 20 distinct values, but hints.pool has 2 distinct values',
    );
  });

  it('draws a large enough pool without replacement: every value distinct and inside the pool', () => {
    const pool = Array.from({ length: 25 }, (_, i) => `colour ${String.fromCharCode(97 + i)}`);
    for (const seed of [1, 2, 3]) {
      const values = valuesOf(attr.text('colour', { hints: { pool, unique: true } }), 25, seed);
      expect(new Set(values).size).toBe(25);
      for (const v of values) expect(pool).toContain(v);
    }
  });

  it('refuses a unique enum with fewer values than objects (it used to fail at load on the CHECK)', () => {
    expect(() => valuesOf(attr.enum('level', ['only'], { hints: { unique: true } }), 3)).toThrow(
      /attributes\.level\.hints\.unique: 3 objects need 3 distinct values, but its enum has 1 value$/,
    );
  });

  it('keeps unique numbers and dates inside their bounds, and valid for their type', () => {
    const ints = valuesOf(attr.integer('seat', { hints: { min: 1, max: 30, unique: true } }), 30);
    expect([...ints].sort((a, b) => (a as number) - (b as number))).toEqual(
      Array.from({ length: 30 }, (_, i) => i + 1),
    );
    expect(() => valuesOf(attr.integer('seat', { hints: { min: 1, max: 30, unique: true } }), 31)).toThrow(/holds 30$/);

    const prices = valuesOf(attr.numeric('price', 4, 1, { hints: { min: 0, max: 5, unique: true } }), 51);
    expect(new Set(prices).size).toBe(51);
    for (const p of prices) expect(p).toMatch(/^\d\.\d$|^5\.0$/);

    const days = valuesOf(attr.date('day', { hints: { min: '2024-01-01', max: '2024-01-31', unique: true } }), 31);
    expect(new Set(days).size).toBe(31);
    for (const d of days) expect(d).toMatch(/^2024-01-(0[1-9]|[12]\d|3[01])$/);
  });
});

describe('finding 16: unique text suffixes', () => {
  // faker's person.sexType has two values: nearly every value repeats an earlier one.
  const attribute = attr.text('sex', { hints: { faker: 'person.sexType', unique: true } });

  it('are taken from the base value ("female 7"), never piled onto an earlier suffix', () => {
    const values = valuesOf(attribute, 400) as string[];
    expect(new Set(values).size).toBe(400);
    // Each value is a drawn base (the faker value, or odd text mixed into every text column)
    // with at most one suffix.
    for (const v of values) {
      const base = v.replace(/ \d+$/, '');
      expect(['female', 'male', ...ODD_TEXTS], v).toContain(base);
    }
    expect(Math.max(...values.map((v) => v.length))).toBeLessThanOrEqual(
      Math.max(...ODD_TEXTS.map((t) => t.length)) + ' 400'.length,
    );
  });

  it('stay fast: 20,000 values from a two-value source in well under a second', () => {
    const started = performance.now();
    const values = valuesOf(attribute, 20_000);
    expect(new Set(values).size).toBe(20_000);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('are reported as a warning naming the attribute when the source has too few values', () => {
    const { warnings } = generateInstanceReport(domainWith(attribute, 400), { seed: 1, scale: 'tiny' });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^domains\.probe\.entities\.Item\.attributes\.sex\.hints\.unique: 39\d of 400 values repeated an earlier one/,
    );
    expect(warnings[0]).toMatch(/faker method "person\.sexType" draws from too few values/);
  });

  it('give no warning where the source is large enough', () => {
    const roomy = attr.text('email', { hints: { faker: 'internet.email', unique: true } });
    expect(generateInstanceReport(domainWith(roomy, 400), { seed: 1, scale: 'tiny' }).warnings).toEqual([]);
  });
});

describe('build reports both through the CLI', () => {
  const tmp = tempDir('instance-cli');
  afterAll(() => tmp.remove());
  const NO_SERVER = { DATABASE_URL: undefined };
  const model = (attribute: Attribute, count: number, file: string): string => {
    const path = join(tmp.dir, file);
    writeFileSync(path, JSON.stringify(domainWith(attribute, count)));
    return path;
  };

  it('prints the unique-hint warning on stderr and still builds', () => {
    const path = model(attr.text('sex', { hints: { faker: 'person.sexType', unique: true } }), 60, 'sex.json');
    const run = runCli(
      ['build', '--dataset', path, '--variants', 'full_sti', '--scale', 'tiny', '--out', join(tmp.dir, 'sex')],
      { env: NO_SERVER },
    );
    expect(run.status).toBe(0);
    expect(run.stderr).toMatch(
      /^warning: domains\.probe\.entities\.Item\.attributes\.sex\.hints\.unique: \d+ of 60 values repeated/m,
    );
  });

  it('refuses a too-small unique pool with exit 2 and one line', () => {
    const path = model(attr.text('colour', { hints: { pool: ['red', 'blue'], unique: true } }), 20, 'colour.json');
    const out = join(tmp.dir, 'colour');
    const run = runCli(['build', '--dataset', path, '--variants', 'full_sti', '--scale', 'tiny', '--out', out], {
      env: NO_SERVER,
    });
    expect(run.status).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(
      /attributes\.colour\.hints\.unique: 20 objects need 20 distinct values, but hints\.pool has 2/,
    );
  });
});
