/**
 * WHERE conditions: each predicate slot of the skeleton filled with an attribute of a fitting
 * kind and a value from the data (equality and IN values that exist, LIKE patterns cut from
 * real words, thresholds and BETWEEN bounds at quantiles), now and then as set membership, a
 * subtype test or IS NULL; subqueries are in subqueries.ts.
 */
import type { Scalar } from '../../instance/conceptual-instance.ts';
import type { Expr, Predicate } from '../../query/conceptual-query.ts';
import { reject } from '../../records/group-record.ts';
import type { ConditionShape, PredicateSlot } from '../skeleton-shape.ts';
import { dateWindow } from './analytic.ts';
import { candidates, isPlainText } from './column-slots.ts';
import type { ElementAlias, EntityAlias, Fill } from './fill-context.ts';
import { FILL_RATES } from './fill-rates.ts';
import { literal, members, ODD_TEXT, quantile, valuesOf } from './instance-values.ts';
import { linkedSubquery, scalarComparison } from './subqueries.ts';
import { comparable } from './rules/comparable-columns.ts';
import { matchable } from './rules/exact-match.ts';
import { naming } from './rules/shown-by-name.ts';
import { roleOf } from '../../er-model/attribute-roles.ts';
import { searchable } from './rules/like-on-text.ts';
import { rangeable } from './rules/range-on-quantity.ts';
import { isTyped, monthStart, roundThreshold } from './rules/typed-value.ts';
import type { Typed } from './fill-context.ts';

/** Draws of a condition before a filler turns down what it keeps drawing. */
export const CONDITION_DRAWS = 4;

/**
 * An OR of ANDs of predicate slots, filled. "Apps with more than 350 in stock or named
 * BudgetStudio": one object by name beside a condition on all of them is no list a person
 * wants, so such an OR is drawn again, and turned down when it keeps coming.
 */
export async function condition(
  f: Fill,
  shape: ConditionShape,
  entities: EntityAlias[],
  elements: ElementAlias[],
): Promise<Predicate> {
  for (let draw = 1; ; draw++) {
    const c = await drawCondition(f, shape, entities, elements);
    if (c.kind !== 'or') return c;
    const named = c.args.map((d) => byName(f, d, entities));
    if (!named.some(Boolean) || named.every(Boolean)) return c;
    if (draw === CONDITION_DRAWS) reject('no-fitting-slot', 'an OR of a condition and one object by its name');
  }
}

async function drawCondition(
  f: Fill,
  shape: ConditionShape,
  entities: EntityAlias[],
  elements: ElementAlias[],
): Promise<Predicate> {
  const disjuncts: Predicate[] = [];
  // One value constrained once (implied-bound): a second bound on it says nothing or nothing new.
  const taken = new Set<string>();
  for (const conj of shape) {
    const parts: Predicate[] = [];
    for (const slot of conj) {
      const p = await predicate(f, slot, entities, elements, taken);
      const target = constrained(p);
      if (target) taken.add(JSON.stringify(target));
      parts.push(spellNegation(f, p));
    }
    disjuncts.push(parts.length === 1 ? (parts[0] as Predicate) : { kind: 'and', args: parts });
  }
  return disjuncts.length === 1 ? (disjuncts[0] as Predicate) : { kind: 'or', args: disjuncts };
}

/** Whether a predicate picks objects by a value that names them (`name = 'x'`, `email IN (…)`). */
function byName(f: Fill, p: Predicate, entities: readonly EntityAlias[]): boolean {
  // A list's value too: "with the phone number 709-603-3399".
  const target =
    p.kind === 'compare' && p.op === '=' && p.left.kind === 'attribute'
      ? p.left
      : p.kind === 'in' && !p.negated && p.expr.kind === 'attribute'
        ? p.expr
        : p.kind === 'contains' && !p.negated
          ? p
          : undefined;
  if (!target) return false;
  const entity = entities.find((a) => a.alias === target.alias)?.entity;
  if (entity === undefined) return false;
  // Lists are not among an entity's attribute slots: the role comes from the model.
  const owner = f.graph.index.allAttributes(entity).find((a) => a.attribute.name === target.attribute)?.owner.name;
  return owner !== undefined && naming(roleOf(f.graph.index.domain, owner, target.attribute));
}

/** The value a predicate constrains, when it constrains one. */
function constrained(p: Predicate): Expr | undefined {
  if (p.kind === 'compare') return p.left;
  if (p.kind === 'in' || p.kind === 'like' || p.kind === 'between' || p.kind === 'isNull') return p.expr;
  return undefined;
}

/** The values of a column a person would type after `=` or in IN: data values, numbers among them only when typed as they are. */
function matchValues(f: Fill, t: Typed, entities: readonly EntityAlias[], elements: readonly ElementAlias[]): Scalar[] {
  const values = valuesOf(f, t, entities, elements);
  if (t.kind !== 'numeric') return values;
  let typed = TYPED.get(values);
  if (!typed) TYPED.set(values, (typed = values.filter((v) => isTyped(Number(v)))));
  return typed;
}

/** A measure in seconds, said in minutes or hours when whole ("90 minutes"). */
function inSeconds(t: Typed): boolean {
  const role = t.slot?.role;
  return role?.kind === 'measure' && role.unit === 'second';
}

/** The typed values among a column's values (the value lists are cached per instance, so this is too). */
const TYPED = new WeakMap<readonly Scalar[], Scalar[]>();

/** A threshold rounded as typed (seconds in whole minutes: 70 minutes, not 4,300 seconds), or the first day of a month. */
function typedBound(t: Typed, v: Scalar): Scalar {
  if (t.kind === 'numeric' && inSeconds(t) && Math.abs(Number(v)) >= 120) return roundThreshold(Number(v) / 60) * 60;
  if (t.kind === 'numeric') return roundThreshold(Number(v));
  if (t.kind === 'temporal') return monthStart(String(v)) ?? v;
  return v;
}

/** Options a rule of meaning allows, or a rejection naming the rule when it allows none of some. */
function allowed(
  options: Typed[],
  keep: (t: Typed) => boolean,
  rule: 'exact-match' | 'range-on-quantity' | 'like-on-text' | 'comparable-columns',
  what: string,
): Typed[] {
  const kept = options.filter(keep);
  if (kept.length === 0 && options.length > 0) reject(`no-meaningful-slot:${rule}`, what);
  return kept;
}

/**
 * Now and then a negation is written as NOT over the positive condition: `NOT (x LIKE p)`
 * for `x NOT LIKE p`, `NOT (x = v)` for `x <> v`. SQL defines the negated forms as exactly
 * that (a NULL operand leaves both unknown), so the answer is the same and only the way the
 * query says it differs.
 */
function spellNegation(f: Fill, p: Predicate): Predicate {
  if (
    (p.kind === 'like' || p.kind === 'in' || p.kind === 'between' || p.kind === 'isNull') &&
    p.negated &&
    f.rng.chance(FILL_RATES.notOverNegated)
  ) {
    const { negated: _negated, ...positive } = p;
    return { kind: 'not', arg: positive };
  }
  if (p.kind === 'compare' && p.op === '<>' && f.rng.chance(FILL_RATES.notOverUnequal))
    return { kind: 'not', arg: { ...p, op: '=' } };
  return p;
}

type ValueSlot = Extract<PredicateSlot, { kind: 'compareValue' }>;

/**
 * The columns a `column op value` slot may take, step by step: those of a fitting kind, those
 * a rule of meaning allows (range-on-quantity, exact-match), and those with a value to
 * compare with. Draws nothing.
 */
function valueOptions(
  f: Fill,
  slot: ValueSlot,
  entities: readonly EntityAlias[],
  elements: readonly ElementAlias[],
  free: (c: Typed) => boolean = () => true,
): { kinds: Typed[]; meaningful: Typed[]; options: Typed[] } {
  const wantsOrder = slot.op !== '=' && slot.op !== '<>';
  const type = slot.column.type === 'text' && wantsOrder ? 'any' : slot.column.type;
  let kinds = candidates(f, entities, elements, type).filter(
    (c) => free(c) && (wantsOrder ? c.kind === 'numeric' || c.kind === 'temporal' : true),
  );
  if (slot.valueType === 'number' && !wantsOrder) kinds = kinds.filter((c) => c.kind !== 'temporal');
  const meaningful = kinds.filter((c) =>
    wantsOrder ? rangeable(c.slot?.role) : matchable(c.slot?.role, c.slot?.attribute),
  );
  const options = meaningful.filter(
    (c) => (wantsOrder ? valuesOf(f, c, entities, elements) : matchValues(f, c, entities, elements)).length > 0,
  );
  return { kinds, meaningful, options };
}

/**
 * Whether one alias of the entity has a column for every `column op value` slot of a
 * condition. A query on one table takes its entity among those that do, where any does, so
 * a skeleton asking `x = 3` is given an entity with a small whole number to match rather
 * than one it must be filled again for.
 */
export function fillsValueSlots(f: Fill, entity: string, shape: ConditionShape): boolean {
  const alias: EntityAlias = { alias: '_', entity };
  // A column is constrained once in a condition (`condition` keeps the taken ones): the slots
  // need columns of their own, a matching of slots to columns.
  const slots = shape.flat().filter((s): s is ValueSlot => s.kind === 'compareValue');
  const options = slots.map((slot) => valueOptions(f, slot, [alias], []).options.map((c) => JSON.stringify(c.expr)));
  const assign = (i: number, used: ReadonlySet<string>): boolean =>
    i === options.length || (options[i] as string[]).some((c) => !used.has(c) && assign(i + 1, new Set([...used, c])));
  return assign(0, new Set());
}

async function predicate(
  f: Fill,
  slot: PredicateSlot,
  entities: EntityAlias[],
  elements: ElementAlias[],
  taken: ReadonlySet<string>,
): Promise<Predicate> {
  const r = f.rng;
  const free = (c: Typed): boolean => !taken.has(JSON.stringify(c.expr));
  switch (slot.kind) {
    case 'compareValue': {
      // Text is compared for equality only: an order on text depends on the collation.
      const wantsOrder = slot.op !== '=' && slot.op !== '<>';
      if (!wantsOrder) {
        // Equality on what schemas store differently: set membership and subtype tests.
        const special = membershipOrClass(f, entities, slot.op === '<>');
        if (special) return special;
      }
      const { kinds, meaningful, options } = valueOptions(f, slot, entities, elements, free);
      if (meaningful.length === 0 && kinds.length > 0)
        reject(
          wantsOrder ? 'no-meaningful-slot:range-on-quantity' : 'no-meaningful-slot:exact-match',
          wantsOrder ? `no quantity for ${slot.op}` : `nothing to match with ${slot.op}`,
        );
      if (options.length === 0) reject('no-fitting-slot', `no column for ${slot.op} ${slot.valueType}`);
      // "Other than" is said of a kind, a name or a rating ("clips not in 480p"), not of an age
      // or a count ("viewers not aged 39").
      const fitting =
        slot.op === '<>' ? options.filter((c) => !['measure', 'count'].includes(c.slot?.role.kind ?? '')) : options;
      if (fitting.length === 0) reject('no-fitting-slot', 'only a quantity to say "other than" of');
      const t = r.pick(fitting);
      const values = wantsOrder ? valuesOf(f, t, entities, elements) : matchValues(f, t, entities, elements);
      const raw = wantsOrder ? quantile(f, values, t.kind) : r.pick(values);
      const value = wantsOrder ? typedBound(t, raw) : raw;
      const distinct = [...new Set(values)];
      // `x IN ('a', 'b')`: one of a few values that exist; of a kind, a rating, a tier, not of
      // emails each an object's own (counting "streamers with the email a or b" says 2).
      if (
        !wantsOrder &&
        t.kind !== 'temporal' &&
        t.slot?.attribute.hints?.unique !== true &&
        distinct.length > 3 &&
        r.chance(FILL_RATES.inListForEquality)
      ) {
        const picked = r.sample(distinct, r.int(2, 3)).map((v) => literal(t.kind, v));
        return { kind: 'in', expr: t.expr, values: picked, ...(slot.op === '<>' ? { negated: true } : {}) };
      }
      // A date threshold as a window before the latest date in the data: "in the 5 months before 2025-12-30".
      const window =
        t.kind === 'temporal' && (slot.op === '>' || slot.op === '>=') && f.analyticRng.chance(FILL_RATES.dateWindow)
          ? dateWindow(values, raw)
          : undefined;
      // A time of day bounded at a month's first midnight: "registered on or after May 2024" and
      // "before May 2024" are what people say; "after May 1, 2024 at 00:00 UTC" is not.
      const midnight =
        !window && t.slot?.attribute.type.kind === 'timestamptz' && /^\d{4}-\d{2}-01$/u.test(String(value));
      const op = midnight && slot.op === '>' ? '>=' : midnight && slot.op === '<=' ? '<' : slot.op;
      return {
        kind: 'compare',
        op,
        left: t.expr,
        right: window ?? { kind: 'literal', value: literal(t.kind, value) },
      };
    }
    case 'compareColumn': {
      const ordered = slot.op !== '=' && slot.op !== '<>';
      const options = candidates(f, entities, elements, 'any').filter(
        (c) => free(c) && (ordered ? rangeable(c.slot?.role) : matchable(c.slot?.role, c.slot?.attribute)),
      );
      for (const left of r.shuffle(options)) {
        const leftAlias = (left.expr as { alias: string }).alias;
        const partners = options.filter(
          (c) =>
            c.kind === left.kind && (c.expr as { alias: string }).alias !== leftAlias && comparable(left.slot, c.slot),
        );
        if (partners.length > 0) return { kind: 'compare', op: slot.op, left: left.expr, right: r.pick(partners).expr };
      }
      return reject('no-fitting-slot', 'no two comparable columns on different aliases');
    }
    case 'like': {
      const texts = candidates(f, entities, elements, 'text').filter(
        (c) => free(c) && isPlainText(f, c, entities) && valuesOf(f, c, entities, elements).length > 0,
      );
      const options = allowed(texts, (c) => searchable(c.slot?.role), 'like-on-text', 'no name or text to search');
      if (options.length === 0) reject('no-fitting-slot', 'no text column for LIKE');
      const t = r.pick(options);
      const words = [
        ...new Set(
          valuesOf(f, t, entities, elements)
            // Words of letters: people search for "Ardella", not for the "Ardella28" a username was made of.
            .flatMap((v) => String(v).split(/[^\p{L}]+/u))
            .filter((w) => w.length >= 3),
        ),
      ];
      if (words.length === 0) reject('no-fitting-value', 'no word to cut a LIKE pattern from');
      const word = r.pick(words);
      const cut = word.length > 5 && r.chance(FILL_RATES.likePrefixCut) ? word.slice(0, 4) : word;
      const pattern = r.chance(FILL_RATES.likePrefixOnly) ? `${cut}%` : `%${cut}%`;
      return { kind: 'like', expr: t.expr, pattern, ...(slot.negated ? { negated: true } : {}) };
    }
    case 'between': {
      const ordered = candidates(f, entities, elements, 'any').filter(
        (c) =>
          free(c) && (c.kind === 'numeric' || c.kind === 'temporal') && valuesOf(f, c, entities, elements).length > 1,
      );
      const options = allowed(ordered, (c) => rangeable(c.slot?.role), 'range-on-quantity', 'no quantity for BETWEEN');
      if (options.length === 0) reject('no-fitting-slot', 'no ordered column for BETWEEN');
      const t = r.pick(options);
      const values = valuesOf(f, t, entities, elements);
      let low = typedBound(t, quantile(f, values, t.kind));
      let high = typedBound(t, quantile(f, values, t.kind));
      const cmp =
        t.kind === 'numeric'
          ? Number(low) - Number(high)
          : String(low) < String(high)
            ? -1
            : String(low) > String(high)
              ? 1
              : 0;
      if (cmp === 0) reject('no-fitting-value', 'BETWEEN bounds fell on one value');
      if (cmp > 0) [low, high] = [high, low];
      return {
        kind: 'between',
        expr: t.expr,
        low: { kind: 'literal', value: literal(t.kind, low) },
        high: { kind: 'literal', value: literal(t.kind, high) },
      };
    }
    case 'isNull': {
      const options = entities.flatMap((a) =>
        (f.graph.entities.get(a.entity)?.attributes ?? [])
          .filter((s) => s.attribute.optional === true)
          .map((s): Expr => ({ kind: 'attribute', alias: a.alias, attribute: s.name })),
      );
      if (options.length === 0) reject('no-fitting-slot', 'no optional attribute for IS NULL');
      return { kind: 'isNull', expr: r.pick(options), ...(slot.negated ? { negated: true } : {}) };
    }
    case 'inList': {
      const listable = candidates(f, entities, elements, slot.column.type).filter(
        (c) => free(c) && c.kind !== 'temporal',
      );
      const options = allowed(
        listable,
        (c) => matchable(c.slot?.role, c.slot?.attribute),
        'exact-match',
        'nothing to list values of',
      ).filter((c) => new Set(matchValues(f, c, entities, elements)).size > 2);
      if (options.length === 0) reject('no-fitting-slot', 'no column with values for IN');
      const t = r.pick(options);
      const distinct = [...new Set(matchValues(f, t, entities, elements))];
      const values = r
        .sample(distinct, Math.max(2, Math.min(slot.size, 4, distinct.length - 1)))
        .map((v) => literal(t.kind, v));
      return { kind: 'in', expr: t.expr, values, ...(slot.negated ? { negated: true } : {}) };
    }
    case 'compareAggregate':
      return reject('meaningless-skeleton', 'an aggregate outside HAVING');
    case 'inSubquery':
    case 'exists':
      return linkedSubquery(f, slot, entities);
    case 'compareSubquery':
      return scalarComparison(f, slot, entities, elements);
  }
}

/**
 * Now and then an equality slot becomes `'v' = ANY(set)` (a multi-valued attribute
 * contains a value that occurs in the data), an is-a test on a subtype, or IS NULL.
 */
function membershipOrClass(f: Fill, entities: readonly EntityAlias[], negated: boolean): Predicate | undefined {
  const r = f.rng;
  const roll = r.next();
  if (roll < FILL_RATES.membership) {
    const options = entities.flatMap((a) =>
      (f.graph.entities.get(a.entity)?.sets ?? [])
        .filter((slot) => matchable(slot.role, slot.attribute))
        .map((slot) => ({ a, slot })),
    );
    if (options.length === 0) return undefined;
    const { a, slot } = r.pick(options);
    const values = members(f, a.entity)
      .flatMap((o) => (o.values[slot.name] as readonly Scalar[] | null) ?? [])
      .filter((v) => !(typeof v === 'string' && ODD_TEXT.test(v)));
    if (values.length === 0) return undefined;
    return {
      kind: 'contains',
      alias: a.alias,
      attribute: slot.name,
      value: r.pick(values),
      ...(negated ? { negated: true } : {}),
    };
  }
  if (roll < FILL_RATES.isA) {
    const options = entities.flatMap((a) =>
      f.graph.index
        .subtree(a.entity)
        .slice(1)
        .filter((e) => members(f, e.name).length > 0)
        .map((e) => ({ a, sub: e.name })),
    );
    if (options.length === 0) return undefined;
    const { a, sub } = r.pick(options);
    return { kind: 'isA', alias: a.alias, entity: sub, ...(negated ? { negated: true } : {}) };
  }
  if (roll < FILL_RATES.isNull) {
    // Or an unknown value: an optional attribute is NULL (or, for `<>`, known). Spider's
    // skeletons almost never say IS NULL, yet which values are missing is a question
    // real data raises and schemas answer alike only if their NULLs line up.
    const options = entities.flatMap((a) =>
      (f.graph.entities.get(a.entity)?.attributes ?? [])
        .filter((s) => s.attribute.optional === true)
        .map((s) => ({ a, s })),
    );
    if (options.length === 0) return undefined;
    const { a, s } = r.pick(options);
    return {
      kind: 'isNull',
      expr: { kind: 'attribute', alias: a.alias, attribute: s.name },
      ...(negated ? { negated: true } : {}),
    };
  }
  return undefined;
}
