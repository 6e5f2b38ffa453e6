import type { Expr, Join, OrderItem, Predicate, SelectQuery } from '../../query/conceptual-query.ts';
import { hasAggregate } from '../../query/query-scope.ts';
import { sameNode } from '../../query/walk.ts';
import { article, capitalize, listing } from '../describe/english.ts';
import { expr, nullable } from '../describe/expressions.ts';
import { canonical, linkVerb, measureOf, nounOf, state, type NaturalContext } from './natural-context.ts';
import { linkedSubquery, restriction, timeNote } from './restrictions.ts';
import { momentText, numberText } from './values.ts';
import { entityNoun, info, pluralOf } from './natural-context.ts';

/**
 * Output columns, aggregates and sort keys as nouns a person uses: "title", "average
 * duration", "number of channels they own", "sign-up year"; superlatives and orders ("the
 * most", "the highest", "latest first"). A construct with no short wording is said as the
 * precise style says it.
 */

export type FigureKind = 'number' | 'count' | 'time' | 'text' | 'other';

export interface Figure {
  /** Without article: "average duration". */
  readonly text: string;
  /** An attribute's plural, for a list of many rows ("titles"). */
  readonly plural?: string;
  readonly kind: FigureKind;
  /** A count of different values (not of objects): "the most different titles", never "the most titles". */
  readonly ofValues?: true;
}

/** How a joined alias is reached from the subject, for figures about it ("their clips"). */
export interface Reach {
  /** COUNT(*) of the subject is "number" alone: the rows are said right after ("the number and average price of products"). */
  readonly bareCount?: boolean;
  /** What COUNT(*) counts, when not the subject's objects ("channels owned by them"). */
  readonly star?: string;
  /** "channels they own", "clips derived from them" (plural, after "number of"). */
  readonly partnerPhrase?: (alias: string) => string | undefined;
}

function attributeFigure(n: NaturalContext, alias: string, name: string, subject: string | undefined): Figure {
  const m = measureOf(n, alias, name);
  const kind: FigureKind = m.kind === 'time' ? 'time' : m.kind === 'text' || m.kind === 'flag' ? 'text' : 'number';
  if (subject !== undefined && canonical(n.d, alias) === canonical(n.d, subject))
    return { text: m.noun, plural: m.kind === 'id' ? 'ids' : m.unit ? pluralOf(m.noun) : m.plural, kind };
  const text = compound(nounOf(n, alias), m.noun);
  return { text, plural: pluralOf(text), kind };
}

/** "electronics product" + "product name" → "electronics product name"; "customer" + "first name" → "customer first name". */
export function compound(owner: string, attribute: string): string {
  const last = owner.split(' ').pop() as string;
  return attribute.startsWith(`${last} `) ? `${owner}${attribute.slice(last.length)}` : `${owner} ${attribute}`;
}

/** A time split into a part: "sign-up year" for the year of the sign-up time. */
function partOfTime(n: NaturalContext, e: Expr, subject: string | undefined): Figure | undefined {
  if (e.kind !== 'extract' || e.arg.kind !== 'attribute') return undefined;
  if (!['year', 'month', 'quarter'].includes(e.field)) return undefined;
  const base = attributeFigure(n, e.arg.alias, e.arg.attribute, subject).text;
  timeNote(n, e.arg.alias, e.arg.attribute);
  if (e.field === 'month') state(n, 'Months are numbered 1 to 12.', 'month-number');
  if (e.field === 'quarter') state(n, 'Quarters are numbered 1 to 4.', 'quarter-number');
  const word = e.field;
  // "sign-up year", "scheduled start year".
  const text = / (time|date)$/u.test(base) ? base.replace(/ (time|date)$/u, ` ${word}`) : `${base} ${word}`;
  return { text, kind: 'number' };
}

/** Whether no object can be of two of the classes: none is another's ancestor, and their hierarchy is disjoint. */
function disjointKinds(n: NaturalContext, among: readonly string[]): boolean {
  const index = n.d.index;
  const root = among[0] === undefined ? undefined : index.root(among[0]).name;
  return (
    root !== undefined &&
    index.hierarchyIsDisjoint(root) &&
    among.every((a, i) => among.every((b, j) => i === j || !index.isAncestorOrSelf(a, b)))
  );
}

/** The natural noun phrase of an output or key, without article. */
export function figure(n: NaturalContext, e: Expr, subject: string | undefined, reach: Reach = {}): Figure {
  if (e.kind === 'attribute') return attributeFigure(n, e.alias, e.attribute, subject);
  const part = partOfTime(n, e, subject);
  if (part) return part;
  if (e.kind === 'classOf') {
    // The answer holds the subclasses' names as the model spells them ("Electronics", "CreatorAccount"): the evidence gives those.
    const owner = info(n.d, e.alias).entity as string;
    const ownerNoun = entityNoun(n, owner);
    const labels = e.among.map((x) => `"${x}"`);
    const text = `${ownerNoun} type`;
    const one = e.among[0] as string;
    // Labels the answer does not show (a partition or filter by kind) would be quoted for nothing: no SQL or row holds them.
    const shown = n.d.shown.includes(JSON.stringify(e));
    if (!shown) {
      n.covered.add('class-of');
      return { text, kind: 'text' };
    }
    state(
      n,
      e.among.length === 1
        ? `${capitalize(text)} is ${labels[0]} for ${article(entityNoun(n, one))}, empty otherwise.`
        : `${capitalize(text)} is ${listing(
            e.among.map((x) => `${`"${x}"`} for ${entityNoun(n, x, true)}`),
            'or',
          )}, the first that applies in this order, empty otherwise.`,
      'class-of',
    );
    return { text, kind: 'text' };
  }
  if (e.kind === 'scalarSubquery') {
    const out = e.query.select[0]?.expr;
    const linked =
      out?.kind === 'aggregate' && out.fn === 'count' && !out.distinct && !out.filter
        ? linkedSubquery(n, e.query)
        : undefined;
    const j = e.query.joins?.[0];
    if (linked && j?.kind === 'relationship')
      return { text: `number of ${partnerNoun(n, j, false, `${linked.plural}${linked.restrictions}`)}`, kind: 'count' };
  }
  if (e.kind === 'element')
    return {
      text: nounOf(n, e.alias),
      plural: nounOf(n, e.alias, true),
      kind: info(n.d, e.alias).element?.attribute.type.kind === 'text' ? 'text' : 'other',
    };
  if (e.kind === 'setArray') {
    const m = measureOf(n, e.alias, e.attribute);
    state(n, `A list of ${m.plural} may hold them in any order.`, 'set-array');
    return { text: `list of ${m.plural}`, plural: `lists of ${m.plural}`, kind: 'other' };
  }
  if (e.kind === 'setSize')
    return {
      text: `number of ${measureOf(n, e.alias, e.attribute).plural}${subject !== undefined && canonical(n.d, e.alias) === canonical(n.d, subject) ? '' : ` of the ${nounOf(n, e.alias)}`}`,
      kind: 'count',
    };
  if (e.kind === 'textFunction') {
    const inner = figure(n, e.arg, subject, reach);
    if (inner.kind !== 'other') {
      if (e.fn === 'length') return { text: `length of the ${inner.text}`, kind: 'number' };
      return { text: `${inner.text} in ${e.fn === 'lower' ? 'lower' : 'upper'} case`, kind: 'text' };
    }
  }
  if (e.kind === 'substring' && e.start === 1 && e.length !== undefined) {
    const inner = figure(n, e.arg, subject, reach);
    if (inner.kind !== 'other') {
      // The first letter of a name is its initial; only a longer cut needs saying what a short text gives.
      if (e.length === 1) {
        n.covered.add('substring');
        return { text: `first letter of the ${inner.text}`, kind: 'text' };
      }
      state(n, `${capitalize(article(inner.text))} shorter than ${e.length} characters is shown whole.`, 'substring');
      return { text: `first ${e.length} characters of the ${inner.text}`, kind: 'text' };
    }
  }
  if (e.kind === 'round') {
    const inner = figure(n, e.arg, subject, reach);
    state(n, `${capitalize(inner.text)} is rounded to ${e.digits} decimal place${e.digits === 1 ? '' : 's'}.`, 'round');
    return inner;
  }
  if (e.kind === 'aggregate' && !e.filter) {
    if (e.fn === 'count') {
      if (!e.arg)
        return {
          text: reach.star
            ? `number of ${reach.star}`
            : reach.bareCount
              ? 'number'
              : `number of ${subject ? nounOf(n, subject, true) : 'rows'}`,
          kind: 'count',
        };
      if ((e.arg.kind === 'attribute' && e.arg.attribute === 'id') || e.arg.kind === 'element') {
        const alias = e.arg.alias;
        const phrase =
          subject !== undefined && canonical(n.d, alias) !== canonical(n.d, subject)
            ? reach.partnerPhrase?.(alias)
            : undefined;
        return {
          text: `number of ${e.distinct ? 'different ' : ''}${phrase ?? nounOf(n, alias, true)}`,
          kind: 'count',
        };
      }
      if (
        e.arg.kind === 'attribute' &&
        subject !== undefined &&
        canonical(n.d, e.arg.alias) === canonical(n.d, subject)
      ) {
        const m = measureOf(n, e.arg.alias, e.arg.attribute);
        // COUNT(x) counts the rows where x is known; COUNT(DISTINCT x) its different values.
        if (e.distinct) return { text: `number of different ${m.plural}`, kind: 'count' };
        return { text: `number of ${nounOf(n, subject, true)} with ${article(m.noun)}`, kind: 'count' };
      }
      // COUNT(DISTINCT x) of a partner: "the number of different titles of the videos they produced".
      if (e.arg.kind === 'attribute' && e.distinct) {
        const alias = e.arg.alias;
        const m = measureOf(n, alias, e.arg.attribute);
        return {
          text: `number of different ${m.plural} of ${reach.partnerPhrase?.(alias) ?? nounOf(n, alias, true)}`,
          kind: 'count',
          ofValues: true,
        };
      }
      // COUNT(DISTINCT kind) where no object is of two of the kinds: "the number of different
      // product types of products recommended by them", the types listed in the evidence.
      if (e.arg.kind === 'classOf' && e.distinct && e.arg.among.length > 1 && disjointKinds(n, e.arg.among)) {
        const alias = e.arg.alias;
        const owner = info(n.d, alias).entity as string;
        const ownerNoun = entityNoun(n, owner);
        const own = subject !== undefined && canonical(n.d, alias) === canonical(n.d, subject);
        const kinds = e.arg.among.map((x) => entityNoun(n, x, true));
        // Where some objects are of none of the kinds, they have no type, and add none.
        const among = e.arg.among;
        const index = n.d.index;
        const covered = index
          .subtree(owner)
          .every((c) => !index.canBeDirect(c.name) || among.some((k) => index.isAncestorOrSelf(k, c.name)));
        state(
          n,
          `The ${ownerNoun} types are ${listing(kinds, 'and')}${covered ? '' : `; other ${entityNoun(n, owner, true)} have no type`}.`,
          'class-of',
        );
        return {
          text: `number of different ${ownerNoun} types${own ? '' : ` of ${reach.partnerPhrase?.(alias) ?? nounOf(n, alias, true)}`}`,
          kind: 'count',
          ofValues: true,
        };
      }
    } else if (e.arg?.kind === 'attribute' && e.arg.attribute !== 'id') {
      const alias = e.arg.alias;
      const m = measureOf(n, alias, e.arg.attribute);
      const own = subject !== undefined && canonical(n.d, alias) === canonical(n.d, subject);
      const of = own ? '' : ` of ${reach.partnerPhrase?.(alias) ?? nounOf(n, alias, true)}`;
      const words =
        m.kind === 'time'
          ? { sum: 'total', avg: 'average', min: 'earliest', max: 'latest' }
          : m.kind === 'text' || m.kind === 'flag'
            ? { sum: 'total', avg: 'average', min: 'alphabetically first', max: 'alphabetically last' }
            : { sum: 'total', avg: 'average', min: 'lowest', max: 'highest' };
      const fn = words[e.fn];
      // The lowest or highest of the distinct values is the lowest or highest: only a total or an average changes.
      if (e.distinct && (e.fn === 'sum' || e.fn === 'avg'))
        state(n, `The ${fn} counts each distinct ${m.noun} once.`, 'distinct-aggregate');
      else if (e.distinct) n.covered.add('distinct-aggregate');
      if (m.kind === 'time') timeNote(n, alias, e.arg.attribute);
      const doubled = fn.split(' ').pop() === m.noun.split(' ')[0];
      const head =
        e.fn === 'avg' && m.noun.startsWith('average ')
          ? `average of the ${m.plural}`
          : doubled
            ? `${m.noun} that sorts ${fn.split(' ').pop()}`
            : `${fn} ${m.noun}`;
      return { text: `${head}${of}`, kind: m.kind === 'time' ? 'time' : m.kind === 'text' ? 'text' : 'number' };
    }
  }
  const label = labelOf(n, e, subject, reach);
  if (label) {
    // BIRD's way with a derived value: a short name in the question, its definition in the evidence.
    state(n, labelDefinition(n, e, label, subject), `label:${e.kind}`);
    return label;
  }
  return { text: expr(n.d, e, { grouped: hasAggregate(e) }).replace(/^the /u, ''), kind: 'other' };
}

/**
 * The evidence sentence that defines a derived value's short name, in BIRD's manner: a CASE
 * as its values and the rows that get them ("Duration category is "high" for clips with a
 * duration of at least 2 hours, and "low" otherwise."), an age as whole years to a date;
 * anything else as the precise style words it. Times are in UTC by the register's default.
 */
function labelDefinition(n: NaturalContext, e: Expr, label: Figure, subject: string | undefined): string {
  const name = capitalize(label.text);
  const whens: { when: Predicate; then: Expr }[] | undefined =
    e.kind === 'case'
      ? [...e.whens]
      : e.kind === 'simpleCase'
        ? e.whens.map((w) => ({
            when: { kind: 'compare', op: '=', left: e.operand, right: { kind: 'literal', value: w.value } },
            then: w.then,
          }))
        : undefined;
  if (
    (e.kind === 'case' || e.kind === 'simpleCase') &&
    whens &&
    whens.every((w) => w.then.kind === 'literal') &&
    (!e.else || e.else.kind === 'literal')
  ) {
    const parts = whens.map((w) => ({ r: restriction(n, w.when), v: literalValue(w.then) }));
    if (parts.every((p) => p.r.alias !== undefined && !p.r.text.startsWith('where '))) {
      const whom = (alias: string) => nounOf(n, alias, true);
      const said = parts.map((p, i) => `${p.v} for ${i === 0 ? whom(p.r.alias as string) : 'those'} ${p.r.text}`);
      const rest = e.else ? `${literalValue(e.else)} otherwise` : 'empty otherwise';
      return `${name} is ${listing([...said, rest], 'and')}${parts.length > 1 ? ', the first that applies' : ''}.`;
    }
  }
  if (label.text === 'full name' && fullName(n, e)) return 'Full name is the first name, a space, then the last name.';
  // SUM(CASE WHEN p THEN 1 ELSE 0 END): "… adds 1 for each employee in the warehouse department, and 0 otherwise."
  if (
    e.kind === 'aggregate' &&
    e.fn === 'sum' &&
    subject &&
    e.arg?.kind === 'case' &&
    e.arg.whens.length === 1 &&
    e.arg.whens[0]
  ) {
    const r = restriction(n, e.arg.whens[0].when);
    if (!r.text.startsWith('where '))
      return `${name} adds 1 for each ${nounOf(n, subject)} ${r.text}, and 0 otherwise.`;
  }
  // "Percentage of apps in exe format is the number of apps in exe format as a percent of all apps, rounded to 1 decimal place."
  if (e.kind === 'ratio' && subject) {
    const counted = countedWhere(e.numerator);
    const d = e.denominator;
    if (counted && d.kind === 'aggregate' && d.fn === 'count' && !d.arg && !d.filter) {
      const r = restriction(n, counted);
      const rows = nounOf(n, subject, true);
      const places = `${e.digits} decimal place${e.digits === 1 ? '' : 's'}`;
      if (!r.text.startsWith('where '))
        return `${name} is the number of ${rows} ${r.text} as ${e.percent ? 'a percent' : 'a share'} of the number of ${rows}, rounded to ${places}, and empty when there are no ${rows}.`;
    }
  }
  // A numbering window: "Price rank within each file format numbers the apps 1, 2, 3, … in each file format, highest price first, ties broken by id."
  if (
    e.kind === 'window' &&
    (e.fn === 'row_number' || e.fn === 'rank' || e.fn === 'dense_rank') &&
    (e.orderBy?.length ?? 0) > 0
  ) {
    const { keys, order } = windowFigures(n, e, subject);
    if ([...keys, ...order.map((o) => o.f)].every((f) => f.kind !== 'other')) {
      const rowsNoun = n.d.windowUnit === 'group' ? 'groups' : subject ? nounOf(n, subject, true) : 'rows';
      const [head, ...rest] = order as [{ f: Figure; desc: boolean }, ...{ f: Figure; desc: boolean }[]];
      const within = keys.length > 0 ? ` within each ${listing(keys.map((k) => k.text))}` : '';
      const ties =
        rest.length > 0
          ? `, ties broken by ${listing(
              rest.map((o) => `${o.f.text}${o.desc ? ' (descending)' : ''}`),
              'then',
            )}`
          : '';
      // PostgreSQL puts a missing key first in descending order, last in ascending.
      const missing = (e.orderBy ?? []).flatMap((o, i) =>
        mayBeMissing(n, o.expr)
          ? [
              `${rowsNoun} with no ${(order[i] as { f: Figure }).f.text} come ${o.direction === 'desc' ? 'first' : 'last'}`,
            ]
          : [],
      );
      const gaps = missing.length > 0 ? `; ${listing(missing)}` : '';
      const how =
        gaps +
        (e.fn === 'row_number'
          ? ''
          : e.fn === 'rank'
            ? `; tied ${rowsNoun} share a rank and the next rank skips ahead (1, 1, 3)`
            : `; tied ${rowsNoun} share a rank, with no gaps (1, 1, 2)`);
      return `${name} numbers the ${rowsNoun} 1, 2, 3, …${within} by ${firstOrder(head.f, head.desc)}${ties}${how}.`;
    }
  }
  // Along time: "Previous creation time within each resolution is the creation time of the clip
  // just before it among clips of the same resolution, ties broken by id, and empty for the first."
  if (e.kind === 'window' && (e.fn === 'lag' || e.fn === 'lead' || e.fn === 'sum') && e.arg && subject) {
    const { keys, order } = windowFigures(n, e, subject);
    const arg = figure(n, e.arg, subject);
    const [head, ...rest] = order;
    const simple =
      head &&
      !head.desc &&
      head.f.kind === 'time' &&
      (e.orderBy ?? []).every((o) => !mayBeMissing(n, o.expr)) &&
      !mayBeMissing(n, e.arg) &&
      [arg, ...keys, ...order.map((o) => o.f)].every((f) => f.kind !== 'other');
    if (simple) {
      const one = nounOf(n, subject);
      const rows = nounOf(n, subject, true);
      const among = keys.length > 0 ? ` among ${rows} of the same ${listing(keys.map((k) => k.text))}` : '';
      const ties =
        rest.length > 0
          ? `, ties broken by ${listing(
              rest.map((o) => o.f.text),
              'then',
            )}`
          : '';
      if (e.fn === 'sum')
        return `${name} adds up the ${arg.plural ?? pluralOf(arg.text)}${among}, in order of ${head.f.text}, up to and including this ${one} and any with the same ${head.f.text}.`;
      const before = e.fn === 'lag';
      const offset = e.offset ?? 1;
      if (offset === 1)
        return `${name} is the ${arg.text} of the ${one} just ${before ? 'before' : 'after'} it in order of ${head.f.text}${among}${ties}, and empty for the ${before ? 'first' : 'last'}.`;
    }
  }
  if (e.kind === 'ageYears' && e.to.kind === 'literal' && typeof e.to.value === 'string') {
    return `${name} counts whole years up to ${momentText(e.to.value, false)}.`;
  }
  return `${name} is ${expr(n.d, e, { grouped: hasAggregate(e) }).replace(/ \(in UTC\)/gu, '')}.`;
}

/** "full name" (or "customer full name") for first name, a space and last name joined, of one object; undefined otherwise. */
function fullName(n: NaturalContext, e: Expr): string | undefined {
  if (e.kind !== 'arithmetic' || e.op !== '||' || e.left.kind !== 'arithmetic' || e.left.op !== '||') return undefined;
  const [first, space, last] = [e.left.left, e.left.right, e.right];
  if (
    first.kind !== 'attribute' ||
    last.kind !== 'attribute' ||
    first.alias !== last.alias ||
    space.kind !== 'literal' ||
    space.value !== ' '
  )
    return undefined;
  const a = measureOf(n, first.alias, first.attribute).noun;
  const b = measureOf(n, last.alias, last.attribute).noun;
  return a === 'first name' && b === 'last name' ? 'full name' : undefined;
}

/** "highest price first", "latest sign-up time first", "title in alphabetical order". */
function firstOrder(f: Figure, desc: boolean): string {
  if (f.kind === 'text') return `${f.text} in ${desc ? 'reverse ' : ''}alphabetical order`;
  if (f.kind === 'time') return `${f.text}, ${desc ? 'latest' : 'earliest'} first`;
  return `${f.text}, ${desc ? 'highest' : 'lowest'} first`;
}

function literalValue(e: Expr): string {
  if (e.kind !== 'literal' || e.value === null) return 'empty';
  return typeof e.value === 'string'
    ? `"${e.value}"`
    : typeof e.value === 'number'
      ? numberText(e.value)
      : String(e.value);
}

function literalOf(e: Expr): unknown {
  return e.kind === 'literal' ? e.value : undefined;
}

/** The first attribute an expression reads, for naming it ("duration category"). */
function firstAttribute(x: unknown): { alias: string; attribute: string } | undefined {
  if (Array.isArray(x)) {
    for (const v of x) {
      const f = firstAttribute(v);
      if (f) return f;
    }
    return undefined;
  }
  if (!x || typeof x !== 'object') return undefined;
  const o = x as Record<string, unknown>;
  if (o['kind'] === 'attribute' && o['attribute'] !== 'id' && typeof o['alias'] === 'string')
    return { alias: o['alias'], attribute: o['attribute'] as string };
  for (const [k, v] of Object.entries(o)) {
    if (k === 'kind') continue;
    const f = firstAttribute(v);
    if (f) return f;
  }
  return undefined;
}

/**
 * A short name for a derived value whose full wording is long: a CASE ("duration
 * category"), a window ("price rank within each product type"), a ratio, a position,
 * a rounding to a whole number, an age in years, a conditional count. Undefined: no name.
 */
function labelOf(n: NaturalContext, e: Expr, subject: string | undefined, reach: Reach): Figure | undefined {
  const named = (x: Expr | undefined): string | undefined => {
    if (!x) return undefined;
    const f = figure(n, x, subject, reach);
    return f.kind === 'other' ? undefined : f.text;
  };
  const about = (): string | undefined => {
    const a = firstAttribute(e);
    return a ? attributeFigure(n, a.alias, a.attribute, subject).text : undefined;
  };
  switch (e.kind) {
    case 'case':
    case 'simpleCase': {
      // One value against the rest, "yes" or "no": "apk indicator".
      const [only] = e.kind === 'simpleCase' ? e.whens : [];
      if (e.kind === 'simpleCase' && e.whens.length === 1 && only && literalOf(only.then) === 'yes')
        return { text: `${String(only.value)} indicator`, kind: 'text' };
      const a = about();
      if (!a) return undefined;
      // A band of a quantity, "high" or "low": "stock quantity level".
      const thens = [...e.whens.map((w: { then: Expr }) => w.then), ...(e.else ? [e.else] : [])];
      if (thens.every((t) => ['high', 'low', 'medium'].includes(String(literalOf(t)))))
        return { text: `${a} level`, kind: 'text' };
      return { text: `${a} ${/(category|group)$/u.test(a) ? 'label' : 'category'}`, kind: 'text' };
    }
    case 'window': {
      const first = e.orderBy?.[0]?.expr;
      // "previous order time", not "previous order time by order time".
      const by = first && !(e.arg && sameNode(e.arg, first)) ? named(first) : undefined;
      // A partner by its id is the partner: "within each customer", not "within each customer id".
      const within = (e.partitionBy ?? []).map((k) =>
        k.kind === 'attribute' && k.attribute === 'id' ? nounOf(n, k.alias) : named(k),
      );
      if (within.some((w) => w === undefined)) return undefined;
      const per = within.length > 0 ? ` within each ${listing(within as string[])}` : '';
      // "price rank within each file format": the order's own noun before "rank", as people say it.
      if (by && (e.fn === 'row_number' || e.fn === 'rank' || e.fn === 'dense_rank'))
        return { text: `${by} rank${per}`, kind: 'number' };
      const head = {
        row_number: 'position',
        rank: 'rank',
        dense_rank: 'rank',
        lag: `previous ${named(e.arg) ?? 'value'}`,
        lead: `next ${named(e.arg) ?? 'value'}`,
        sum: `running total of ${named(e.arg) ?? 'the value'}`,
        avg: `running average of ${named(e.arg) ?? 'the value'}`,
        count: 'running count',
      }[e.fn];
      if (!by && (e.fn === 'row_number' || e.fn === 'rank' || e.fn === 'dense_rank')) return undefined;
      return { text: `${head}${by ? ` by ${by}` : ''}${per}`, kind: 'number' };
    }
    case 'ratio': {
      const counted = countedWhere(e.numerator);
      if (counted && subject) {
        const r = restriction(n, counted);
        return {
          text: `${e.percent ? 'percentage' : 'share'} of ${nounOf(n, subject, true)} ${r.text}`,
          kind: 'number',
        };
      }
      const a = about();
      return a ? { text: `${e.percent ? 'percentage' : 'ratio'} of ${a}`, kind: 'number' } : undefined;
    }
    case 'arithmetic': {
      // first name || ' ' || last name is what people call a full name.
      const full = fullName(n, e);
      if (full) return { text: full, plural: `${full}s`, kind: 'text' };
      const l = named(e.left);
      const r =
        e.right.kind === 'literal'
          ? typeof e.right.value === 'string'
            ? `"${e.right.value}"`
            : String(e.right.value)
          : named(e.right);
      if (!l || !r) return undefined;
      const op = { '+': 'plus', '-': 'minus', '*': 'times', '/': 'divided by', '||': 'followed by' }[e.op];
      // Arithmetic on two attributes reads as it is: "price minus quantity in stock"; no definition needed but the one below.
      return { text: `${l} ${op} ${r}`, kind: e.op === '||' ? 'text' : 'number' };
    }
    case 'aggregate': {
      // SUM(CASE WHEN p THEN 1 ELSE 0 END) counts the rows where p holds.
      const arg = e.arg;
      if (
        e.fn === 'sum' &&
        !e.filter &&
        subject &&
        arg?.kind === 'case' &&
        arg.whens.length === 1 &&
        arg.whens[0]?.then.kind === 'literal' &&
        arg.whens[0].then.value === 1 &&
        arg.else?.kind === 'literal' &&
        arg.else.value === 0
      ) {
        const r = restriction(n, arg.whens[0].when);
        if (r.alias === undefined || r.alias === canonical(n.d, subject))
          return {
            text: `number of ${nounOf(n, subject, true)} ${r.text.replace(/^where /u, 'for which ')}`,
            kind: 'count',
          };
      }
      if (
        e.fn === 'count' &&
        e.filter &&
        subject &&
        (!e.arg || (e.arg.kind === 'attribute' && e.arg.attribute === 'id'))
      ) {
        const r = restriction(n, e.filter);
        if (r.alias === undefined || r.alias === canonical(n.d, subject))
          return {
            text: `number of ${nounOf(n, subject, true)} ${r.text.replace(/^where /u, 'for which ')}`,
            kind: 'count',
          };
      }
      return undefined;
    }
    case 'position': {
      const inner = named(e.arg);
      return inner ? { text: `position of "${e.search}" in the ${inner}`, kind: 'number' } : undefined;
    }
    case 'cast': {
      const inner = named(e.arg);
      if (!inner) return undefined;
      if (e.to === 'integer') return { text: `${inner} rounded to a whole number`, kind: 'number' };
      if (e.to === 'date') return { text: `${inner} date`.replace(/ (time|date) date$/u, ' date'), kind: 'time' };
      return { text: inner, kind: 'number' };
    }
    case 'ageYears': {
      const from = named(e.from);
      return from ? { text: `years since the ${from}`, kind: 'number' } : undefined;
    }
    case 'coalesce':
    case 'nullif':
    case 'dateTrunc': {
      const a = about();
      if (!a) return undefined;
      // "creation month" for the month of the creation time (its first day, defined in the evidence).
      const truncated = / (time|date)$/u.test(a)
        ? a.replace(/ (time|date)$/u, ` ${e.kind === 'dateTrunc' ? e.unit : ''}`).trim()
        : `${a} ${e.kind === 'dateTrunc' ? e.unit : ''}`.trim();
      return { text: e.kind === 'dateTrunc' ? truncated : a, kind: e.kind === 'dateTrunc' ? 'time' : 'other' };
    }
    default:
      return undefined;
  }
}

/** An ORDER BY item's expression, output names resolved. */
export function sortExpr(q: SelectQuery, item: OrderItem | { name: string }): Expr | undefined {
  if ('name' in item) return q.select.find((o) => o.name === item.name)?.expr;
  if (item.expr.kind === 'output') {
    const name = item.expr.name;
    return q.select.find((o) => o.name === name)?.expr;
  }
  return item.expr;
}

/** The key of a superlative: "most channels", "highest price", "alphabetically first title". */
export function superlativeKey(f: Figure, desc: boolean): string {
  const s = superlative(f, desc);
  if (f.kind === 'count')
    return `${s.before} ${f.text.replace(f.ofValues ? /^number of /u : /^number of (different )?/u, '')}`;
  if (s.after) {
    const word = s.after.split(' ')[0] as string;
    // "the alphabetically first first name" says one word twice: "the first name that sorts first".
    return f.text.startsWith(`${word} `) ? `${f.text} that sorts ${word}` : `alphabetically ${word} ${f.text}`;
  }
  // "the highest highest duration" says one word twice: the highest of the highest durations is the highest duration.
  return f.text.startsWith(`${s.before} `) ? f.text : `${s.before} ${f.text}`;
}

/** "most", "highest", "latest", "last alphabetically": the superlative of a sort key. */
export function superlative(f: Figure, desc: boolean): { before: string; after: string } {
  switch (f.kind) {
    case 'count':
      return { before: desc ? 'most' : 'fewest', after: '' };
    case 'time':
      return { before: desc ? 'latest' : 'earliest', after: '' };
    case 'text':
      return { before: '', after: desc ? 'last alphabetically' : 'first alphabetically' };
    default:
      return { before: desc ? 'highest' : 'lowest', after: '' };
  }
}

/** "in descending order of duration", "ordered by title", "ordered by sign-up time, latest first". */
export function sortedBy(f: Figure, desc: boolean): string {
  switch (f.kind) {
    case 'time':
      return `ordered by ${f.text}, ${desc ? 'latest' : 'earliest'} first`;
    case 'text':
      return desc ? `in reverse alphabetical order of ${f.text}` : `in alphabetical order of ${f.text}`;
    default:
      return desc ? `in descending order of ${f.text}` : `ordered by ${f.text}`;
  }
}

/**
 * The evidence of an order: the tie-break keys after the first ("Ties are broken by last
 * name, then id."), and where rows with a missing key go (PostgreSQL's placement, or the
 * query's NULLS FIRST/LAST).
 */
export function orderEvidence(
  n: NaturalContext,
  q: SelectQuery,
  items: readonly (OrderItem | { name: string; direction: 'asc' | 'desc' })[],
  subject: string | undefined,
  reach: Reach,
  rowsNoun: string,
): void {
  const keys = items.map((item) => {
    const e = sortExpr(q, item);
    const f = e
      ? figure(n, e, subject, reach)
      : { text: ('name' in item ? item.name : 'the key').replace(/_/gu, ' '), kind: 'other' as const };
    const explicit = 'nulls' in item ? item.nulls : undefined;
    // Where rows without a value go is said only where a value can be missing: a query's NULLS FIRST on a required column changes nothing.
    if (e && mayBeMissing(n, e)) {
      const first = explicit ? explicit === 'first' : item.direction === 'desc';
      state(n, `${capitalize(rowsNoun)} with no ${f.text} come ${first ? 'first' : 'last'}.`, 'order-nulls');
    }
    return { f, desc: item.direction === 'desc' };
  });
  if (keys.length > 1) {
    const rest = keys.slice(1).map((k) => `${k.f.text}${k.desc ? ' (descending)' : ''}`);
    state(n, `Ties are broken by ${listing(rest, 'then').replace(/, then /u, ', then ')}.`, 'tie-break');
  }
}

/** Whether a sort key can be missing in a row: as `nullable`, except that a group's MIN, MAX, SUM or AVG of a value every row has is never missing (a group has rows). */
export function mayBeMissing(n: NaturalContext, e: Expr): boolean {
  if (e.kind === 'aggregate')
    return e.fn !== 'count' && (e.filter !== undefined || e.arg === undefined || nullable(n.d, e.arg));
  if (e.kind === 'round') return mayBeMissing(n, e.arg);
  return nullable(n.d, e);
}

/**
 * A partner as the figures of its base object name it: "channels owned by them", "channels
 * they own", "tags used on them". A passive "… by" read from the partner is the plainest;
 * else the base object's own verb; else the partner's phrase. `partnerIsJoined`: the join
 * goes from the base to the partner (else the partner's subquery joins back to the base).
 */
export function partnerNoun(
  n: NaturalContext,
  j: Extract<Join, { kind: 'relationship' }>,
  partnerIsJoined: boolean,
  noun: string,
): string {
  const toBase = linkVerb(n, j, !partnerIsJoined, true);
  // "clips derived from them", "tags used on them"; not "creators subscribed to by them".
  if (!toBase.startsWith('that ') && !/ (to|on|with|in|at|for|from|into|about) by$/u.test(toBase))
    return `${noun} ${toBase} them`;
  const fromBase = linkVerb(n, j, partnerIsJoined, true);
  if (fromBase.startsWith('that ')) return `${noun} they ${fromBase.slice('that '.length)}`;
  return `${noun} ${toBase} them`;
}

/** The partner phrase of a per-object figure, with the partner's own restrictions. */
export function partnerPhrase(
  n: NaturalContext,
  q: SelectQuery,
  base: string,
  restrictions: ReadonlyMap<string | undefined, readonly { text: string }[]> = new Map(),
): (alias: string) => string | undefined {
  return (alias) => {
    const j = (q.joins ?? []).find(
      (x) => x.alias === alias && x.kind === 'relationship' && canonical(n.d, x.from) === canonical(n.d, base),
    );
    if (!j || j.kind !== 'relationship') return undefined;
    const own = (restrictions.get(alias) ?? []).map((r) => r.text);
    const tail = own.length > 0 ? ` ${listing(own)}` : '';
    return partnerNoun(n, j, true, `${nounOf(n, alias, true)}${tail}`);
  };
}

/** The condition a count of rows counts under: `count(*) FILTER (WHERE p)` or `sum(CASE WHEN p THEN 1 ELSE 0 END)`. */
function countedWhere(e: Expr): Predicate | undefined {
  if (e.kind === 'aggregate' && e.fn === 'count' && !e.arg && e.filter) return e.filter;
  if (e.kind !== 'aggregate' || e.fn !== 'sum' || e.arg?.kind !== 'case' || e.arg.whens.length !== 1) return undefined;
  const [w] = e.arg.whens as [{ when: Predicate; then: Expr }];
  const one = w.then.kind === 'literal' && w.then.value === 1;
  const zero = e.arg.else?.kind === 'literal' && e.arg.else.value === 0;
  return one && zero ? w.when : undefined;
}

/** A window's partition keys (a partner by its id is the partner: "customer") and order keys as figures. */
function windowFigures(
  n: NaturalContext,
  e: Extract<Expr, { kind: 'window' }>,
  subject: string | undefined,
): { keys: Figure[]; order: { f: Figure; desc: boolean }[] } {
  const keys = (e.partitionBy ?? []).map(
    (k): Figure =>
      k.kind === 'attribute' && k.attribute === 'id'
        ? { text: nounOf(n, k.alias), kind: 'text' }
        : figure(n, k, subject),
  );
  const order = (e.orderBy ?? []).map((o) => ({ f: figure(n, o.expr, subject), desc: o.direction === 'desc' }));
  return { keys, order };
}
