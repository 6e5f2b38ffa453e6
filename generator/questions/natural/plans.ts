import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Expr, Query, SelectQuery, SetQuery } from '../../query/conceptual-query.ts';
import { hasAggregate } from '../../query/query-scope.ts';
import { article, capitalize, listing } from '../describe/english.ts';
import { nullable, windowWords } from '../describe/expressions.ts';
import { describeQualify } from '../describe/window.ts';
import {
  canonical,
  linkVerb,
  measureOf,
  nounOf,
  pluralOf,
  state,
  superlativeOf,
  type NaturalContext,
} from './natural-context.ts';
import { info } from '../describe/nouns.ts';
import { elementLexicon } from '../describe/context.ts';
import {
  figure,
  mayBeMissing,
  orderEvidence,
  partnerPhrase,
  sortExpr,
  sortedBy,
  superlativeKey,
  type Figure,
  type Reach,
} from './figures.ts';
import { restrictionsOf, rowsAround, rowSubject, type Rows } from './rows.ts';
import { COUNT_WORDS, restriction } from './restrictions.ts';
import { predicate } from '../describe/predicates.ts';
import type { Predicate } from '../../query/conceptual-query.ts';

function conjunctsOfPredicate(p: Predicate): Predicate[] {
  return p.kind === 'and' ? p.args.flatMap(conjunctsOfPredicate) : [p];
}
import { numberText, quantityText } from './values.ts';

type Plan =
  | 'lookup'
  | 'lookupTop'
  | 'lookupTop1'
  | 'lookupTopAdj'
  | 'lookupTop1Adj'
  | 'lookupLimit'
  | 'lookupOne'
  | 'lookupTopPerGroup'
  | 'lookupTopPerGroupAmong'
  | 'groupedTop1'
  | 'count'
  | 'aggregate'
  | 'aggregateBare'
  | 'aggregateAmong'
  | 'countAndAggregate'
  | 'grouped'
  | 'groupedCount'
  | 'groupedCountHaving'
  | 'groupedKeys'
  | 'groupedKeysCount'
  | 'groupedFirst'
  | 'groupedFirstCount'
  | 'groupedTop'
  | 'perObject'
  | 'perObjectHaving'
  | 'perObjectTop'
  | 'perObjectTop1'
  | 'perObjectTopVerb'
  | 'perObjectTop1Verb'
  | 'union'
  | 'unionAll'
  | 'intersect'
  | 'except'
  | 'numbersOfLists';

const PLANS_PATH = fileURLToPath(new URL('../../../templates/natural.json', import.meta.url));
let plans: Readonly<Record<Plan, readonly string[]>> | undefined;

/** The sentence plans, read once (data, kept in `templates/natural.json`). */
export function loadPlans(): Readonly<Record<Plan, readonly string[]>> {
  plans ??= JSON.parse(readFileSync(PLANS_PATH, 'utf8')) as Record<Plan, readonly string[]>;
  return plans;
}

/** The fewest paraphrases any plan has: how many natural questions of one group surely differ. */
export function naturalParaphrases(): number {
  return Math.min(
    ...Object.entries(loadPlans())
      .filter(([k]) => !k.startsWith('$'))
      .map(([, v]) => v.length),
  );
}

function fill(n: NaturalContext, plan: Plan, slots: Readonly<Record<string, string>>): string {
  const templates = loadPlans()[plan];
  n.covered.add(`plan:${plan}`);
  const t = templates[n.choose(plan, templates.length)] as string;
  return t.replace(/\{(\w+)\}/gu, (_, name: string) => {
    const v = slots[name];
    if (v === undefined) throw new Error(`natural plan ${plan}: slot {${name}} has no value`);
    return v;
  });
}

/** A key after "each": "file format"; a noun with no singular, "set of dimensions". */
function eachOf(f: Figure): string {
  return f.plural === f.text || (f.plural === undefined && pluralOf(f.text) === f.text) ? `set of ${f.text}` : f.text;
}

function be(items: readonly unknown[]): string {
  return items.length > 1 ? 'are' : 'is';
}

/** Output nouns in order, said once each: "title, duration and number of tags". */
function nouns(fs: readonly Figure[]): string {
  return listing(fs.map((f) => f.text));
}

/** The question of a query; its evidence goes to `n.evidence`. */
export function naturalQuestion(n: NaturalContext, q: Query): string {
  return q.kind === 'set' ? setQuestion(n, q) : selectQuestion(n, q);
}

function isWindowy(q: SelectQuery): boolean {
  return q.qualify !== undefined || JSON.stringify(q.select).includes('"kind":"window"');
}

function selectQuestion(n: NaturalContext, q: SelectQuery): string {
  const grouped = (q.groupBy?.length ?? 0) > 0;
  const aggregated = q.select.some((o) => hasAggregate(o.expr));
  if (q.distinct) n.covered.add('distinct');
  let qualify: string | undefined;
  if (q.qualify) {
    const words = windowWords(n.d);
    n.d.windowUnit = grouped || aggregated ? 'group' : 'row';
    const clause = describeQualify(q.qualify, words).replace(/^, keeping only /u, '');
    qualify = `Only ${clause} are kept.`;
    n.covered.add('qualify');
    // A top N per group said in the question needs only its ties in the evidence (see topPerGroup).
    if (grouped || aggregated) state(n, qualify, 'qualify');
  }
  if (!grouped && !aggregated) return lookup(n, q, qualify);
  if (!grouped) return aggregate(n, q);
  const base = canonical(n.d, q.from.alias);
  const perObject =
    (q.groupBy ?? []).some((k) => k.kind === 'attribute' && k.attribute === 'id' && canonical(n.d, k.alias) === base) &&
    (q.groupBy ?? []).every((k) => k.kind === 'attribute' && canonical(n.d, k.alias) === base);
  return perObject ? perObjectQuestion(n, q) : groupedQuestion(n, q);
}

/** The alias all attribute outputs read, when there is one. */
function outputAlias(n: NaturalContext, q: SelectQuery): string | undefined {
  const aliases = new Set(q.select.map((o) => (o.expr.kind === 'attribute' ? canonical(n.d, o.expr.alias) : '*')));
  if (aliases.size !== 1 || aliases.has('*')) return undefined;
  return [...aliases][0];
}

function multiplicity(n: NaturalContext, q: SelectQuery, rows: Rows, subject: string): void {
  if (q.distinct || rows.onePerSubject) return;
  if (rows.repeatedBy.length === 0) n.covered.add('duplicates-kept');
  else
    state(
      n,
      `${capitalize(article(nounOf(n, subject)))} appears once for each ${listing(rows.repeatedBy, 'and')}.`,
      'duplicates-kept',
    );
}

function distinctWord(q: SelectQuery): string {
  return q.distinct ? 'distinct ' : '';
}

// ---- lookups -------------------------------------------------------------------------

function lookup(n: NaturalContext, q: SelectQuery, qualify?: string): string {
  // A LEFT join keeps base rows without a partner: the list is of the base, whatever it shows.
  const keepsUnmatched = (q.joins ?? []).some((j) => j.type === 'left');
  const subject = (keepsUnmatched ? undefined : outputAlias(n, q)) ?? canonical(n.d, q.from.alias);
  const named = new Set(q.select.flatMap((o) => (o.expr.kind === 'element' ? [o.expr.alias] : [])));
  const rows = rowsAround(n, q, subject, undefined, named);
  multiplicity(n, q, rows, subject);
  // Said in the question only where no limit takes the sentence (see the plans below).
  const group = q.limit === undefined ? topPerGroup(n, q, subject, rows.noun) : undefined;
  const perGroup = group?.text ?? '';
  if (qualify && !perGroup) state(n, qualify, 'qualify');
  const outs = ownerless(
    n,
    q.select.map((o) => o.expr),
    subject,
    q.select.map((o) => figure(n, o.expr, subject)),
  );
  // Many rows: "the titles and durations of clips"; one row: "the title".
  const outputs = `${distinctWord(q)}${listing(outs.map((f) => f.plural ?? f.text))}`;
  const output = `${distinctWord(q)}${nouns(outs)}`;
  const order = q.orderBy ?? [];
  if (order.length > 0) orderEvidence(n, q, order, subject, {}, rows.noun);
  const first = order[0];
  if (first && q.limit !== undefined && !isWindowy(q)) {
    const e = sortExpr(q, first);
    const f = e ? figure(n, e, subject) : undefined;
    const adj = e ? superlativeAdjective(n, e, subject, first.direction === 'desc') : undefined;
    if (adj) {
      if (q.limit === 1) return fill(n, 'lookupTop1Adj', { outputs: output, row: rows.singular, adj });
      return fill(n, 'lookupTopAdj', { outputs, rows: rows.plural, n: numberText(q.limit), adj, be: 'are' });
    }
    if (f && f.kind !== 'other') {
      const sup = superlativeKey(f, first.direction === 'desc');
      if (q.limit === 1) return fill(n, 'lookupTop1', { outputs: output, row: rows.singular, sup });
      return fill(n, 'lookupTop', { outputs, rows: rows.plural, n: numberText(q.limit), sup, be: 'are' });
    }
  }
  const orderText = first ? `, ${sortedByItem(n, q, first, subject)}` : '';
  if (q.limit !== undefined) {
    if (!first) state(n, 'Any of the matching rows will do; they are all alike in what is listed.', 'limit-unordered');
    if (q.limit === 1) return fill(n, 'lookupOne', { outputs: output, row: rows.singular, order: orderText, be: 'is' });
    return fill(n, 'lookupLimit', { outputs, rows: rows.plural, n: numberText(q.limit), order: orderText, be: 'are' });
  }
  if (group?.adj) {
    // "the 2 most recent accounts for each account type"; with conditions, "Among devices with
    // more than 150 in stock, … the 3 most expensive for each material".
    const count = group.top === 1 ? '' : `${numberText(group.top)} `;
    if (rows.plural === rows.noun) {
      const top = `the ${count}${group.adj} ${group.top === 1 ? rows.singular : rows.plural}`;
      return fill(n, 'lookupTopPerGroup', { outputs, top, per: group.per, order: orderText });
    }
    const top = `the ${count}${group.adj}${group.top === 1 ? ' one' : ''}`;
    return fill(n, 'lookupTopPerGroupAmong', { rows: rows.plural, outputs, top, per: group.per, order: orderText });
  }
  // "What is the number of supported platforms of apps named TaskHub?", not "What are the number …".
  const be = outs.length === 1 && outs[0]?.kind === 'count' && outs[0].plural === undefined ? 'is' : 'are';
  return fill(n, 'lookup', { outputs, rows: `${rows.plural}${perGroup}`, order: orderText, be });
}

/**
 * "the names of channels", not "the channel names of channels": when every output is an
 * attribute of `owner`, one whose name starts with its noun (or a superclass's) drops it, since
 * "of channels" follows. Kept when two figures would then read alike.
 */
function ownerless(n: NaturalContext, exprs: readonly Expr[], owner: string, figs: readonly Figure[]): Figure[] {
  const entity = info(n.d, owner).entity;
  const own = (e: Expr | undefined): boolean => e?.kind === 'attribute' && canonical(n.d, e.alias) === owner;
  if (!entity || !exprs.every(own)) return [...figs];
  const owners = n.index
    .chain(entity)
    .flatMap((e) => [e.lexicon.singular, e.lexicon.everyday?.singular ?? e.lexicon.singular])
    .sort((a, b) => b.length - a.length);
  const strip = (t: string | undefined): string | undefined => {
    const w = t === undefined ? undefined : owners.find((o) => t.startsWith(`${o} `));
    return t !== undefined && w !== undefined ? t.slice(w.length + 1) : t;
  };
  const out = figs.map((f, i) => {
    if (!own(exprs[i])) return f;
    const text = strip(f.text) as string;
    const plural = strip(f.plural);
    return { ...f, text, ...(plural !== undefined ? { plural } : {}) };
  });
  return new Set(out.map((f) => f.text)).size === out.length ? out : [...figs];
}

/**
 * "longest", "most expensive": the superlative of the subject's own attribute the rows are
 * sorted by, when the model gives it an adjective no other attribute of the object shares;
 * the evidence says what it refers to ("Longest refers to the highest duration.").
 */
function superlativeAdjective(n: NaturalContext, e: Expr, subject: string, desc: boolean): string | undefined {
  if (e.kind !== 'attribute' || canonical(n.d, e.alias) !== canonical(n.d, subject)) return undefined;
  const m = measureOf(n, e.alias, e.attribute);
  const adjective = desc ? m.high : m.low;
  if (!adjective || !m.ownsAdjectives || (m.kind !== 'number' && m.kind !== 'time')) return undefined;
  const adj = superlativeOf(adjective);
  const extreme = m.kind === 'time' ? (desc ? 'latest' : 'earliest') : desc ? 'highest' : 'lowest';
  state(n, `${capitalize(adj)} refers to the ${extreme} ${m.noun}.`, 'superlative');
  return adj;
}

function sortedByItem(
  n: NaturalContext,
  q: SelectQuery,
  item: NonNullable<SelectQuery['orderBy']>[number] | { name: string; direction: 'asc' | 'desc' },
  subject: string | undefined,
  reach: Reach = {},
): string {
  const e = sortExpr(q, item);
  const f = e ? figure(n, e, subject, reach) : { text: 'that', kind: 'other' as const };
  return sortedBy(f, item.direction === 'desc');
}

/**
 * ", keeping for each resolution the 3 with the highest file size": a top N per group, said
 * in the question; the evidence gives only what the words leave open: how ties rank
 * ("Clips tied on file size share a rank, …") and the window's tie-break keys.
 */
function topPerGroup(n: NaturalContext, q: SelectQuery, subject: string, rowsNoun: string): PerGroup | undefined {
  const qu = q.qualify;
  if (!qu || !['row_number', 'rank', 'dense_rank'].includes(qu.window.fn) || qu.op !== '<=') return undefined;
  const keys = qu.window.partitionBy ?? [];
  const order = qu.window.orderBy ?? [];
  const first = order[0];
  if (keys.length === 0 || !first) return undefined;
  const top = qu.value;
  const by = figure(n, first.expr, subject);
  const keyFigs = keys.map((k) => figure(n, k, subject));
  if (by.kind === 'other' || top < 1 || keyFigs.some((f) => f.kind === 'other')) return undefined;
  // A partition by an object's id is one by the object: "for each order", not "for each id".
  const per = listing(
    keys.map((k, i) =>
      k.kind === 'attribute' && k.attribute === 'id'
        ? nounOf(n, canonical(n.d, k.alias))
        : eachOf(keyFigs[i] as Figure),
    ),
  );
  // Where a value may be missing, the evidence says where those rows go: a group of their
  // own for a missing key, first or last for a missing sort value.
  keys.forEach((k, i) => {
    if (k.kind === 'attribute' && nullable(n.d, k))
      state(n, `${capitalize(rowsNoun)} with no ${keyFigs[i]?.text} form a group of their own.`, 'null-group');
  });
  if (nullable(n.d, first.expr)) {
    // A window's order puts missing values where PostgreSQL does: first when descending.
    const nullsFirst = first.direction === 'desc';
    state(
      n,
      `Within each ${per}, ${rowsNoun} with no ${by.text} come ${nullsFirst ? 'first' : 'last'}.`,
      'order-nulls',
    );
  }
  const more = `so more than ${top === 1 ? 'one' : numberText(top)} may be kept`;
  if (qu.window.fn === 'rank')
    state(
      n,
      `${capitalize(rowsNoun)} tied on ${by.text} share a rank and the next rank skips ahead (1, 1, 3), ${more}.`,
      'rank-ties',
    );
  if (qu.window.fn === 'dense_rank')
    state(n, `${capitalize(rowsNoun)} tied on ${by.text} share a rank, with no gaps (1, 1, 2), ${more}.`, 'rank-ties');
  if (order.length > 1) {
    const rest = order
      .slice(1)
      .map((o) => `${figure(n, o.expr, subject).text}${o.direction === 'desc' ? ' (descending)' : ''}`);
    state(n, `Within each ${per}, ties are broken by ${listing(rest, 'then')}.`, 'window-tie-break');
  }
  // "the 3 most expensive devices for each material", where the model has the adjective.
  const adj =
    first.expr.kind === 'attribute'
      ? superlativeAdjective(n, first.expr, subject, first.direction === 'desc')
      : undefined;
  return {
    text: `, keeping for each ${per} the ${top === 1 ? 'one' : numberText(top)} with the ${superlativeKey(by, first.direction === 'desc')}`,
    per,
    top,
    ...(adj ? { adj } : {}),
  };
}

/** A top N per group, as a clause after the rows, or by the model's adjective ("the 3 most expensive"). */
interface PerGroup {
  readonly text: string;
  readonly per: string;
  readonly top: number;
  readonly adj?: string;
}

// ---- one row of aggregates -----------------------------------------------------------

/** The aliases whose attributes an expression aggregates (`count(DISTINCT c.email)` → c). */
function aggregateArgAliases(e: Expr): Set<string> {
  const out = new Set<string>();
  const visit = (x: Expr): void => {
    if (x.kind === 'aggregate' && x.arg?.kind === 'attribute' && x.arg.attribute !== 'id') out.add(x.arg.alias);
    else if (x.kind === 'round' || x.kind === 'cast') visit(x.arg);
  };
  visit(e);
  return out;
}

function aggregate(n: NaturalContext, q: SelectQuery): string {
  const counted = q.select
    .map((o) => o.expr)
    .find((e) => e.kind === 'aggregate' && e.fn === 'count' && e.arg?.kind === 'attribute' && e.arg.attribute === 'id');
  const subject =
    (counted?.kind === 'aggregate' && counted.arg?.kind === 'attribute'
      ? canonical(n.d, counted.arg.alias)
      : undefined) ??
    rowSubject(n, q) ??
    canonical(n.d, q.from.alias);
  // "Count the watch-history timestamps of viewers older than 30", not "Count the viewers … with watch-history timestamps".
  const listed = listedElements(n, q, subject);
  const rows = listed ?? rowsAround(n, q, subject);
  if (listed) {
    state(n, listed.note, 'count-repeats');
    // Counting a list's values counts no value an object lacks: the words leave no outer reading.
    n.covered.add('inner-elements');
  } else countNotes(n, q, rows, subject);
  const figs = q.select.map((o) =>
    figure(n, o.expr, subject, listed ? { star: listed.noun, bareCount: true } : { bareCount: true }),
  );
  const tail = singleRowTail(n, q, subject, rows);
  const onlyCount = q.select.length === 1 && isCountOf(q.select[0]?.expr as Expr, subject, n);
  if (onlyCount) return `${fill(n, 'count', { rows: rows.plural })}${tail}`;
  if (isCountOf(q.select[0]?.expr as Expr, subject, n) && q.select.length > 1) {
    const rest = figs.slice(1);
    return `${fill(n, 'countAndAggregate', { rows: rows.plural, figures: nouns(rest), be: be(rest) })}${tail}`;
  }
  // A figure of a partner ("the number of different email addresses of customers" over orders
  // placed by customers) reads as one among the rows, not as one "of all orders".
  const ofPartner = q.select.some((o) => [...aggregateArgAliases(o.expr)].some((a) => canonical(n.d, a) !== subject));
  // "the number of clips in 1080p" already names its rows: no "of clips" after it.
  if (ofPartner || figs.every((f) => f.text.includes(` ${rows.noun} `))) {
    if (rows.plural === rows.noun) return `${fill(n, 'aggregateBare', { figures: nouns(figs), be: be(figs) })}${tail}`;
    // BIRD's "Among the posts owned by an elder user, …" when the rows have conditions of their own.
    return `${fill(n, 'aggregateAmong', { rows: rows.plural, figures: nouns(figs), be: be(figs) })}${tail}`;
  }
  return `${fill(n, 'aggregate', { rows: rows.plural, figures: nouns(figs), be: be(figs) })}${tail}`;
}

/** An order or limit on a one-row answer changes nothing, but is said, so the question says all the query does. */
function singleRowTail(n: NaturalContext, q: SelectQuery, subject: string, rows: Rows): string {
  if (q.having) state(n, `The row is given only when the ${havingText(n, q, subject, {})}.`, 'having');
  const order = q.orderBy ?? [];
  if (order.length > 0) orderEvidence(n, q, order, subject, {}, rows.noun);
  if (q.limit !== undefined)
    state(n, `At most ${q.limit === 1 ? 'one row is' : `${numberText(q.limit)} rows are`} listed.`, 'limit');
  return order[0] ? ` Order the result ${sortedByItem(n, q, order[0], subject).replace(/^ordered /u, '')}.` : '';
}

/** COUNT(*) or COUNT(subject.id): the number of the subject's objects. */
function isCountOf(e: Expr, subject: string, n: NaturalContext): boolean {
  if (e.kind !== 'aggregate' || e.fn !== 'count' || e.filter) return false;
  if (!e.arg) return true;
  return e.arg.kind === 'attribute' && e.arg.attribute === 'id' && canonical(n.d, e.arg.alias) === subject;
}

/** What a count counts when the joins repeat its objects, or keep one without partners. */
function countNotes(n: NaturalContext, q: SelectQuery, rows: Rows, subject: string): void {
  const counts = q.select
    .map((o) => o.expr)
    .filter((e): e is Extract<Expr, { kind: 'aggregate' }> => e.kind === 'aggregate' && e.fn === 'count');
  for (const c of counts) {
    if (c.distinct) continue;
    if (!rows.onePerSubject && (!c.arg || (c.arg.kind === 'attribute' && c.arg.attribute === 'id'))) {
      const what = c.arg?.kind === 'attribute' ? nounOf(n, c.arg.alias) : nounOf(n, subject);
      const by = rows.repeatedBy.filter((x) => x !== what);
      state(
        n,
        `${capitalize(article(what))} is counted once for each ${by.length > 0 ? listing(by, 'and') : 'time the joins repeat it'}.`,
        'count-repeats',
      );
    }
    if (!c.arg && (q.joins ?? []).some((j) => j.type === 'left'))
      state(
        n,
        `${capitalize(article(nounOf(n, subject)))} with no match in the optional join still counts as one.`,
        'count-star-left',
      );
  }
}

// ---- one row per object of the base -------------------------------------------------

function perObjectQuestion(n: NaturalContext, q: SelectQuery): string {
  const base = canonical(n.d, q.from.alias);
  const restrictions = restrictionsOf(n, q);
  const reach: Reach = { partnerPhrase: partnerPhrase(n, q, base, restrictions) };
  // The partners the figures count are said in the figures; the rows are the base objects.
  const partners = new Set((q.joins ?? []).map((j) => j.alias));
  const baseOnly = new Map([...restrictions].filter(([alias]) => alias === base || alias === undefined));
  const partnerRestrictions = [...restrictions].filter(
    ([alias]) => alias !== base && alias !== undefined && partners.has(alias),
  );
  const rows = rowsAroundBaseOnly(n, q, base, baseOnly);
  void partnerRestrictions;
  // COUNT(*) per object counts its rows: with one join, its partners.
  const only = (q.joins ?? []).filter((j) => !n.d.aliases.get(j.alias)?.sameAs);
  // With several joins it counts the combinations of their partners.
  const star =
    only.length === 0
      ? undefined
      : only.length === 1 && only[0]
        ? (reach.partnerPhrase?.(only[0].alias) ?? nounOf(n, only[0].alias, true))
        : `combinations of ${listing(only.map((j) => nounOf(n, j.alias, true)))}`;
  const starReach: Reach = star ? { ...reach, star } : reach;
  const figs = q.select.map((o) => figure(n, o.expr, base, starReach));
  if (only.some((j) => j.type === 'left') && JSON.stringify(q.select).includes('"fn":"count"}')) {
    state(
      n,
      `${capitalize(article(nounOf(n, base)))} with no ${only.length === 1 && only[0] ? nounOf(n, only[0].alias) : 'match'} still counts one row.`,
      'count-star-left',
    );
  }
  const inner = (q.joins ?? []).filter((j) => j.type === 'inner' && !n.d.aliases.get(j.alias)?.sameAs);
  // A partner's own conditions (its ON and the WHERE conditions on it) say which partners count.
  const conditionsOf = (alias: string): string => {
    const j = (q.joins ?? []).find((x) => x.alias === alias);
    const on = j?.kind === 'relationship' && j.on ? conjunctsOfPredicate(j.on).map((c) => restriction(n, c).text) : [];
    const where = (restrictions.get(alias) ?? []).map((r) => r.text);
    const all = [...on, ...where];
    return all.length > 0 ? ` ${listing(all)}` : '';
  };
  for (const j of inner)
    state(
      n,
      `Only ${nounOf(n, base, true)} with at least one ${nounOf(n, j.alias)}${conditionsOf(j.alias)} are included.`,
      'inner-join',
    );
  for (const j of q.joins ?? []) {
    if (j.type !== 'left') continue;
    const c = conditionsOf(j.alias);
    if (c) state(n, `Only ${nounOf(n, j.alias, true)}${c} count.`, 'partner-filter');
  }
  if ((q.joins ?? []).some((j) => j.type === 'left')) n.covered.add('left-join');
  const order = q.orderBy ?? [];
  if (order.length > 0) orderEvidence(n, q, order, base, starReach, rows.noun);
  const first = order[0];
  const outputs = nouns(figs);
  const outputsPlural = listing(figs.map((f) => f.plural ?? f.text));
  // Only the objects' own values shown, HAVING choosing the objects: "What are the names of apps
  // whose number of customers that downloaded them is 6?", not "For each app, what is the name?".
  if (q.having && !first && q.limit === undefined && !q.select.some((o) => hasAggregate(o.expr))) {
    n.covered.add('having');
    return fill(n, 'perObjectHaving', {
      outputs: outputsPlural,
      rows: rows.plural,
      having: havingText(n, q, base, starReach),
    });
  }
  if (q.having)
    state(n, `Only ${nounOf(n, base, true)} whose ${havingText(n, q, base, starReach)} are included.`, 'having');
  if (first && q.limit !== undefined) {
    const e = sortExpr(q, first);
    const f = e ? figure(n, e, base, starReach) : undefined;
    const adj = e ? superlativeAdjective(n, e, base, first.direction === 'desc') : undefined;
    if (adj) {
      if (q.limit === 1) return fill(n, 'lookupTop1Adj', { outputs, row: rows.singular, adj });
      return fill(n, 'lookupTopAdj', { outputs: outputsPlural, rows: rows.plural, n: numberText(q.limit), adj });
    }
    // "Which 50 creators own the most channels?": a count of partners said with the base's own verb.
    const active = e ? activeCount(n, q, e, base, restrictions) : undefined;
    if (active) {
      const most = first.direction === 'desc' ? 'most' : 'fewest';
      if (q.limit === 1)
        return fill(n, 'perObjectTop1Verb', {
          outputs,
          row: rows.singular,
          verb: active.singular,
          most,
          partners: active.partners,
        });
      return fill(n, 'perObjectTopVerb', {
        outputs: outputsPlural,
        rows: rows.plural,
        n: numberText(q.limit),
        verb: active.plural,
        most,
        partners: active.partners,
      });
    }
    if (f && f.kind !== 'other') {
      const sup = superlativeKey(f, first.direction === 'desc');
      if (q.limit === 1) return fill(n, 'perObjectTop1', { outputs, row: rows.singular, sup });
      return fill(n, 'perObjectTop', { outputs: outputsPlural, rows: rows.plural, n: numberText(q.limit), sup });
    }
  }
  if (q.limit !== undefined)
    state(n, `Only the first ${numberText(q.limit)} ${nounOf(n, base, true)} in that order are listed.`, 'limit');
  const orderText = first ? `, ${sortedByItem(n, q, first, base, starReach)}` : '';
  // "For each video, …" says a row per video, however many share a title.
  n.covered.add('one-row-per-object');
  return fill(n, 'perObject', { outputs, row: rows.singular, be: be(figs), order: orderText });
}

/**
 * A sort key that counts the partners of the base's one join, with the base's verb for it
 * ("own", "hosted"): the count's object and verb, else undefined (a passive phrase, a
 * partner with conditions, a count of something else).
 */
function activeCount(
  n: NaturalContext,
  q: SelectQuery,
  e: Expr,
  base: string,
  restrictions: ReadonlyMap<string | undefined, readonly unknown[]>,
): { singular: string; plural: string; partners: string } | undefined {
  if (e.kind !== 'aggregate' || e.fn !== 'count' || e.filter) return undefined;
  const joins = (q.joins ?? []).filter((j) => !n.d.aliases.get(j.alias)?.sameAs);
  const j = joins.length === 1 ? joins[0] : undefined;
  if (
    !j ||
    j.kind !== 'relationship' ||
    canonical(n.d, j.from) !== base ||
    j.on ||
    (restrictions.get(j.alias)?.length ?? 0) > 0
  )
    return undefined;
  if (e.arg && !(e.arg.kind === 'attribute' && e.arg.attribute === 'id' && e.arg.alias === j.alias)) return undefined;
  const plural = linkVerb(n, j, true, true);
  const singular = linkVerb(n, j, true, false);
  if (!plural.startsWith('that ') || !singular.startsWith('that ')) return undefined;
  return {
    plural: plural.slice('that '.length),
    singular: singular.slice('that '.length),
    partners: `${e.distinct ? 'different ' : ''}${nounOf(n, j.alias, true)}`,
  };
}

function rowsAroundBaseOnly(
  n: NaturalContext,
  q: SelectQuery,
  base: string,
  restrictions: Map<string | undefined, import('./restrictions.ts').Restriction[]>,
): Rows {
  // The base objects alone: their joins are what the figures count.
  const { joins: _joins, ...alone } = q;
  return rowsAround(n, alone, base, restrictions);
}

/**
 * A group filter in the reader's words: "number of videos is over 130", each part of an AND
 * or an OR said in turn ("… or lowest duration is 59"); a part of another form in the
 * careful analyst's words, so the condition is always stated.
 */
function havingText(n: NaturalContext, q: SelectQuery, subject: string, reach: Reach): string {
  const part = (h: Predicate): string => {
    if (h.kind === 'compare') {
      const f = figure(n, h.left, subject, reach);
      // A total, average or extreme of a measure in its unit: "whose total price is at least $80,000",
      // "whose lowest duration is at least 150 seconds".
      const inner = h.left.kind === 'round' ? h.left.arg : h.left;
      const measured =
        inner.kind === 'aggregate' && inner.fn !== 'count' && inner.arg?.kind === 'attribute'
          ? measureOf(n, inner.arg.alias, inner.arg.attribute)
          : undefined;
      const v =
        h.right.kind === 'literal' && h.right.value !== null
          ? measured?.unit && measured.kind === 'number'
            ? quantityText(h.right.value as number, measured.unit)
            : numberText(h.right.value as number)
          : figure(n, h.right, subject, reach).text;
      const op = {
        '=': 'is',
        '<>': 'is not',
        '<': 'is under',
        '<=': 'is at most',
        '>': 'is over',
        '>=': 'is at least',
      }[h.op];
      return `${f.text} ${op} ${v}`;
    }
    // One level of AND or OR reads plainly; nested ones would read two ways, so take the careful words.
    if ((h.kind === 'and' || h.kind === 'or') && h.args.every((a) => a.kind !== 'and' && a.kind !== 'or'))
      return h.args.map(part).join(h.kind === 'and' ? ' and ' : ' or ');
    return predicate(n.d, h, { grouped: true });
  };
  return part(q.having as Predicate);
}

// ---- grouped by values ---------------------------------------------------------------

function groupedQuestion(n: NaturalContext, q: SelectQuery): string {
  const subject = rowSubject(n, q) ?? canonical(n.d, q.from.alias);
  const listed = listedElements(n, q, subject);
  const linked = listed ?? rowsAround(n, q, subject);
  if (listed) state(n, listed.note, 'count-repeats');
  else countNotes(n, q, linked, subject);
  const counted: Reach = listed ? { star: listed.noun } : {};
  const keys = q.groupBy ?? [];
  // Grouped by a joined object's id: "for each customer", not the id the answer does not show.
  const [only] = keys;
  const byObject =
    keys.length === 1 && only?.kind === 'attribute' && only.attribute === 'id' ? canonical(n.d, only.alias) : undefined;
  // "the title and number of clips for each live stream": rows that only link to the grouped
  // object, by the one relationship between the two kinds, are its own.
  const rows = byObject && onlyLinkedTo(n, q, linked, subject, byObject) ? bareRows(n, linked, subject) : linked;
  // Grouped by the partner's objects, those with no row have no group: "Only live streams with at least one clip".
  // A HAVING that asks for at least one row says so already ("with exactly 5 videos").
  const atLeastOne = ((t) => t !== undefined && t.value >= 1 && ['exactly', 'at least', 'more than'].includes(t.words))(
    rowCountThreshold(q),
  );
  if (rows !== linked && byObject && !atLeastOne)
    state(n, `Only ${nounOf(n, byObject, true)} with at least one ${nounOf(n, subject)} are included.`, 'inner-join');
  const keyFigs = keys.map((k) =>
    byObject
      ? { text: nounOf(n, byObject), plural: nounOf(n, byObject, true), kind: 'other' as const }
      : figure(n, k, subject),
  );
  const key = listing(keyFigs.map(eachOf));
  // A group whose objects list no value has no row to count: it is left out, not given 0.
  if (listed)
    state(
      n,
      `${capitalize(article(key))} whose ${nounOf(n, subject, true)} have no ${listed.noun} is left out.`,
      'inner-elements',
    );
  const keyInSelect = (e: Expr) => keys.some((k) => JSON.stringify(k) === JSON.stringify(e));
  const asked = q.select.filter((o) => !keyInSelect(o.expr));
  // The object's own attributes keep its noun ("the customer first name … of orders placed by
  // customers"): the plan's "of {rows}" names the rows, not the object.
  const bare = asked.map((o) => figure(n, o.expr, subject, { ...counted, bareCount: true }));
  // "the number and average price of products" reads; "the number and number of different emails" does not.
  const figs = bare.some((f) => f.text.startsWith('number of '))
    ? bare.map((f) => (f.text === 'number' ? { ...f, text: `number of ${rows.noun}` } : f))
    : bare;
  // The register lists the keys first, then what is asked, in the order asked.
  const said = [...q.select.filter((o) => keyInSelect(o.expr)), ...asked];
  if (
    said.some((o, i) => o !== q.select[i]) ||
    keys.some((k) => !q.select.some((o) => JSON.stringify(o.expr) === JSON.stringify(k)))
  ) {
    state(
      n,
      `Columns, in order: ${listing(q.select.map((o) => figure(n, o.expr, subject, counted).text))}.`,
      'outputs',
    );
  }
  for (const k of keys) {
    if (k.kind === 'attribute' && n.d.aliases.get(k.alias) && isNullableKey(n, k))
      state(
        n,
        `${capitalize(nounOf(n, subject, true))} with no ${figure(n, k, subject).text} form a group of their own.`,
        'null-group',
      );
  }
  const base = canonical(n.d, q.from.alias);
  if (keys.some((k) => k.kind === 'attribute' && k.attribute === 'id' && canonical(n.d, k.alias) === base)) {
    for (const j of q.joins ?? [])
      if (
        j.type === 'inner' &&
        j.kind === 'relationship' &&
        canonical(n.d, j.from) === base &&
        !n.d.aliases.get(j.alias)?.sameAs
      )
        state(n, `Only ${nounOf(n, base, true)} with at least one ${nounOf(n, j.alias)} are included.`, 'inner-join');
  }
  const having = q.having ? ` ${havingFor(n, q, subject)}` : '';
  const order = q.orderBy ?? [];
  if (order.length > 0) orderEvidence(n, q, order, subject, {}, 'groups');
  const first = order[0];
  // Only the keys shown ("the sets of dimensions with exactly 180 physical products"): HAVING says which.
  if (asked.length === 0) {
    if (q.limit !== undefined)
      state(
        n,
        `Only the first ${q.limit === 1 ? 'group' : `${numberText(q.limit)} groups`} in that order ${q.limit === 1 ? 'is' : 'are'} listed.`,
        'limit',
      );
    const orderText = first ? ` Order them ${sortedByItem(n, q, first, subject).replace(/^ordered /u, '')}.` : '';
    // "Which package sizes have at least 40 devices?", not "Which package sizes are there with at least 40 devices?"
    const threshold = rowCountThreshold(q);
    if (threshold)
      return `${fill(n, 'groupedKeysCount', {
        keys: keyPlural(key),
        count: `${threshold.words} ${numberText(threshold.value)} ${threshold.value === 1 ? rows.singular : rows.plural}`,
      })}${orderText}`;
    return `${fill(n, 'groupedKeys', { keys: keyPlural(key), having })}${orderText}`;
  }
  // "What are the usernames and bios of creators with exactly 5 videos?": the grouped objects'
  // own values, HAVING choosing the objects, not "For each creator …, give the username … of videos".
  if (byObject && q.having && !first && q.limit === undefined && !q.select.some((o) => hasAggregate(o.expr))) {
    n.covered.add('having');
    const own = q.select.map((o) => figure(n, o.expr, byObject));
    return fill(n, 'lookup', {
      outputs: listing(own.map((f) => f.plural ?? f.text)),
      be: 'are',
      rows: `${nounOf(n, byObject, true)}${having}`,
      order: '',
    });
  }
  if (first && q.limit !== undefined) {
    const e = sortExpr(q, first);
    const f = e ? figure(n, e, subject, counted) : undefined;
    if (f && f.kind !== 'other') {
      const sup = superlativeKey(f, first.direction === 'desc');
      // The rows are named once: "the highest total stock quantity of devices".
      const sup1 =
        f.kind === 'count' && e?.kind === 'aggregate' && !e.arg
          ? `${first.direction === 'desc' ? 'most' : 'fewest'} ${rows.plural}`
          : sup.includes(rows.noun)
            ? sup
            : `${sup} of ${rows.plural}`;
      // "the creator with the fewest videos produced by them", not "… produced by creators".
      const objects = byObject ? nounOf(n, byObject, true) : undefined;
      const sup2 = objects && sup1.endsWith(` by ${objects}`) ? `${sup1.slice(0, -objects.length)}them` : sup1;
      if (having) state(n, `Only ${keyPlural(key)}${having} are considered.`, 'having');
      const sortIsKey = e !== undefined && keys.some((k) => JSON.stringify(k) === JSON.stringify(e));
      // "For the 5 latest creation years, how many videos are there?": the first groups by their own key.
      if (
        sortIsKey &&
        keys.length === 1 &&
        e &&
        !mayBeMissing(n, e) &&
        (f.kind === 'time' || f.kind === 'number' || f.kind === 'text')
      ) {
        const desc = first.direction === 'desc';
        const adj =
          f.kind === 'time' || / (year|quarter|month|date)$/u.test(f.text)
            ? desc
              ? 'latest'
              : 'earliest'
            : f.kind === 'number'
              ? desc
                ? 'highest'
                : 'lowest'
              : `alphabetically ${desc ? 'last' : 'first'}`;
        const which = q.limit === 1 ? `${adj} ${key}` : `${numberText(q.limit)} ${adj} ${keyPlural(key)}`;
        const onlyCount = figs.length === 1 && asked[0] !== undefined && isCountOf(asked[0].expr, subject, n);
        n.covered.add('limit');
        const text = onlyCount
          ? fill(n, 'groupedFirstCount', { which, having, rows: rows.plural })
          : fill(n, 'groupedFirst', { which, having, figures: nouns(figs), be: be(figs), rows: rows.plural });
        // "For the earliest sign-up year, how many accounts are there?" asks for the count; a shown year is asked for too.
        const keyShown = q.select.some((o) => keyInSelect(o.expr));
        return keyShown && !text.startsWith('Show the ')
          ? `${text} Show the ${q.limit === 1 ? key : keyPlural(key)} too.`
          : text;
      }
      if (sortIsKey) {
        state(
          n,
          `Only the first ${q.limit === 1 ? 'group' : `${numberText(q.limit)} groups`} in that order ${q.limit === 1 ? 'is' : 'are'} listed.`,
          'limit',
        );
        const onlyCount = figs.length === 1 && asked[0] !== undefined && isCountOf(asked[0].expr, subject, n);
        const orderText = ` Order them ${sortedByItem(n, q, first, subject).replace(/^ordered /u, '')}.`;
        return `${onlyCount ? fill(n, 'groupedCount', { key, having, rows: rows.plural }) : fill(n, 'grouped', { key, having, figures: nouns(figs), be: be(figs), rows: rows.plural })}${orderText}`;
      }
      if (q.limit === 1)
        return fill(n, 'groupedTop1', {
          key,
          sup: sup2,
          outputs: `the ${nouns(q.select.map((o) => figure(n, o.expr, subject, counted)))}`,
        });
      return fill(n, 'groupedTop', {
        n: numberText(q.limit),
        keys: keyPlural(key),
        sup: sup2,
        outputs: `the ${nouns(q.select.map((o) => figure(n, o.expr, subject, counted)))}`,
      });
    }
  }
  if (q.limit !== undefined)
    state(
      n,
      `Only the first ${q.limit === 1 ? 'group' : `${numberText(q.limit)} groups`} in that order ${q.limit === 1 ? 'is' : 'are'} listed.`,
      'limit',
    );
  const orderText = first ? ` Order them ${sortedByItem(n, q, first, subject).replace(/^ordered /u, '')}.` : '';
  const onlyCount = figs.length === 1 && asked[0] !== undefined && isCountOf(asked[0].expr, subject, n);
  // "Which streaming platforms have at least 35 streamers, and how many does each have?": the
  // count the groups are kept by is the count asked for.
  const threshold = onlyCount ? rowCountThreshold(q) : undefined;
  if (threshold)
    return `${fill(n, 'groupedCountHaving', {
      keys: keyPlural(key),
      count: `${threshold.words} ${numberText(threshold.value)} ${threshold.value === 1 ? rows.singular : rows.plural}`,
      noun: rows.noun,
    })}${orderText}`;
  const text = onlyCount
    ? fill(n, 'groupedCount', { key, having, rows: rows.plural })
    : fill(n, 'grouped', { key, having, figures: nouns(figs), be: be(figs), rows: rows.plural });
  // "the number of devices made of Steel" names its rows already: no "of devices" after it.
  const named = figs.every((f) => f.text.includes(rows.plural));
  return `${named ? text.replace(`${nouns(figs)} of ${rows.plural}`, nouns(figs)) : text}${orderText}`;
}

/**
 * COUNT(*) over the subject's objects joined to the values of one of their lists, the join
 * serving nothing else, counts the values: "the fewest supported platforms of apps", not "the
 * fewest apps with supported platforms", each app counted once a platform. The rows as that
 * list's values, and the note that says a value counts once per object, or undefined.
 */
function listedElements(n: NaturalContext, q: SelectQuery, subject: string): (Rows & { note: string }) | undefined {
  const joins = (q.joins ?? []).filter((j) => !n.d.aliases.get(j.alias)?.sameAs);
  const [j] = joins;
  if (joins.length !== 1 || j?.kind !== 'elements' || j.type !== 'inner' || canonical(n.d, j.of) !== subject)
    return undefined;
  const counts = q.select.filter((o) => o.expr.kind === 'aggregate' && o.expr.fn === 'count');
  if (counts.length === 0 || counts.some((o) => o.expr.kind === 'aggregate' && (o.expr.arg || o.expr.filter)))
    return undefined;
  // The values serve the count alone: no condition, key, order or other figure reads them.
  const rest = JSON.stringify([q.where, q.groupBy, q.having, q.orderBy, q.select.filter((o) => !counts.includes(o))]);
  if (rest.includes(`"alias":"${j.alias}"`)) return undefined;
  const restrictions = restrictionsOf(n, q);
  const objects = rowsAroundBaseOnly(n, q, subject, restrictions);
  const lex = elementLexicon(info(n.d, j.alias));
  return {
    ...objects,
    plural: `${lex.plural} of ${objects.plural}`,
    singular: `${lex.singular} of ${objects.plural}`,
    noun: lex.plural,
    onePerSubject: true,
    repeatedBy: [],
    note: `${capitalize(article(lex.singular))} counts once for each ${nounOf(n, subject)} that has it.`,
  };
}

/** Whether `rows` are the subject's objects joined to `object` alone ("clips derived from live streams"), by the one relationship between their kinds, with no condition. */
function onlyLinkedTo(n: NaturalContext, q: SelectQuery, rows: Rows, subject: string, object: string): boolean {
  const joins = (q.joins ?? []).filter((j) => !n.d.aliases.get(j.alias)?.sameAs);
  const [j] = joins;
  if (joins.length !== 1 || j?.kind !== 'relationship' || j.on || q.where) return false;
  if (new Set([canonical(n.d, j.from), j.alias].map((a) => canonical(n.d, a))).size !== 2) return false;
  if (![canonical(n.d, j.from), canonical(n.d, j.alias)].includes(object)) return false;
  if (!rows.plural.startsWith(`${rows.noun} `) || !rows.plural.endsWith(` ${nounOf(n, object, true)}`)) return false;
  const lineage = (alias: string): string[] => n.index.chain(info(n.d, alias).entity as string).map((e) => e.name);
  // Another relationship between the two kinds (or their ancestors) would make the verb the path's name.
  const between = n.index.domain.relationships.filter(
    (r) =>
      (lineage(subject).includes(r.from) && lineage(object).includes(r.to)) ||
      (lineage(subject).includes(r.to) && lineage(object).includes(r.from)),
  );
  return between.length === 1;
}

function bareRows(n: NaturalContext, rows: Rows, subject: string): Rows {
  return { ...rows, plural: rows.noun, singular: nounOf(n, subject) };
}

function isNullableKey(n: NaturalContext, k: Extract<Expr, { kind: 'attribute' }>): boolean {
  const info = n.d.aliases.get(k.alias);
  if (info?.optional) return true;
  let i = info;
  while (i?.sameAs) i = n.d.aliases.get(i.sameAs);
  const a = n.index.allAttributes(i?.entity ?? '').find((x) => x.attribute.name === k.attribute)?.attribute;
  return a?.optional === true;
}

/** A HAVING that keeps the groups of at least, at most or exactly so many rows: its words and number. */
function rowCountThreshold(q: SelectQuery): { words: string; value: number } | undefined {
  const h = q.having;
  if (
    h?.kind !== 'compare' ||
    h.left.kind !== 'aggregate' ||
    h.left.fn !== 'count' ||
    h.left.arg ||
    h.left.filter ||
    h.right.kind !== 'literal' ||
    typeof h.right.value !== 'number'
  )
    return undefined;
  return { words: COUNT_WORDS[h.op], value: h.right.value };
}

function havingFor(n: NaturalContext, q: SelectQuery, subject: string): string {
  const threshold = rowCountThreshold(q);
  // "with exactly 1 product", "with more than 3 products".
  if (threshold)
    return `with ${threshold.words} ${numberText(threshold.value)} ${nounOf(n, subject, threshold.value !== 1)}`;
  return `whose ${havingText(n, q, subject, {})}`;
}

function keyPlural(key: string): string {
  return key.includes(' and ')
    ? `combinations of ${key}`
    : key.replace(/(\w+)$/u, (w) =>
        w.endsWith('s') ? w : w.endsWith('y') && !/[aeiou]y$/u.test(w) ? `${w.slice(0, -1)}ies` : `${w}s`,
      );
}

// ---- set operations ------------------------------------------------------------------

function setQuestion(n: NaturalContext, q: SetQuery): string {
  const arm = (s: Query): { rows: string; outs: Figure[]; select?: SelectQuery } => {
    if (s.kind === 'set')
      return {
        rows: `the results of ${setQuestion(n, s)
          .replace(/[?.]$/u, '')
          .replace(/^\w/u, (c) => c.toLowerCase())}`,
        outs: [],
      };
    const subject = outputAlias(n, s) ?? canonical(n.d, s.from.alias);
    const rows = rowsAround(n, s, subject);
    if (s.orderBy || s.limit !== undefined)
      state(n, `The ${rows.noun} of a list are its first ${s.limit ?? 'rows'} by their order.`, 'arm-limit');
    // Each arm is its own list: "the usernames of subscribers, then those of subscribers on the
    // basic tier", not "first subscribers … second subscribers", unless the arm itself pairs two.
    const paired = (s.joins ?? []).some((j) => j.kind === 'relationship' && j.entity === s.from.entity);
    const plural = paired ? rows.plural : rows.plural.replace(/^(first|second|third|fourth|fifth) /u, '');
    return { rows: plural, outs: s.select.map((o) => figure(n, o.expr, subject)), select: s };
  };
  const left = arm(q.left);
  const right = arm(q.right);
  const outs = left.outs.length > 0 ? left.outs : right.outs;
  const outputs = listing(outs.map((f) => pluralOf(f.text)));
  n.covered.add(`set:${q.op}`);
  if (q.orderBy && q.left.kind === 'select') orderEvidence(n, q.left, q.orderBy, undefined, {}, 'values');
  const firstKey = q.orderBy?.[0];
  const setOrder =
    firstKey && q.left.kind === 'select'
      ? ` Order them ${sortedByItem(n, q.left, firstKey, undefined).replace(/^ordered /u, '')}.`
      : '';
  if (q.limit !== undefined)
    state(
      n,
      q.limit === 1
        ? 'Only the first value in that order is listed.'
        : `Only the first ${numberText(q.limit)} values in that order are listed.`,
      'limit',
    );
  const single = left.select && left.select.select.length === 1 && hasAggregate(left.select.select[0]?.expr as Expr);
  if (q.op === 'union all' && single) {
    state(n, 'Each list gives one row, even when the two numbers are equal.', 'set:union all');
    return `${fill(n, 'numbersOfLists', { figure: nouns(outs), left: left.rows, right: right.rows })}${setOrder}`;
  }
  if (q.op === 'union all') state(n, 'Values in both lists appear twice.', 'set:union all');
  const plan = ({ union: 'union', 'union all': 'unionAll', intersect: 'intersect', except: 'except' } as const)[q.op];
  return `${fill(n, plan, { outputs, left: left.rows, right: right.rows })}${setOrder}`;
}
