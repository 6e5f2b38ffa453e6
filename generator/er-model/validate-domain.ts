import { ConfigError } from '../common/errors.ts';
import { snakeCase } from './er-index.ts';
import { inferRole } from './attribute-roles.ts';
import { isSafeDefault, isSafeExpression, isSqlTypeName } from './physical-sql.ts';
import { ATTRIBUTE_ROLE_KINDS } from './er-model.ts';
import type {
  Attribute,
  AttributeLexicon,
  AttributeRole,
  AttributeRoleKind,
  AttributeStorage,
  AttributeTypeKind,
  DegreeHints,
  Domain,
  Entity,
  EntityDiscriminator,
  EntityStorage,
  NounLexicon,
  OpaqueColumn,
  EntityLexicon,
  Relationship,
  RelationshipLexicon,
  RelationshipStorage,
  ScaleCounts,
  Specialization,
  SubclassValueHints,
  ValueHints,
} from './er-model.ts';

/** One problem in a model: where it is and what is wrong, both on one line. */
export interface DomainIssue {
  /** `domains.retail.relationships.paired_with.to` */
  readonly path: string;
  /** `unknown entity "Accesories"` */
  readonly message: string;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const FAKER_PATH = /^[A-Za-z][A-Za-z0-9]*\.[A-Za-z][A-Za-z0-9]*$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };
/** PostgreSQL's NAMEDATALEN - 1; identifiers are ASCII, so characters are bytes. */
const MAX_NAME_BYTES = 63;
/** Slack for fraction sums written as decimals (0.45 + 0.34 + 0.21). */
const SUM_TOLERANCE = 1e-9;

/**
 * Size caps, checked before anything is allocated for them: an instance lives in memory, so a
 * count of a billion would crash the process instead of failing with a message.
 */
export const MODEL_LIMITS = {
  /** Objects of one root entity at one scale. */
  countPerEntity: 10_000_000,
  /** Objects of all root entities together at one scale. */
  countTotal: 20_000_000,
  /** Partners per object (degree mean and max) and elements per set (setSize). */
  perObject: 1000,
  /** Elements of a model: far above any real one, and small enough to build every variant quickly. */
  entities: 200,
  relationships: 400,
  /** Attributes of one entity or relationship, and values of one enum or pool. */
  attributes: 200,
  listValues: 10_000,
  /**
   * Attributes of the whole model: single-table inheritance puts a hierarchy's attributes and
   * foreign keys in one table, and PostgreSQL allows 1,600 columns.
   */
  attributesTotal: 1000,
  /** Levels of an inheritance hierarchy below its root. */
  hierarchyDepth: 16,
  /** Decimal places the instance generator can print (Number#toFixed stops at 100). */
  numericScale: 100,
  /** Numeric bounds beyond this lose digits in a double, so the values would not round-trip. */
  numericBound: 1e15,
} as const;

// Listing keys through a Record over the interface's keys makes forgetting one a compile
// error; the listing order is also the order `domainToJson` writes them in.
function keysOf<T>(keys: { readonly [K in keyof Required<T>]: true }): readonly string[] {
  return Object.keys(keys);
}

const DOMAIN_KEYS = keysOf<Domain>({ name: true, description: true, entities: true, relationships: true });
const ENTITY_KEYS = keysOf<Entity>({
  name: true,
  parent: true,
  specialization: true,
  lexicon: true,
  counts: true,
  fraction: true,
  attributes: true,
  storage: true,
  registry: true,
});
const REGISTRY_KEYS = ['table', 'key', 'keyType', 'discriminator', 'check'] as const;
const REQUIRED_REGISTRY_KEYS = ['table', 'key', 'keyType', 'discriminator'] as const;
const ATTRIBUTE_KEYS = keysOf<Attribute>({
  name: true,
  type: true,
  optional: true,
  multiValued: true,
  role: true,
  lexicon: true,
  hints: true,
  neverAsked: true,
  storage: true,
});
const ATTRIBUTE_LEXICON_KEYS = keysOf<AttributeLexicon>({
  singular: true,
  plural: true,
  high: true,
  low: true,
  adjective: true,
  unit: true,
  event: true,
});
/** Keys of each role kind besides `kind`. */
const ROLE_KEYS: Record<AttributeRoleKind, readonly string[]> = {
  identifier: ['kind'],
  name: ['kind'],
  category: ['kind'],
  measure: keysOf<Extract<AttributeRole, { kind: 'measure' }>>({
    kind: true,
    unit: true,
    additive: true,
    multipliedBy: true,
  }),
  count: ['kind'],
  score: ['kind'],
  date: ['kind'],
  time: ['kind'],
  contact: ['kind'],
  description: ['kind'],
  flag: ['kind'],
};
/** The attribute types each role fits. */
const ROLE_TYPES: Record<AttributeRoleKind, readonly AttributeTypeKind[]> = {
  identifier: ['integer', 'bigint', 'numeric', 'text'],
  name: ['text'],
  category: ['text', 'enum', 'integer', 'bigint'],
  measure: ['integer', 'bigint', 'numeric'],
  count: ['integer', 'bigint'],
  score: ['integer', 'bigint', 'numeric'],
  date: ['date', 'timestamptz', 'timestamp'],
  time: ['timestamptz', 'timestamp'],
  contact: ['text'],
  description: ['text'],
  flag: ['boolean'],
};
/** Roles whose values are ordered, so a comparison of them has a high and a low end. */
const ORDERED_ROLES: readonly AttributeRoleKind[] = ['measure', 'count', 'score', 'date', 'time'];
const HINT_KEYS = keysOf<ValueHints>({
  faker: true,
  min: true,
  max: true,
  nullRate: true,
  setSize: true,
  pool: true,
  unique: true,
  bySubclass: true,
});
const SUBCLASS_HINT_KEYS = keysOf<SubclassValueHints>({ faker: true, pool: true, min: true, max: true });
const SPECIALIZATION_KEYS = keysOf<Specialization>({ disjoint: true, total: true });
const COUNT_KEYS = keysOf<ScaleCounts>({ tiny: true, small: true, paper: true, large: true });
const NOUN_KEYS = keysOf<NounLexicon>({ singular: true, plural: true });
const ENTITY_LEXICON_KEYS = keysOf<EntityLexicon>({ singular: true, plural: true, everyday: true });
const VERB_KEYS = keysOf<RelationshipLexicon>({ forward: true, reverse: true });
const RELATIONSHIP_KEYS = keysOf<Relationship>({
  name: true,
  from: true,
  to: true,
  cardinality: true,
  participation: true,
  role: true,
  lexicon: true,
  degree: true,
  attributes: true,
  storage: true,
});
const PARTICIPATION_KEYS = ['from', 'to'] as const;
const ENTITY_STORAGE_KEYS = keysOf<EntityStorage>({
  table: true,
  key: true,
  keyType: true,
  primaryKey: true,
  uniques: true,
  opaque: true,
  discriminator: true,
  flags: true,
  concrete: true,
});
const DISCRIMINATOR_KEYS = keysOf<EntityDiscriminator>({ column: true, sqlType: true, values: true, labels: true });
const ATTRIBUTE_STORAGE_KEYS = keysOf<AttributeStorage>({
  column: true,
  sqlType: true,
  nullable: true,
  table: true,
  ownerColumn: true,
});
const RELATIONSHIP_STORAGE_KEYS = keysOf<RelationshipStorage>({
  table: true,
  fromColumn: true,
  fromSqlType: true,
  column: true,
  sqlType: true,
  uniques: true,
  opaque: true,
});
const OPAQUE_KEYS = keysOf<OpaqueColumn>({
  column: true,
  sqlType: true,
  nullable: true,
  default: true,
  generated: true,
});
const STORAGE_KEYS = [
  ...new Set([
    'table',
    'key',
    'keyType',
    'primaryKey',
    'fromColumn',
    'fromSqlType',
    'ownerColumn',
    'column',
    'sqlType',
    'nullable',
    'default',
    'generated',
    'uniques',
    'opaque',
    'discriminator',
    'flags',
    'concrete',
  ]),
];
const DEGREE_KEYS = keysOf<DegreeHints>({ mean: true, max: true, skew: true, noneRate: true });
const TYPE_KEYS: Record<AttributeTypeKind, readonly string[]> = {
  integer: ['kind'],
  bigint: ['kind'],
  numeric: ['kind', 'precision', 'scale'],
  text: ['kind'],
  boolean: ['kind'],
  date: ['kind'],
  timestamptz: ['kind'],
  timestamp: ['kind'],
  enum: ['kind', 'values'],
};
const TYPE_KINDS = Object.keys(TYPE_KEYS) as AttributeTypeKind[];
const CARDINALITIES = ['one-to-one', 'many-to-one', 'many-to-many'];
const PARTICIPATIONS = ['total', 'partial'];

/**
 * The order `domainToJson` writes an object's keys in: each kind of object lists a subset of
 * these, in this order, so one ranking serves them all.
 */
export const CANONICAL_KEY_ORDER: readonly string[] = [
  ...new Set([
    'name',
    'description',
    'kind',
    'precision',
    'scale',
    'values',
    'parent',
    'specialization',
    ...SPECIALIZATION_KEYS,
    'from',
    'to',
    'cardinality',
    'participation',
    'type',
    'optional',
    'multiValued',
    'role',
    'lexicon',
    ...NOUN_KEYS,
    'everyday',
    'high',
    'low',
    'adjective',
    'unit',
    'event',
    'additive',
    'multipliedBy',
    ...VERB_KEYS,
    'counts',
    ...COUNT_KEYS,
    'fraction',
    'degree',
    'hints',
    'faker',
    'mean',
    ...HINT_KEYS,
    ...DEGREE_KEYS,
    'neverAsked',
    'storage',
    ...STORAGE_KEYS,
    'attributes',
    'entities',
    'relationships',
  ]),
];

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** A value as it should appear inside a one-line message. */
function describe(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  // JSON escapes control characters but not the two Unicode line separators.
  if (typeof value === 'string')
    return JSON.stringify(value.length > 40 ? `${value.slice(0, 37)}...` : value).replace(
      /[\u2028\u2029]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16)}`,
    );
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

/** A usable name: an identifier PostgreSQL keeps whole (paths and lookups use only these). */
function isIdentifier(value: unknown): value is string {
  return typeof value === 'string' && value.length <= MAX_NAME_BYTES && IDENTIFIER.test(value);
}

/** `entities.Account` for a named element, `entities[3]` for one without a usable name. */
function elementPath(listPath: string, element: unknown, index: number): string {
  return isRecord(element) && isIdentifier(element.name) ? `${listPath}.${element.name}` : `${listPath}[${index}]`;
}

function keyPath(base: string, key: string): string {
  return IDENTIFIER.test(key) ? `${base}.${key}` : `${base}[${JSON.stringify(key)}]`;
}

function round(value: number): number {
  return Number(value.toFixed(6));
}

/** Case-blind Levenshtein distance, for "did you mean" suggestions. */
export function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0] as number;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j] as number;
      const cost = a[i - 1]?.toLowerCase() === b[j - 1]?.toLowerCase() ? 0 : 1;
      row[j] = Math.min(above + 1, (row[j - 1] as number) + 1, diagonal + cost);
      diagonal = above;
    }
  }
  return row[b.length] as number;
}

interface EntityInfo {
  readonly raw: Json;
  readonly index: number;
  readonly path: string;
  readonly name: string | undefined;
  readonly parent: string | undefined;
}

/** Collects every problem of one domain, in document order. */
class DomainChecker {
  readonly issues: DomainIssue[] = [];
  private entities: EntityInfo[] = [];
  /** First declaration of each usable entity name. */
  private byName = new Map<string, EntityInfo>();
  private children = new Map<string, EntityInfo[]>();
  /** Table-like names (snake case) already taken by an entity or relationship. */
  private tableNames = new Map<string, string>();

  constructor(private readonly base: string) {}

  report(path: string, message: string): void {
    this.issues.push({ path, message });
  }

  // ---- generic shape checks -------------------------------------------------------------

  private record(value: unknown, path: string, what: string): value is Json {
    if (isRecord(value)) return true;
    this.report(path, `must be ${what}, got ${describe(value)}`);
    return false;
  }

  private keys(value: Json, allowed: readonly string[], path: string): void {
    for (const key of Object.keys(value)) {
      if (allowed.includes(key)) continue;
      const near = allowed.filter((k) => editDistance(k, key) <= Math.max(1, Math.floor(k.length / 3)));
      const hint = near.length > 0 ? `did you mean "${near[0]}"?` : `expected one of ${allowed.join(', ')}`;
      this.report(keyPath(path, key), `unknown key (${hint})`);
    }
  }

  private boolean(value: unknown, path: string): value is boolean {
    if (typeof value === 'boolean') return true;
    this.report(path, `must be true or false, got ${describe(value)}`);
    return false;
  }

  private string(value: unknown, path: string): value is string {
    if (typeof value === 'string') return true;
    this.report(path, `must be a string, got ${describe(value)}`);
    return false;
  }

  private nonEmptyString(value: unknown, path: string): value is string {
    if (!this.string(value, path)) return false;
    if (value.trim() !== '') return true;
    this.report(path, 'must not be empty');
    return false;
  }

  private identifier(value: unknown, path: string): value is string {
    if (!this.string(value, path)) return false;
    if (IDENTIFIER.test(value) && value.length > MAX_NAME_BYTES) {
      // Longer names would be cut short by PostgreSQL, and two cut names can collide.
      this.report(
        path,
        `${describe(value)} is ${value.length} characters long, more than the ${MAX_NAME_BYTES} PostgreSQL allows in a name`,
      );
      return false;
    }
    if (IDENTIFIER.test(value)) return true;
    this.report(path, `${describe(value)} is not an identifier (letters, digits and _, not starting with a digit)`);
    return false;
  }

  private number(value: unknown, path: string): value is number {
    if (typeof value === 'number' && Number.isFinite(value)) return true;
    this.report(path, `must be a number, got ${describe(value)}`);
    return false;
  }

  private integer(value: unknown, path: string): value is number {
    if (typeof value === 'number' && Number.isSafeInteger(value)) return true;
    this.report(path, `must be an integer, got ${describe(value)}`);
    return false;
  }

  /** A number in [0, 1], or in (0, 1] when `openBelow`. */
  private share(value: unknown, path: string, openBelow = false): value is number {
    if (!this.number(value, path)) return false;
    if (value <= 1 && (openBelow ? value > 0 : value >= 0)) return true;
    this.report(path, `must be ${openBelow ? 'greater than 0 and at most 1' : 'between 0 and 1'}, got ${value}`);
    return false;
  }

  /** `unknown entity "Persn" (did you mean "Person"?)`, or the known names when none is close. */
  private unknownEntity(name: string): string {
    const known = [...this.byName.keys()];
    const near = known
      .map((k) => ({ k, d: editDistance(k, name) }))
      .filter(({ k, d }) => d <= Math.max(1, Math.floor(k.length / 3)))
      .sort((a, b) => a.d - b.d);
    const listed = known.length <= 12 ? known.join(', ') : `${known.slice(0, 12).join(', ')}, …`;
    const hint =
      near[0] !== undefined
        ? `did you mean "${near[0].k}"?`
        : known.length > 0
          ? `known: ${listed}`
          : 'the domain declares no entity';
    return `unknown entity ${describe(name)} (${hint})`;
  }

  /** An entity's lexicon: its noun, and optionally the everyday noun of a question. */
  private entityLexicon(value: unknown, path: string): void {
    if (!this.record(value, path, 'a lexicon {singular, plural}')) return;
    this.keys(value, ENTITY_LEXICON_KEYS, path);
    this.nonEmptyString(value.singular, `${path}.singular`);
    this.nonEmptyString(value.plural, `${path}.plural`);
    if (value.everyday !== undefined) this.nounLexicon(value.everyday, `${path}.everyday`);
  }

  private nounLexicon(value: unknown, path: string): void {
    if (!this.record(value, path, 'a lexicon {singular, plural}')) return;
    this.keys(value, NOUN_KEYS, path);
    this.nonEmptyString(value.singular, `${path}.singular`);
    this.nonEmptyString(value.plural, `${path}.plural`);
  }

  /** A name that becomes a table name in some variant must not collide with another. */
  private claimTableName(name: string, owner: string, path: string): void {
    const table = snakeCase(name);
    const other = this.tableNames.get(table);
    if (other === undefined) this.tableNames.set(table, owner);
    else this.report(path, `${owner} and ${other} both become table "${table}"`);
  }

  // ---- the domain ----------------------------------------------------------------------

  domain(input: unknown): void {
    if (!this.record(input, this.base, 'an object describing a domain')) return;
    this.keys(input, DOMAIN_KEYS, this.base);
    this.identifier(input.name, `${this.base}.name`);
    if (input.description !== undefined) this.string(input.description, `${this.base}.description`);

    const entitiesPath = `${this.base}.entities`;
    // Past the caps, checking (and later building) would take minutes: stop at the count.
    if (this.tooMany(input.entities, MODEL_LIMITS.entities, entitiesPath, 'entities')) return;
    if (this.tooMany(input.relationships, MODEL_LIMITS.relationships, `${this.base}.relationships`, 'relationships'))
      return;
    const attributeCount = [input.entities, input.relationships]
      .flatMap((list) => (Array.isArray(list) ? list : []))
      .reduce(
        (sum: number, element) =>
          sum + (isRecord(element) && Array.isArray(element.attributes) ? element.attributes.length : 0),
        0,
      );
    if (attributeCount > MODEL_LIMITS.attributesTotal) {
      this.report(
        this.base,
        `${attributeCount} attributes in all, more than the ${MODEL_LIMITS.attributesTotal} a domain may have`,
      );
      return;
    }
    if (Array.isArray(input.entities)) {
      if (input.entities.length === 0) this.report(entitiesPath, 'a domain needs at least one entity');
      this.indexEntities(input.entities, entitiesPath);
      input.entities.forEach((raw, index) => this.entity(raw, elementPath(entitiesPath, raw, index), index));
    } else {
      this.report(entitiesPath, `must be a list of entities, got ${describe(input.entities)}`);
    }

    this.totalCounts(input.entities, entitiesPath);

    const relationshipsPath = `${this.base}.relationships`;
    if (Array.isArray(input.relationships)) {
      const fkColumns = new Map<string, string>();
      const seen = new Set<string>();
      input.relationships.forEach((raw, index) =>
        this.relationship(raw, elementPath(relationshipsPath, raw, index), seen, fkColumns),
      );
    } else {
      this.report(relationshipsPath, `must be a list of relationships, got ${describe(input.relationships)}`);
    }
  }

  private tooMany(list: unknown, cap: number, path: string, what: string): boolean {
    if (!Array.isArray(list) || list.length <= cap) return false;
    this.report(path, `${list.length} ${what}, more than the ${cap} a domain may have`);
    return true;
  }

  private indexEntities(list: readonly unknown[], listPath: string): void {
    this.entities = list.map((raw, index) => {
      const record = isRecord(raw) ? raw : {};
      return {
        raw: record,
        index,
        path: elementPath(listPath, raw, index),
        name: isIdentifier(record.name) ? record.name : undefined,
        parent: typeof record.parent === 'string' ? record.parent : undefined,
      };
    });
    for (const info of this.entities) {
      if (info.name !== undefined && !this.byName.has(info.name)) this.byName.set(info.name, info);
    }
    for (const info of this.entities) {
      if (info.name === undefined || info.parent === undefined || !this.byName.has(info.parent)) continue;
      const list = this.children.get(info.parent) ?? [];
      list.push(info);
      this.children.set(info.parent, list);
    }
  }

  /**
   * Under an overlapping specialization an object can belong to classes in two branches at
   * once; an attribute name declared in both would have two values for one object. Reported
   * on the later declaration.
   */
  private coOccurringAttributes(
    list: readonly unknown[],
    info: EntityInfo,
    listPath: string,
    inherited: ReadonlyMap<string, string>,
  ): void {
    const others = new Map<string, string>();
    let below = info;
    for (const ancestor of this.ancestors(info)) {
      const spec = ancestor.raw.specialization;
      if (isRecord(spec) && spec.disjoint === false) {
        for (const sibling of this.children.get(ancestor.name ?? '') ?? []) {
          if (sibling === below) continue;
          for (const member of this.subtreeOf(sibling)) {
            if (member.index > info.index || !Array.isArray(member.raw.attributes)) continue;
            for (const attribute of member.raw.attributes) {
              if (isRecord(attribute) && isIdentifier(attribute.name)) {
                const key = snakeCase(attribute.name);
                if (!others.has(key)) others.set(key, member.name ?? `entities[${member.index}]`);
              }
            }
          }
        }
      }
      below = ancestor;
    }
    list.forEach((attribute) => {
      if (!isRecord(attribute) || !isIdentifier(attribute.name)) return;
      const key = snakeCase(attribute.name);
      const other = others.get(key);
      if (other !== undefined && !inherited.has(key)) {
        this.report(
          `${listPath}.${attribute.name}.name`,
          `attribute "${attribute.name}" is also declared on ${other}, and an object can belong to both ${info.name} and ${other}`,
        );
      }
    });
  }

  private subtreeOf(info: EntityInfo): EntityInfo[] {
    const out: EntityInfo[] = [info];
    for (const child of this.children.get(info.name ?? '') ?? [])
      if (child !== info) out.push(...this.subtreeOf(child));
    return out;
  }

  /** Ancestors nearest first, stopping at an unknown parent or where a cycle closes. */
  private ancestors(info: EntityInfo): EntityInfo[] {
    const out: EntityInfo[] = [];
    const seen = new Set<EntityInfo>([info]);
    let parent = info.parent === undefined ? undefined : this.byName.get(info.parent);
    while (parent !== undefined && !seen.has(parent)) {
      out.push(parent);
      seen.add(parent);
      parent = parent.parent === undefined ? undefined : this.byName.get(parent.parent);
    }
    return out;
  }

  /** The cycle through `info`, starting at it, if its parent chain leads back to it. */
  private cycleThrough(info: EntityInfo): EntityInfo[] | undefined {
    const chain = this.ancestors(info);
    const last = chain.at(-1) ?? info;
    const next = last.parent === undefined ? undefined : this.byName.get(last.parent);
    return next === info ? [info, ...chain] : undefined;
  }

  // ---- entities ------------------------------------------------------------------------

  private entity(raw: unknown, path: string, index: number): void {
    if (!this.record(raw, path, 'an object describing an entity')) return;
    const info = this.entities[index] as EntityInfo;
    this.keys(raw, ENTITY_KEYS, path);

    if (this.identifier(raw.name, `${path}.name`)) {
      const first = this.byName.get(raw.name);
      if (first !== undefined && first !== info) {
        this.report(`${path}.name`, `duplicate entity name "${raw.name}" (first declared as entities[${first.index}])`);
      } else {
        this.claimTableName(raw.name, `entity "${raw.name}"`, `${path}.name`);
      }
    }

    const isSubclass = raw.parent !== undefined;
    if (isSubclass && this.identifier(raw.parent, `${path}.parent`)) {
      if (!this.byName.has(raw.parent)) {
        this.report(`${path}.parent`, this.unknownEntity(raw.parent));
      } else {
        const depth = this.ancestors(info).length;
        if (depth > MODEL_LIMITS.hierarchyDepth) {
          this.report(
            `${path}.parent`,
            `${info.name ?? 'this entity'} is ${depth} levels below its root, more than the ${MODEL_LIMITS.hierarchyDepth} a hierarchy may have`,
          );
        }
        const cycle = this.cycleThrough(info);
        // Report a cycle once, on the member declared first.
        if (cycle !== undefined && cycle.every((member) => member.index >= info.index)) {
          const names = [...cycle, info].map((member) => member.name ?? `entities[${member.index}]`);
          this.report(`${path}.parent`, `inheritance cycle ${names.join(' -> ')}`);
        }
      }
    }

    this.specialization(raw, info, path);

    if (raw.lexicon === undefined)
      this.report(`${path}.lexicon`, 'required: {singular, plural} nouns for the question writer');
    else this.entityLexicon(raw.lexicon, `${path}.lexicon`);

    if (raw.counts !== undefined) {
      if (isSubclass) {
        this.report(`${path}.counts`, 'only a root entity has counts; a subclass has a fraction of its parent instead');
      } else {
        this.counts(raw.counts, `${path}.counts`);
      }
    }
    if (raw.fraction !== undefined) {
      if (!isSubclass) {
        this.report(`${path}.fraction`, 'only a subclass has a fraction; a root entity has counts instead');
      } else {
        this.share(raw.fraction, `${path}.fraction`, true);
      }
    }

    const inherited = new Map<string, string>();
    for (const ancestor of this.ancestors(info)) {
      if (!Array.isArray(ancestor.raw.attributes)) continue;
      for (const attribute of ancestor.raw.attributes) {
        if (isRecord(attribute) && isIdentifier(attribute.name)) {
          const key = snakeCase(attribute.name);
          if (!inherited.has(key)) inherited.set(key, ancestor.name ?? `entities[${ancestor.index}]`);
        }
      }
    }
    if (Array.isArray(raw.attributes)) {
      this.attributes(raw.attributes, `${path}.attributes`, inherited, false, info);
      this.coOccurringAttributes(raw.attributes, info, `${path}.attributes`, inherited);
    } else {
      this.report(`${path}.attributes`, `must be a list of attributes, got ${describe(raw.attributes)}`);
    }
    if (raw.storage !== undefined) {
      this.storage(raw.storage, `${path}.storage`, ENTITY_STORAGE_KEYS, ['table', 'key', 'keyType']);
      if (isRecord(raw.storage) && raw.storage.discriminator !== undefined)
        this.discriminator(raw.storage.discriminator, `${path}.storage.discriminator`, info);
      if (isRecord(raw.storage) && raw.storage.flags !== undefined)
        this.flagColumns(raw.storage.flags, `${path}.storage.flags`, info);
      if (isRecord(raw.storage)) this.kindColumnsApart(raw.storage, `${path}.storage`);
    }
    if (raw.registry !== undefined) this.registry(raw.registry, `${path}.registry`, info);
  }

  /** A registry table: on a root, its names, and a kind for classes of the hierarchy. */
  private registry(value: unknown, path: string, owner: EntityInfo): void {
    if (!this.record(value, path, 'an object {table, key, keyType, discriminator}')) return;
    this.keys(value, REGISTRY_KEYS, path);
    if (owner.raw.parent !== undefined) this.report(path, 'only the root of a hierarchy has a registry');
    for (const key of REQUIRED_REGISTRY_KEYS) if (value[key] === undefined) this.report(`${path}.${key}`, 'required');
    if (
      value.check !== undefined &&
      (!Array.isArray(value.check) || value.check.some((v: unknown) => typeof v !== 'string'))
    )
      this.report(`${path}.check`, `must be a list of the kinds its CHECK lists, got ${describe(value.check)}`);
    for (const key of ['table', 'key']) if (value[key] !== undefined) this.physicalName(value[key], `${path}.${key}`);
    this.sqlType(value.keyType, `${path}.keyType`);
    if (value.discriminator !== undefined) this.discriminator(value.discriminator, `${path}.discriminator`, owner);
  }

  /** The key, the discriminator and each flag are columns of their own. */
  private kindColumnsApart(storage: Json, path: string): void {
    const seen = new Map<string, string>();
    const claim = (column: unknown, at: string): void => {
      if (typeof column !== 'string') return;
      const other = seen.get(column);
      if (other !== undefined) this.report(at, `column ${describe(column)} is also ${other}`);
      else seen.set(column, at.slice(path.length + 1));
    };
    claim(storage.key, `${path}.key`);
    if (isRecord(storage.discriminator)) claim(storage.discriminator.column, `${path}.discriminator.column`);
    if (isRecord(storage.flags))
      for (const [cls, column] of Object.entries(storage.flags)) claim(column, `${path}.flags.${cls}`);
  }

  /** Flag columns: a usable column name for classes under this table's entity. */
  private flagColumns(value: unknown, path: string, owner: EntityInfo): void {
    if (!this.record(value, path, 'an object from class names to column names')) return;
    for (const [cls, column] of Object.entries(value)) {
      const info = this.byName.get(cls);
      if (!info || !this.ancestors(info).includes(owner))
        this.report(`${path}.${cls}`, `${describe(cls)} is not a class under ${owner.name ?? 'this entity'}`);
      this.physicalName(column, `${path}.${cls}`);
    }
  }

  /** A discriminator: its column and type, and a value for classes of this table's hierarchy. */
  private discriminator(value: unknown, path: string, owner: EntityInfo): void {
    if (!this.record(value, path, 'an object {column, sqlType, values}')) return;
    this.keys(value, DISCRIMINATOR_KEYS, path);
    for (const key of ['column', 'sqlType', 'values'])
      if (value[key] === undefined) this.report(`${path}.${key}`, 'required');
    if (value.column !== undefined) this.physicalName(value.column, `${path}.column`);
    this.sqlType(value.sqlType, `${path}.sqlType`);
    if (value.values !== undefined) {
      if (!this.record(value.values, `${path}.values`, 'an object from class names to values')) return;
      const seen = new Map<string, string>();
      for (const [cls, v] of Object.entries(value.values)) {
        const at = `${path}.values.${cls}`;
        const info = this.byName.get(cls);
        if (!info || (info !== owner && !this.ancestors(info).includes(owner)))
          this.report(at, `${describe(cls)} is not ${owner.name ?? 'this entity'} or a class under it`);
        if (!this.nonEmptyString(v, at)) continue;
        const other = seen.get(v);
        if (other !== undefined) this.report(at, `value ${describe(v)} is also ${other}'s`);
        seen.set(v, cls);
      }
    }
    if (value.labels !== undefined) {
      if (!Array.isArray(value.labels) || value.labels.some((l: unknown) => typeof l !== 'string'))
        this.report(`${path}.labels`, `must be a list of the enum type's labels, got ${describe(value.labels)}`);
      else if (isRecord(value.values))
        for (const [cls, v] of Object.entries(value.values))
          if (typeof v === 'string' && !value.labels.includes(v))
            this.report(`${path}.values.${cls}`, `${describe(v)} is not one of the labels`);
    }
  }

  // ---- physical names ------------------------------------------------------------------

  /** Checks a `storage` object: the required names present, every name a usable PostgreSQL name. */
  private storage(value: unknown, path: string, keys: readonly string[], required: readonly string[]): void {
    if (!this.record(value, path, 'an object of physical names')) return;
    this.keys(value, keys, path);
    for (const key of required) if (value[key] === undefined) this.report(`${path}.${key}`, 'required');
    for (const key of ['table', 'key', 'column', 'ownerColumn', 'fromColumn']) {
      if (value[key] !== undefined) this.physicalName(value[key], `${path}.${key}`);
    }
    for (const key of ['keyType', 'sqlType', 'fromSqlType']) this.sqlType(value[key], `${path}.${key}`);
    if ((value.table === undefined) !== (value.ownerColumn === undefined) && keys === ATTRIBUTE_STORAGE_KEYS) {
      this.report(
        `${path}.${value.table === undefined ? 'table' : 'ownerColumn'}`,
        'a child table needs both its name and its owner column',
      );
    }
    if ((value.table === undefined) !== (value.fromColumn === undefined) && keys === RELATIONSHIP_STORAGE_KEYS) {
      this.report(
        `${path}.${value.table === undefined ? 'table' : 'fromColumn'}`,
        'a relationship table needs both its name and its from column',
      );
    }
    if (value.nullable !== undefined) this.boolean(value.nullable, `${path}.nullable`);
    if (value.concrete !== undefined) this.boolean(value.concrete, `${path}.concrete`);
    if (value.primaryKey !== undefined) {
      if (!Array.isArray(value.primaryKey) || !value.primaryKey.includes(value.key))
        this.report(
          `${path}.primaryKey`,
          `must be a list of column names holding the key ${describe(value.key)}, got ${describe(value.primaryKey)}`,
        );
      else value.primaryKey.forEach((c: unknown, i: number) => this.physicalName(c, `${path}.primaryKey[${i}]`));
    }
    if (value.uniques !== undefined) {
      if (!Array.isArray(value.uniques))
        this.report(`${path}.uniques`, `must be a list of column lists, got ${describe(value.uniques)}`);
      else
        value.uniques.forEach((u: unknown, i: number) => {
          if (!Array.isArray(u) || u.length === 0)
            this.report(`${path}.uniques[${i}]`, `must be a non-empty list of column names, got ${describe(u)}`);
          else u.forEach((c: unknown, j: number) => this.physicalName(c, `${path}.uniques[${i}][${j}]`));
        });
    }
    if (value.opaque !== undefined) {
      if (!Array.isArray(value.opaque))
        this.report(`${path}.opaque`, `must be a list of columns, got ${describe(value.opaque)}`);
      else
        value.opaque.forEach((o: unknown, i: number) => {
          const at = `${path}.opaque[${i}]`;
          if (!this.record(o, at, 'an object {column, sqlType, nullable}')) return;
          this.keys(o, OPAQUE_KEYS, at);
          this.physicalName(o.column, `${at}.column`);
          this.sqlType(o.sqlType ?? '', `${at}.sqlType`);
          this.boolean(o.nullable, `${at}.nullable`);
          if (o.default !== undefined && this.nonEmptyString(o.default, `${at}.default`) && !isSafeDefault(o.default)) {
            this.report(
              `${at}.default`,
              `${describe(o.default)} is not a literal or a clock (only those are written into the DDL)`,
            );
          }
          if (
            o.generated !== undefined &&
            this.nonEmptyString(o.generated, `${at}.generated`) &&
            !isSafeExpression(o.generated)
          ) {
            this.report(
              `${at}.generated`,
              `${describe(o.generated)} is not an expression of the row's columns, literals and pure functions`,
            );
          }
        });
    }
  }

  /** A column type as DDL spells it; anything else could smuggle SQL into the native schema. */
  private sqlType(value: unknown, path: string): void {
    if (value === undefined || !this.nonEmptyString(value, path)) return;
    if (!isSqlTypeName(value)) this.report(path, `${describe(value)} is not a type name`);
  }

  /** A table or column name as the source spells it: any text PostgreSQL takes when quoted. */
  private physicalName(value: unknown, path: string): void {
    if (!this.nonEmptyString(value, path)) return;
    if (Buffer.byteLength(value, 'utf8') > MAX_NAME_BYTES)
      this.report(path, `${describe(value)} is longer than the ${MAX_NAME_BYTES} bytes PostgreSQL allows in a name`);
    else if (value.includes('\u0000')) this.report(path, 'a name cannot hold a NUL character');
  }

  private specialization(raw: Json, info: EntityInfo, path: string): void {
    const subclasses =
      info.name === undefined || this.byName.get(info.name) !== info ? [] : (this.children.get(info.name) ?? []);
    const specPath = `${path}.specialization`;
    if (raw.specialization === undefined) {
      if (subclasses.length > 0) {
        const names = subclasses.map((child) => child.name).join(', ');
        this.report(specPath, `required, since ${info.name} has subclasses (${names}): {disjoint, total}`);
      }
      return;
    }
    if (subclasses.length === 0) {
      this.report(specPath, `${info.name ?? 'this entity'} has no subclasses, so it cannot have a specialization`);
      return;
    }
    if (!this.record(raw.specialization, specPath, 'an object {disjoint, total}')) return;
    const spec = raw.specialization;
    this.keys(spec, SPECIALIZATION_KEYS, specPath);
    const disjoint = this.boolean(spec.disjoint, `${specPath}.disjoint`) ? spec.disjoint : undefined;
    const total = this.boolean(spec.total, `${specPath}.total`) ? spec.total : undefined;
    // A disjoint partial specialization leaves the rest of the parent's instances direct, so
    // the shares cannot exceed the whole; a total one is normalized when generating.
    // A disjoint total one puts every instance in exactly one subclass, so when every share
    // is given they must add up to the whole.
    if (disjoint === true) {
      const parts = subclasses.filter((child) => typeof child.raw.fraction === 'number');
      const sum = parts.reduce((acc, child) => acc + (child.raw.fraction as number), 0);
      const terms = parts.map((child) => `${child.name} ${child.raw.fraction as number}`).join(' + ');
      if (sum > 1 + SUM_TOLERANCE) {
        this.report(
          specPath,
          `subclass fractions sum to ${round(sum)} (${terms}), more than 1 for a disjoint specialization`,
        );
      } else if (total === true && parts.length === subclasses.length && sum < 1 - SUM_TOLERANCE) {
        this.report(
          specPath,
          `subclass fractions sum to ${round(sum)} (${terms}), but a disjoint total specialization needs them to sum to 1`,
        );
      }
    }
  }

  /** Each entity's counts are capped on their own; the instance holds all roots at once. */
  private totalCounts(list: unknown, path: string): void {
    if (!Array.isArray(list)) return;
    for (const preset of COUNT_KEYS) {
      let sum = 0;
      for (const raw of list) {
        const count =
          isRecord(raw) && raw.parent === undefined && isRecord(raw.counts) ? raw.counts[preset] : undefined;
        if (
          typeof count === 'number' &&
          Number.isSafeInteger(count) &&
          count > 0 &&
          count <= MODEL_LIMITS.countPerEntity
        )
          sum += count;
      }
      if (sum > MODEL_LIMITS.countTotal) {
        this.report(
          path,
          `the root entities' counts.${preset} sum to ${sum}, more than the cap of ${MODEL_LIMITS.countTotal} objects per scale`,
        );
      }
    }
  }

  private counts(value: unknown, path: string): void {
    if (!this.record(value, path, 'an object {tiny, small, paper, large}')) return;
    this.keys(value, COUNT_KEYS, path);
    for (const preset of COUNT_KEYS) {
      const count = value[preset];
      if (count === undefined) {
        this.report(`${path}.${preset}`, 'required: a count for every scale preset (tiny, small, paper, large)');
      } else if (this.integer(count, `${path}.${preset}`)) {
        if (count < 0) this.report(`${path}.${preset}`, `must not be negative, got ${count}`);
        else if (count > MODEL_LIMITS.countPerEntity) {
          this.report(
            `${path}.${preset}`,
            `must be at most ${MODEL_LIMITS.countPerEntity} (the cap per entity and scale), got ${count}`,
          );
        }
      }
    }
  }

  // ---- attributes ----------------------------------------------------------------------

  private attributes(
    list: readonly unknown[],
    listPath: string,
    inherited: ReadonlyMap<string, string>,
    ofRelationship: boolean,
    owner?: EntityInfo,
  ): void {
    if (list.length > MODEL_LIMITS.attributes) {
      this.report(
        listPath,
        `${list.length} attributes, more than the ${MODEL_LIMITS.attributes} an entity or relationship may have`,
      );
      return;
    }
    const own = new Map<string, string>();
    list.forEach((raw, index) => {
      const path = elementPath(listPath, raw, index);
      if (!this.record(raw, path, 'an object describing an attribute')) return;
      this.keys(raw, ATTRIBUTE_KEYS, path);

      if (this.identifier(raw.name, `${path}.name`)) {
        const key = snakeCase(raw.name);
        if (key === 'id') {
          this.report(`${path}.name`, '"id" is reserved for the surrogate key');
        } else if (key.endsWith('_id')) {
          this.report(`${path}.name`, `"${raw.name}" ends in _id, which is reserved for foreign-key columns`);
        } else if (own.has(key)) {
          this.report(`${path}.name`, `duplicate attribute "${raw.name}" (also ${own.get(key)})`);
        } else if (inherited.has(key)) {
          this.report(`${path}.name`, `attribute "${raw.name}" is already inherited from ${inherited.get(key)}`);
        } else {
          own.set(key, `attributes[${index}]`);
        }
      }

      const kind = this.attributeType(raw.type, `${path}.type`);
      const optional =
        raw.optional === undefined ? false : this.boolean(raw.optional, `${path}.optional`) && raw.optional;
      let multiValued =
        raw.multiValued === undefined ? false : this.boolean(raw.multiValued, `${path}.multiValued`) && raw.multiValued;
      if (ofRelationship && multiValued) {
        this.report(`${path}.multiValued`, 'a relationship attribute cannot be multi-valued');
        multiValued = false;
      }
      if (raw.hints !== undefined) {
        const type = isRecord(raw.type) ? raw.type : {};
        this.hints(raw.hints, `${path}.hints`, { kind, type, optional, multiValued, owner });
      }
      if (raw.neverAsked !== undefined) this.boolean(raw.neverAsked, `${path}.neverAsked`);
      if (raw.storage !== undefined)
        this.storage(raw.storage, `${path}.storage`, ATTRIBUTE_STORAGE_KEYS, ['column', 'sqlType']);
      const role = raw.role === undefined ? undefined : this.role(raw.role, `${path}.role`, kind);
      if (raw.lexicon !== undefined) {
        // The adjectives and the unit's word must fit the role, declared or as inferred.
        const resolved =
          role ??
          (kind !== undefined && raw.role === undefined ? inferRole(raw as unknown as Attribute).role.kind : undefined);
        this.attributeLexicon(raw.lexicon, `${path}.lexicon`, resolved);
      }
    });
    // A measure's `multipliedBy` names counts of the same object.
    list.forEach((raw, index) => {
      if (!isRecord(raw) || !isRecord(raw.role) || !Array.isArray(raw.role.multipliedBy)) return;
      const path = `${elementPath(listPath, raw, index)}.role.multipliedBy`;
      raw.role.multipliedBy.forEach((name: unknown, i: number) => {
        if (!this.string(name, `${path}[${i}]`)) return;
        const key = snakeCase(name);
        if (key === snakeCase(String(raw.name))) this.report(`${path}[${i}]`, 'a measure multiplied by itself');
        else if (!own.has(key) && !inherited.has(key))
          this.report(`${path}[${i}]`, `unknown attribute ${describe(name)} (expected a count of the same object)`);
      });
    });
  }

  /** Checks a role against the attribute's type; returns its kind when usable. */
  private role(value: unknown, path: string, type: AttributeTypeKind | undefined): AttributeRoleKind | undefined {
    if (!this.record(value, path, 'an object {kind, …}')) return undefined;
    const kind = value.kind;
    if (!ATTRIBUTE_ROLE_KINDS.includes(kind as AttributeRoleKind)) {
      this.report(
        `${path}.kind`,
        `unknown role ${describe(kind)} (expected one of ${ATTRIBUTE_ROLE_KINDS.join(', ')})`,
      );
      return undefined;
    }
    const roleKind = kind as AttributeRoleKind;
    this.keys(value, ROLE_KEYS[roleKind], path);
    if (type !== undefined && !ROLE_TYPES[roleKind].includes(type)) {
      this.report(
        `${path}.kind`,
        `a ${roleKind} cannot be of type ${type} (expected ${ROLE_TYPES[roleKind].join(', ')})`,
      );
    }
    if (roleKind === 'measure') {
      if (value.unit === undefined)
        this.report(`${path}.unit`, 'required: what the measure counts in ("USD", "second", "MB")');
      else this.nonEmptyString(value.unit, `${path}.unit`);
      if (value.additive === undefined)
        this.report(
          `${path}.additive`,
          'required: whether the measure adds up across objects (a price does, an age does not)',
        );
      else this.boolean(value.additive, `${path}.additive`);
      if (value.multipliedBy !== undefined && !Array.isArray(value.multipliedBy))
        this.report(`${path}.multipliedBy`, `must be a list of attribute names, got ${describe(value.multipliedBy)}`);
    }
    return roleKind;
  }

  /** An attribute's lexicon: a noun, and the adjectives, unit word and event its role allows. */
  private attributeLexicon(value: unknown, path: string, role: AttributeRoleKind | undefined): void {
    if (!this.record(value, path, 'a lexicon {singular, plural}')) return;
    this.keys(value, ATTRIBUTE_LEXICON_KEYS, path);
    this.nonEmptyString(value.singular, `${path}.singular`);
    this.nonEmptyString(value.plural, `${path}.plural`);
    for (const key of ['high', 'low', 'adjective', 'unit', 'event'] as const) {
      if (value[key] === undefined || !this.nonEmptyString(value[key], `${path}.${key}`) || role === undefined)
        continue;
      if ((key === 'high' || key === 'low') && !ORDERED_ROLES.includes(role))
        this.report(`${path}.${key}`, `only a ${ORDERED_ROLES.join(', ')} has a high and a low end, not a ${role}`);
      if (key === 'adjective' && role !== 'flag')
        this.report(`${path}.${key}`, `only a flag has an adjective, not a ${role}`);
      if (key === 'unit' && role !== 'measure')
        this.report(`${path}.${key}`, `only a measure has a unit, not a ${role}`);
      if (key === 'event' && role !== 'date' && role !== 'time')
        this.report(`${path}.${key}`, `only a date or a time dates an event, not a ${role}`);
    }
    if ((value.high === undefined) !== (value.low === undefined))
      this.report(
        `${path}.${value.high === undefined ? 'high' : 'low'}`,
        'required beside its opposite: a comparison is said both ways',
      );
  }

  /** Checks an attribute type and returns its kind when the type is usable. */
  private attributeType(value: unknown, path: string): AttributeTypeKind | undefined {
    if (!this.record(value, path, `an object {kind, …}`)) return undefined;
    const kind = value.kind;
    if (!TYPE_KINDS.includes(kind as AttributeTypeKind)) {
      this.report(`${path}.kind`, `unknown type ${describe(kind)} (expected one of ${TYPE_KINDS.join(', ')})`);
      return undefined;
    }
    const typeKind = kind as AttributeTypeKind;
    this.keys(value, TYPE_KEYS[typeKind], path);
    let usable = true;
    if (typeKind === 'numeric') {
      const precision = value.precision;
      if (!this.integer(precision, `${path}.precision`)) usable = false;
      else if (precision < 1 || precision > 1000) {
        this.report(`${path}.precision`, `must be between 1 and 1000, got ${precision}`);
        usable = false;
      }
      if (!this.integer(value.scale, `${path}.scale`)) usable = false;
      else if (value.scale < 0 || (usable && value.scale > (precision as number))) {
        const bound = usable ? `the precision ${precision as number}` : 'the precision';
        this.report(`${path}.scale`, `must be between 0 and ${bound}, got ${value.scale}`);
        usable = false;
      } else if (value.scale > MODEL_LIMITS.numericScale) {
        this.report(`${path}.scale`, `must be at most ${MODEL_LIMITS.numericScale} decimal places, got ${value.scale}`);
        usable = false;
      }
    }
    if (typeKind === 'enum') {
      const values = value.values;
      if (!Array.isArray(values)) {
        this.report(`${path}.values`, `must be a list of strings, got ${describe(values)}`);
        usable = false;
      } else if (values.length === 0) {
        this.report(`${path}.values`, 'an enumeration needs at least one value');
        usable = false;
      } else if (values.length > MODEL_LIMITS.listValues) {
        this.report(
          `${path}.values`,
          `${values.length} values, more than the ${MODEL_LIMITS.listValues} an enumeration may have`,
        );
        usable = false;
      } else {
        const seen = new Set<string>();
        values.forEach((item, index) => {
          const itemPath = `${path}.values[${index}]`;
          if (!this.nonEmptyString(item, itemPath)) usable = false;
          else if (seen.has(item)) {
            this.report(itemPath, `duplicate value ${describe(item)}`);
            usable = false;
          } else seen.add(item);
        });
      }
    }
    return usable ? typeKind : undefined;
  }

  private hints(
    value: unknown,
    path: string,
    attribute: {
      kind: AttributeTypeKind | undefined;
      type: Json;
      optional: boolean;
      multiValued: boolean;
      owner?: EntityInfo | undefined;
    },
  ): void {
    if (!this.record(value, path, 'an object of value hints')) return;
    this.keys(value, HINT_KEYS, path);
    const { kind, type, optional, multiValued, owner } = attribute;
    if (value.bySubclass !== undefined) {
      this.subclassHints(value.bySubclass, `${path}.bySubclass`, kind, type, owner);
      if (value.unique === true) this.report(`${path}.bySubclass`, 'cannot be combined with unique');
    }

    if (value.faker !== undefined && this.string(value.faker, `${path}.faker`) && !FAKER_PATH.test(value.faker)) {
      this.report(`${path}.faker`, `${describe(value.faker)} is not a faker method path such as "internet.email"`);
    }

    const min = this.bound(value.min, `${path}.min`, kind, type);
    const max = this.bound(value.max, `${path}.max`, kind, type);
    if (min !== undefined && max !== undefined && min > max) {
      this.report(`${path}.max`, `${describe(value.max)} is less than min ${describe(value.min)}`);
    }

    if (value.nullRate !== undefined && this.share(value.nullRate, `${path}.nullRate`) && (!optional || multiValued)) {
      this.report(`${path}.nullRate`, 'applies only to an optional single-valued attribute');
    }

    let distinctValues: number | undefined;
    if (kind === 'boolean') distinctValues = 2;
    if (kind === 'enum' && Array.isArray(type.values)) distinctValues = type.values.length;

    if (value.pool !== undefined) {
      const poolPath = `${path}.pool`;
      if (kind !== undefined && kind !== 'text') {
        this.report(poolPath, `applies only to text attributes, not ${kind}`);
      } else if (!Array.isArray(value.pool)) {
        this.report(poolPath, `must be a list of strings, got ${describe(value.pool)}`);
      } else if (value.pool.length === 0) {
        this.report(poolPath, 'must not be empty');
      } else if (value.pool.length > MODEL_LIMITS.listValues) {
        this.report(poolPath, `${value.pool.length} values, more than the ${MODEL_LIMITS.listValues} a pool may have`);
      } else {
        const seen = new Set<string>();
        value.pool.forEach((item, index) => {
          if (!this.string(item, `${poolPath}[${index}]`)) return;
          if (seen.has(item)) this.report(`${poolPath}[${index}]`, `duplicate value ${describe(item)}`);
          seen.add(item);
        });
        distinctValues = seen.size;
      }
    }

    if (value.setSize !== undefined)
      this.setSize(value.setSize, `${path}.setSize`, { optional, multiValued, distinctValues });

    if (value.unique !== undefined && this.boolean(value.unique, `${path}.unique`) && value.unique) {
      if (multiValued) this.report(`${path}.unique`, 'applies only to a single-valued attribute');
      else if (kind === 'boolean') this.report(`${path}.unique`, 'a boolean attribute cannot be unique');
    }
  }

  /**
   * `bySubclass`: for an attribute of an entity, classes under it, each with a faker method or
   * a pool (text) or its own min and max (integer, numeric).
   */
  private subclassHints(
    value: unknown,
    path: string,
    kind: AttributeTypeKind | undefined,
    type: Json,
    owner: EntityInfo | undefined,
  ): void {
    const numeric = kind === 'integer' || kind === 'bigint' || kind === 'numeric';
    if (!this.record(value, path, 'an object from subclass names to {faker} or {pool}, or {min} and {max}')) return;
    if (kind !== undefined && kind !== 'text' && !numeric)
      this.report(path, `applies only to text and number attributes, not ${kind}`);
    if (!owner) this.report(path, 'applies only to an attribute of an entity');
    for (const [cls, hints] of Object.entries(value)) {
      const at = `${path}.${cls}`;
      const info = this.byName.get(cls);
      if (owner && (!info || !this.ancestors(info).includes(owner)))
        this.report(at, `${describe(cls)} is not a class under ${owner.name ?? 'this entity'}`);
      if (!this.record(hints, at, 'an object {faker} or {pool}')) continue;
      this.keys(hints, SUBCLASS_HINT_KEYS, at);
      if (numeric) {
        if (hints.faker !== undefined || hints.pool !== undefined)
          this.report(at, 'takes min and max for a number attribute, not faker or pool');
        if (hints.min === undefined && hints.max === undefined) this.report(at, 'needs min or max');
        const min = this.bound(hints.min, `${at}.min`, kind, type);
        const max = this.bound(hints.max, `${at}.max`, kind, type);
        if (min !== undefined && max !== undefined && min > max)
          this.report(`${at}.max`, `${describe(hints.max)} is less than min ${describe(hints.min)}`);
        continue;
      }
      if (hints.min !== undefined || hints.max !== undefined) this.report(at, 'min and max apply to number attributes');
      if ((hints.faker === undefined) === (hints.pool === undefined)) this.report(at, 'needs one of faker or pool');
      if (hints.faker !== undefined && this.string(hints.faker, `${at}.faker`) && !FAKER_PATH.test(hints.faker))
        this.report(`${at}.faker`, `${describe(hints.faker)} is not a faker method path such as "internet.email"`);
      if (hints.pool !== undefined) {
        if (!Array.isArray(hints.pool) || hints.pool.length === 0)
          this.report(`${at}.pool`, `must be a non-empty list of strings, got ${describe(hints.pool)}`);
        else if (hints.pool.length > MODEL_LIMITS.listValues)
          this.report(
            `${at}.pool`,
            `${hints.pool.length} values, more than the ${MODEL_LIMITS.listValues} a pool may have`,
          );
        else hints.pool.forEach((item, i) => this.string(item, `${at}.pool[${i}]`));
      }
    }
  }

  /** Checks a min or max hint against the attribute's type; returns it as a comparable number. */
  private bound(value: unknown, path: string, kind: AttributeTypeKind | undefined, type: Json): number | undefined {
    if (value === undefined || kind === undefined) return undefined;
    switch (kind) {
      case 'integer':
      case 'bigint': {
        if (!this.integer(value, path)) return undefined;
        if (kind === 'integer' && (value < INT32.min || value > INT32.max)) {
          this.report(path, `${value} does not fit in an integer column`);
          return undefined;
        }
        return value;
      }
      case 'numeric': {
        if (!this.number(value, path)) return undefined;
        if (Math.abs(value) > MODEL_LIMITS.numericBound) {
          this.report(
            path,
            `must be between -${MODEL_LIMITS.numericBound} and ${MODEL_LIMITS.numericBound} (generated numbers beyond lose digits), got ${value}`,
          );
          return undefined;
        }
        const digits = (type.precision as number) - (type.scale as number);
        if (Math.abs(value) >= 10 ** digits) {
          this.report(path, `${value} does not fit in numeric(${type.precision as number},${type.scale as number})`);
          return undefined;
        }
        return value;
      }
      case 'date':
      case 'timestamptz':
      case 'timestamp': {
        // Bounds are calendar dates for both kinds, which the instance generator reads as UTC.
        const time = typeof value === 'string' && ISO_DATE.test(value) ? Date.parse(`${value}T00:00:00Z`) : Number.NaN;
        if (Number.isNaN(time) || new Date(time).toISOString().slice(0, 10) !== value) {
          this.report(path, `must be an ISO date such as "2024-05-31", got ${describe(value)}`);
          return undefined;
        }
        return time;
      }
      default:
        this.report(path, `applies only to number, date and timestamp attributes, not ${kind}`);
        return undefined;
    }
  }

  private setSize(
    value: unknown,
    path: string,
    attribute: { optional: boolean; multiValued: boolean; distinctValues: number | undefined },
  ): void {
    if (!attribute.multiValued) {
      this.report(path, 'applies only to a multi-valued attribute');
      return;
    }
    if (!Array.isArray(value) || value.length !== 2) {
      this.report(path, `must be a pair [min, max], got ${describe(value)}`);
      return;
    }
    const [min, max] = value as unknown[];
    if (!this.integer(min, `${path}[0]`) || !this.integer(max, `${path}[1]`)) return;
    if (min < 0 || min > max) {
      this.report(path, `must satisfy 0 <= min <= max, got [${min}, ${max}]`);
      return;
    }
    if (max > MODEL_LIMITS.perObject) {
      this.report(path, `max must be at most ${MODEL_LIMITS.perObject} elements per set, got ${max}`);
      return;
    }
    if (!attribute.optional && min < 1) {
      this.report(
        path,
        `a required multi-valued attribute has at least one value, so min must be at least 1 (or mark it optional), got [${min}, ${max}]`,
      );
      return;
    }
    if (attribute.distinctValues !== undefined && max > attribute.distinctValues) {
      this.report(path, `max ${max} exceeds the ${attribute.distinctValues} distinct values available`);
    }
  }

  // ---- relationships -------------------------------------------------------------------

  private relationship(raw: unknown, path: string, seen: Set<string>, fkColumns: Map<string, string>): void {
    if (!this.record(raw, path, 'an object describing a relationship')) return;
    this.keys(raw, RELATIONSHIP_KEYS, path);

    if (this.identifier(raw.name, `${path}.name`)) {
      if (seen.has(raw.name)) this.report(`${path}.name`, `duplicate relationship name "${raw.name}"`);
      else this.claimTableName(raw.name, `relationship "${raw.name}"`, `${path}.name`);
      seen.add(raw.name);
    }

    const ends: Partial<Record<'from' | 'to', EntityInfo>> = {};
    for (const end of ['from', 'to'] as const) {
      const value = raw[end];
      if (value === undefined) this.report(`${path}.${end}`, 'required: the name of an entity');
      else if (this.string(value, `${path}.${end}`)) {
        const target = this.byName.get(value);
        if (target === undefined) this.report(`${path}.${end}`, this.unknownEntity(value));
        else ends[end] = target;
      }
    }

    let cardinality: string | undefined;
    if (typeof raw.cardinality === 'string' && CARDINALITIES.includes(raw.cardinality)) cardinality = raw.cardinality;
    else
      this.report(
        `${path}.cardinality`,
        `must be one of ${CARDINALITIES.join(', ')}, got ${describe(raw.cardinality)}`,
      );

    let fromParticipation: unknown;
    if (
      raw.participation !== undefined &&
      this.record(raw.participation, `${path}.participation`, 'an object {from, to}')
    ) {
      this.keys(raw.participation, PARTICIPATION_KEYS, `${path}.participation`);
      for (const end of PARTICIPATION_KEYS) {
        const value = raw.participation[end];
        if (value !== undefined && !(typeof value === 'string' && PARTICIPATIONS.includes(value))) {
          this.report(`${path}.participation.${end}`, `must be total or partial, got ${describe(value)}`);
        }
      }
      fromParticipation = raw.participation.from;
    }

    if (raw.role !== undefined && this.identifier(raw.role, `${path}.role`) && snakeCase(raw.role) === 'id') {
      this.report(`${path}.role`, '"id" is reserved for the surrogate key');
    }

    // A many-to-one (or one-to-one) relationship may become a foreign-key column on its
    // `from` end, and under single-table inheritance every such column of a hierarchy lands
    // in one table, so their names must differ across the hierarchy.
    const fromEnd = ends.from;
    if (
      (cardinality === 'many-to-one' || cardinality === 'one-to-one') &&
      fromEnd !== undefined &&
      typeof raw.to === 'string'
    ) {
      const roleName = isIdentifier(raw.role) ? raw.role : raw.to;
      const column = `${snakeCase(roleName)}_id`;
      const root = this.ancestors(fromEnd).at(-1) ?? fromEnd;
      const key = `${root.index}:${column}`;
      const other = fkColumns.get(key);
      const relationshipName = isIdentifier(raw.name) ? raw.name : path;
      if (other !== undefined) {
        this.report(
          `${path}.role`,
          `foreign-key column "${column}" is already used by relationship "${other}" in the ${root.name ?? 'same'} hierarchy; give this relationship a distinct role`,
        );
      } else fkColumns.set(key, relationshipName);
    }

    if (raw.storage !== undefined)
      this.storage(raw.storage, `${path}.storage`, RELATIONSHIP_STORAGE_KEYS, ['column', 'sqlType']);
    if (raw.lexicon === undefined)
      this.report(`${path}.lexicon`, 'required: {forward, reverse} verb phrases for the question writer');
    else if (this.record(raw.lexicon, `${path}.lexicon`, 'a lexicon {forward, reverse}')) {
      this.keys(raw.lexicon, VERB_KEYS, `${path}.lexicon`);
      this.nonEmptyString(raw.lexicon.forward, `${path}.lexicon.forward`);
      this.nonEmptyString(raw.lexicon.reverse, `${path}.lexicon.reverse`);
    }

    if (raw.degree !== undefined) this.degree(raw.degree, `${path}.degree`, cardinality, fromParticipation);

    if (raw.attributes !== undefined) {
      if (Array.isArray(raw.attributes)) this.attributes(raw.attributes, `${path}.attributes`, new Map(), true);
      else this.report(`${path}.attributes`, `must be a list of attributes, got ${describe(raw.attributes)}`);
    }
  }

  private degree(value: unknown, path: string, cardinality: string | undefined, fromParticipation: unknown): void {
    if (!this.record(value, path, 'an object of degree hints')) return;
    this.keys(value, DEGREE_KEYS, path);
    const single = cardinality === 'many-to-one' || cardinality === 'one-to-one';
    let mean: number | undefined;
    if (value.mean !== undefined && this.number(value.mean, `${path}.mean`)) {
      if (value.mean < 0) this.report(`${path}.mean`, `must not be negative, got ${value.mean}`);
      else if (value.mean > MODEL_LIMITS.perObject)
        this.report(`${path}.mean`, `must be at most ${MODEL_LIMITS.perObject} partners, got ${value.mean}`);
      else if (single && value.mean > 1)
        this.report(
          `${path}.mean`,
          `a ${cardinality} relationship has at most one partner per "from" instance, got ${value.mean}`,
        );
      else mean = value.mean;
    }
    if (value.max !== undefined && this.integer(value.max, `${path}.max`)) {
      if (value.max < 1) this.report(`${path}.max`, `must be at least 1, got ${value.max}`);
      else if (value.max > MODEL_LIMITS.perObject)
        this.report(`${path}.max`, `must be at most ${MODEL_LIMITS.perObject} partners, got ${value.max}`);
      else if (single && value.max > 1)
        this.report(
          `${path}.max`,
          `a ${cardinality} relationship has at most one partner per "from" instance, got ${value.max}`,
        );
      else if (mean !== undefined && mean > value.max)
        this.report(`${path}.max`, `${value.max} is less than mean ${mean}`);
    }
    if (value.skew !== undefined && this.number(value.skew, `${path}.skew`) && value.skew < 0) {
      this.report(`${path}.skew`, `must not be negative, got ${value.skew}`);
    }
    if (
      value.noneRate !== undefined &&
      this.share(value.noneRate, `${path}.noneRate`) &&
      value.noneRate > 0 &&
      fromParticipation === 'total'
    ) {
      this.report(`${path}.noneRate`, 'must be 0 when participation.from is total');
    }
  }
}

/**
 * Every problem of a domain given as untyped data (parsed JSON or a TypeScript object), in
 * document order; empty when the domain is valid. `path` names the domain in messages and
 * defaults to `domains.<its name>`.
 *
 * @example
 * checkDomain(JSON.parse(text))
 * // [{ path: 'domains.retail.relationships.paired_with.to', message: 'unknown entity "Accesories"' }]
 */
export function checkDomain(input: unknown, path?: string): DomainIssue[] {
  const name = isRecord(input) ? input.name : undefined;
  const checker = new DomainChecker(path ?? (isIdentifier(name) ? `domains.${name}` : 'domain'));
  checker.domain(input);
  return checker.issues;
}

/** A deep copy with keys in canonical order, frozen throughout. */
export function freezeCanonical<T>(value: T): T {
  if (Array.isArray(value)) return Object.freeze(value.map((item: unknown) => freezeCanonical(item))) as T;
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value as Json).filter(([, v]) => v !== undefined);
  const rank = (key: string): number => {
    const at = CANONICAL_KEY_ORDER.indexOf(key);
    return at === -1 ? CANONICAL_KEY_ORDER.length : at;
  };
  entries.sort(([a], [b]) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
  return Object.freeze(Object.fromEntries(entries.map(([k, v]) => [k, freezeCanonical(v)]))) as T;
}

/**
 * Checks a domain and returns it as a deep-frozen copy in canonical key order; on the first
 * problem throws a one-line ConfigError `<origin>: <path>: <message>`.
 *
 * @example
 * validateDomain(JSON.parse(text), 'model.json')
 * // throws ConfigError: model.json: domains.retail.relationships.paired_with.to: unknown entity "Accesories"
 */
export function validateDomain(input: unknown, origin?: string): Domain {
  const [first] = checkDomain(input);
  if (first !== undefined) {
    throw new ConfigError(`${origin === undefined ? '' : `${origin}: `}${first.path}: ${first.message}`);
  }
  return freezeCanonical(input as Domain);
}
