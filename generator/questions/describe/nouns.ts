import type { Attribute, Relationship } from '../../er-model/er-model.ts';
import type { Join } from '../../query/conceptual-query.ts';
import { elementLexicon, mention, note, type AliasInfo, type DescribeContext } from './context.ts';
import { article, isPostmodifier, listing, ORDINALS, pluralVerb, words } from './english.ts';

/** The alias's information, through any back link to the outer alias it stands for. */
export function info(d: DescribeContext, alias: string): AliasInfo {
  const i = d.aliases.get(alias);
  if (!i) throw new Error(`unknown alias ${alias}`);
  return i.sameAs ? info(d, i.sameAs) : i;
}

/** The alias an alias stands for (itself, or the outer alias of a back link). */
export function canonical(d: DescribeContext, alias: string): string {
  const i = d.aliases.get(alias);
  return i?.sameAs ? canonical(d, i.sameAs) : alias;
}

/** The noun of an alias, with its ordinal when several aliases share the noun. */
export function noun(d: DescribeContext, alias: string, plural = false): string {
  const canon = canonical(d, alias);
  const i = info(d, canon);
  const lex = i.entity ? d.index.entity(i.entity).lexicon : elementLexicon(i);
  const n = d.ordinal.get(canon);
  const base = plural ? lex.plural : lex.singular;
  return n === undefined ? base : `${ORDINALS[n] ?? `number ${n + 1}`} ${base}`;
}

/** "the creator", "the second channel". */
export function ref(d: DescribeContext, alias: string): string {
  return `the ${noun(d, alias)}`;
}

export function attribute(d: DescribeContext, alias: string, name: string): Attribute | undefined {
  const i = info(d, alias);
  return d.index.allAttributes(i.entity ?? '').find((a) => a.attribute.name === name)?.attribute;
}

export function attributeNoun(d: DescribeContext, alias: string, name: string, plural = false): string {
  if (name === 'id') return plural ? 'ids' : 'id';
  const a = attribute(d, alias, name);
  const lex = a?.lexicon ?? { singular: words(name), plural: `${words(name)}s` };
  return plural ? lex.plural : lex.singular;
}

// ---- subtype scope -------------------------------------------------------------------

/** "every creator (streamers included)" */
export function scoped(d: DescribeContext, entity: string, determiner: string, aliasForNoun?: string): string {
  const n = aliasForNoun ? noun(d, aliasForNoun) : d.index.entity(entity).lexicon.singular;
  const subs = d.index
    .subtree(entity)
    .slice(1)
    .map((e) => e.lexicon.plural);
  if (subs.length === 0) return `${determiner === 'a' ? article(n) : `${determiner} ${n}`}`;
  mention(d, 'subtype-scope', ...subs.map((s) => [s]));
  if (d.conventions === 'evidence') {
    note(d, `Every ${d.index.entity(entity).lexicon.singular} counts, including ${listing(subs)}.`, 'subtype-scope');
    return determiner === 'a' ? article(n) : `${determiner} ${n}`;
  }
  return `${determiner === 'a' ? article(n) : `${determiner} ${n}`} (${listing(subs)} included)`;
}

// ---- relationships -------------------------------------------------------------------

/** `B` described by its relationship with `A` ("channel owned by the creator"). */
export function related(
  d: DescribeContext,
  join: Extract<Join, { kind: 'relationship' }>,
  plural: boolean,
  determiner: string,
): string {
  const rel: Relationship = d.index.relationship(join.relationship);
  // The phrase with B as subject: B is `to` when the join goes forward.
  const phraseBA = join.direction === 'forward' ? rel.lexicon.reverse : rel.lexicon.forward;
  const phraseAB = join.direction === 'forward' ? rel.lexicon.forward : rel.lexicon.reverse;
  const head = scopedNoun(d, join, plural, determiner);
  const a = ref(d, join.from);
  if (isPostmodifier(phraseBA)) return `${head} ${phraseBA} ${a}`;
  if (isPostmodifier(phraseAB)) return `${head} that ${plural ? pluralVerb(phraseBA) : phraseBA} ${a}`;
  return `${head} that ${plural ? pluralVerb(phraseBA) : phraseBA} ${a}`;
}

function scopedNoun(
  d: DescribeContext,
  join: Extract<Join, { kind: 'relationship' }>,
  plural: boolean,
  determiner: string,
): string {
  const i = info(d, join.alias);
  const entity = i.entity as string;
  const n = noun(d, join.alias, plural);
  const subs = d.index
    .subtree(entity)
    .slice(1)
    .map((e) => e.lexicon.plural);
  const rel = d.index.relationship(join.relationship);
  const end = join.direction === 'forward' ? rel.to : rel.from;
  if (entity !== end) mention(d, 'subtype-join', [n]);
  const det =
    determiner === '' ? '' : determiner === 'a' ? (plural ? '' : article(n).split(' ')[0] + ' ') : `${determiner} `;
  if (subs.length === 0) return `${det}${n}`;
  mention(d, 'subtype-scope', ...subs.map((s) => [s]));
  if (d.conventions === 'evidence') {
    note(d, `Every ${d.index.entity(entity).lexicon.singular} counts, including ${listing(subs)}.`, 'subtype-scope');
    return `${det}${n}`;
  }
  return `${det}${n} (${listing(subs)} included)`;
}
