import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../generator/common/errors.ts';
import { BUILT_IN_DOMAINS } from '../../generator/domains/index.ts';
import { domainToJson, parseDomainJson } from '../../generator/er-model/domain-json.ts';
import { MODEL_LIMITS, validateDomain } from '../../generator/er-model/validate-domain.ts';
import { checkCounts, generateInstance } from '../../generator/instance/generate-instance.ts';
import { buildDataset } from '../../generator/assemble/build-dataset.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const LIBRARY = readFileSync(
  fileURLToPath(new URL('../fixtures/er-model/valid/library.json', import.meta.url)),
  'utf8',
);

/** A fresh, mutable copy of the library fixture model. */
function library(): any {
  return JSON.parse(LIBRARY);
}

/** The error `run` throws; fails the test when it throws none. */
function thrown(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected an error, got none');
}

/** A ConfigError of one line matching `pattern`. */
function expectMessage(run: () => unknown, pattern: RegExp): void {
  const error = thrown(run);
  expect(error).toBeInstanceOf(ConfigError);
  expect(error.message).not.toContain('\n');
  expect(error.message).toMatch(pattern);
}

describe('size caps of a model', () => {
  it('refuses counts.tiny of a billion in the validator, before any allocation', () => {
    const model = library();
    model.entities[0].counts.tiny = 1_000_000_000;
    expectMessage(
      () => parseDomainJson(JSON.stringify(model), 'lib.json'),
      /^lib\.json: domains\.library\.entities\.Person\.counts\.tiny: must be at most 10000000 \(the cap per entity and scale\), got 1000000000$/,
    );
  });

  it('refuses root counts that are each allowed but together too many', () => {
    const model = library();
    const roots = model.entities.filter((e: any) => e.parent === undefined);
    expect(roots.length).toBeGreaterThan(2);
    for (const root of roots) root.counts = { ...root.counts, large: MODEL_LIMITS.countPerEntity };
    expectMessage(
      () => validateDomain(model),
      /^domains\.library\.entities: the root entities' counts\.large sum to \d+, more than the cap of 20000000 objects per scale$/,
    );
  });

  it('refuses a count override above the cap, or not an integer, before generating', () => {
    const domain = BUILT_IN_DOMAINS['social_media']!;
    expectMessage(
      () => checkCounts(domain, { seed: 1, scale: 'tiny', counts: { Account: 99999999999999999999 } }),
      /^counts\.Account: at most 10000000 objects per entity, got 100000000000000000000$/,
    );
    expectMessage(
      () => generateInstance(domain, { seed: 1, scale: 'tiny', counts: { Account: 1.5 } }),
      /^counts\.Account: expected a non-negative integer, got 1\.5$/,
    );
    expectMessage(
      () => checkCounts(domain, { seed: 1, scale: 'tiny', counts: { Acount: 5 } }),
      /^counts\.Acount: not a root entity of domain social_media \(roots: Account, Content, Channel, Tag\)$/,
    );
  });

  it('caps partners per object and elements per set', () => {
    const model = library();
    const rel = model.relationships.find((r: any) => r.cardinality === 'many-to-many');
    rel.degree = { mean: 1e9 };
    expectMessage(
      () => validateDomain(model),
      new RegExp(
        `^domains\\.library\\.relationships\\.${rel.name}\\.degree\\.mean: must be at most 1000 partners, got 1000000000$`,
      ),
    );
    const other = library();
    other.entities[0].attributes.find((a: any) => a.name === 'nicknames').hints = { setSize: [0, 100000] };
    expectMessage(
      () => validateDomain(other),
      /nicknames\.hints\.setSize: max must be at most 1000 elements per set, got 100000$/,
    );
  });
});

describe('names', () => {
  it('refuses a 10,000-character attribute name with a short message, by position, not by the name', () => {
    const model = library();
    model.entities[0].attributes[0].name = `n${'x'.repeat(9999)}`;
    expectMessage(
      () => validateDomain(model),
      /^domains\.library\.entities\.Person\.attributes\[0\]\.name: "nx{36}\.\.\." is 10000 characters long, more than the 63 PostgreSQL allows in a name$/,
    );
  });
});

describe('model size', () => {
  const entity = (i: number, attributes = 1): object => ({
    name: `E${i}`,
    lexicon: { singular: `e${i}`, plural: `es${i}` },
    counts: { tiny: 1, small: 1, paper: 1, large: 1 },
    attributes: Array.from({ length: attributes }, (_, j) => ({ name: `a${j}`, type: { kind: 'integer' } })),
  });

  it('refuses more entities than the cap at once, by count, instead of validating and building for minutes', () => {
    const model = { name: 'big', entities: Array.from({ length: 5000 }, (_, i) => entity(i)), relationships: [] };
    const started = performance.now();
    expectMessage(
      () => parseDomainJson(JSON.stringify(model), 'big.json'),
      /^big\.json: domains\.big\.entities: 5000 entities, more than the 200 a domain may have$/,
    );
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('refuses more attributes in all than one table can hold', () => {
    const model = { name: 'wide', entities: Array.from({ length: 20 }, (_, i) => entity(i, 60)), relationships: [] };
    expectMessage(
      () => validateDomain(model),
      /^domains\.wide: 1200 attributes in all, more than the 1000 a domain may have$/,
    );
  });

  it('refuses a hierarchy deeper than the cap, naming the entity below it', () => {
    const entities = Array.from({ length: 18 }, (_, i) => ({
      name: `E${i}`,
      lexicon: { singular: `e${i}`, plural: `es${i}` },
      attributes: [],
      ...(i === 0 ? { counts: { tiny: 1, small: 1, paper: 1, large: 1 } } : { parent: `E${i - 1}`, fraction: 0.5 }),
      ...(i < 17 ? { specialization: { disjoint: true, total: false } } : {}),
    }));
    expectMessage(
      () => validateDomain({ name: 'deep', entities, relationships: [] }),
      /^domains\.deep\.entities\.E17\.parent: E17 is 17 levels below its root, more than the 16 a hierarchy may have$/,
    );
  });
});

describe('numeric precision and scale', () => {
  it('names the scale and its bound for numeric(1000, 999) instead of a RangeError from the generator', () => {
    const model = library();
    model.entities[0].attributes.push({ name: 'weight', type: { kind: 'numeric', precision: 1000, scale: 999 } });
    expectMessage(
      () => validateDomain(model),
      /^domains\.library\.entities\.Person\.attributes\.weight\.type\.scale: must be at most 100 decimal places, got 999$/,
    );
  });

  it('accepts PostgreSQL-wide precision with a usable scale and generates exact values', () => {
    const model = library();
    model.entities[0].attributes.push({ name: 'weight', type: { kind: 'numeric', precision: 1000, scale: 100 } });
    const domain = validateDomain(model);
    const instance = generateInstance(domain, { seed: 1, scale: 'tiny' });
    const weights = (instance.objects['Person'] ?? []).map((o) => o.values['weight']);
    expect(weights.length).toBeGreaterThan(0);
    for (const w of weights) expect(w).toMatch(/^\d+\.\d{100}$/);
  });

  it('refuses numeric bounds a double cannot carry exactly', () => {
    const model = library();
    model.entities[0].attributes.push({
      name: 'weight',
      type: { kind: 'numeric', precision: 40, scale: 0 },
      hints: { max: 1e30 },
    });
    expectMessage(
      () => validateDomain(model),
      /weight\.hints\.max: must be between -1000000000000000 and 1000000000000000 \(generated numbers beyond lose digits\), got 1e\+30$/,
    );
  });
});

describe('deep nesting', () => {
  it('reports a model nested 100,000 deep as invalid JSON at a line and column, not a stack overflow', () => {
    const text = `{"name": "deep", "entities": ${'['.repeat(100_000)}${']'.repeat(100_000)}, "relationships": []}`;
    expectMessage(
      () => parseDomainJson(text, 'deep.json'),
      /^deep\.json:1:\d+: invalid JSON: nested deeper than 64 levels$/,
    );
  });

  it('still reads the reference models, whose nesting is shallow', () => {
    for (const domain of Object.values(BUILT_IN_DOMAINS))
      expect(parseDomainJson(domainToJson(domain), 'x.json')).toEqual(domain);
  });
});

describe('unique enums', () => {
  it('names the attribute when a unique enum has fewer values than objects, instead of a CHECK violation at load', () => {
    const model = library();
    model.entities[0].attributes.push({
      name: 'badge',
      type: { kind: 'enum', values: ['gold'] },
      hints: { unique: true },
    });
    const domain = validateDomain(model);
    expectMessage(
      () => generateInstance(domain, { seed: 1, scale: 'tiny' }),
      /^domains\.library\.entities\.Person\.attributes\.badge\.hints\.unique: 30 objects need 30 distinct values, but its enum has 1 value$/,
    );
  });
});

describe('a model that fails only when generated', () => {
  it('leaves an existing build directory as it was: the instance is generated before anything is written', async () => {
    const tmp = tempDir('unique-enum');
    try {
      const out = join(tmp.dir, 'out');
      mkdirSync(out);
      writeFileSync(join(out, 'er.json'), 'the previous build\n');
      const model = library();
      model.entities[0].attributes.push({
        name: 'badge',
        type: { kind: 'enum', values: ['gold'] },
        hints: { unique: true },
      });
      const domain = validateDomain(model);
      await expect(
        buildDataset({
          dataset: 'library',
          domain,
          variants: 'all',
          scale: 'tiny',
          seed: 1,
          profile: 'default',
          target: { kind: 'pglite', dir: join(out, 'pglite') },
          out,
        }),
      ).rejects.toThrow(/badge\.hints\.unique: 30 objects need 30 distinct values, but its enum has 1 value/);
      expect(readdirSync(out)).toEqual(['er.json']);
      expect(readFileSync(join(out, 'er.json'), 'utf8')).toBe('the previous build\n');
    } finally {
      tmp.remove();
    }
  });
});

describe('references and fractions', () => {
  it('suggests the entity a misspelled relationship end meant, as misspelled keys do', () => {
    const model = library();
    model.relationships[0].to = 'Persn';
    expectMessage(
      () => validateDomain(model),
      new RegExp(
        `^domains\\.library\\.relationships\\.${model.relationships[0].name}\\.to: unknown entity "Persn" \\(did you mean "Person"\\?\\)$`,
      ),
    );
  });

  it('lists the known entities when nothing is close, and suggests for a parent too', () => {
    const model = library();
    model.relationships[0].from = 'Zzzzzz';
    expectMessage(() => validateDomain(model), /\.from: unknown entity "Zzzzzz" \(known: Person, Author, Member, /);
    const other = library();
    other.entities.find((e: any) => e.name === 'Author').parent = 'Persom';
    expectMessage(
      () => validateDomain(other),
      /^domains\.library\.entities\.Author\.parent: unknown entity "Persom" \(did you mean "Person"\?\)$/,
    );
  });

  it('refuses subclass fractions of a disjoint total specialization that sum to 1.3, or to less than 1', () => {
    const over = library();
    const members = over.entities.filter((e: any) => e.parent === 'Member');
    expect(over.entities.find((e: any) => e.name === 'Member').specialization).toEqual({ disjoint: true, total: true });
    members[0].fraction = 0.9;
    members[1].fraction = 0.4;
    expectMessage(
      () => validateDomain(over),
      /^domains\.library\.entities\.Member\.specialization: subclass fractions sum to 1\.3 \(\w+ 0\.9 \+ \w+ 0\.4\), more than 1 for a disjoint specialization$/,
    );
    const under = library();
    const parts = under.entities.filter((e: any) => e.parent === 'Member');
    parts[0].fraction = 0.3;
    parts[1].fraction = 0.2;
    expectMessage(
      () => validateDomain(under),
      /Member\.specialization: subclass fractions sum to 0\.5 .*, but a disjoint total specialization needs them to sum to 1$/,
    );
  });
});
