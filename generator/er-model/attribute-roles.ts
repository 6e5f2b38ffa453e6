/**
 * Attribute roles, declared or inferred. A model that gives an attribute no `role` gets one
 * from its type and hints, by the first row of this table that fits (docs/er-model.md
 * prints the same table):
 *
 * | type                    | hint or name                                         | role        |
 * |-------------------------|------------------------------------------------------|-------------|
 * | boolean                 |                                                      | flag        |
 * | enum                    |                                                      | category    |
 * | date                    |                                                      | date        |
 * | timestamptz             |                                                      | time        |
 * | text                    | a `pool`                                             | category    |
 * | text                    | faker `internet.email`, `internet.url`, `phone.*`     | contact     |
 * | text                    | faker `lorem.*`, or a path naming a description       | description |
 * | text                    | `unique`, a faker name or title, or a name-like name | name        |
 * | text                    | anything else                                        | description |
 * | integer, bigint, numeric| `unique`                                             | identifier  |
 * | integer, bigint         | named `…_count`, `num_…`, `quantity`                 | count       |
 * | integer                 | bounds within 0..10                                  | score       |
 * | integer, bigint, numeric| anything else                                        | measure     |
 *
 * An inferred measure's unit is its own name (so it is combined with no other attribute)
 * and it is additive unless its name says an age, a year, a rank, a level or a rate.
 */
import type { Attribute, AttributeRole, Domain } from './er-model.ts';

/** One attribute's role: the declaring entity or relationship, and whether the model said it. */
export interface AttributeRoleEntry {
  /** The entity (the class that declares it) or relationship the attribute belongs to. */
  readonly owner: string;
  readonly attribute: string;
  readonly role: AttributeRole;
  /** True when the model gave no role and this one was read off the type and hints. */
  readonly inferred: boolean;
  /** For an inferred role: the row of the inference table that gave it ("text with a pool"). */
  readonly because?: string;
}

const DESCRIPTION_FAKER = /^lorem\.|description|catchphrase|paragraph|sentence|bio/iu;
const CONTACT_FAKER = /^(internet\.(email|exampleemail|url|domainname)|phone\.)/iu;
const NAME_FAKER =
  /^(person\.|company\.name|book\.title|commerce\.productname|internet\.(username|displayname)|music\.songname|location\.city|location\.country)/iu;
const NAME_LIKE = /(^|_)(name|title|username|handle|label|nickname)s?$/u;
const COUNT_LIKE = /(_count$|^num_|^n_|^quantity$|_quantity$)/u;
const NOT_ADDITIVE = /(^|_)(age|year|years|rank|level|percent|pct|ratio|rate|score|rating|temperature)($|_)/u;

/**
 * The role of an attribute that declares none, with the row of the inference table that
 * gave it.
 *
 * @example
 * inferRole({ name: 'platform', type: { kind: 'enum', values: ['twitch', 'kick'] } })
 * // { role: { kind: 'category' }, because: 'an enum' }
 */
export function inferRole(attribute: Attribute): { readonly role: AttributeRole; readonly because: string } {
  const { type, hints, name } = attribute;
  const faker = hints?.faker ?? '';
  switch (type.kind) {
    case 'boolean':
      return { role: { kind: 'flag' }, because: 'a boolean' };
    case 'enum':
      return { role: { kind: 'category' }, because: 'an enum' };
    case 'date':
      return { role: { kind: 'date' }, because: 'a date' };
    case 'timestamptz':
    case 'timestamp':
      return { role: { kind: 'time' }, because: 'a timestamp' };
    case 'text':
      if (hints?.pool !== undefined) return { role: { kind: 'category' }, because: 'text with a pool' };
      if (CONTACT_FAKER.test(faker)) return { role: { kind: 'contact' }, because: `text from faker ${faker}` };
      if (DESCRIPTION_FAKER.test(faker)) return { role: { kind: 'description' }, because: `text from faker ${faker}` };
      if (hints?.unique === true) return { role: { kind: 'name' }, because: 'unique text' };
      if (NAME_FAKER.test(faker)) return { role: { kind: 'name' }, because: `text from faker ${faker}` };
      if (NAME_LIKE.test(name)) return { role: { kind: 'name' }, because: 'text named as a name' };
      return { role: { kind: 'description' }, because: 'free text' };
    case 'integer':
    case 'bigint':
    case 'numeric': {
      if (hints?.unique === true) return { role: { kind: 'identifier' }, because: 'a unique number' };
      if (type.kind !== 'numeric' && COUNT_LIKE.test(name))
        return { role: { kind: 'count' }, because: 'a whole number named as a count' };
      const min = typeof hints?.min === 'number' ? hints.min : undefined;
      const max = typeof hints?.max === 'number' ? hints.max : undefined;
      if (type.kind === 'integer' && min !== undefined && max !== undefined && min >= 0 && max <= 10)
        return { role: { kind: 'score' }, because: 'a whole number within 0..10' };
      return {
        role: { kind: 'measure', unit: name, additive: !NOT_ADDITIVE.test(name) },
        because: min !== undefined && max !== undefined ? 'a bounded number' : 'a number',
      };
    }
  }
}

/**
 * Every attribute's role, declared or inferred: entities' attributes in declaration order
 * (each under the class that declares it), then relationships'. Multi-valued attributes
 * have the role of their elements.
 *
 * @example
 * attributeRoles(socialMedia).find((r) => r.attribute === 'price')
 * // { owner: 'Product', attribute: 'price', role: { kind: 'measure', unit: 'USD', additive: true }, inferred: false }
 */
export function attributeRoles(domain: Domain): readonly AttributeRoleEntry[] {
  const cached = CACHE.get(domain);
  if (cached) return cached.list;
  const list: AttributeRoleEntry[] = [];
  const entry = (owner: string, a: Attribute): AttributeRoleEntry => {
    if (a.role !== undefined) return { owner, attribute: a.name, role: a.role, inferred: false };
    const { role, because } = inferRole(a);
    return { owner, attribute: a.name, role, inferred: true, because };
  };
  for (const e of domain.entities) for (const a of e.attributes) list.push(entry(e.name, a));
  for (const r of domain.relationships) for (const a of r.attributes ?? []) list.push(entry(r.name, a));
  const byKey = new Map(list.map((x) => [`${x.owner}.${x.attribute}`, x.role]));
  CACHE.set(domain, { list, byKey });
  return list;
}

const CACHE = new WeakMap<Domain, { list: readonly AttributeRoleEntry[]; byKey: ReadonlyMap<string, AttributeRole> }>();

/**
 * The role of one attribute by the entity or relationship that declares it; `id` is the
 * identifier of every entity. Undefined for an attribute the domain does not have.
 *
 * @example
 * roleOf(retail, 'Review', 'rating') // { kind: 'score' }
 */
export function roleOf(domain: Domain, owner: string, attribute: string): AttributeRole | undefined {
  if (attribute === 'id') return { kind: 'identifier' };
  attributeRoles(domain);
  return CACHE.get(domain)?.byKey.get(`${owner}.${attribute}`);
}

/** A role as one short phrase: `measure (USD, additive)`, `category`. */
export function describeRole(role: AttributeRole): string {
  if (role.kind !== 'measure') return role.kind;
  return `measure (${role.unit}, ${role.additive ? 'additive' : 'not additive'}${role.multipliedBy?.length ? `, × ${role.multipliedBy.join(', ')}` : ''})`;
}
