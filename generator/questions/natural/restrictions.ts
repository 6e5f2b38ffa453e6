import type { ComparisonOperator, Expr, Predicate, ScalarLiteral, SelectQuery } from '../../query/conceptual-query.ts';
import { article, capitalize, isPostmodifier, listing, pluralVerb } from '../describe/english.ts';
import { predicate } from '../describe/predicates.ts';
import { isCorrelation } from '../describe/subqueries.ts';
import { elementLexicon } from '../describe/context.ts';
import {
  canonical,
  comparative,
  entityNoun,
  info,
  linkVerb,
  measureOf,
  nounOf,
  pluralOf,
  state,
  type Measure,
  type NaturalContext,
} from './natural-context.ts';
import { inlineTexts, momentText, numberText, quantityText, valueText } from './values.ts';

/**
 * A WHERE condition as people attach it to a noun: "with a duration over 3,600 seconds",
 * "whose platform is "twitch"", "with no bio", "that are streamers", "that produced at least
 * one clip". Each phrase speaks of one alias; a condition across aliases, or one this file
 * has no wording for, is said as the precise style says it after "where".
 */
export interface Restriction {
  /** The alias the phrase follows; undefined: a clause on the whole row. */
  readonly alias: string | undefined;
  readonly text: string;
  /** False for a condition a missing partner meets ("with no bio"): it keeps a LEFT join's unmatched rows. */
  readonly rejectsMissing?: boolean;
  /** For "that are apps": the kind the objects are, which can name them in its place ("apps"). */
  readonly kind?: string;
}

const NUMBER_OPS: Record<ComparisonOperator, string> = {
  '=': 'of',
  '<>': 'other than',
  '<': 'under',
  '<=': 'of at most',
  '>': 'over',
  '>=': 'of at least',
};
/** A comparison with a count, in words: "exactly 2 orders", "at least 40 channels". */
export const COUNT_WORDS: Record<ComparisonOperator, string> = {
  '=': 'exactly',
  '<>': 'other than',
  '<': 'fewer than',
  '<=': 'at most',
  '>': 'more than',
  '>=': 'at least',
};
const TIME_OPS: Record<ComparisonOperator, string> = {
  '=': 'of',
  '<>': 'other than',
  '<': 'before',
  '<=': 'on or before',
  '>': 'after',
  '>=': 'on or after',
};

/** The value of a flag, said: "that are verified", "that are not live"; without an adjective, its noun and value. */
export function flagPhrase(m: Measure, value: boolean, negated: boolean): string {
  const holds = value !== negated;
  if (m.adjective) return `that are ${holds ? '' : 'not '}${m.adjective}`;
  return `whose ${m.noun} is ${holds ? 'true' : 'false'}`;
}

/** Adjectives that read with a number in the attribute's unit: "longer than 60 seconds", "older than 40". */
const QUANTITY_ADJECTIVES = new Set([
  'long',
  'short',
  'old',
  'young',
  'expensive',
  'cheap',
  'large',
  'small',
  'big',
  'heavy',
  'light',
]);

function literalOf(e: Expr): ScalarLiteral | null | undefined {
  return e.kind === 'literal' ? e.value : undefined;
}

/** "with a duration over 3,600 seconds", "with a sign-up time before June 2022", "whose title is "x"". */
function attributeCompare(
  n: NaturalContext,
  alias: string,
  name: string,
  op: ComparisonOperator,
  value: ScalarLiteral | null,
): string {
  const m = measureOf(n, alias, name);
  if (m.kind === 'flag' && typeof value === 'boolean' && (op === '=' || op === '<>'))
    return flagPhrase(m, value, op === '<>');
  if (m.kind === 'time' && typeof value === 'string') {
    const boundary = op === '<' || op === '>=';
    timeNote(n, alias, name);
    // "videos created before June 2024", where the model names the event; else "with a creation time before …".
    const said = m.event && op !== '=' && op !== '<>' ? m.event : `with ${article(m.noun)}`;
    return `${said} ${TIME_OPS[op]} ${momentText(value, boundary)}${midnight(n, alias, name, value, op)}`;
  }
  if (m.kind === 'number' || m.kind === 'id') {
    if (value === null) return `with ${m.kind === 'id' ? 'an id' : article(m.noun)} ${NUMBER_OPS[op]} NULL`;
    const v = m.kind === 'id' ? numberText(value as number) : quantityText(Number(value), m.unit);
    // "clips longer than 2 hours", "consumers younger than 30", "consumers aged 59 or older".
    const adjective = op === '>' ? m.high : op === '<' ? m.low : undefined;
    const age = m.noun === 'age' && m.unit === 'years';
    if (adjective && QUANTITY_ADJECTIVES.has(adjective))
      return `${comparative(adjective)} than ${age ? numberText(value as number) : v}`;
    if (age)
      return {
        '=': `aged ${value}`,
        '<>': `not aged ${value}`,
        '<=': `aged ${value} or younger`,
        '>=': `aged ${value} or older`,
        '<': `younger than ${value}`,
        '>': `older than ${value}`,
      }[op];
    // "with more than 7700 loyalty points" for a loyalty point balance.
    const balance = /^(.+) balance$/u.exec(m.noun);
    if (balance && m.role === 'count' && op !== '=' && op !== '<>')
      return `with ${{ '<': 'fewer than ', '<=': 'at most ', '>': 'more than ', '>=': 'at least ' }[op]}${v} ${pluralOf(balance[1] as string)}`;
    // "with fewer than 350 in stock".
    const stock = /^(\w+) quantity$/u.exec(m.noun);
    if (stock && m.role === 'count')
      return `with ${{ '=': '', '<>': 'other than ', '<': 'fewer than ', '<=': 'at most ', '>': 'more than ', '>=': 'at least ' }[op]}${v} in ${stock[1]}`;
    return `with ${m.kind === 'id' ? 'an id' : article(m.noun)} ${NUMBER_OPS[op]} ${v}`;
  }
  if (op === '=' || op === '<>') return textIs(m, inlineTexts([String(value)]), op === '<>');
  return `whose ${m.noun} is ${{ '<': 'before', '<=': 'at or before', '>': 'after', '>=': 'at or after' }[op]} ${valueText(value)} alphabetically`;
}

/**
 * A text attribute equal to one of `values` (already spelled), as people attach it to a
 * noun: "in the bags category", "in the sales department", "on the plus tier", "on twitch",
 * "in mp3 format", "made of leather", "in 1080p", "named "Luxurious Shoes"", "titled …",
 * else "with the username Eli73", "with dimensions "10x10x5 cm"".
 */
export function textIs(m: Measure, values: readonly string[], negated: boolean): string {
  const v = listing(values, 'or');
  const not = negated ? 'not ' : '';
  const last = m.noun.split(' ').pop() as string;
  if (m.role === 'category' || m.role === undefined) {
    if (last === 'material' || m.noun === 'material type') return `${not}made of ${v}`;
    if (/^(category|department|division|genre)$/u.test(last)) return `${not}in the ${v} ${last}`;
    if (last === 'tier' || last === 'plan') return `${not}on the ${v} ${last}`;
    if (last === 'platform') return `${not}on ${v}`;
    if (last === 'format') return `${not}in ${v} format`;
    if (last === 'resolution') return `${not}in ${v}`;
  }
  if (m.role === 'name' && last === 'title') return `${not}titled ${v}`;
  if (
    m.role === 'name' &&
    (m.noun === 'name' || (last === 'name' && !/^(first|last|middle|user|display) /u.test(m.noun)))
  )
    return `${not}named ${v}`;
  // A noun without a singular ("dimensions") takes no article.
  const the = m.noun === m.plural ? '' : 'the ';
  if (negated) return `with ${the ? article(m.noun) : m.noun} other than ${v}`;
  return `with ${the}${m.noun} ${v}`;
}

/** A calendar date moved as PostgreSQL moves it (a month from January 31 ends on February's last day); undefined for a non-date. */
export function shiftDate(text: string, amount: number, unit: string): string | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/u.exec(text);
  if (!m) return undefined;
  let y = Number(m[1]);
  let mo = Number(m[2]) - 1;
  let d = Number(m[3]);
  if (unit === 'day' || unit === 'week') {
    const t = new Date(Date.UTC(y, mo, d + amount * (unit === 'week' ? 7 : 1)));
    return t.toISOString().slice(0, 10);
  }
  const months = amount * (unit === 'year' ? 12 : unit === 'quarter' ? 3 : 1);
  const total = y * 12 + mo + months;
  y = Math.floor(total / 12);
  mo = total - y * 12;
  const last = new Date(Date.UTC(y, mo + 1, 0)).getUTCDate();
  d = Math.min(d, last);
  return `${String(y).padStart(4, '0')}-${String(mo + 1).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

/**
 * A time of day compared with a date is compared with its midnight: "after March 5, 2022"
 * would read as from March 6, so after or up to a day's start the clock is said.
 */
function midnight(n: NaturalContext, alias: string, name: string, value: string, op: ComparisonOperator): string {
  const a = n.index.allAttributes(aliasEntity(n, alias) ?? '').find((x) => x.attribute.name === name)?.attribute;
  const dateOnly =
    /^\d{4}-\d{2}-\d{2}$/u.test(value) || /^\d{4}-\d{2}-\d{2}[ T]00:00(:00)?(\+00(:00)?|Z)?$/u.test(value);
  return a?.type.kind === 'timestamptz' && dateOnly && (op === '>' || op === '<=' || op === '=' || op === '<>')
    ? ' at 00:00 UTC'
    : '';
}

/** Times of day are compared and split in UTC: a default of the register, said nowhere. */
export function timeNote(n: NaturalContext, alias: string, name: string): void {
  const a = n.index.allAttributes(aliasEntity(n, alias) ?? '').find((x) => x.attribute.name === name)?.attribute;
  if (a?.type.kind === 'timestamptz') n.covered.add('utc');
}

function aliasEntity(n: NaturalContext, alias: string): string | undefined {
  let info = n.d.aliases.get(alias);
  while (info?.sameAs) info = n.d.aliases.get(info.sameAs);
  return info?.entity;
}

/** The alias an attribute-like expression reads, when it reads one directly. */
function attributeOf(e: Expr): { alias: string; name: string } | undefined {
  return e.kind === 'attribute' ? { alias: e.alias, name: e.attribute } : undefined;
}

/** The restriction of one condition. */
export function restriction(n: NaturalContext, p: Predicate): Restriction {
  const generic = (): Restriction => ({ alias: soleAlias(n, p), text: `where ${predicate(n.d, p)}` });
  switch (p.kind) {
    case 'compare': {
      const left = attributeOf(p.left);
      const value = literalOf(p.right);
      if (left && value !== undefined)
        return { alias: canonical(n.d, left.alias), text: attributeCompare(n, left.alias, left.name, p.op, value) };
      // A multi-valued attribute's value, one a row: "with the supported platform iOS".
      if (p.left.kind === 'element' && value !== undefined && value !== null && (p.op === '=' || p.op === '<>')) {
        const lex = elementLexicon(info(n.d, p.left.alias));
        const v = typeof value === 'string' ? (inlineTexts([value])[0] as string) : valueText(value);
        return {
          alias: p.left.alias,
          text: p.op === '=' ? `with the ${lex.singular} ${v}` : `with ${article(lex.singular)} other than ${v}`,
        };
      }
      if (
        left &&
        p.right.kind === 'dateShift' &&
        p.right.arg.kind === 'literal' &&
        typeof p.right.arg.value === 'string'
      ) {
        const m = measureOf(n, left.alias, left.name);
        const amount = Math.abs(p.right.amount);
        const span = `${numberText(amount)} ${p.right.unit}${amount === 1 ? '' : 's'}`;
        const when = `${span} ${p.right.amount < 0 ? 'before' : 'after'} ${momentText(p.right.arg.value, false)}`;
        timeNote(n, left.alias, left.name);
        const boundary = shiftDate(p.right.arg.value, p.right.amount, p.right.unit);
        // "in the last 2 years", as people ask; the evidence says up to what day, and the first.
        if (boundary && p.right.amount < 0 && (p.op === '>' || p.op === '>=')) {
          const last = amount === 1 ? p.right.unit : span;
          state(
            n,
            `The last ${last} means ${p.op === '>' ? 'after' : 'on or after'} ${momentText(boundary, false)}${midnight(n, left.alias, left.name, boundary, p.op)}, the ${span} before ${momentText(p.right.arg.value, false)}.`,
            'date-window',
          );
          return {
            alias: canonical(n.d, left.alias),
            text: `${m.event ?? `with ${article(m.noun)}`} in the last ${last}`,
          };
        }
        if (boundary)
          state(
            n,
            `${capitalize(when)} is ${momentText(boundary, false)}${midnight(n, left.alias, left.name, boundary, p.op)}.`,
            'date-shift',
          );
        const said = m.event && p.op !== '=' && p.op !== '<>' ? m.event : `with ${article(m.noun)}`;
        return { alias: canonical(n.d, left.alias), text: `${said} ${TIME_OPS[p.op]} ${when}` };
      }
      // "with a price above the average price of all products": a comparison with an aggregate of every object.
      if (left && p.right.kind === 'scalarSubquery') {
        const sq = p.right.query;
        const out = sq.select[0]?.expr;
        const partners = plainAggregate(n, sq);
        if (partners !== undefined && out?.kind === 'aggregate' && out.arg?.kind === 'attribute') {
          const m = measureOf(n, left.alias, left.name);
          const other = measureOf(n, out.arg.alias, out.arg.attribute);
          const fn = { avg: 'average', min: 'lowest', max: 'highest', sum: 'total' }[
            out.fn as 'avg' | 'min' | 'max' | 'sum'
          ];
          const ops: Record<ComparisonOperator, string> = {
            '=': 'equal to',
            '<>': 'other than',
            '<': 'below',
            '<=': 'at most',
            '>': 'above',
            '>=': 'at least',
          };
          const all = `${entityNoun(n, sq.from.entity, true)}${partners}`;
          return {
            alias: canonical(n.d, left.alias),
            text: `with ${article(m.noun)} ${ops[p.op]} the ${fn} ${other.noun} of all ${all}`,
          };
        }
      }
      if (p.left.kind === 'scalarSubquery' && typeof value === 'number') {
        const out = p.left.query.select[0]?.expr;
        const linked =
          out?.kind === 'aggregate' && out.fn === 'count' && !out.distinct && !out.filter
            ? linkedSubquery(n, p.left.query)
            : undefined;
        if (linked) {
          const words = COUNT_WORDS[p.op];
          return {
            alias: linked.outer,
            text: `with ${words} ${numberText(value)} ${value === 1 ? linked.noun : linked.plural}${linked.restrictions}`,
          };
        }
      }
      if (p.left.kind === 'extract' && p.left.field === 'year' && typeof value === 'number') {
        const inner = attributeOf(p.left.arg);
        if (inner) {
          const m = measureOf(n, inner.alias, inner.name);
          timeNote(n, inner.alias, inner.name);
          const ops: Record<ComparisonOperator, string> = {
            '=': 'in',
            '<>': 'outside',
            '<': 'before',
            '<=': 'in or before',
            '>': 'after',
            '>=': 'in or after',
          };
          return { alias: canonical(n.d, inner.alias), text: `with ${article(m.noun)} ${ops[p.op]} ${value}` };
        }
      }
      return generic();
    }
    case 'in': {
      const a = attributeOf(p.expr);
      if (!a) return generic();
      const m = measureOf(n, a.alias, a.name);
      if (m.kind === 'number' && p.values.every((v) => typeof v === 'string' && /^-?\d+(\.\d+)?$/u.test(v)))
        return restriction(n, { ...p, values: p.values.map(Number) });
      if (m.kind === 'time' && p.values.every((v) => typeof v === 'string'))
        return {
          alias: canonical(n.d, a.alias),
          text: `with ${article(m.noun)} ${p.negated ? 'other than' : p.values.length > 1 ? 'of' : 'of'} ${listing(
            p.values.map((v) => momentText(v as string, false)),
            'or',
          )}`,
        };
      if (m.kind === 'text' && p.values.every((v) => typeof v === 'string'))
        return {
          alias: canonical(n.d, a.alias),
          text: textIs(m, inlineTexts(p.values as string[]), p.negated === true),
        };
      // One spelling for a list: thousands separators on all its numbers, or on none.
      const wide = p.values.some((v) => typeof v === 'number' && Math.abs(v) >= 10000);
      const money = m.unit === 'dollars' || m.unit === 'USD';
      const values = listing(
        p.values.map((v) =>
          typeof v === 'number' && money
            ? quantityText(v, m.unit)
            : typeof v === 'number' && wide
              ? v.toLocaleString('en-US')
              : valueText(v),
        ),
        'or',
      );
      const unit = m.unit && !money ? ` ${m.unit}` : '';
      // "aged 72, 81, or 86", as one age is "aged 53".
      if (m.noun === 'age' && m.unit === 'years')
        return { alias: canonical(n.d, a.alias), text: `${p.negated ? 'not ' : ''}aged ${values}` };
      return {
        alias: canonical(n.d, a.alias),
        text: `with ${article(m.noun)} ${p.negated ? 'other than' : p.values.length > 1 ? 'of' : 'of'} ${values}${unit}`,
      };
    }
    case 'like': {
      const a = attributeOf(p.expr);
      if (!a) return generic();
      const m = measureOf(n, a.alias, a.name);
      const pat = p.pattern;
      const plain = (s: string) => !/[%_\\]/u.test(s);
      const neg = p.negated === true;
      let body: string;
      if (pat.endsWith('%') && !pat.startsWith('%') && plain(pat.slice(0, -1)))
        body = `${neg ? 'does not start' : 'starts'} with ${valueText(pat.slice(0, -1))}`;
      else if (pat.startsWith('%') && pat.endsWith('%') && pat.length > 2 && plain(pat.slice(1, -1)))
        body = `${neg ? 'does not contain' : 'contains'} ${valueText(pat.slice(1, -1))}`;
      else if (plain(pat)) body = `${neg ? 'is not' : 'is'} ${valueText(pat)}`;
      else {
        body = `${neg ? 'does not match' : 'matches'} ${valueText(pat)}`;
        state(n, 'Patterns are SQL LIKE patterns (% any text, _ one character).', 'like-pattern');
      }
      if (p.caseInsensitive) state(n, 'Text matching ignores case.', 'like-case');
      // "contains 'Valeo'" could match "VALEO" too: a match on letters says it minds case.
      else if (/\p{L}/u.test(pat)) state(n, 'Text matching is case-sensitive.', 'like-case-sensitive');
      return { alias: canonical(n.d, a.alias), text: `whose ${m.noun} ${body}` };
    }
    case 'between': {
      const a = attributeOf(p.expr);
      const lo = literalOf(p.low);
      const hi = literalOf(p.high);
      if (!a || lo === undefined || hi === undefined) return generic();
      const m = measureOf(n, a.alias, a.name);
      if (m.kind === 'time') timeNote(n, a.alias, a.name);
      const money = m.unit === 'dollars' || m.unit === 'USD';
      // Seconds in the unit a person bounds them by: "between 100 and 150 minutes", not "between 6000 and 9000 seconds".
      const per =
        m.unit === 'seconds' && typeof lo === 'number' && typeof hi === 'number' && lo > 0
          ? [3600, 60].find((f) => lo % f === 0 && hi % f === 0)
          : undefined;
      const unit = per === 3600 ? 'hours' : per === 60 ? 'minutes' : m.unit;
      const say = (v: ScalarLiteral | null) =>
        m.kind === 'time' && typeof v === 'string'
          ? momentText(v, false)
          : money && typeof v === 'number'
            ? quantityText(v, m.unit)
            : per && typeof v === 'number'
              ? numberText(v / per)
              : valueText(v);
      return {
        alias: canonical(n.d, a.alias),
        text: `${m.kind === 'time' && m.event && !p.negated ? m.event : `with ${article(m.noun)}`} ${p.negated ? 'outside' : 'between'} ${say(lo)} and ${say(hi)}${unit && !money ? ` ${unit}` : ''}`,
      };
    }
    case 'isNull': {
      const a = attributeOf(p.expr);
      if (!a) return generic();
      const m = measureOf(n, a.alias, a.name);
      return {
        alias: canonical(n.d, a.alias),
        text: p.negated ? `with ${article(m.noun)}` : `with no ${m.noun}`,
        rejectsMissing: p.negated === true,
      };
    }
    case 'contains': {
      const m = measureOf(n, p.alias, p.attribute);
      const one =
        n.index.allAttributes(aliasEntity(n, p.alias) ?? '').find((x) => x.attribute.name === p.attribute)?.attribute
          .lexicon?.singular ?? m.noun;
      const v = typeof p.value === 'string' ? inlineTexts([p.value])[0] : valueText(p.value);
      return { alias: canonical(n.d, p.alias), text: `${p.negated ? 'without' : 'with'} the ${one} ${v}` };
    }
    case 'isA': {
      const sub = entityNoun(n, p.entity, true);
      return {
        alias: canonical(n.d, p.alias),
        text: `that are ${p.negated ? 'not ' : ''}${sub}`,
        ...(p.negated ? {} : { kind: p.entity }),
      };
    }
    case 'exists': {
      const linked = linkedSubquery(n, p.query);
      if (!linked) return generic();
      return { alias: linked.outer, text: linkedText(linked, p.negated === true) };
    }
    case 'inQuery': {
      // `s.id NOT IN (SELECT s2.id FROM review r JOIN … s2 WHERE r.body IS NULL)`: "with no review with no review text".
      const outer = p.expr.kind === 'attribute' && p.expr.attribute === 'id' ? p.expr.alias : undefined;
      const linked = outer && p.query.kind === 'select' ? linkedSubquery(n, p.query, outer) : undefined;
      if (!linked) return generic();
      return { alias: linked.outer, text: linkedText(linked, p.negated === true) };
    }
    case 'and': {
      const parts = p.args.map((a) => restriction(n, a));
      const alias = parts[0]?.alias;
      if (alias !== undefined && parts.every((r) => r.alias === alias))
        return {
          alias,
          text: listing(parts.map((r) => r.text)),
          rejectsMissing: parts.some((r) => r.rejectsMissing !== false),
        };
      return generic();
    }
    case 'or': {
      const parts = p.args.map((a) => restriction(n, a));
      const alias = parts[0]?.alias;
      if (alias !== undefined && parts.every((r) => r.alias === alias))
        return {
          alias,
          text: `either ${listing(
            parts.map((r) => r.text),
            'or',
          )}`,
          rejectsMissing: parts.every((r) => r.rejectsMissing !== false),
        };
      return generic();
    }
    case 'not': {
      // NOT (x = v) is x <> v, NOT (x LIKE p) is x NOT LIKE p, and so on, NULLs included:
      // "with a rating other than 4", not "other than those with a rating of 4".
      const a = p.arg;
      if (a.kind === 'compare' && a.op === '=') return restriction(n, { ...a, op: '<>' });
      if (a.kind === 'in' || a.kind === 'like' || a.kind === 'between' || a.kind === 'isNull')
        return restriction(n, { ...a, negated: a.negated !== true });
      const inner = restriction(n, p.arg);
      // NOT of a comparison on a missing partner is still unknown (rejects it); NOT IS NULL is IS NOT NULL.
      const rejectsMissing = p.arg.kind === 'isNull' ? inner.rejectsMissing === false : inner.rejectsMissing !== false;
      if (inner.alias !== undefined)
        return { alias: inner.alias, text: `other than those ${inner.text}`, rejectsMissing };
      return generic();
    }
    default:
      return generic();
  }
}

/**
 * "with at least one review with a rating of 4", "with no review that has no review text":
 * after "no", a second "with no" reads as one negation too many.
 */
function linkedText(
  linked: { verb: (plural: boolean) => string; noun: string; restrictions: string },
  none: boolean,
): string {
  const restrictions = none ? linked.restrictions.replace(/^ with no /u, ' that has no ') : linked.restrictions;
  return `${linked.verb(true)} ${none ? 'no' : 'at least one'} ${linked.noun}${restrictions}`;
}

/**
 * A subquery that follows one relationship back to an outer alias (`EXISTS (SELECT … FROM
 * content c JOIN produced_by … = outer)`), or, given `target`, one that lists the ids of the
 * objects it reaches for `target.id IN (…)`: its noun, its verb from the outer side, and its
 * own restrictions. Undefined for any other subquery.
 */
export function linkedSubquery(
  n: NaturalContext,
  q: SelectQuery,
  target?: string,
):
  | {
      outer: string;
      noun: string;
      plural: string /** "that produced", "owned by": after the outer noun. */;
      verb: (plural: boolean) => string;
      restrictions: string;
    }
  | undefined {
  const joins = q.joins ?? [];
  if (joins.length !== 1 || q.groupBy || q.having) return undefined;
  const j = joins[0];
  if (j?.kind !== 'relationship' || j.from !== q.from.alias) return undefined;
  const listed = q.select.length === 1 ? q.select[0]?.expr : undefined;
  const reaches =
    target !== undefined &&
    listed?.kind === 'attribute' &&
    listed.alias === j.alias &&
    listed.attribute === 'id' &&
    info(n.d, canonical(n.d, target)).entity === j.entity;
  const back = target === undefined ? n.d.aliases.get(j.alias)?.sameAs : reaches ? target : undefined;
  if (!back) return undefined;
  const rest = conjunctsOf(q.where).filter((c) => !isCorrelation(n.d, c));
  const parts = rest.map((c) => restriction(n, c));
  if (parts.some((r) => r.alias !== canonical(n.d, q.from.alias))) return undefined;
  const restrictions = parts.length > 0 ? ` ${listing(parts.map((r) => r.text))}` : '';
  return {
    outer: canonical(n.d, back),
    noun: nounOf(n, q.from.alias),
    plural: nounOf(n, q.from.alias, true),
    // From the outer object towards the subquery's: the joined alias is the outer one.
    verb: (plural) => linkVerb(n, j, false, plural),
    restrictions,
  };
}

/** The one alias of the current query a condition reads (through any subquery's back link), if one. */
function soleAlias(n: NaturalContext, p: Predicate): string | undefined {
  const found = new Set<string>();
  const walk = (x: unknown): void => {
    if (Array.isArray(x)) return x.forEach(walk);
    if (!x || typeof x !== 'object') return;
    for (const [k, v] of Object.entries(x as Record<string, unknown>)) {
      if (k === 'alias' && typeof v === 'string' && n.d.aliases.has(v)) found.add(canonical(n.d, v));
      else walk(v);
    }
  };
  walk(p);
  // Aliases of subqueries stand for themselves; only an alias the outer rows have counts.
  const outer = [...found].filter((a) => !n.d.aliases.get(a)?.sameAs && n.outer.has(a));
  return outer.length === 1 ? outer[0] : undefined;
}

function conjunctsOf(p: Predicate | undefined): Predicate[] {
  if (!p) return [];
  return p.kind === 'and' ? p.args.flatMap(conjunctsOf) : [p];
}

/**
 * The words after "of all <objects>" for a scalar subquery said plainly ("the lowest rating of
 * all reviews written by customers"): one aggregate of its base's attribute, no condition,
 * grouping, order or limit of its own, partners as `joinedPartners` allows; undefined when it
 * needs the careful words. The natural writer drops alias ordinals only around such subqueries.
 */
export function plainAggregate(n: NaturalContext, sq: SelectQuery): string | undefined {
  const out = sq.select[0]?.expr;
  if (
    sq.select.length !== 1 ||
    sq.where ||
    sq.having ||
    sq.groupBy ||
    sq.orderBy ||
    sq.limit !== undefined ||
    sq.qualify ||
    out?.kind !== 'aggregate' ||
    out.fn === 'count' ||
    out.filter ||
    out.distinct ||
    out.arg?.kind !== 'attribute' ||
    out.arg.alias !== sq.from.alias
  )
    return undefined;
  return joinedPartners(n, sq, out.fn === 'min' || out.fn === 'max');
}

/**
 * A subquery's partners of its base in words, for "the lowest rating of all reviews written
 * by customers": "" without joins, " written by customers" for each inner join from the base;
 * undefined when the rows would read otherwise: a join from elsewhere, or one that repeats the
 * base's rows where that changes the aggregate (`fanOutKeeps` false: an average, a total).
 */
function joinedPartners(n: NaturalContext, sq: SelectQuery, fanOutKeeps: boolean): string | undefined {
  const parts: string[] = [];
  for (const j of sq.joins ?? []) {
    if (j.kind !== 'relationship' || j.type !== 'inner' || j.from !== sq.from.alias || j.on) return undefined;
    const rel = n.index.relationship(j.relationship);
    const toOne = rel.cardinality === 'one-to-one' || (rel.cardinality === 'many-to-one' && j.direction === 'forward');
    if (!toOne && !fanOutKeeps) return undefined;
    const phrase = j.direction === 'forward' ? rel.lexicon.forward : rel.lexicon.reverse;
    const partner = entityNoun(n, j.entity, true);
    parts.push(isPostmodifier(phrase) ? `${phrase} ${partner}` : `that ${pluralVerb(phrase)} ${partner}`);
  }
  return parts.length === 0 ? '' : ` ${parts.join(' and ')}`;
}
