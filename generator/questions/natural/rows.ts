import type { Join, Predicate, SelectQuery } from '../../query/conceptual-query.ts';
import { article, capitalize, listing } from '../describe/english.ts';
import { elementLexicon } from '../describe/context.ts';
import {
  canonical,
  entityNoun,
  info,
  linkVerb,
  nounOf,
  scopeNote,
  state,
  toOne,
  type NaturalContext,
} from './natural-context.ts';
import { restriction, type Restriction } from './restrictions.ts';

/**
 * The rows of a select as a noun phrase around one subject alias: the subject's noun, its
 * restrictions, and every joined alias reached through the relationship that joins it
 * ("clips derived from live streams with a peak viewer count over 180,675"). The phrase
 * reads the joins from the subject, whichever end the query started from, so a list of clip
 * titles speaks of clips. What the phrase leaves to the register's defaults (one row per
 * subject, partners required) is checked here and, where the query departs, stated.
 */
export interface Rows {
  /** "clips derived from live streams with …" (plural) or the singular. */
  readonly plural: string;
  readonly singular: string;
  /** The subject's bare noun, plural ("clips"). */
  readonly noun: string;
  /** Whether every row is one subject (no join reaches more than one partner). */
  readonly onePerSubject: boolean;
  /** The partners a subject can have several of, singular ("channel", "tag"): what repeats it. */
  readonly repeatedBy: readonly string[];
  /** Whole-row clauses that attach to no alias ("where …"). */
  readonly clauses: string;
}

interface Edge {
  readonly join: Join;
  readonly other: string;
  /** Whether the walk leaves from the join's `from` (or `of`) side. */
  readonly fromSide: boolean;
}

function conjunctsOf(p: Predicate | undefined): Predicate[] {
  if (!p) return [];
  return p.kind === 'and' ? p.args.flatMap(conjunctsOf) : [p];
}

/** The restrictions of a select's WHERE, by the alias they follow. */
export function restrictionsOf(n: NaturalContext, q: SelectQuery): Map<string | undefined, Restriction[]> {
  n.outer = new Set([q.from.alias, ...(q.joins ?? []).map((j) => j.alias)].map((a) => canonical(n.d, a)));
  const out = new Map<string | undefined, Restriction[]>();
  for (const c of conjunctsOf(q.where)) {
    const r = restriction(n, c);
    out.set(r.alias, [...(out.get(r.alias) ?? []), r]);
  }
  return out;
}

/** The rows of `q` around `subject`. */
export function rowsAround(
  n: NaturalContext,
  q: SelectQuery,
  subject: string,
  restrictions = restrictionsOf(n, q),
  named: ReadonlySet<string> = new Set(),
): Rows {
  const joins = (q.joins ?? []).filter((j) => !n.d.aliases.get(j.alias)?.sameAs);
  const edges = (alias: string): Edge[] =>
    joins.flatMap((j): Edge[] => {
      const from = j.kind === 'relationship' ? j.from : j.of;
      if (canonical(n.d, from) === alias) return [{ join: j, other: j.alias, fromSide: true }];
      if (j.alias === alias) return [{ join: j, other: canonical(n.d, from), fromSide: false }];
      return [];
    });
  let onePerSubject = true;
  const repeatedBy: string[] = [];
  const seen = new Set<string>([subject]);
  // A join's own conditions (ON) narrow the partners it finds, LEFT or not.
  const onOf = new Map<string, Restriction[]>();
  for (const j of joins)
    if (j.kind === 'relationship' && j.on)
      onOf.set(
        j.alias,
        conjunctsOf(j.on).map((c) => restriction(n, c)),
      );
  // "devices made of Steel whose name contains "Air"": a relative clause last, where nothing follows it.
  const clauseLast = (rs: readonly Restriction[]): Restriction[] =>
    [...rs].sort((a, b) => Number(/^(whose|that) /u.test(a.text)) - Number(/^(whose|that) /u.test(b.text)));
  const said = (alias: string, named?: string): string => {
    const rs = clauseLast([...(onOf.get(alias) ?? []), ...(restrictions.get(alias) ?? [])]).filter(
      (r) => named === undefined || r.kind !== named,
    );
    return rs.length > 0 ? ` ${listing(rs.map((r) => r.text))}` : '';
  };
  // A WHERE condition on a LEFT-joined partner drops the rows without one again: the join is as good as inner.
  const required = (alias: string) => (restrictions.get(alias) ?? []).some((r) => r.rejectsMissing !== false);
  // The subject's own verbs agree with it: "streamers that own channels", "the streamer that owns channels".
  const topVerbs: { plural: string; singular: string }[] = [];
  const walk = (alias: string, plural: boolean): string => {
    const parts: string[] = [];
    for (const e of edges(alias)) {
      if (seen.has(e.other)) continue;
      seen.add(e.other);
      // "orders that contain apps with the tag eco", not "… digital products that are apps with …".
      const kinds = [...(onOf.get(e.other) ?? []), ...(restrictions.get(e.other) ?? [])].filter((r) => r.kind);
      const kind = e.join.kind === 'relationship' && kinds.length === 1 ? kinds[0]?.kind : undefined;
      if (!toOne(n, e.join, e.fromSide)) {
        onePerSubject = false;
        // A list of tags gives a tag a row: the repeats of a listed element go without saying.
        if (!(e.join.kind === 'elements' && named.has(e.other)))
          repeatedBy.push(
            e.join.kind === 'elements'
              ? elementLexicon(info(n.d, e.other)).singular
              : kind
                ? entityNoun(n, kind, false)
                : nounOf(n, e.other),
          );
      }
      const optional = e.join.type === 'left' && e.fromSide && !required(e.other);
      if (e.join.kind === 'elements') {
        const lex = elementLexicon(info(n.d, e.other));
        // "the tags of products": an element the outputs name needs no "with their tags".
        // "apps with the supported platform iOS": a condition on the value says the value.
        const own = [...(onOf.get(e.other) ?? []), ...(restrictions.get(e.other) ?? [])];
        // "employees with phone numbers": elements not shown only narrow the rows to objects
        // that have some, and the words say so; "their" is for elements the answer lists.
        const having = !optional && !named.has(e.other) && own.length === 0;
        if (own.length > 0 && own.every((r) => r.text.startsWith('with '))) parts.push(listing(own.map((r) => r.text)));
        else if (having) parts.push(`with ${lex.plural}`);
        else if (!named.has(e.other) || said(e.other)) parts.push(`with their ${lex.plural}${said(e.other)}`);
        if (having) {
          n.covered.add('elements');
          n.covered.add('inner-elements');
        } else if (optional)
          state(
            n,
            `${capitalize(nounOf(n, alias, true))} with no ${lex.plural} are listed once, with the ${lex.singular} left empty.`,
            'left-elements',
          );
        else {
          n.covered.add('elements');
          // "apps with their tags" could keep the untagged apps; a condition on the value cannot.
          if (own.length === 0 && !required(e.other))
            state(n, `${capitalize(nounOf(n, alias, true))} with no ${lex.plural} are left out.`, 'inner-elements');
        }
        continue;
      }
      const entity = kind ?? (info(n.d, e.other).entity as string);
      scopeNote(n, entity);
      const verb = linkVerb(n, e.join, e.fromSide, plural);
      if (alias === subject) topVerbs.push({ plural: verb, singular: linkVerb(n, e.join, e.fromSide, false) });
      const partner = kind ? entityNoun(n, kind, true) : nounOf(n, e.other, true);
      const inner = `${partner}${said(e.other, kind)}${walk(e.other, true)}`;
      if (optional) {
        // "employees and any products recommended by them": the partner is optional.
        const back = linkVerb(n, e.join, !e.fromSide, true);
        parts.push(`and any ${inner} ${back} them`);
        state(
          n,
          `${capitalize(nounOf(n, alias, true))} without ${article(nounOf(n, e.other))} are listed too, once, with the ${nounOf(n, e.other)} columns empty.`,
          'left-join',
        );
      } else parts.push(`${parts.length > 0 ? 'and ' : ''}${plainWith(n, e.join, verb, inner, e.other)} ${inner}`);
    }
    return parts.length > 0 ? ` ${parts.join(' ')}` : '';
  };
  // "live videos whose title contains …", not "videos whose title contains … and that are live videos".
  const ownKinds = (restrictions.get(subject) ?? []).filter((r) => r.kind);
  const kind = ownKinds.length === 1 ? ownKinds[0]?.kind : undefined;
  const entity = kind ?? info(n.d, subject).entity;
  if (entity) scopeNote(n, entity);
  const links = walk(subject, true);
  // Aliases the walk never reached (a join from an alias the subject does not lead to) are few; they are named plainly.
  const clauses = (restrictions.get(undefined) ?? []).map((r) => r.text);
  const tail = clauses.length > 0 ? `, ${listing(clauses)}` : '';
  const own = said(subject, kind);
  const subjectNoun = (plural: boolean): string => (kind ? entityNoun(n, kind, plural) : nounOf(n, subject, plural));
  const singularLinks = topVerbs.reduce((t, v) => t.replace(` ${v.plural} `, ` ${v.singular} `), links);
  // "streamers that own channels, with an average viewer count over 25,000 viewers": a relative
  // clause after the subject's own conditions would attach to their last noun ("viewers that own").
  // Conditions that end on a value ("older than 35", "named "Lumen"") take no relative clause
  // and come first: "viewers older than 35 that viewed videos".
  const around = (noun: string, l: string, one = false): string => {
    const o = one ? singularKinds(n, own) : own;
    // "devices with the supported standard "HDMI 2.1" and with reviews": two "with" phrases side by side.
    if (o && l.startsWith(' with ')) return `${noun}${o} and${l}`;
    // A clause after nested ones would attach to the last of them: the own conditions come first.
    if (!o || !l.startsWith(' that ') || (l.match(/ that /gu)?.length ?? 0) > 1) return `${noun}${o}${l}`;
    // "employees that recommend products and whose last name contains "Ebert"": two relative clauses.
    if (o.startsWith(' whose ') && !o.slice(1).includes(' whose ')) return `${noun}${l} and${o}`;
    if (endsOnValue(o)) return `${noun}${o}${l}`;
    // "streamers that own channels and have an average viewer count over 25,000 viewers".
    if (o.startsWith(' with ') && !o.slice(' with '.length).includes(' with '))
      return `${noun}${l} and ${one ? 'has' : 'have'} ${o.slice(' with '.length)}`;
    return `${noun}${l},${o}`;
  };
  return {
    plural: `${around(subjectNoun(true), links)}${tail}`,
    singular: `${around(subjectNoun(false), singularLinks, true)}${tail}`,
    noun: subjectNoun(true),
    onePerSubject,
    repeatedBy,
    clauses: tail,
  };
}

/** The alias from which every join reaches at most one partner (so rows are that alias's objects), if any. */
export function rowSubject(n: NaturalContext, q: SelectQuery): string | undefined {
  const aliases = [
    q.from.alias,
    ...(q.joins ?? [])
      .filter((j) => j.kind === 'relationship' && !n.d.aliases.get(j.alias)?.sameAs)
      .map((j) => j.alias),
  ];
  if ((q.joins ?? []).some((j) => j.kind === 'elements')) return undefined;
  for (const a of aliases) {
    const probe = rowsProbe(n, q, a);
    if (probe) return a;
  }
  return undefined;
}

function rowsProbe(n: NaturalContext, q: SelectQuery, subject: string): boolean {
  const joins = (q.joins ?? []).filter((j) => !n.d.aliases.get(j.alias)?.sameAs);
  const seen = new Set([subject]);
  const stack = [subject];
  let ok = true;
  while (stack.length > 0) {
    const a = stack.pop() as string;
    for (const j of joins) {
      const from = j.kind === 'relationship' ? j.from : j.of;
      const fromSide = canonical(n.d, from) === a;
      const other = fromSide ? j.alias : j.alias === a ? canonical(n.d, from) : undefined;
      if (other === undefined || seen.has(other)) continue;
      seen.add(other);
      if (!toOne(n, j, fromSide) || j.type === 'left') ok = false;
      stack.push(other);
    }
  }
  return ok;
}

/**
 * "videos with tags", not "videos tagged with tags": a "… with" verb before its bare partner
 * noun says nothing "with" does not, when it is the only relationship between the two kinds
 * (another would make the verb the path's name).
 */
function plainWith(
  n: NaturalContext,
  join: Extract<Join, { kind: 'relationship' }>,
  verb: string,
  inner: string,
  other: string,
): string {
  if (!/^\w+ with$/u.test(verb) || inner !== nounOf(n, other, true)) return verb;
  const rel = n.index.relationship(join.relationship);
  const ends = new Set([rel.from, rel.to]);
  const between = n.index.domain.relationships.filter((r) => ends.has(r.from) && ends.has(r.to));
  return between.length === 1 ? 'with' : verb;
}

/** "that are clothing items" of one object: "that is a clothing item" ("For each product that is a clothing item"). */
function singularKinds(n: NaturalContext, own: string): string {
  let out = own;
  for (const e of n.index.domain.entities) {
    const many = entityNoun(n, e.name, true);
    const one = entityNoun(n, e.name, false);
    out = out
      .replaceAll(` that are not ${many}`, ` that is not ${article(one)}`)
      .replaceAll(` that are ${many}`, ` that is ${article(one)}`);
  }
  return out;
}

/** Whether a phrase ends on a number, an amount, a quoted value or a proper name, not on a noun a clause could follow. */
function endsOnValue(phrase: string): boolean {
  return /(?:\d%?|["\u201d])$/u.test(phrase) || /\s\p{Lu}[\p{L}\d.-]*$/u.test(phrase);
}
