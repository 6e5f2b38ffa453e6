import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { indexDomain } from '../../generator/er-model/er-index.ts';
import { parseDomainJson } from '../../generator/er-model/domain-json.ts';
import type { Domain } from '../../generator/er-model/er-model.ts';
import { generateInstance } from '../../generator/instance/generate-instance.ts';
import { instanceHash } from '../../generator/instance/canonical-instance.ts';
import { ODD_TEXTS } from '../../generator/instance/value-generator.ts';
import type { ConceptualInstance, EntityObject, Scalar } from '../../generator/instance/conceptual-instance.ts';
import { DOMAINS, INSTANCES } from '../helpers/build-fixtures.ts';
import { REPO_ROOT } from '../helpers/run-cli.ts';

const library = parseDomainJson(
  readFileSync(join(REPO_ROOT, 'test/fixtures/er-model/valid/library.json'), 'utf8'),
  'library.json',
);
const ALL: [string, Domain][] = [...DOMAINS, ['library', library]];

function membersOf(domain: Domain, instance: ConceptualInstance, entity: string): EntityObject[] {
  const index = indexDomain(domain);
  return (instance.objects[index.root(entity).name] ?? []).filter((o) =>
    o.classes.some((c) => index.isAncestorOrSelf(entity, c)),
  );
}

/** Text no real record holds: backslashes, control characters, empty or padded strings, `NULL`. */
const UNREALISTIC = /[\\\u0000-\u001f"]|^\s|\s$|^$|^NULL$/u;

describe.each(ALL)('the %s instance', (_name, domain) => {
  const index = indexDomain(domain);

  it('is the same for the same seed and differs for another', () => {
    const a = generateInstance(domain, { seed: 9, scale: 'tiny' });
    expect(instanceHash(generateInstance(domain, { seed: 9, scale: 'tiny' }))).toBe(instanceHash(a));
    expect(instanceHash(generateInstance(domain, { seed: 10, scale: 'tiny' }))).not.toBe(instanceHash(a));
    expect(instanceHash(generateInstance(domain, { seed: 9, scale: 'tiny', profile: 'edge' }))).not.toBe(
      instanceHash(a),
    );
  });

  it('follows the scale preset and per-entity overrides', () => {
    const root = index.roots[index.roots.length - 1] as (typeof index.roots)[number];
    const inst = generateInstance(domain, { seed: 1, scale: 'small', counts: { [root.name]: 77 } });
    expect(inst.objects[root.name]).toHaveLength(77);
    for (const other of index.roots.slice(0, -1))
      expect(inst.objects[other.name]).toHaveLength(other.counts?.small ?? 500);
  });

  it('plants odd text (backslashes, control characters, `\\N`, empty strings, accents, other scripts) on the edge-case instance alone', () => {
    const textsOf = (inst: ConceptualInstance): Set<string> =>
      new Set(
        Object.values(inst.objects).flatMap((objects) =>
          objects.flatMap((o) =>
            Object.values(o.values)
              .flatMap((v) => (Array.isArray(v) ? v : [v]))
              .filter((v): v is string => typeof v === 'string'),
          ),
        ),
      );
    const edgeOnly = ODD_TEXTS;
    const main = textsOf(generateInstance(domain, { seed: 1, scale: 'tiny' }));
    const edge = textsOf(generateInstance(domain, { seed: 1, scale: 'tiny', profile: 'edge' }));
    expect(edgeOnly.filter((t) => main.has(t))).toEqual([]);
    expect(['line\nbreak', 'tab\there', 'back\\slash', '\\N', ''].filter((t) => !edge.has(t))).toEqual([]);
    expect(edgeOnly.filter((t) => edge.has(t)).length).toBeGreaterThanOrEqual(edgeOnly.length - 1);
  });

  it.each(INSTANCES)('holds the cases that break naive SQL (seed $seed, $profile)', ({ seed, profile }) => {
    const inst = generateInstance(domain, { seed, scale: 'tiny', profile });
    for (const entity of domain.entities) {
      const members = membersOf(domain, inst, entity.name);
      expect(members.length, `${entity.name} has members`).toBeGreaterThan(0);
      for (const attribute of entity.attributes) {
        const values = members.map((m) => m.values[attribute.name]);
        const where = `${entity.name}.${attribute.name}`;
        expect(
          values.every((v) => v !== undefined),
          `${where} is set on every member`,
        ).toBe(true);
        if (members.length < 2) continue;
        if (attribute.multiValued) {
          if (attribute.optional)
            expect(
              values.some((v) => Array.isArray(v) && v.length === 0),
              `${where} has an empty set`,
            ).toBe(true);
          expect(
            values.some((v) => Array.isArray(v) && v.length > 0),
            `${where} has a non-empty set`,
          ).toBe(true);
        } else {
          if (attribute.optional) expect(values.includes(null), `${where} has a NULL`).toBe(true);
          if (!attribute.optional) expect(values.includes(null), `${where} has no NULL`).toBe(false);
          const present = values.filter((v) => v !== null) as Scalar[];
          if (attribute.type.kind === 'text' && !attribute.hints?.unique && present.length >= 3) {
            // On the edge-case profile every text attribute has odd text; the main instance
            // has none: its text reads like real data.
            expect(
              present.some((v) => ODD_TEXTS.includes(v as string)),
              `${where} has odd text`,
            ).toBe(profile === 'edge');
            if (profile !== 'edge')
              expect(
                present.filter((v) => typeof v === 'string' && UNREALISTIC.test(v)),
                `${where} holds no edge-case-only text on the main instance`,
              ).toEqual([]);
            expect(new Set(present).size, `${where} has a tie`).toBeLessThan(present.length);
          }
          if (attribute.hints?.unique) expect(new Set(present).size, `${where} is unique`).toBe(present.length);
        }
      }
    }
    for (const rel of domain.relationships) {
      const links = inst.links[rel.name] ?? [];
      const from = membersOf(domain, inst, rel.from).map((o) => o.id);
      const to = membersOf(domain, inst, rel.to).map((o) => o.id);
      const fromLinked = new Set(links.map((l) => l.from));
      const toLinked = new Set(links.map((l) => l.to));
      expect(links.length, `${rel.name} has links`).toBeGreaterThan(0);
      for (const l of links) {
        expect(
          from.includes(l.from) && to.includes(l.to),
          `${rel.name} link ${l.from}→${l.to} joins the right classes`,
        ).toBe(true);
      }
      if (rel.participation?.from === 'total')
        expect(fromLinked.size, `every ${rel.from} has a partner in ${rel.name}`).toBe(from.length);
      else if (from.length >= 2)
        expect(fromLinked.size, `some ${rel.from} has no partner in ${rel.name}`).toBeLessThan(from.length);
      if (rel.participation?.to !== 'total' && to.length >= 2)
        expect(toLinked.size, `some ${rel.to} has no partner in ${rel.name}`).toBeLessThan(to.length);
      if (rel.cardinality !== 'many-to-many')
        expect(fromLinked.size, `${rel.name} gives each ${rel.from} at most one partner`).toBe(links.length);
      if (rel.cardinality === 'one-to-one') expect(toLinked.size, `${rel.name} is one-to-one`).toBe(links.length);
      expect(new Set(links.map((l) => `${l.from}/${l.to}`)).size, `${rel.name} has no duplicate links`).toBe(
        links.length,
      );
    }
  });

  it('respects the hierarchy: disjoint levels give one most specific class, total levels no direct members', () => {
    const inst = generateInstance(domain, { seed: 4, scale: 'small' });
    for (const root of index.hierarchyRoots) {
      for (const o of inst.objects[root.name] ?? []) {
        for (const c of o.classes) {
          const entity = index.entity(c);
          if (index.children(c).length > 0)
            expect(entity.specialization?.total, `${c} has direct member ${o.id}`).not.toBe(true);
        }
        if (index.hierarchyIsDisjoint(root.name)) expect(o.classes).toHaveLength(1);
      }
    }
  });
});

describe('names by subclass', () => {
  it('names each kind of product, and gives it file formats, from its own source', () => {
    const retail = DOMAINS.find(([n]) => n === 'retail')?.[1] as Domain;
    const hints = retail.entities.find((e) => e.name === 'Product')?.attributes.find((a) => a.name === 'name')?.hints;
    const pools = hints?.bySubclass ?? {};
    const inst = generateInstance(retail, { seed: 1, scale: 'small' });
    const products = inst.objects['Product'] as EntityObject[];
    const odd = products.filter((o) => ODD_TEXTS.includes(o.values['name'] as string));
    expect(odd).toEqual([]);
    for (const kind of ['Electronics', 'Apparel', 'Accessories', 'Software']) {
      const names = products
        .filter((o) => o.classes.includes(kind) && !odd.includes(o))
        .map((o) => o.values['name'] as string);
      expect(names.length).toBeGreaterThan(50);
      // Every device is named from the device names, every app from the app names.
      expect(names.filter((n) => !pools[kind]?.pool?.includes(n))).toEqual([]);
    }
    // An app comes as a package, never as an mp3.
    const apps = products.filter((o) => o.classes.includes('Software')).map((o) => o.values['format']);
    expect(new Set(apps)).toEqual(new Set(['zip', 'exe', 'dmg', 'apk']));
    const devices = new Set(pools['Electronics']?.pool);
    expect(products.filter((o) => o.classes.includes('Software') && devices.has(o.values['name'] as string))).toEqual(
      [],
    );
  });
});

describe('bounds by subclass', () => {
  it('prices each kind of product within its own bounds: an app or an album is never priced like a laptop', () => {
    const retail = DOMAINS.find(([n]) => n === 'retail')?.[1] as Domain;
    const hints = retail.entities.find((e) => e.name === 'Product')?.attributes.find((a) => a.name === 'price')?.hints;
    const bounds = hints?.bySubclass ?? {};
    const inst = generateInstance(retail, { seed: 3, scale: 'small' });
    const products = inst.objects['Product'] as EntityObject[];
    for (const kind of ['Electronics', 'Apparel', 'Accessories', 'Media', 'Software']) {
      const prices = products.filter((o) => o.classes.includes(kind)).map((o) => Number(o.values['price']));
      const { min, max } = bounds[kind] ?? {};
      expect(prices.length).toBeGreaterThan(50);
      expect(Math.min(...prices)).toBeGreaterThanOrEqual(min as number);
      expect(Math.max(...prices)).toBeLessThanOrEqual(max as number);
    }
    const top = (kind: string) =>
      Math.max(...products.filter((o) => o.classes.includes(kind)).map((o) => Number(o.values['price'])));
    expect(top('Software')).toBeLessThan(top('Electronics') / 3);
  });
});

describe('skew', () => {
  it('makes some targets far more popular than others (Zipf-like degrees)', () => {
    const domain = DOMAINS.find(([n]) => n === 'social_media')?.[1] as Domain;
    const inst = generateInstance(domain, { seed: 1, scale: 'small' });
    const counts = new Map<number, number>();
    for (const l of inst.links['tagged_with'] ?? []) counts.set(l.to, (counts.get(l.to) ?? 0) + 1);
    const sorted = [...counts.values()].sort((a, b) => b - a);
    const median = sorted[Math.floor(sorted.length / 2)] as number;
    expect(sorted[0]).toBeGreaterThan(5 * median);
  });
});
