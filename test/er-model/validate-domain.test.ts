import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { faker } from '@faker-js/faker';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../generator/common/errors.ts';
import { BUILT_IN_DOMAINS } from '../../generator/domains/index.ts';
import { attr, defineDomain, noun } from '../../generator/er-model/define-domain.ts';
import { domainToJson, parseDomainJson } from '../../generator/er-model/domain-json.ts';
import { indexDomain } from '../../generator/er-model/er-index.ts';
import type { Domain, Entity } from '../../generator/er-model/er-model.ts';
import { checkDomain, validateDomain } from '../../generator/er-model/validate-domain.ts';

const FIXTURES = fileURLToPath(new URL('../fixtures/er-model/', import.meta.url));
const MALFORMED = `${FIXTURES}malformed/`;
const VALID = `${FIXTURES}valid/`;

function readValid(name: string): Domain {
  return parseDomainJson(readFileSync(`${VALID}${name}`, 'utf8'), name);
}

/** Expected instances of an entity at a scale, following counts and fractions down. */
function expectedCount(domain: Domain, name: string, scale: 'tiny' | 'paper'): number {
  const index = indexDomain(domain);
  return index.chain(name).reduce((n, e: Entity) => (e.counts ? e.counts[scale] : n * (e.fraction ?? 0)), 0);
}

function mutable(domain: Domain): any {
  return JSON.parse(JSON.stringify(domain));
}

describe('built-in domains', () => {
  it('are social_media and retail, and validate without issues', () => {
    expect(Object.keys(BUILT_IN_DOMAINS)).toEqual(['social_media', 'retail']);
    for (const [name, domain] of Object.entries(BUILT_IN_DOMAINS)) {
      expect(domain.name).toBe(name);
      expect(checkDomain(domain)).toEqual([]);
    }
  });

  // Transcribed from domains.md: entity(parent): attributes, with [] for multi-valued ones.
  const HIERARCHIES: Record<string, string[]> = {
    social_media: [
      'Account(): username, email, created_at',
      'CreatorAccount(Account): bio, verified',
      'Streamer(CreatorAccount): platform, avg_viewers',
      'ConsumerAccount(Account): preferences, age, watch_history_timestamps[]',
      'Subscriber(ConsumerAccount): subscription_tier, active, notification_prefs[]',
      'Content(): title, created_at, duration, quality_opts[]',
      'LiveContent(Content): scheduled_start, is_live',
      'LiveStream(LiveContent): peak_viewers, chat_enabled',
      'RecordedContent(Content): file_size_mb, resolution, chapter_markers[]',
      'Clip(RecordedContent): start_offset, end_offset',
      'Channel(): name, description, created_at',
      'Tag(): name, aliases[]',
    ],
    retail: [
      'Product(): name, price, quantity, tags[]',
      'PhysicalProduct(Product): material, dimensions',
      'Apparel(PhysicalProduct): category, avail_sizes[]',
      'Accessories(PhysicalProduct): category, material_type',
      'Electronics(PhysicalProduct): model_no, standards[]',
      'DigitalProduct(Product): format, description',
      'Media(DigitalProduct): duration',
      'Software(DigitalProduct): version, platforms[]',
      'User(): first_name, last_name, email, phone_no[]',
      'Customer(User): loyalty_points',
      'Employee(User): department, role, hire_date',
      'CustOrder(): placed_at',
      'Review(): rating, body',
    ],
  };
  // name: from -> to, cardinality, participation of `from` where domains.md gives one.
  const RELATIONSHIPS: Record<string, string[]> = {
    social_media: [
      'produced_by: Content -> CreatorAccount many-to-one total',
      'hosted_by: LiveStream -> Streamer many-to-one total',
      'derived_from: Clip -> LiveStream many-to-one partial',
      'published_on: Content -> Channel many-to-many',
      'tagged_with: Content -> Tag many-to-many',
      'owns: CreatorAccount -> Channel many-to-many',
      'viewed: ConsumerAccount -> Content many-to-many',
      'subscribes_to: Subscriber -> CreatorAccount many-to-many',
      'shared: Account -> Clip many-to-many',
    ],
    retail: [
      'places: CustOrder -> Customer many-to-one total',
      'contains: CustOrder -> Product many-to-many',
      'processes: Employee -> CustOrder many-to-many',
      'recommends: Employee -> Product many-to-many',
      'writes: Review -> Customer many-to-one total',
      'about: Review -> Product many-to-one total',
      'downloads: Customer -> Software many-to-many',
      'installable_on: Software -> Electronics many-to-many',
      'streams_to: Media -> Electronics many-to-many',
      'paired_with: Apparel -> Accessories many-to-many',
      'compatible_with: Accessories -> Electronics many-to-many',
    ],
  };

  for (const [name, expected] of Object.entries(HIERARCHIES)) {
    it(`${name} transcribes the entities, hierarchy and attributes of domains.md`, () => {
      const domain = BUILT_IN_DOMAINS[name] as Domain;
      const actual = domain.entities.map(
        (e) =>
          `${e.name}(${e.parent ?? ''}): ${e.attributes.map((a) => a.name + (a.multiValued ? '[]' : '')).join(', ')}`,
      );
      expect(actual).toEqual(expected);
    });
  }

  for (const [name, expected] of Object.entries(RELATIONSHIPS)) {
    it(`${name} transcribes the relationships of domains.md`, () => {
      const domain = BUILT_IN_DOMAINS[name] as Domain;
      const actual = domain.relationships.map((r) => {
        const total = r.cardinality === 'many-to-one' ? ` ${r.participation?.from ?? '?'}` : '';
        return `${r.name}: ${r.from} -> ${r.to} ${r.cardinality}${total}`;
      });
      expect(actual).toEqual(expected);
    });
  }

  it('specialize as domains.md says: social_media disjoint and partial, retail disjoint and total', () => {
    const specs = (domain: Domain) =>
      domain.entities.filter((e) => e.specialization).map((e) => [e.name, e.specialization]);
    const partial = { disjoint: true, total: false };
    const total = { disjoint: true, total: true };
    expect(specs(BUILT_IN_DOMAINS.social_media as Domain)).toEqual([
      ['Account', partial],
      ['CreatorAccount', partial],
      ['ConsumerAccount', partial],
      ['Content', partial],
      ['LiveContent', partial],
      ['RecordedContent', partial],
    ]);
    expect(specs(BUILT_IN_DOMAINS.retail as Domain)).toEqual([
      ['Product', total],
      ['PhysicalProduct', total],
      ['DigitalProduct', total],
      ['User', total],
    ]);
  });

  it('name foreign-key roles on the many-to-one relationships', () => {
    const roles = Object.values(BUILT_IN_DOMAINS).flatMap((d) =>
      d.relationships.filter((r) => r.cardinality === 'many-to-one').map((r) => `${r.name}:${r.role}`),
    );
    expect(roles).toEqual([
      'produced_by:producer',
      'hosted_by:host',
      'derived_from:source_stream',
      'places:customer',
      'writes:author',
      'about:product',
    ]);
  });

  it('reach the paper’s orders of magnitude at paper scale', () => {
    const social = BUILT_IN_DOMAINS.social_media as Domain;
    const retail = BUILT_IN_DOMAINS.retail as Domain;
    const near = (actual: number, target: number) => expect(Math.abs(actual - target) / target).toBeLessThan(0.02);
    near(expectedCount(social, 'CreatorAccount', 'paper'), 2843);
    near(expectedCount(social, 'Streamer', 'paper'), 1480);
    near(expectedCount(social, 'LiveStream', 'paper'), 2000);
    near(expectedCount(social, 'LiveContent', 'paper') - expectedCount(social, 'LiveStream', 'paper'), 2000);
    near(expectedCount(retail, 'Electronics', 'paper'), 1000);
  });

  it('exercise every class at tiny scale, including direct instances of partial parents', () => {
    for (const domain of Object.values(BUILT_IN_DOMAINS)) {
      const index = indexDomain(domain);
      for (const entity of domain.entities) {
        const count = expectedCount(domain, entity.name, 'tiny');
        expect(count, `${domain.name}.${entity.name}`).toBeGreaterThanOrEqual(5);
        if (entity.specialization?.total === false) {
          const share = 1 - index.children(entity.name).reduce((sum, c) => sum + (c.fraction ?? 0), 0);
          expect(count * share, `direct ${domain.name}.${entity.name}`).toBeGreaterThanOrEqual(2);
        }
      }
    }
  });

  it('carry a lexicon on every entity, attribute and relationship', () => {
    for (const domain of Object.values(BUILT_IN_DOMAINS)) {
      for (const entity of domain.entities) {
        for (const attribute of entity.attributes)
          expect(attribute.lexicon, `${entity.name}.${attribute.name}`).toBeDefined();
      }
      for (const relationship of domain.relationships) expect(relationship.lexicon.reverse).not.toBe('');
    }
  });

  it('name only faker methods that exist', () => {
    const paths = Object.values(BUILT_IN_DOMAINS)
      .flatMap((d) => d.entities.flatMap((e) => e.attributes))
      .flatMap((a) => [
        ...(a.hints?.faker ? [a.hints.faker] : []),
        ...Object.values(a.hints?.bySubclass ?? {}).flatMap((h) => (h.faker ? [h.faker] : [])),
      ]);
    expect(paths.length).toBeGreaterThan(10);
    // Text reads like real data: no placeholder Latin.
    expect(paths.filter((p) => p.startsWith('lorem.'))).toEqual([]);
    for (const path of paths) {
      const [module, method] = path.split('.') as [string, string];
      const fn = (faker as unknown as Record<string, Record<string, unknown>>)[module]?.[method];
      expect(typeof fn, path).toBe('function');
    }
  });

  it('are deeply frozen', () => {
    const walk = (value: unknown, path: string): void => {
      if (typeof value !== 'object' || value === null) return;
      expect(Object.isFrozen(value), path).toBe(true);
      for (const [key, child] of Object.entries(value)) walk(child, `${path}.${key}`);
    };
    walk(BUILT_IN_DOMAINS, 'BUILT_IN_DOMAINS');
    const retail = BUILT_IN_DOMAINS.retail as any;
    expect(() => {
      retail.entities[0].attributes[0].hints.faker = 'lorem.word';
    }).toThrow(TypeError);
  });
});

describe('JSON form', () => {
  const domains: [string, Domain][] = [
    ...Object.entries(BUILT_IN_DOMAINS),
    ...readdirSync(VALID)
      .filter((f) => f.endsWith('.json'))
      .sort()
      .map((f): [string, Domain] => [f, readValid(f)]),
  ];

  it('has valid fixtures besides the built-in domains', () => {
    expect(domains.map(([name]) => name)).toEqual(['social_media', 'retail', 'library.json', 'retail-mini.json']);
  });

  for (const [name, domain] of domains) {
    it(`round-trips ${name}: print, parse, print again gives the same domain and the same bytes`, () => {
      const text = domainToJson(domain);
      expect(text.endsWith('}\n')).toBe(true);
      expect(text.split('\n')[1]).toMatch(/^ {2}"name": /);
      const back = parseDomainJson(text, `${name}.json`);
      expect(back).toEqual(domain);
      expect(domainToJson(back)).toBe(text);
    });

    it(`validates ${name} the same way as JSON and as TypeScript data`, () => {
      const fromJson = JSON.parse(domainToJson(domain)) as unknown;
      expect(checkDomain(fromJson)).toEqual(checkDomain(domain));
      expect(validateDomain(fromJson)).toEqual(validateDomain(domain));
    });
  }

  it('writes keys in a canonical order whatever order the model used', () => {
    const shuffled = {
      relationships: [],
      entities: [
        {
          attributes: [{ type: { kind: 'text' }, name: 'label' }],
          lexicon: { plural: 'things', singular: 'thing' },
          name: 'Thing',
        },
      ],
      name: 'order_test',
    };
    expect(domainToJson(validateDomain(shuffled))).toBe(
      [
        '{',
        '  "name": "order_test",',
        '  "entities": [',
        '    {',
        '      "name": "Thing",',
        '      "lexicon": { "singular": "thing", "plural": "things" },',
        '      "attributes": [',
        '        {',
        '          "name": "label",',
        '          "type": { "kind": "text" }',
        '        }',
        '      ]',
        '    }',
        '  ],',
        '  "relationships": []',
        '}',
        '',
      ].join('\n'),
    );
  });

  it('rejects duplicate keys, which JSON.parse would silently merge', () => {
    expect(() => parseDomainJson('{\n  "name": "a",\n  "name": "b"\n}', 'dup.json')).toThrow(
      new ConfigError('dup.json:3:3: invalid JSON: duplicate key "name"'),
    );
  });

  it('reports text after the value, a BOM-prefixed file parses', () => {
    expect(() => parseDomainJson('{}\n}', 'x.json')).toThrow(
      "x.json:2:1: invalid JSON: unexpected '}' after the end of the JSON value",
    );
    const text = `\uFEFF${domainToJson(BUILT_IN_DOMAINS.retail as Domain)}`;
    expect(parseDomainJson(text, 'bom.json').name).toBe('retail');
  });

  it('treats a "__proto__" key as an unknown key rather than a prototype', () => {
    const text = domainToJson(readValid('retail-mini.json')).replace(
      '"name": "retail",',
      '"name": "retail", "__proto__": { "x": 1 },',
    );
    expect(() => parseDomainJson(text, 'p.json')).toThrow(
      'p.json: domains.retail.__proto__: unknown key (expected one of',
    );
  });
});

describe('malformed models', () => {
  const names = readdirSync(MALFORMED)
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -'.json'.length))
    .sort();

  it('has at least 15 fixtures, each with its expected message, all different', () => {
    expect(names.length).toBeGreaterThanOrEqual(15);
    const expectedFiles = readdirSync(MALFORMED).filter((f) => f.endsWith('.expected'));
    expect(expectedFiles.sort()).toEqual(names.map((n) => `${n}.expected`));
    const messages = names.map((n) => readFileSync(`${MALFORMED}${n}.expected`, 'utf8'));
    expect(new Set(messages).size).toBe(names.length);
  });

  it('are each one mistake away from a valid model', () => {
    expect(checkDomain(JSON.parse(readFileSync(`${VALID}retail-mini.json`, 'utf8')))).toEqual([]);
  });

  for (const name of names) {
    it(`${name}: one-line message naming the path`, () => {
      const expected = readFileSync(`${MALFORMED}${name}.expected`, 'utf8').replace(/\n$/, '');
      expect(expected).not.toContain('\n');
      let error: unknown;
      try {
        parseDomainJson(readFileSync(`${MALFORMED}${name}.json`, 'utf8'), `${name}.json`);
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ConfigError);
      const message = (error as ConfigError).message;
      expect(message).not.toMatch(/[\n\r]/);
      expect(message).toBe(expected);
    });
  }
});

describe('checkDomain', () => {
  const base = () => mutable(readValid('retail-mini.json'));

  it('returns every issue in document order', () => {
    const model = base();
    model.relationships[2].to = 'Accesories';
    model.entities[0].attributes[1].type.scale = 12;
    model.entities[3].lexicon.plural = ' ';
    model.entities[4].bogus = 1;
    expect(checkDomain(model)).toEqual([
      {
        path: 'domains.retail.entities.Product.attributes.price.type.scale',
        message: 'must be between 0 and the precision 10, got 12',
      },
      { path: 'domains.retail.entities.Customer.lexicon.plural', message: 'must not be empty' },
      {
        path: 'domains.retail.entities.CustOrder.bogus',
        message:
          'unknown key (expected one of name, parent, specialization, lexicon, counts, fraction, attributes, storage, registry)',
      },
      {
        path: 'domains.retail.relationships.paired_with.to',
        message: 'unknown entity "Accesories" (did you mean "Accessories"?)',
      },
    ]);
  });

  it("checks an entity's everyday noun like its lexicon, and takes a good one", () => {
    const model = base();
    model.entities[3].lexicon.everyday = { singular: 'shopper', plural: '' };
    model.entities[4].lexicon.everyday = { singular: 'purchase', plural: 'purchases', casual: true };
    expect(checkDomain(model)).toEqual([
      { path: 'domains.retail.entities.Customer.lexicon.everyday.plural', message: 'must not be empty' },
      {
        path: 'domains.retail.entities.CustOrder.lexicon.everyday.casual',
        message: 'unknown key (expected one of singular, plural)',
      },
    ]);
    model.entities[3].lexicon.everyday = { singular: 'shopper', plural: 'shoppers' };
    delete model.entities[4].lexicon.everyday.casual;
    expect(checkDomain(model)).toEqual([]);
  });

  it('takes names by subclass only for a text attribute, from classes under its entity, each from one source', () => {
    const model = base();
    const name = model.entities[0].attributes[0];
    name.hints = { bySubclass: { Apparel: { pool: ['Linen Shirt'] }, Customer: { faker: 'person.firstName' } } };
    expect(checkDomain(model)).toEqual([
      {
        path: 'domains.retail.entities.Product.attributes.name.hints.bySubclass.Customer',
        message: '"Customer" is not a class under Product',
      },
    ]);
    name.hints = { unique: true, bySubclass: { Apparel: { pool: ['Linen Shirt'], faker: 'person.firstName' } } };
    expect(checkDomain(model)).toEqual([
      {
        path: 'domains.retail.entities.Product.attributes.name.hints.bySubclass.Apparel',
        message: 'needs one of faker or pool',
      },
      {
        path: 'domains.retail.entities.Product.attributes.name.hints.bySubclass',
        message: 'cannot be combined with unique',
      },
    ]);
    name.hints = { bySubclass: { Apparel: { pool: ['Linen Shirt'] } } };
    expect(checkDomain(model)).toEqual([]);
  });

  it('takes bounds by subclass for a number attribute: min and max, in order, never a pool', () => {
    const model = base();
    const price = model.entities[0].attributes.find((a: { name: string }) => a.name === 'price');
    price.hints = { min: 1, max: 2000, bySubclass: { Apparel: { min: 8, max: 400 } } };
    expect(checkDomain(model)).toEqual([]);
    price.hints = { bySubclass: { Apparel: { pool: ['cheap'] }, Accessories: { min: 900, max: 20 } } };
    const at = 'domains.retail.entities.Product.attributes.price.hints.bySubclass';
    expect(checkDomain(model)).toEqual([
      { path: `${at}.Apparel`, message: 'takes min and max for a number attribute, not faker or pool' },
      { path: `${at}.Apparel`, message: 'needs min or max' },
      { path: `${at}.Accessories.max`, message: '20 is less than min 900' },
    ]);
    price.hints = { min: 1, max: 2000 };
    const name = model.entities[0].attributes[0];
    name.hints = { bySubclass: { Apparel: { min: 1 } } };
    expect(checkDomain(model)).toEqual([
      {
        path: 'domains.retail.entities.Product.attributes.name.hints.bySubclass.Apparel',
        message: 'min and max apply to number attributes',
      },
      {
        path: 'domains.retail.entities.Product.attributes.name.hints.bySubclass.Apparel',
        message: 'needs one of faker or pool',
      },
    ]);
  });

  it('uses the given path for the domain and index paths for unnamed elements', () => {
    const model = base();
    delete model.entities[1].attributes[0].name;
    expect(checkDomain(model, 'datasets.shop.domain')).toEqual([
      { path: 'datasets.shop.domain.entities.Apparel.attributes[0].name', message: 'must be a string, got nothing' },
    ]);
  });

  it('quotes keys that are not identifiers in paths', () => {
    const model = base();
    model['max rows'] = 3;
    expect(checkDomain(model)[0]?.path).toBe('domains.retail["max rows"]');
  });

  it('checks fraction sums only where they must stay within 1', () => {
    const model = base();
    model.entities[1].fraction = 0.8;
    model.entities[2].fraction = 0.8;
    expect(checkDomain(model).map((i) => i.path)).toEqual(['domains.retail.entities.Product.specialization']);
    model.entities[0].specialization.total = true; // disjoint and total: the shares are the whole
    expect(checkDomain(model).map((i) => i.path)).toEqual(['domains.retail.entities.Product.specialization']);
    model.entities[0].specialization = { disjoint: false, total: false }; // overlapping: each share on its own
    expect(checkDomain(model)).toEqual([]);
  });

  it('reports a cycle once even when other entities hang off it', () => {
    const model = base();
    model.entities[0].parent = 'Apparel';
    delete model.entities[0].counts;
    model.entities[0].fraction = 0.5;
    const cycles = checkDomain(model).filter((i) => i.message.startsWith('inheritance cycle'));
    expect(cycles).toEqual([
      { path: 'domains.retail.entities.Product.parent', message: 'inheritance cycle Product -> Apparel -> Product' },
    ]);
  });

  it('takes date bounds as calendar dates only, for dates and timestamps alike', () => {
    const model = base();
    const hints = model.entities[4].attributes[0].hints;
    hints.max = '2025-12-31T12:00:00Z';
    expect(checkDomain(model)).toEqual([
      {
        path: 'domains.retail.entities.CustOrder.attributes.placed_at.hints.max',
        message: 'must be an ISO date such as "2024-05-31", got "2025-12-31T12:00:00Z"',
      },
    ]);
    hints.max = '2020-06-30';
    expect(checkDomain(model)).toEqual([
      {
        path: 'domains.retail.entities.CustOrder.attributes.placed_at.hints.max',
        message: '"2020-06-30" is less than min "2021-01-01"',
      },
    ]);
  });

  it('rejects a required multi-valued attribute whose set size exceeds its distinct values', () => {
    const model = base();
    model.entities[1].attributes[0].hints.setSize = [1, 4];
    expect(checkDomain(model)).toEqual([
      {
        path: 'domains.retail.entities.Apparel.attributes.avail_sizes.hints.setSize',
        message: 'max 4 exceeds the 3 distinct values available',
      },
    ]);
  });
});

describe('validateDomain and defineDomain', () => {
  it('throw the first issue as one line, prefixed by the origin when given', () => {
    const model = mutable(BUILT_IN_DOMAINS.retail as Domain);
    model.relationships.find((r: { name: string }) => r.name === 'paired_with').to = 'Accesories';
    const message =
      'domains.retail.relationships.paired_with.to: unknown entity "Accesories" (did you mean "Accessories"?)';
    expect(() => validateDomain(model)).toThrow(new ConfigError(message));
    expect(() => validateDomain(model, 'model.json')).toThrow(new ConfigError(`model.json: ${message}`));
    expect(() => defineDomain(model)).toThrow(new ConfigError(message));
  });

  it('return a frozen copy, leaving the input alone', () => {
    const input = {
      name: 'tiny',
      entities: [
        { name: 'Thing', lexicon: noun('thing'), attributes: [attr.numeric('weight', 6, 3, { optional: true })] },
      ],
      relationships: [],
    };
    const domain = defineDomain(input);
    expect(domain).toEqual(input);
    expect(domain).not.toBe(input);
    expect(Object.isFrozen(input)).toBe(false);
    expect(Object.isFrozen(domain.entities[0]?.attributes[0]?.type)).toBe(true);
  });

  it('accept what the attr helpers build', () => {
    const attributes = [
      attr.integer('a'),
      attr.bigint('b'),
      attr.numeric('c', 12, 2),
      attr.text('d', { optional: true, hints: { nullRate: 0.5 } }),
      attr.boolean('e'),
      attr.date('f', { hints: { min: '2020-01-01', max: '2020-12-31' } }),
      attr.timestamptz('g', { multiValued: true, hints: { setSize: [1, 2] } }),
      attr.enum('h', ['x', 'y']),
    ];
    expect(attributes.map((a) => a.type.kind)).toEqual([
      'integer',
      'bigint',
      'numeric',
      'text',
      'boolean',
      'date',
      'timestamptz',
      'enum',
    ]);
    const domain = {
      name: 'kinds',
      entities: [{ name: 'Thing', lexicon: noun('thing'), attributes }],
      relationships: [],
    };
    expect(checkDomain(domain)).toEqual([]);
  });
});
