import pluralize from 'pluralize';
import type { ErIndex } from '../../er-model/er-index.ts';
import type { Attribute } from '../../er-model/er-model.ts';
import type { Join, Query, SelectQuery } from '../../query/conceptual-query.ts';
import { createContext, elementLexicon, type DescribeContext } from '../describe/context.ts';
import { attribute, attributeNoun, canonical, info, noun } from '../describe/nouns.ts';
import { capitalize, isPostmodifier, listing, pluralVerb } from '../describe/english.ts';
import { plainAggregate } from './restrictions.ts';
import { sha256 } from '../../common/hash.ts';
import { aliasesIn, aliasesOfKind, declaredAliases, opensQuery, walk, type IrNode } from '../../query/walk.ts';

/**
 * What the natural writer hands down while it plans one question: the describer's context
 * (for nouns, NULL-ability and the rare construct it words as the precise style does, its
 * conventions going to the notes), the evidence sentences gathered so far, and the choice of
 * wording for this paraphrase.
 */
export interface NaturalContext {
  readonly d: DescribeContext;
  readonly index: ErIndex;
  /** The query being planned, whole. */
  readonly query: Query;
  /** Evidence sentences, in the order first said, each once. */
  readonly evidence: string[];
  readonly covered: Set<string>;
  /**
   * The choices the words settle, beyond the constructs covered: `path:<relationship>` once
   * a join is said with its relationship's own verb, `subtypes:<entity>` once the evidence
   * says which kinds a noun covers (questions/readings.ts reads them).
   */
  readonly stated: Set<string>;
  /** The aliases of the select being planned (not of its subqueries). */
  outer: Set<string>;
  /** The paraphrase's pick among `n` wordings of `label` (stable for a seed and paraphrase). */
  choose(label: string, n: number): number;
}

export function createNaturalContext(index: ErIndex, query: Query, seed: string, paraphrase: number): NaturalContext {
  const d = createContext(index, query, 'evidence');
  const n: NaturalContext = {
    d,
    index,
    query,
    evidence: [],
    covered: new Set(),
    stated: new Set(),
    outer: new Set(),
    choose: (label, k) => (parseInt(sha256(`${seed}/natural/${label}`).slice(0, 8), 16) + paraphrase) % k,
  };
  dropLevelOrdinals(n, query);
  return n;
}

/**
 * Aliases that share a noun need no ordinal when each sits in a query level of its own and no
 * subquery reads an alias outside itself: "products with a price above the average price of
 * all products", not "first products … of all second products". Only around a subquery the
 * writer says plainly (`plainAggregate`): a correlated one, or one said in the careful words
 * ("… computed over every second product, counting only those where …"), keeps them, since
 * "the product" there could be either.
 */
function dropLevelOrdinals(nc: NaturalContext, query: Query): void {
  const d = nc.d;
  if (d.ordinal.size === 0) return;
  const levelOf = new Map<string, number>();
  let levels = 0;
  let correlated = false;
  const careful = new Set<number>();
  const visitLevel = (node: IrNode, level: number): void =>
    walk(node, (n) => {
      if (n !== node && opensQuery(n)) {
        const declared = new Set(declaredAliases(n.query));
        if ([...aliasesIn(n.query)].some((a) => !declared.has(a))) correlated = true;
        const plain =
          n.kind === 'scalarSubquery' && n.query.kind === 'select' && plainAggregate(nc, n.query) !== undefined;
        if (!plain) careful.add(levels + 1);
        visitLevel(n.query, ++levels);
        return false;
      }
      if (n.kind === 'select') {
        levelOf.set(n.from.alias, level);
        for (const j of n.joins ?? []) levelOf.set(j.alias, level);
      }
      return true;
    });
  visitLevel(query, 0);
  if (correlated) return;
  const byNoun = new Map<string, string[]>();
  for (const alias of d.ordinal.keys()) {
    const i = d.aliases.get(alias);
    if (!i) continue;
    const noun = i.entity ? d.index.entity(i.entity).lexicon.singular : elementLexicon(i).singular;
    byNoun.set(noun, [...(byNoun.get(noun) ?? []), alias]);
  }
  for (const group of byNoun.values()) {
    const at = group.map((a) => levelOf.get(a));
    if (at.every((l) => l !== undefined && !careful.has(l)) && new Set(at).size === group.length)
      for (const a of group) d.ordinal.delete(a);
  }
}

/** Adds an evidence sentence once. */
export function state(n: NaturalContext, sentence: string, construct: string): void {
  n.covered.add(construct);
  if (!n.evidence.includes(sentence)) n.evidence.push(sentence);
}

/**
 * What kind of value an attribute holds, as the question words it: its noun without a unit
 * ("duration"), its unit ("seconds"), and whether it is a date or time, text, a number or a
 * flag. Today it reads the type and the lexicon ("duration in seconds"); attribute roles
 * from the model can take over here without the plans changing.
 */
export interface Measure {
  readonly noun: string;
  readonly plural: string;
  readonly unit?: string;
  readonly kind: 'number' | 'time' | 'text' | 'flag' | 'id';
  /** The attribute's role in the model ("category", "name", …), when it has one. */
  readonly role?: string;
  /** What a high and a low value make an object ("long", "short"), and what a flag makes it ("verified"). */
  readonly high?: string;
  readonly low?: string;
  readonly adjective?: string;
  /** Of a date or time: the participle of the event it dates ("created"), said after the noun. */
  readonly event?: string;
  /** Whether no other attribute of the object shares `high`/`low` (so "the longest clip" names one attribute). */
  readonly ownsAdjectives: boolean;
}

export function measureOf(n: NaturalContext, alias: string, name: string): Measure {
  if (name === 'id') return { noun: 'id', plural: 'ids', kind: 'id', ownsAdjectives: false };
  const a: Attribute | undefined = attribute(n.d, alias, name);
  // An object called by its everyday noun drops the model noun's head from its attributes: an app's "product name" is its "name".
  const entity = info(n.d, alias).entity;
  const lexicon = entity ? n.index.entity(entity).lexicon : undefined;
  const head = lexicon?.everyday ? `${lexicon.singular.split(' ').pop() as string} ` : undefined;
  const trim = (s: string) => (head && s.startsWith(head) && s.length > head.length ? s.slice(head.length) : s);
  const singular = trim(attributeNoun(n.d, alias, name));
  const plural = trim(attributeNoun(n.d, alias, name, true));
  // The attribute's role decides the kind of value; its type where the model gives none.
  const role = a?.role?.kind;
  const kind = a?.type.kind;
  const k: Measure['kind'] =
    role === 'date' || role === 'time' || kind === 'date' || kind === 'timestamptz' || kind === 'timestamp'
      ? 'time'
      : role === 'flag' || kind === 'boolean'
        ? 'flag'
        : role === 'measure' ||
            role === 'count' ||
            role === 'score' ||
            kind === 'integer' ||
            kind === 'bigint' ||
            kind === 'numeric'
          ? 'number'
          : 'text';
  const lex = a?.lexicon;
  const words = {
    ...(lex?.high ? { high: lex.high } : {}),
    ...(lex?.low ? { low: lex.low } : {}),
    ...(lex?.adjective ? { adjective: lex.adjective } : {}),
    ...(lex?.event ? { event: lex.event } : {}),
  };
  const shared = entity
    ? n.index
        .allAttributes(entity)
        .filter(
          (x) =>
            x.attribute.name !== name &&
            (x.attribute.lexicon?.high === lex?.high || x.attribute.lexicon?.low === lex?.low) &&
            (lex?.high !== undefined || lex?.low !== undefined),
        )
    : [];
  const ownsAdjectives = shared.length === 0;
  const unitWord = lex?.unit ?? /^.+ in (seconds|minutes|hours|days|years|MB|GB|KB)$/u.exec(singular)?.[1];
  const roleWord = role ? { role } : {};
  // "duration in seconds" is a duration, counted in seconds.
  const bare = unitWord ? singular.replace(new RegExp(` in ${unitWord}$`, 'u'), '') : singular;
  if (unitWord && k === 'number' && bare !== singular)
    return { noun: bare, plural: pluralize(bare), unit: unitWord, kind: k, ...roleWord, ...words, ownsAdjectives };
  // "quantity in stock" is said as people say it: "stock quantity" ("with fewer than 20 in stock" in a condition).
  const inPlace = /^(quantity|amount) in (\w+)$/u.exec(singular);
  if (inPlace && k === 'number')
    return {
      noun: `${inPlace[2]} ${inPlace[1]}`,
      plural: pluralize(`${inPlace[2]} ${inPlace[1]}`),
      kind: k,
      ...roleWord,
      ...words,
      ownsAdjectives,
    };
  return {
    noun: singular,
    plural,
    kind: k,
    ...roleWord,
    ...(unitWord && k === 'number' ? { unit: unitWord } : {}),
    ...words,
    ownsAdjectives,
  };
}

/** "long" → "longer", "early" → "earlier", "expensive" → "more expensive", "good" → "better". */
export function comparative(adjective: string): string {
  return inflect(adjective, 'er', 'more', { good: 'better', bad: 'worse' });
}

/** "long" → "longest", "late" → "latest", "recent" → "most recent", "good" → "best". */
export function superlativeOf(adjective: string): string {
  return inflect(adjective, 'est', 'most', { good: 'best', bad: 'worst' });
}

// English forms the comparative with -er on short adjectives and with more/most on longer ones.
function inflect(
  adjective: string,
  suffix: 'er' | 'est',
  word: string,
  irregular: Readonly<Record<string, string>>,
): string {
  const irr = irregular[adjective];
  if (irr) return irr;
  const syllables = (adjective.replace(/e$/u, '').match(/[aeiou]+|y(?![aeiou])/gu) ?? []).length;
  if (adjective.includes('-') || (syllables > 1 && !/y$/u.test(adjective)) || syllables > 2)
    return `${word} ${adjective}`;
  if (/y$/u.test(adjective)) return `${adjective.slice(0, -1)}i${suffix}`;
  if (/e$/u.test(adjective)) return `${adjective}${suffix.slice(1)}`;
  if (/^[^aeiou]*[aeiou][bcdfgklmnprstvz]$/u.test(adjective)) return `${adjective}${adjective.slice(-1)}${suffix}`;
  return `${adjective}${suffix}`;
}

export function nounOf(n: NaturalContext, alias: string, plural = false): string {
  // Ordinals tell apart two aliases of one noun in the same rows; a subquery's alias needs none.
  const canon = canonical(n.d, alias);
  const i = info(n.d, canon);
  if (n.outer.size > 0 && !n.outer.has(canon) && i.entity) return entityNoun(n, i.entity, plural);
  const said = noun(n.d, alias, plural);
  if (!i.entity) return said;
  // "second content item" → "second video": the everyday noun in place of the model's.
  const lex = n.index.entity(i.entity).lexicon;
  const model = plural ? lex.plural : lex.singular;
  return said.endsWith(model) ? `${said.slice(0, said.length - model.length)}${entityNoun(n, i.entity, plural)}` : said;
}

/** An entity's noun in a natural question: the everyday one where the model gives it ("video" for a content item). */
export function entityNoun(n: NaturalContext, entity: string, plural = false): string {
  const lex = n.index.entity(entity).lexicon;
  const words = lex.everyday ?? lex;
  return plural ? words.plural : words.singular;
}

/** A plural for a phrase the lexicon does not give (a group key, a compound). */
export function pluralOf(phrase: string): string {
  const words = phrase.split(' ');
  return [...words.slice(0, -1), pluralize(words[words.length - 1] as string)].join(' ');
}

/** Whether following `join` from its `from` alias reaches at most one partner. */
export function toOne(n: NaturalContext, join: Join, fromSide: boolean): boolean {
  if (join.kind === 'elements') return !fromSide;
  const rel = n.index.relationship(join.relationship);
  if (rel.cardinality === 'one-to-one') return true;
  if (rel.cardinality === 'many-to-many') return false;
  // many-to-one: from → to reaches one.
  const forward = join.direction === 'forward';
  return fromSide ? forward : !forward;
}

/**
 * The relationship phrase of `join` read from one end: "derived from", "that own",
 * "owned by". `fromSide` reads it from the join's `from` alias towards the joined one.
 */
export function linkVerb(
  n: NaturalContext,
  join: Extract<Join, { kind: 'relationship' }>,
  fromSide: boolean,
  plural: boolean,
): string {
  const rel = n.index.relationship(join.relationship);
  n.stated.add(`path:${join.relationship}`);
  const forward = (join.direction === 'forward') === fromSide;
  const phrase = forward ? rel.lexicon.forward : rel.lexicon.reverse;
  if (isPostmodifier(phrase)) return phrase;
  return `that ${plural ? pluralVerb(phrase) : phrase}`;
}

/**
 * The subtype scope of an entity: the register's first default ("creators" are all
 * creators, streamers included). Where the kind can also have objects of no more specific
 * kind, "accounts" could be read as the plain ones only, so the evidence names the kinds it
 * covers. A query that names the kinds of an alias of this kind says so in its own words
 * ("accounts that are not streamers", "the account type of accounts"), and then nothing more
 * is said of this kind; the other kinds of the query are still scoped.
 */
export function scopeNote(n: NaturalContext, entity: string): void {
  const kinds = n.index.children(entity);
  if (kinds.length === 0) return;
  n.covered.add('subtype-scope');
  if (
    !n.index.canBeDirect(entity) ||
    n.stated.has(`subtypes:${entity}`) ||
    [...aliasesOfKind(n.query)].some((alias) => n.d.aliases.has(alias) && info(n.d, alias).entity === entity)
  )
    return;
  n.stated.add(`subtypes:${entity}`);
  state(
    n,
    `${capitalize(entityNoun(n, entity, true))} include ${listing(kinds.map((k) => entityNoun(n, k.name, true)))}.`,
    'subtype-stated',
  );
}

export { canonical, info };
export type { SelectQuery };
