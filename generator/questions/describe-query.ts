import type { ErIndex } from '../er-model/er-index.ts';
import type { Attribute, Relationship } from '../er-model/er-model.ts';
import type { Expr, Join, OrderItem, Predicate, Query, ScalarLiteral, SelectQuery, SetQuery, WindowExpr } from '../query/conceptual-query.ts';
import { hasAggregate } from '../query/query-scope.ts';
import { describeQualify, describeWindow, type WindowWords } from './describe-window.ts';

/** How an ORDER BY names a window the outputs already show. */
const WINDOW_NOUN: Readonly<Record<WindowExpr['fn'], string>> = {
  row_number: 'position', rank: 'rank', dense_rank: 'rank', lag: 'previous value', lead: 'next value', sum: 'running total', avg: 'running average', count: 'running count',
};
import { analyticParts, isAnalytic } from '../query/analytic-expr.ts';
import { analyticNullable, describeAnalytic, type AnalyticPhrasing } from './describe-analytic.ts';

/**
 * The meaning of a conceptual query in English parts (a "frame"), built compositionally from
 * the E/R lexicon by visitors keyed by node kind. The template writer arranges the parts into
 * sentences of each style; the parts themselves already state every answer-deciding choice
 * (subtype scope, LEFT-join zero counts, NULL handling, distinctness, output columns, order
 * with its tie-break, limit), so no style can drop one by accident.
 */
export interface QueryFrame {
  /** The output columns, in order ("the id of the creator and the number of channels …"). */
  readonly outputs: string;
  /** What the rows range over ("every creator, streamers included, …"). */
  readonly rows: string;
  /** ", for each …" of a grouped query, or empty. */
  readonly group: string;
  /** ", where …" or empty. */
  readonly filter: string;
  /** The bare WHERE condition (the implicit style defines a term with it), or empty. */
  readonly condition: string;
  /** ", keeping only groups where …" or empty. */
  readonly having: string;
  /** ", sorted by …, ties broken by …" or empty. */
  readonly order: string;
  /** ", only the first N rows" or empty. */
  readonly limit: string;
  /** Whole sentences on NULLs, zero counts and duplicates (and, with conventions as evidence, subtype scope and unmatched rows). */
  readonly notes: readonly string[];
  /** The plural noun of the base entity, for scenarios ("creators"). */
  readonly topic: string;
  /** The constructs realized, for the record's check (`template-coverage`). */
  readonly covered: readonly string[];
}

/** Answer-deciding facts a question must mention, for the tests (by construct). */
export interface RequiredMention {
  readonly construct: string;
  /** Each alternative is a list of strings all of which must occur (case-insensitive). */
  readonly anyOf: readonly (readonly string[])[];
}

/** Builds the frame of a query. Throws on a node kind or name the model does not have. */
export function describeQuery(index: ErIndex, query: Query, conventions: 'inline' | 'evidence' = 'inline'): { frame: QueryFrame; mentions: readonly RequiredMention[] } {
  const d = new Describer(index, query, conventions);
  const frame = query.kind === 'set' ? d.setFrame(query) : d.selectFrame(query);
  return { frame, mentions: d.mentions };
}

type Handlers<U extends { kind: string }, C, R> = { readonly [K in U['kind']]: (node: Extract<U, { kind: K }>, ctx: C) => R };

interface AliasInfo {
  /** The entity alias's entity, or undefined for an element alias. */
  readonly entity?: string;
  /** For an element alias: its owner alias and attribute. */
  readonly element?: { readonly owner: string; readonly attribute: Attribute };
  /** Joined by a LEFT join (directly or below one): may be missing in a row. */
  readonly optional: boolean;
  /** For a relationship-joined alias: the relationship (for link attributes). */
  readonly relationship?: string;
  /** Another alias this one is equated with by id (a correlated subquery's back link). */
  sameAs?: string;
}

interface JoinCtx {
  /** Inside a subquery: joins ask for a partner rather than pair rows. */
  readonly sub: boolean;
  readonly parts: string[];
  readonly post: string[];
}

interface Ctx {
  /** Inside an aggregate's argument or a grouped output. */
  readonly grouped: boolean;
}

const PREPOSITIONS = new Set(['by', 'with', 'on', 'from', 'in', 'about', 'to', 'for', 'of', 'at', 'into']);
const ORDINALS = ['first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth', 'tenth'];

/** A verb phrase usable right after a noun ("produced by", "compatible with"), or a finite one ("owns"). */
function isPostmodifier(phrase: string): boolean {
  const words = phrase.trim().split(/\s+/u);
  const last = words[words.length - 1] as string;
  const first = words[0] as string;
  if (words.length === 1) return PREPOSITIONS.has(first);
  if (['can', 'may', 'will', 'does', 'is', 'has'].includes(first)) return false;
  return PREPOSITIONS.has(last) && !/[^s]s$/u.test(first);
}

/** "owns" → "own", "processes" → "process", "subscribes to" → "subscribe to": for a plural subject. */
function pluralVerb(phrase: string): string {
  const [first, ...rest] = phrase.split(' ');
  const f = first as string;
  let base = f;
  if (/(ss|sh|ch|x)es$/u.test(f)) base = f.slice(0, -2);
  else if (/[^s]s$/u.test(f)) base = f.slice(0, -1);
  return [base, ...rest].join(' ');
}

function words(identifier: string): string {
  return identifier.replace(/([a-z0-9])([A-Z])/gu, '$1 $2').replace(/_/gu, ' ').toLowerCase();
}

/** A literal as a question quotes it. */
export function literalText(value: ScalarLiteral | null): string {
  if (value === null) return 'NULL';
  // Double quotes: text values often hold apostrophes ("kids' shows").
  // Decimals arrive as strings (numeric); they read as numbers.
  if (typeof value === 'string') return /^-?\d+(\.\d+)?$/u.test(value) && !/^0\d/u.test(value) ? value : `"${value}"`;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return String(value);
}

/** "a", "b" and "c" */
export function listing(items: readonly string[], conjunction = 'and'): string {
  if (items.length <= 1) return items[0] ?? '';
  if (items.length === 2) return `${items[0]} ${conjunction} ${items[1]}`;
  return `${items.slice(0, -1).join(', ')}, ${conjunction} ${items[items.length - 1]}`;
}

function article(nounPhrase: string): string {
  return /^[aeiou]/iu.test(nounPhrase) && !/^(u[bcfhjkqrstn]i|eu|one|uni|use)/iu.test(nounPhrase) ? `an ${nounPhrase}` : `a ${nounPhrase}`;
}

class Describer {
  readonly mentions: RequiredMention[] = [];
  private readonly covered = new Set<string>();
  private readonly aliases = new Map<string, AliasInfo>();
  /** Aliases sharing a noun get ordinals ("the second channel"), in order of appearance. */
  private readonly ordinal = new Map<string, number>();
  private readonly outputsByName = new Map<string, Expr>();
  private readonly notes: string[] = [];
  private readonly noteSet = new Set<string>();

  constructor(
    private readonly index: ErIndex,
    query: Query,
    /** `evidence`: conventions (subtype scope, unmatched rows, zero counts, NULLs) go to the notes, not in brackets. */
    private readonly conventions: 'inline' | 'evidence' = 'inline',
  ) {
    this.collect(query, false);
    const byNoun = new Map<string, string[]>();
    for (const [alias, info] of this.aliases) {
      if (info.sameAs) continue;
      const noun = info.entity ? this.index.entity(info.entity).lexicon.singular : this.elementNoun(info).singular;
      byNoun.set(noun, [...(byNoun.get(noun) ?? []), alias]);
    }
    for (const list of byNoun.values()) if (list.length > 1) list.forEach((a, i) => this.ordinal.set(a, i));
  }

  // ---- aliases -------------------------------------------------------------------------

  private collect(query: Query, optional: boolean): void {
    if (query.kind === 'set') {
      this.collect(query.left, optional);
      this.collect(query.right, optional);
      return;
    }
    this.aliases.set(query.from.alias, { entity: query.from.entity, optional: false });
    const leftAliases = new Set<string>();
    for (const j of query.joins ?? []) {
      const parent = j.kind === 'relationship' ? j.from : j.of;
      const isOptional = j.type === 'left' || leftAliases.has(parent);
      if (isOptional) leftAliases.add(j.alias);
      if (j.kind === 'relationship') {
        this.aliases.set(j.alias, { entity: j.entity, optional: isOptional, relationship: j.relationship });
        if (j.on) this.collectPredicate(j.on);
      } else {
        const owner = this.aliases.get(j.of);
        const attribute = this.index.allAttributes(owner?.entity ?? '').find((a) => a.attribute.name === j.attribute)?.attribute;
        if (!attribute) throw new Error(`no multi-valued attribute ${j.attribute} on alias ${j.of}`);
        this.aliases.set(j.alias, { element: { owner: j.of, attribute }, optional: isOptional });
      }
    }
    if (query.where) this.collectPredicate(query.where);
    if (query.having) this.collectPredicate(query.having);
    for (const o of query.select) this.collectExpr(o.expr);
    // A subquery that equates one of its join aliases with an outer alias by id talks about
    // that outer object: "content produced by the creator", not "… by a creator who is the creator".
    for (const c of conjuncts(query.where)) {
      if (c.kind !== 'compare' || c.op !== '=' || c.left.kind !== 'attribute' || c.right.kind !== 'attribute') continue;
      if (c.left.attribute !== 'id' || c.right.attribute !== 'id') continue;
      const inner = (query.joins ?? []).find((j) => j.kind === 'relationship' && j.type === 'inner' && (j.alias === (c.left as { alias: string }).alias || j.alias === (c.right as { alias: string }).alias));
      if (!inner) continue;
      const other = inner.alias === c.left.alias ? c.right.alias : c.left.alias;
      const info = this.aliases.get(inner.alias);
      if (info && other !== inner.alias && this.aliases.has(other) && other !== query.from.alias) info.sameAs = other;
    }
  }

  private collectPredicate(p: Predicate): void {
    if (p.kind === 'and' || p.kind === 'or') p.args.forEach((a) => this.collectPredicate(a));
    else if (p.kind === 'not') this.collectPredicate(p.arg);
    else if (p.kind === 'exists' || p.kind === 'inQuery') {
      this.collect(p.query, false);
      // `x.id IN (SELECT b.id …)` speaks of x through b: b is not another object.
      const q = p.query;
      if (p.kind === 'inQuery' && q.kind === 'select' && p.expr.kind === 'attribute' && p.expr.attribute === 'id') {
        const inner = q.select[0]?.expr;
        const info = inner?.kind === 'attribute' && inner.attribute === 'id' && inner.alias !== q.from.alias ? this.aliases.get(inner.alias) : undefined;
        if (info && inner?.kind === 'attribute') info.sameAs = p.expr.alias;
      }
    }
    else if (p.kind === 'compare') {
      this.collectExpr(p.left);
      this.collectExpr(p.right);
    }
  }

  private collectExpr(e: Expr): void {
    if (isAnalytic(e)) {
      const parts = analyticParts(e);
      parts.exprs.forEach((x) => this.collectExpr(x));
      parts.predicates.forEach((p) => this.collectPredicate(p));
    } else if (e.kind === 'aggregate' && e.filter) {
      this.collectPredicate(e.filter);
      if (e.arg) this.collectExpr(e.arg);
    } else if (e.kind === 'scalarSubquery') this.collect(e.query, false);
    else if (e.kind === 'aggregate' && e.arg) this.collectExpr(e.arg);
    else if (e.kind === 'round') this.collectExpr(e.arg);
    else if (e.kind === 'arithmetic') {
      this.collectExpr(e.left);
      this.collectExpr(e.right);
    }
  }

  private info(alias: string): AliasInfo {
    const info = this.aliases.get(alias);
    if (!info) throw new Error(`unknown alias ${alias}`);
    return info.sameAs ? this.info(info.sameAs) : info;
  }

  private canonical(alias: string): string {
    const info = this.aliases.get(alias);
    return info?.sameAs ? this.canonical(info.sameAs) : alias;
  }

  private elementNoun(info: AliasInfo) {
    const a = info.element?.attribute as Attribute;
    return a.lexicon ?? { singular: words(a.name), plural: `${words(a.name)}s` };
  }

  /** The noun of an alias, with its ordinal when several aliases share the noun. */
  private noun(alias: string, plural = false): string {
    const canon = this.canonical(alias);
    const info = this.info(canon);
    const lex = info.entity ? this.index.entity(info.entity).lexicon : this.elementNoun(info);
    const n = this.ordinal.get(canon);
    const base = plural ? lex.plural : lex.singular;
    return n === undefined ? base : `${ORDINALS[n] ?? `number ${n + 1}`} ${base}`;
  }

  /** "the creator", "the second channel". */
  private ref(alias: string): string {
    return `the ${this.noun(alias)}`;
  }

  private attribute(alias: string, name: string): Attribute | undefined {
    const info = this.info(alias);
    return this.index.allAttributes(info.entity ?? '').find((a) => a.attribute.name === name)?.attribute;
  }

  private attributeNoun(alias: string, name: string, plural = false): string {
    if (name === 'id') return plural ? 'ids' : 'id';
    const a = this.attribute(alias, name);
    const lex = a?.lexicon ?? { singular: words(name), plural: `${words(name)}s` };
    return plural ? lex.plural : lex.singular;
  }

  private note(text: string, construct: string): void {
    this.covered.add(construct);
    if (!this.noteSet.has(text)) {
      this.noteSet.add(text);
      this.notes.push(text);
    }
  }

  private mention(construct: string, ...anyOf: (readonly string[])[]): void {
    this.covered.add(construct);
    this.mentions.push({ construct, anyOf });
  }

  // ---- subtype scope -------------------------------------------------------------------

  /** "every creator (of any kind, streamers included)" */
  private scoped(entity: string, determiner: string, aliasForNoun?: string): string {
    const noun = aliasForNoun ? this.noun(aliasForNoun) : this.index.entity(entity).lexicon.singular;
    const subs = this.index.subtree(entity).slice(1).map((e) => e.lexicon.plural);
    if (subs.length === 0) return `${determiner === 'a' ? article(noun) : `${determiner} ${noun}`}`;
    this.mention('subtype-scope', ...subs.map((s) => [s]));
    if (this.conventions === 'evidence') {
      this.note(`Every ${this.index.entity(entity).lexicon.singular} counts, including ${listing(subs)}.`, 'subtype-scope');
      return determiner === 'a' ? article(noun) : `${determiner} ${noun}`;
    }
    return `${determiner === 'a' ? article(noun) : `${determiner} ${noun}`} of any kind (${listing(subs)} included)`;
  }

  // ---- relationships -------------------------------------------------------------------

  /** `B` described by its relationship with `A` ("channel owned by the creator"). */
  private related(join: Extract<Join, { kind: 'relationship' }>, plural: boolean, determiner: string): string {
    const rel: Relationship = this.index.relationship(join.relationship);
    // The phrase with B as subject: B is `to` when the join goes forward.
    const phraseBA = join.direction === 'forward' ? rel.lexicon.reverse : rel.lexicon.forward;
    const phraseAB = join.direction === 'forward' ? rel.lexicon.forward : rel.lexicon.reverse;
    const head = this.scopedNoun(join, plural, determiner);
    const a = this.ref(join.from);
    if (isPostmodifier(phraseBA)) return `${head} ${phraseBA} ${a}`;
    if (isPostmodifier(phraseAB)) return `${head} that ${plural ? pluralVerb(phraseBA) : phraseBA} ${a}`;
    return `${head} that ${plural ? pluralVerb(phraseBA) : phraseBA} ${a}`;
  }

  private scopedNoun(join: Extract<Join, { kind: 'relationship' }>, plural: boolean, determiner: string): string {
    const info = this.info(join.alias);
    const entity = info.entity as string;
    const noun = this.noun(join.alias, plural);
    const subs = this.index.subtree(entity).slice(1).map((e) => e.lexicon.plural);
    const rel = this.index.relationship(join.relationship);
    const end = join.direction === 'forward' ? rel.to : rel.from;
    if (entity !== end) this.mention('subtype-join', [noun]);
    const d = determiner === '' ? '' : determiner === 'a' ? (plural ? '' : article(noun).split(' ')[0] + ' ') : `${determiner} `;
    if (subs.length === 0) return `${d}${noun}`;
    this.mention('subtype-scope', ...subs.map((s) => [s]));
    if (this.conventions === 'evidence') {
      this.note(`Every ${this.index.entity(entity).lexicon.singular} counts, including ${listing(subs)}.`, 'subtype-scope');
      return `${d}${noun}`;
    }
    return `${d}${noun} of any kind (${listing(subs)} included)`;
  }

  /** How each kind of join extends the rows: a clause after the base, or (a correlated back link) a postmodifier of it. */
  private readonly joinHandlers: Handlers<Join, JoinCtx, void> = {
    relationship: (j, ctx) => {
      if (this.aliases.get(j.alias)?.sameAs) {
        // Correlated back link: a postmodifier of the base ("content item produced by the creator").
        const rel = this.index.relationship(j.relationship);
        const phrase = j.direction === 'forward' ? rel.lexicon.forward : rel.lexicon.reverse;
        ctx.post.push(isPostmodifier(phrase) ? `${phrase} ${this.ref(j.alias)}` : `that ${phrase} ${this.ref(j.alias)}`);
        this.covered.add('correlation');
        return;
      }
      const on = j.on ? ` such that ${this.predicate(j.on)}` : '';
      if (ctx.sub) {
        // Inside a subquery a join asks for a partner: "with a channel owned by the creator".
        ctx.parts.push(`with ${this.related(j, false, 'a')}${on}${j.type === 'left' ? ' or with none' : ''}`);
        if (j.type === 'left') this.mention('left-join', ['or with none']);
        return;
      }
      const np = this.related(j, false, 'each');
      if (j.type === 'left') {
        const owner = this.noun(j.from);
        if (this.conventions === 'evidence') {
          ctx.parts.push(`paired with ${np}${on}, if any`);
          this.note(`${capitalize(article(owner))} without any ${this.noun(j.alias)} is kept once, with no ${this.noun(j.alias)}.`, 'left-join');
        } else ctx.parts.push(`paired with ${np}${on}, or with none (${article(owner)} without such ${article(this.noun(j.alias))} is kept once, with no ${this.noun(j.alias)})`);
        this.mention('left-join', ['kept once'], ['with none']);
      } else {
        ctx.parts.push(`paired with ${np}${on}`);
        this.covered.add('inner-join');
      }
    },
    elements: (j, ctx) => {
      const lex = this.elementNoun(this.info(j.alias));
      if (j.type === 'left') {
        ctx.parts.push(`paired with each of the ${lex.plural} of ${this.ref(j.of)}, or with none when it has none (kept once, with no ${lex.singular})`);
        this.mention('left-elements', ['kept once']);
      } else {
        ctx.parts.push(`paired with each of the ${lex.plural} of ${this.ref(j.of)} (one row per ${lex.singular})`);
        this.mention('elements', ['one row per']);
      }
    },
  };

  /** The rows of a select: its base and joins. */
  private rows(q: SelectQuery, sub = false): string {
    const ctx: JoinCtx = { sub, parts: [this.scoped(q.from.entity, 'every', q.from.alias)], post: [] };
    for (const j of q.joins ?? []) (this.joinHandlers[j.kind] as (node: Join, c: JoinCtx) => void)(j, ctx);
    const base = ctx.post.length > 0 ? `${ctx.parts[0]} ${ctx.post.join(' and ')}` : (ctx.parts[0] as string);
    return [base, ...ctx.parts.slice(1)].join(', ');
  }


  // ---- expressions ---------------------------------------------------------------------

  private nullable(e: Expr): boolean {
    switch (e.kind) {
      case 'attribute':
        return this.info(e.alias).optional || (e.attribute !== 'id' && this.attribute(e.alias, e.attribute)?.optional === true);
      case 'element':
        return this.info(e.alias).optional;
      case 'linkAttribute':
        return true;
      case 'classOf':
        return true;
      case 'aggregate':
        return e.fn !== 'count';
      case 'arithmetic':
        return this.nullable(e.left) || this.nullable(e.right);
      case 'round':
        return this.nullable(e.arg);
      case 'setSize':
      case 'setArray':
        return this.info(e.alias).optional;
      case 'scalarSubquery': {
        // A COUNT subquery always gives a number (0 for no rows); other aggregates can be NULL.
        const out = e.query.kind === 'select' ? e.query.select[0]?.expr : undefined;
        return !(out?.kind === 'aggregate' && out.fn === 'count' && (e.query.groupBy?.length ?? 0) === 0);
      }
      case 'literal':
        return e.value === null;
      case 'window':
        return e.fn === 'lag' || e.fn === 'lead' || ((e.fn === 'sum' || e.fn === 'avg') && this.nullable(e.arg as Expr));
      default:
        return analyticNullable(e, (x) => this.nullable(x));
    }
  }

  /** Rows or groups, as the windows of the select being described count them. */
  private windowUnit = 'row';

  private readonly windowWords: WindowWords = {
    expr: (e) => this.expr(e, { grouped: this.windowUnit === 'group' && hasAggregate(e) }),
    nullable: (e) => this.nullable(e),
    mention: (construct, ...anyOf) => this.mention(construct, ...anyOf),
    unit: () => this.windowUnit,
  };

  /** The describer's helpers, lent to the analytic phrasings (CASE, CAST, dates, text). */
  private readonly phrasing: AnalyticPhrasing<Ctx> = {
    expr: (e, ctx) => this.expr(e, ctx),
    predicate: (p, ctx) => this.predicate(p, ctx),
    nullable: (e) => this.nullable(e),
    isTime: (e) => this.isTime(e),
    mention: (construct, ...anyOf) => this.mention(construct, ...anyOf),
    cover: (construct) => this.covered.add(construct),
  };

  private analytic = <K extends Expr['kind']>(_kind: K) => (e: Extract<Expr, { kind: K }>, ctx: Ctx): string => describeAnalytic(e as never, ctx, this.phrasing);

  private readonly exprHandlers: Handlers<Expr, Ctx, string> = {
    attribute: (e) => `the ${this.attributeNoun(e.alias, e.attribute)} of ${this.ref(e.alias)}`,
    element: (e) => this.ref(e.alias),
    linkAttribute: (e) => {
      const info = this.info(e.alias);
      const rel = this.index.relationship(info.relationship ?? '');
      const a = rel.attributes?.find((x) => x.name === e.attribute);
      const noun = a?.lexicon?.singular ?? words(e.attribute);
      return `the ${noun} recorded on the link to ${this.ref(e.alias)}`;
    },
    literal: (e) => literalText(e.value),
    aggregate: (e, ctx) => this.aggregate(e, ctx),
    setSize: (e) => {
      const plural = this.attributeNoun(e.alias, e.attribute, true);
      this.mention('set-size', ['0 when'], ['0 if none']);
      return `the number of ${plural} of ${this.ref(e.alias)} (0 when it has none)`;
    },
    setArray: (e) => {
      this.mention('set-array', ['any order']);
      return `the list of ${this.attributeNoun(e.alias, e.attribute, true)} of ${this.ref(e.alias)} (in any order)`;
    },
    classOf: (e) => {
      const names = e.among.map((n) => this.index.entity(n).lexicon.singular);
      this.mention('class-of', ['in that order'], ['empty']);
      return e.among.length === 1
        ? `"${names[0]}" when ${this.ref(e.alias)} is ${article(names[0] as string)} (empty otherwise)`
        : `the first of ${listing(names.map((n) => `"${n}"`), 'or')} (in that order) that ${this.ref(e.alias)} is (empty if none)`;
    },
    arithmetic: (e, ctx) => {
      const l = this.expr(e.left, ctx);
      const r = this.expr(e.right, ctx);
      // "the text" introduces a quoted value only: "followed by the text the last name" is not English.
      const op = { '+': 'plus', '-': 'minus', '*': 'times', '/': 'divided by', '||': e.right.kind === 'literal' ? 'followed by the text' : 'followed by' }[e.op];
      return `${l} ${op} ${r}`;
    },
    round: (e, ctx) => `${this.expr(e.arg, ctx)} rounded to ${e.digits} decimal place${e.digits === 1 ? '' : 's'}`,
    scalarSubquery: (e) => this.subqueryValue(e.query),
    window: (e) => describeWindow(e, this.windowWords),
    case: this.analytic('case'),
    simpleCase: this.analytic('simpleCase'),
    cast: this.analytic('cast'),
    nullif: this.analytic('nullif'),
    coalesce: this.analytic('coalesce'),
    ratio: this.analytic('ratio'),
    extract: this.analytic('extract'),
    dateTrunc: this.analytic('dateTrunc'),
    dateShift: this.analytic('dateShift'),
    ageYears: this.analytic('ageYears'),
    textFunction: this.analytic('textFunction'),
    substring: this.analytic('substring'),
    position: this.analytic('position'),
  };

  expr(e: Expr, ctx: Ctx = { grouped: false }): string {
    const handler = this.exprHandlers[e.kind] as (node: Expr, c: Ctx) => string;
    return handler(e, ctx);
  }

  /** An aggregate; a filter narrows the rows it reads (conditional aggregation). */
  private aggregate(e: Extract<Expr, { kind: 'aggregate' }>, ctx: Ctx): string {
    if (!e.filter) return this.aggregateOf(e, ctx);
    const { filter, ...plain } = e;
    this.mention('aggregate-filter', ['only the rows where']);
    return `${this.aggregateOf(plain, ctx)}, ${e.fn === 'count' ? 'counting' : 'taking'} only the rows where ${this.predicate(filter, ctx)}`;
  }

  private aggregateOf(e: Extract<Expr, { kind: 'aggregate' }>, ctx: Ctx): string {
    // "for each creator" or "as a single row" already says what an aggregate ranges over.
    const scope = '';
    if (e.fn === 'count') {
      if (!e.arg) {
        const lefts = [...this.currentLeft];
        if (lefts.length > 0) {
          this.mention('count-star-left', ['still counts as one']);
          return `the number of ${this.currentRows} (${article(this.noun(this.currentBase))} with no ${this.noun(lefts[0] as string)} still counts as one)`;
        }
        this.covered.add('count');
        return `the number of ${this.currentRows}`;
      }
      const arg = e.arg;
      let counted: string;
      let alias: string | undefined;
      if (arg.kind === 'attribute' && arg.attribute === 'id' && this.collapsed?.alias === arg.alias) {
        // "the number of channels owned by the creator": the pairing the count runs over, said here.
        alias = arg.alias;
        counted = this.related(this.collapsed, true, '');
      } else if (arg.kind === 'attribute' && arg.attribute === 'id') {
        alias = arg.alias;
        counted = this.noun(arg.alias, true);
      } else if (arg.kind === 'element') {
        alias = arg.alias;
        counted = this.noun(arg.alias, true);
      } else {
        counted = `known values of ${this.expr(arg, ctx)}`;
        this.mention('null-handling', ['known']);
      }
      // Known values of a partner's attribute are none, so 0, when the partner is missing.
      const owner = alias ?? (arg.kind === 'attribute' ? arg.alias : undefined);
      const optional = owner !== undefined && this.info(owner).optional;
      let scope2 = scope;
      if (e.distinct) {
        this.mention('distinct-count', ['distinct']);
        counted = `distinct ${counted}`;
      } else if (alias !== undefined && this.repeats.has(this.canonical(alias))) {
        this.mention('count-repeats', ['repeats']);
        counted = `${counted}${scope}, repeats included`;
        scope2 = '';
      }
      if (optional) {
        this.mention('zero-count', ['0'], ['zero']);
        if (this.conventions === 'evidence') {
          this.note(`The number of ${counted.replace(/, repeats included$/u, '')} is 0 when there are none.`, 'zero-count');
          return `the number of ${counted}${scope2}`;
        }
        return `the number of ${counted}${scope2} (0 when there are none)`;
      }
      this.covered.add('count');
      return `the number of ${counted}${scope2}`;
    }
    const arg = e.arg as Expr;
    let what = this.expr(arg, ctx);
    if (e.distinct) {
      // Each value counts once: "the total of the distinct values of …".
      this.mention('distinct-aggregate', ['distinct values']);
      what = `the distinct values of ${what}`;
    }
    const fn = { sum: 'the total of', avg: 'the average of', min: 'the smallest value of', max: 'the largest value of' }[e.fn];
    this.covered.add(`aggregate:${e.fn}`);
    if (arg.kind === 'arithmetic') {
      // "the total of a minus b" could be the total of a, less b: the arithmetic comes first, row by row.
      // In brackets, as below: in a list of outputs a comma would start another column.
      this.mention('aggregate-of-arithmetic', ['for each row']);
      const nulls = this.nullable(arg) ? ', ignoring rows where it is missing' : '';
      if (nulls) this.mention('null-handling', ['ignoring rows where it is missing']);
      return `${fn} ${what}${scope} (worked out for each row${nulls})`;
    }
    if (this.nullable(arg)) {
      this.mention('null-handling', ['missing values are ignored'], ['ignoring missing']);
      // In brackets: in a list of outputs, ", ignoring missing values," would read as a column.
      return `${fn} ${what}${scope} (ignoring missing values)`;
    }
    return `${fn} ${what}${scope}`;
  }

  /** Aliases whose rows a later join can repeat (so a plain count counts repeats). */
  private repeats = new Set<string>();
  /** LEFT-joined aliases of the select being described. */
  private currentLeft: string[] = [];
  /** The join a collapsed query counts the partners of (see `collapsible`). */
  private collapsed: Extract<Join, { kind: 'relationship' }> | undefined;
  /** The base alias of the select being described, and what one of its rows is, plural ("creators", "creator–channel pairs"). */
  private currentBase = '';
  private currentRows = 'rows';

  // ---- predicates ----------------------------------------------------------------------

  private value(e: Expr): string {
    return this.expr(e);
  }

  /** Whether an expression reads a time of day (a timestamptz attribute or element). */
  private isTime(e: Expr): boolean {
    if (e.kind === 'attribute' && e.attribute !== 'id') return this.attribute(e.alias, e.attribute)?.type.kind === 'timestamptz';
    if (e.kind === 'element') return this.info(e.alias).element?.attribute.type.kind === 'timestamptz';
    return false;
  }

  private isTemporal(e: Expr): boolean {
    if (e.kind === 'dateShift' || e.kind === 'dateTrunc' || (e.kind === 'cast' && e.to === 'date')) return true;
    if (e.kind === 'attribute' && e.attribute !== 'id') {
      const k = this.attribute(e.alias, e.attribute)?.type.kind;
      return k === 'date' || k === 'timestamptz';
    }
    if (e.kind === 'element') {
      const k = this.info(e.alias).element?.attribute.type.kind;
      return k === 'date' || k === 'timestamptz';
    }
    return false;
  }

  private nullNote(e: Expr): string {
    if (!this.nullable(e) || e.kind === 'literal') return '';
    this.mention('null-handling', ['no value'], ['missing']);
    if (this.conventions === 'evidence') {
      this.note(`Rows with no value for ${this.expr(e)} do not match.`, 'null-handling');
      return '';
    }
    return ` (rows with no value there do not match)`;
  }

  private readonly predicateHandlers: Handlers<Predicate, Ctx, string> = {
    compare: (p, ctx) => {
      const temporal = this.isTemporal(p.left) || this.isTemporal(p.right);
      const ops = temporal
        ? { '=': 'is', '<>': 'is not', '<': 'is earlier than', '<=': 'is at or before', '>': 'is later than', '>=': 'is at or after' }
        : { '=': 'is', '<>': 'is not', '<': 'is less than', '<=': 'is at most', '>': 'is greater than', '>=': 'is at least' };
      this.covered.add(`compare:${p.op}`);
      return `${this.expr(p.left, ctx)} ${ops[p.op]} ${this.expr(p.right, ctx)}${this.nullNote(p.left) || this.nullNote(p.right)}`;
    },
    in: (p) => {
      this.covered.add('in');
      const values = listing(p.values.map(literalText), 'or');
      const head = this.value(p.expr);
      const body = p.values.length === 1 ? (p.negated ? `is not ${values}` : `is ${values}`) : p.negated ? `is none of ${values}` : `is one of ${values}`;
      return `${head} ${body}${this.nullNote(p.expr)}`;
    },
    like: (p) => {
      this.covered.add('like');
      const head = this.value(p.expr);
      const pat = p.pattern;
      const inner = pat.slice(1, -1);
      const plain = (s: string) => !/[%_\\]/u.test(s);
      let body: string;
      if (pat.endsWith('%') && !pat.startsWith('%') && plain(pat.slice(0, -1))) body = `${p.negated ? 'does not start' : 'starts'} with ${literalText(pat.slice(0, -1))}`;
      else if (pat.startsWith('%') && pat.endsWith('%') && pat.length > 2 && plain(inner)) body = `${p.negated ? 'does not contain' : 'contains'} the text ${literalText(inner)}`;
      else if (plain(pat)) body = `${p.negated ? 'is not exactly' : 'is exactly'} ${literalText(pat)}`;
      else body = `${p.negated ? 'does not match' : 'matches'} the LIKE pattern ${literalText(pat)}`;
      const cs = p.caseInsensitive ? ', ignoring case' : ', matching case exactly';
      this.mention('like-case', [p.caseInsensitive ? 'ignoring case' : 'matching case']);
      return `${head} ${body}${cs}${this.nullNote(p.expr)}`;
    },
    between: (p) => {
      this.mention('between', ['inclusive']);
      return `${this.value(p.expr)} is ${p.negated ? 'not ' : ''}between ${this.value(p.low)} and ${this.value(p.high)} (inclusive)${this.nullNote(p.expr)}`;
    },
    isNull: (p) => {
      this.mention('is-null', ...(p.negated ? [['recorded'], ['there is'], ['known']] : [['no'], ['missing']]));
      const e = p.expr;
      // "the bio of the streamer is recorded": "has bio recorded" lacks its article, and "has a
      // dimensions recorded" would have the wrong one.
      if (e.kind === 'attribute') return p.negated ? `the ${this.attributeNoun(e.alias, e.attribute)} of ${this.ref(e.alias)} is recorded` : `${this.ref(e.alias)} has no ${this.attributeNoun(e.alias, e.attribute)}`;
      if (e.kind === 'element') return p.negated ? `there is ${article(this.noun(e.alias))}` : `there is no ${this.noun(e.alias)}`;
      return `${this.value(e)} is ${p.negated ? 'known' : 'missing'}`;
    },
    contains: (p) => {
      this.covered.add('contains');
      return `the ${this.attributeNoun(p.alias, p.attribute, true)} of ${this.ref(p.alias)} ${p.negated ? 'do not include' : 'include'} ${literalText(p.value)}`;
    },
    isA: (p) => {
      const noun = this.index.entity(p.entity).lexicon.singular;
      this.mention('is-a', [noun]);
      return `${this.ref(p.alias)} is ${p.negated ? 'not ' : ''}${article(noun)}`;
    },
    // An OR inside an AND is bracketed, so "either A or B, and C" cannot be read as "A or (B and C)".
    and: (p, ctx) => listing(p.args.map((a) => (a.kind === 'or' ? `(${this.predicate(a, ctx)})` : this.predicate(a, ctx)))),
    or: (p, ctx) => {
      this.covered.add('or');
      return `either ${listing(p.args.map((a) => (a.kind === 'and' ? `(${this.predicate(a, ctx)})` : this.predicate(a, ctx))), 'or')}`;
    },
    not: (p, ctx) => {
      this.mention('not', ['not the case']);
      return `it is not the case that ${this.predicate(p.arg, ctx)}`;
    },
    exists: (p) => {
      this.covered.add('exists');
      const sub = this.subqueryRows(p.query, 'a');
      return p.negated ? `there is no ${sub.replace(/^an? /u, '')}` : `there is at least ${sub.replace(/^an? /u, 'one ')}`;
    },
    inQuery: (p) => {
      this.covered.add('in-subquery');
      const q = p.query;
      if (q.kind === 'select' && q.select.length === 1) {
        const inner = q.select[0]?.expr as Expr;
        const target = this.value(p.expr);
        // `x.id IN (SELECT b.id …)`: x is among the objects the subquery reaches.
        if (p.expr.kind === 'attribute' && p.expr.attribute === 'id' && inner.kind === 'attribute' && inner.attribute === 'id') {
          return `${this.ref(p.expr.alias)} is ${this.asReached(q, inner.alias, p.negated === true)}`;
        }
        return `${target} is ${p.negated ? 'not ' : ''}among the values of ${this.expr(inner)} for ${this.subqueryRows(q, 'every')}`;
      }
      return `${this.value(p.expr)} is ${p.negated ? 'not ' : ''}among the values of (${this.subqueryRows(q as SelectQuery, 'every')})`;
    },
  };

  predicate(p: Predicate, ctx: Ctx = { grouped: false }): string {
    const handler = this.predicateHandlers[p.kind] as (node: Predicate, c: Ctx) => string;
    return handler(p, ctx);
  }

  /** "one of the creators that produced some content item whose …" for `x.id IN (SELECT b.id …)`. */
  private asReached(q: SelectQuery, target: string, negated: boolean): string {
    const join = (q.joins ?? []).find((j) => j.alias === target);
    const saved = this.currentLeft;
    this.currentLeft = [];
    try {
      const cond = q.where ? ` for which ${this.predicate(q.where)}` : '';
      if (join?.kind === 'relationship') {
        // "not written by any customer", "written by a customer": the determiner carries the negation.
        const base = this.scoped(q.from.entity, 'a', q.from.alias).replace(/^an? /u, negated ? 'any ' : '$&');
        const rel = this.index.relationship(join.relationship);
        const phrase = join.direction === 'forward' ? rel.lexicon.reverse : rel.lexicon.forward;
        const verb = isPostmodifier(phrase) ? phrase : `one that ${phrase}`;
        return `${negated ? 'not ' : ''}${verb} ${base}${cond}`;
      }
      // `x.id IN (SELECT s.id FROM S s WHERE …)`: x is one of those objects.
      return `${negated ? 'not ' : ''}one of the ${this.noun(q.from.alias, true)}${cond}`;
    } finally {
      this.currentLeft = saved;
    }
  }

  /** A subquery's rows as a noun phrase: "a content item produced by the creator, where …". */
  private subqueryRows(q: SelectQuery, determiner: string): string {
    const saved = this.currentLeft;
    this.currentLeft = [];
    try {
      const rows = this.rows(q, true).replace(/^every /u, determiner === 'a' ? '' : `${determiner} `);
      const withArticle = determiner === 'a' ? article(rows) : rows;
      const rest = conjuncts(q.where).filter((c) => !this.isCorrelation(c));
      const where = rest.length > 0 ? ` (counting only those where ${listing(rest.map((c) => this.predicate(c)))})` : '';
      let grouped = '';
      if ((q.groupBy?.length ?? 0) > 0) {
        const keys = listing((q.groupBy ?? []).map((k) => this.groupKey(k)));
        grouped = `, taken together per ${keys}${q.having ? ` such that ${this.predicate(q.having, { grouped: true })}` : ''}`;
        this.covered.add('subquery-group');
      }
      return `${withArticle}${where}${grouped}`;
    } finally {
      this.currentLeft = saved;
    }
  }

  private isCorrelation(c: Predicate): boolean {
    if (c.kind !== 'compare' || c.op !== '=' || c.left.kind !== 'attribute' || c.right.kind !== 'attribute') return false;
    const l = this.aliases.get(c.left.alias);
    const r = this.aliases.get(c.right.alias);
    return (l?.sameAs === c.right.alias || r?.sameAs === c.left.alias) && c.left.attribute === 'id' && c.right.attribute === 'id';
  }

  /** A scalar subquery's value: "the number of content items produced by the creator (where …)". */
  private subqueryValue(q: SelectQuery): string {
    const out = q.select[0]?.expr;
    const rows = this.subqueryRows(q, 'every').replace(/^every /u, '');
    if (out?.kind === 'aggregate' && out.fn === 'count' && (!out.arg || out.distinct !== true)) {
      this.covered.add('scalar-subquery');
      const plural = this.noun(q.from.alias, true);
      const rest = rows.slice(rows.indexOf(this.noun(q.from.alias)) + this.noun(q.from.alias).length);
      // The noun is now plural, and so is its verb: "subscribers that subscribe to the creator".
      return `the number of ${plural}${rest.replace(/^ that (.+)$/u, (_, phrase: string) => ` that ${pluralVerb(phrase)}`)}`;
    }
    this.covered.add('scalar-subquery');
    return `${this.expr(out as Expr, { grouped: false })}, computed over every ${rows}`;
  }

  // ---- whole queries -------------------------------------------------------------------

  selectFrame(q: SelectQuery): QueryFrame {
    for (const o of q.select) this.outputsByName.set(o.name, o.expr);
    this.currentLeft = (q.joins ?? []).filter((j) => this.aliases.get(j.alias)?.optional).map((j) => j.alias);
    this.currentBase = q.from.alias;
    this.currentRows = this.rowNoun(q);
    // A plain count of an alias repeats when another join fans its rows out.
    const joins = q.joins ?? [];
    for (const a of [q.from.alias, ...joins.map((j) => j.alias)]) {
      const fanOut = joins.some((j) => j.alias !== a && (j.kind === 'elements' || !(j.kind === 'relationship' && j.from === a && joins.length === 1 && a === q.from.alias)));
      if (joins.length > 1 || (joins.length === 1 && a === q.from.alias) || fanOut) this.repeats.add(a);
    }
    const grouped = (q.groupBy?.length ?? 0) > 0 || q.select.some((o) => hasAggregate(o.expr));
    this.windowUnit = grouped ? 'group' : 'row';
    this.collapsed = this.collapsible(q);
    const rows = this.collapsed ? this.collapsedRows(q, this.collapsed) : this.rows(q);
    const outputs = this.outputs(q, grouped);
    let group = '';
    if (this.collapsed) {
      // One row per base object is what "every creator" already says.
      this.covered.add('group-by');
    } else if ((q.groupBy?.length ?? 0) > 0) {
      // An object's attributes grouped beside its id change no group (the id decides them): "for
      // each customer", not "for each combination of the customer and the value of its name".
      const byId = new Set((q.groupBy ?? []).filter((k) => k.kind === 'attribute' && k.attribute === 'id').map((k) => this.canonical((k as { alias: string }).alias)));
      const significant = (q.groupBy ?? []).filter((k) => !(k.kind === 'attribute' && k.attribute !== 'id' && byId.has(this.canonical(k.alias))));
      const keys = significant.map((k) => this.groupKey(k));
      group = keys.length === 1 ? `, one row for each ${keys[0]}` : `, one row for each combination of ${listing(keys.map((k) => `the ${k}`))}`;
      this.mention('group-by', ['for each']);
      for (const k of significant) {
        if (this.nullable(k)) {
          const what = (k.kind === 'attribute' && k.attribute === 'id') || k.kind === 'element' ? `no ${this.noun(k.alias)}` : `no value for ${this.expr(k)}`;
          this.note(`Rows with ${what} form one group of their own.`, 'null-group');
        }
      }
    } else if (grouped) {
      group = ', as a single row';
      this.mention('aggregate-only', ['single row']);
    }
    const condition = q.where ? this.predicate(q.where) : '';
    const filter = condition ? `, where ${condition}` : '';
    // A collapsed query speaks of its base objects, not of groups.
    const having = (q.having ? `, keeping only ${this.collapsed ? 'those' : 'the groups'} where ${this.predicate(q.having, { grouped: true })}` : '') + (q.qualify ? describeQualify(q.qualify, this.windowWords) : '');
    if (q.having) this.covered.add('having');
    const order = this.order(q.orderBy ?? []);
    const limit = this.limit(q.limit, (q.orderBy?.length ?? 0) > 0);
    if (q.distinct) {
      this.note('Each distinct row appears once: duplicates are removed.', 'distinct');
      this.mention('distinct', ['distinct'], ['duplicate']);
    } else if (!grouped && joins.length > 0) {
      this.note('A row appears as many times as the pairing produces it (duplicates are kept).', 'duplicates-kept');
    }
    return {
      outputs,
      rows,
      group,
      filter,
      condition,
      having,
      order,
      limit,
      notes: this.notes,
      topic: this.index.entity(q.from.entity).lexicon.plural,
      covered: [...this.covered].sort(),
    };
  }

  /**
   * The one join of a query that groups by its base object and only counts the partners of
   * that join: "every creator, with the number of channels owned by the creator", not "every
   * creator paired with each channel …, one row for each creator, the number of channels".
   * Undefined when the query is any other shape (then the pairing is described as it is).
   */
  private collapsible(q: SelectQuery): Extract<Join, { kind: 'relationship' }> | undefined {
    const joins = q.joins ?? [];
    const j = joins[0];
    if (joins.length !== 1 || j?.kind !== 'relationship' || j.from !== q.from.alias || j.on || this.aliases.get(j.alias)?.sameAs) return undefined;
    const base = this.canonical(q.from.alias);
    const keys = q.groupBy ?? [];
    if (!keys.some((k) => k.kind === 'attribute' && k.attribute === 'id')) return undefined;
    if (!keys.every((k) => k.kind === 'attribute' && this.canonical(k.alias) === base)) return undefined;
    const mentionsJoin = (x: unknown) => JSON.stringify(x ?? null).includes(`"alias":${JSON.stringify(j.alias)}`);
    // Aggregates count the join's objects; everything else speaks of the base object only.
    const ok = (e: Expr): boolean => {
      if (e.kind === 'aggregate') return e.fn === 'count' && e.arg?.kind === 'attribute' && e.arg.alias === j.alias && e.arg.attribute === 'id';
      if (e.kind === 'arithmetic') return ok(e.left) && ok(e.right);
      if (e.kind === 'round') return ok(e.arg);
      return !mentionsJoin(e) && e.kind !== 'scalarSubquery';
    };
    if (mentionsJoin(q.where)) return undefined;
    if (!q.select.every((o) => ok(o.expr))) return undefined;
    if (!q.select.some((o) => hasAggregate(o.expr)) && !(q.orderBy ?? []).some((o) => o.expr.kind !== 'output' && hasAggregate(o.expr))) return undefined;
    if (q.having && !(q.having.kind === 'compare' && ok(q.having.left) && ok(q.having.right))) return undefined;
    if (!(q.orderBy ?? []).every((o) => o.expr.kind === 'output' || ok(o.expr))) return undefined;
    return j;
  }

  /** The rows of a collapsed query: its base objects, all of them or those with a partner. */
  private collapsedRows(q: SelectQuery, j: Extract<Join, { kind: 'relationship' }>): string {
    const base = this.scoped(q.from.entity, 'every', q.from.alias);
    if (j.type === 'left') {
      this.mention('left-join', ['including those without']);
      return `${base}, including those without any ${this.noun(j.alias)}`;
    }
    this.covered.add('inner-join');
    return `${base} with at least one ${this.related(j, false, '')}`;
  }

  /** What COUNT(*) counts, in words: the base objects, or the combinations the joins make. */
  private rowNoun(q: SelectQuery): string {
    const joined = (q.joins ?? []).filter((j) => !this.aliases.get(j.alias)?.sameAs).map((j) => this.noun(j.alias));
    if (joined.length === 0) return this.noun(q.from.alias, true);
    if (joined.length === 1) return `${this.noun(q.from.alias)}–${joined[0]} pairs`;
    return `combinations of ${listing([this.noun(q.from.alias), ...joined].map((n) => article(n)))}`;
  }

  private groupKey(k: Expr): string {
    if (k.kind === 'attribute' && k.attribute === 'id') return this.noun(k.alias);
    if (k.kind === 'element') return this.noun(k.alias);
    return `value of ${this.expr(k)}`;
  }

  private outputs(q: SelectQuery, grouped: boolean): string {
    const parts: string[] = [];
    // Neighbouring attributes of one object share it: "the first name, last name and email
    // address of the customer", not the customer three times. Order is kept, so the columns
    // still read in their order.
    const select = q.select;
    for (let i = 0; i < select.length; i++) {
      const e = select[i]?.expr as Expr;
      if (e.kind === 'attribute') {
        const run = [e.attribute];
        while (i + run.length < select.length) {
          const next = select[i + run.length]?.expr as Expr;
          // A column asked twice is said twice ("the last name of the customer and the last name of the customer").
          if (next.kind !== 'attribute' || this.canonical(next.alias) !== this.canonical(e.alias) || run.includes(next.attribute)) break;
          run.push(next.attribute);
        }
        if (run.length > 1) {
          const nouns = listing(run.map((a) => this.attributeNoun(e.alias, a)));
          // The id and every attribute, in the model's order: what `SELECT *` of the entity means.
          const entity = this.info(e.alias).entity;
          const every = entity ? ['id', ...this.index.allAttributes(entity).filter((x) => !x.attribute.multiValued).map((x) => x.attribute.name)] : [];
          parts.push(run.join() === every.join() ? `all the details of ${this.ref(e.alias)}, namely its ${nouns}` : `the ${nouns} of ${this.ref(e.alias)}`);
          i += run.length - 1;
          continue;
        }
      }
      parts.push(this.expr(e, { grouped: grouped && hasAggregate(e) }));
    }
    this.mention('outputs', ...(q.select.length > 1 ? [['in this order']] : [[]]));
    for (const o of q.select) {
      if (!hasAggregate(o.expr) && this.nullable(o.expr) && o.expr.kind !== 'classOf') this.note(`Where ${this.expr(o.expr)} is missing, that column is left empty.`, 'null-output');
    }
    return q.select.length > 1 ? `${listing(parts)} (in this order)` : (parts[0] ?? '');
  }

  private orderKey(item: OrderItem | { name: string; direction: 'asc' | 'desc' }): { text: string; nullable: boolean } {
    const e: Expr | undefined = 'name' in item ? this.outputsByName.get(item.name) : item.expr.kind === 'output' ? this.outputsByName.get(item.expr.name) : item.expr;
    if (!e) {
      const name = 'name' in item ? item.name : (item.expr as { name: string }).name;
      return { text: `the ${words(name)}`, nullable: false };
    }
    const grouped = hasAggregate(e);
    // A window the answer already shows is named by what it gives; its whole wording (partition,
    // order, tie-break) was said once with the outputs.
    if (e.kind === 'window' && [...this.outputsByName.values()].some((o) => o === e || JSON.stringify(o) === JSON.stringify(e))) {
      return { text: `that ${WINDOW_NOUN[e.fn]}`, nullable: this.nullable(e) };
    }
    return { text: this.expr(e, { grouped }), nullable: this.nullable(e) };
  }

  private order(items: readonly (OrderItem | { name: string; direction: 'asc' | 'desc' })[]): string {
    if (items.length === 0) return '';
    const keys = items.map((item) => {
      const k = this.orderKey(item);
      const dir = item.direction === 'desc' ? 'in descending order' : 'in ascending order';
      // PostgreSQL sorts NULLs as larger than every value, unless NULLS FIRST/LAST says otherwise.
      const explicit = 'nulls' in item ? item.nulls : undefined;
      const first = explicit ? explicit === 'first' : item.direction === 'desc';
      const said = first ? 'missing values first' : 'missing values last';
      const nulls = k.nullable || explicit ? `, ${said}` : '';
      if (k.nullable || explicit) this.mention('order-nulls', [said], [said.replace(' values', '')]);
      return `${k.text} ${dir}${nulls}`;
    });
    this.mention('order', ['sorted by'], ['sort them by']);
    if (keys.length === 1) return `, sorted by ${keys[0]}`;
    this.mention('tie-break', ['ties broken by'], ['ties by'], ['ties are broken by']);
    return `, sorted by ${keys[0]}, ties broken by ${listing(keys.slice(1), 'then by')}`;
  }

  private limit(n: number | undefined, ordered: boolean): string {
    if (n === undefined) return '';
    this.mention('limit', [n === 1 ? 'first row' : String(n)]);
    if (!ordered) return `, at most ${n} row${n === 1 ? '' : 's'}`;
    return n === 1 ? ', keeping only the first row' : `, keeping only the first ${n} rows`;
  }

  setFrame(q: SetQuery): QueryFrame {
    const side = (s: Query, label: string): string => {
      if (s.kind === 'set') return `${label} (${this.setInline(s)})`;
      return `${label} ${this.sideText(s)}`;
    };
    const first = q.left.kind === 'select' ? q.left : undefined;
    // Columns of a row are matched by position across the lists: their order is part of the answer.
    const wide = (first?.select.length ?? 0) > 1;
    if (wide) this.mention('outputs', ['in this order']);
    const values = first ? `${this.outputsOfSide(first)}${wide ? ' (in this order)' : ''}` : 'values';
    const ops: Record<SetQuery['op'], string> = {
      union: `the distinct ${values} found in either list`,
      'union all': `the ${values} of both lists, repeats kept`,
      intersect: `the distinct ${values} found in both lists`,
      except: `the distinct ${values} of the first list that are not in the second`,
    };
    // Arms of one aggregate each give one number a list: the answer is those numbers.
    if (q.op === 'union all' && first && first.select.length === 1 && hasAggregate(first.select[0]?.expr as Expr)) {
      ops['union all'] = 'a number for each list, one row each, repeats kept (equal numbers are both listed)';
    }
    this.mention(`set:${q.op}`, [q.op === 'union all' ? 'repeats kept' : 'distinct']);
    for (const o of first?.select ?? []) this.outputsByName.set(o.name, o.expr);
    const order = this.order(q.orderBy ?? []);
    const limit = this.limit(q.limit, (q.orderBy?.length ?? 0) > 0);
    return {
      outputs: ops[q.op],
      rows: `two lists: ${side(q.left, 'first,')}; and ${side(q.right, 'second,')}`,
      group: '',
      filter: '',
      condition: '',
      having: '',
      order,
      limit,
      notes: this.notes,
      topic: first ? this.index.entity(first.from.entity).lexicon.plural : 'records',
      covered: [...this.covered].sort(),
    };
  }

  private outputsOfSide(s: SelectQuery): string {
    const names = s.select.map((o) => (o.expr.kind === 'attribute' ? this.attributeNoun(o.expr.alias, o.expr.attribute, true) : words(o.name)));
    return listing(names);
  }

  private setInline(s: SetQuery): string {
    return `${s.op} of ${s.left.kind === 'select' ? this.sideText(s.left) : 'a combination'} and ${s.right.kind === 'select' ? this.sideText(s.right) : 'a combination'}`;
  }

  private sideText(s: SelectQuery): string {
    const rows = this.rows(s);
    const where = s.where ? `, where ${this.predicate(s.where)}` : '';
    const outs = listing(s.select.map((o) => this.expr(o.expr)));
    const saved = new Map(this.outputsByName);
    for (const o of s.select) this.outputsByName.set(o.name, o.expr);
    const order = this.order(s.orderBy ?? []);
    const limit = this.limit(s.limit, (s.orderBy?.length ?? 0) > 0);
    this.outputsByName.clear();
    for (const [k, v] of saved) this.outputsByName.set(k, v);
    return `${outs} over ${rows}${where}${order}${limit}`;
  }
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function conjuncts(p: Predicate | undefined): Predicate[] {
  if (!p) return [];
  return p.kind === 'and' ? p.args.flatMap((a) => conjuncts(a)) : [p];
}

