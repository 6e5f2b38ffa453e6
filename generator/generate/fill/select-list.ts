/**
 * One SELECT filled: FROM and joins, WHERE, then the select list. Ungrouped, each item gets
 * a column of a joined alias nothing refers to yet (so every join serves the answer), now and
 * then a derived or analytic output; grouped, the groups are the objects of one alias (shown
 * by a label) or few-valued categories, and the aggregates read the other aliases.
 */
import { snakeCase } from '../../er-model/er-index.ts';
import type { Expr, Join, Predicate, SelectQuery } from '../../query/conceptual-query.ts';
import { hasAggregate } from '../../query/query-scope.ts';
import { reject } from '../../records/group-record.ts';
import type { SelectShape } from '../skeleton-shape.ts';
import { aggregate, aggregateArithmetic } from './aggregates.ts';
import { analyticColumn, yearCategory } from './analytic.ts';
import { candidates, everyAttribute, isOptional, isPlainText, labelOf, pickColumn } from './column-slots.ts';
import {
  type CountTarget,
  type ElementAlias,
  type EntityAlias,
  type Fill,
  newAlias,
  type Typed,
} from './fill-context.ts';
import { FILL_RATES } from './fill-rates.ts';
import { having } from './having.ts';
import { orderSafe, valuesOf } from './instance-values.ts';
import { drawJoins, pickEntity } from './join-paths.ts';
import { equalityTargets, OutputList, referencedAliases } from './outputs.ts';
import { condition, fillsValueSlots } from './predicates.ts';
import { groupable } from './rules/group-key.ts';
import { naming } from './rules/shown-by-name.ts';
import { groupsAggregate } from './rules/single-object-groups.ts';
import { idleAliases, totals } from './rules/fan-out.ts';
import { repeatsBase } from './rules/repeated-rows.ts';
import { multiplies } from './rules/cross-product.ts';
import { combinable, conversionFactors, unitOfRole } from './rules/unit-arithmetic.ts';

/** A filled SELECT and its select list (which ORDER BY reads). */
export async function fillSelect(
  f: Fill,
  shape: SelectShape,
  baseEntity?: string,
): Promise<{ query: SelectQuery; outputs: OutputList }> {
  const outputs = new OutputList();
  const r = f.rng;
  // A list of objects names them (shown-by-name), and so do groups of objects: now and then
  // the FROM entity is one that holds its own name, shown without joining it in from a superclass.
  const listing =
    shape.groupBy.length > 0 ||
    !shape.items.some((i) => i.kind === 'aggregate' || i.kind === 'aggregateArithmetic' || i.kind === 'star');
  const ownNamed =
    listing && f.rng.chance(FILL_RATES.ownNameBase)
      ? [...f.graph.entities.values()]
          .filter((e) => e.attributes.some((a) => a.owner === e.name && naming(a.role)))
          .map((e) => e.name)
      : undefined;
  // One table answers the WHERE clause alone: its entity has a column for each value compared
  // (one that holds its own name if any does, else any).
  const asked = shape.where;
  const fits = (names: readonly string[]): string[] =>
    asked && shape.joins === 0 ? names.filter((e) => fillsValueSlots(f, e, asked)) : [...names];
  const named = ownNamed !== undefined && ownNamed.length > 0 ? fits(ownNamed) : [];
  const any = named.length > 0 ? [] : fits([...f.graph.entities.keys()]);
  const baseName =
    baseEntity ??
    pickEntity(f, named.length > 0 ? named : any.length > 0 ? any : ownNamed?.length ? ownNamed : undefined);
  const base: EntityAlias = { alias: newAlias(f, baseName), entity: baseName };
  const { entities, elements, joins } = drawJoins(f, base, shape.joins);
  const where = shape.where ? await condition(f, shape.where, entities, elements) : undefined;
  const grouped = shape.groupBy.length > 0;
  if (!grouped && shape.leftJoins.length > 0) leftJoin(joins, shape.leftJoins, where);
  if (!grouped) {
    // A column the WHERE clause fixes to one value would be the same in every row.
    const fixed = equalityTargets(where);
    // Joined aliases nothing refers to yet: the columns go there first, so every join serves the answer.
    const unused = (): string[] => {
      const referenced = referencedAliases([where, ...outputs.columns.map((o) => o.expr)]);
      const feeding = new Set(joins.flatMap((j) => (j.kind === 'relationship' ? [j.from] : [j.of])));
      return [...entities.slice(1).map((a) => a.alias), ...elements.map((e) => e.alias)].filter(
        (a) => !referenced.has(a) && !feeding.has(a),
      );
    };
    // A listed row shows what it is about (shown-by-name): unless the rows are aggregates, one
    // value (LIMIT 1) or every attribute, the first column that can be text is a name.
    const listed =
      !shape.items.some((i) => i.kind === 'aggregate' || i.kind === 'aggregateArithmetic' || i.kind === 'star') &&
      shape.limit !== 'one';
    const named = (): boolean =>
      outputs.columns.some(
        (o) => naming(slotOf(o.expr)?.role) || (o.expr.kind === 'attribute' && o.expr.attribute === 'id'),
      ) || namedByWhere(f, where, entities);
    const readsBase = (): boolean => referencedAliases([where, ...outputs.columns.map((o) => o.expr)]).has(base.alias);
    const slotOf = (e: Expr) =>
      e.kind === 'attribute'
        ? f.graph.attribute(entities.find((a) => a.alias === e.alias)?.entity ?? '', e.attribute)
        : undefined;
    for (const item of shape.items) {
      if (item.kind === 'aggregate') outputs.add(aggregate(f, item, entities, elements, undefined, fixed));
      else if (item.kind === 'aggregateArithmetic')
        outputs.add(aggregateArithmetic(f, item, entities, elements, undefined, fixed));
      else if (item.kind === 'arithmetic') outputs.add(rowArithmetic(f, item.op, entities, elements));
      else if (item.kind === 'star') everyAttribute(f, base).forEach((t) => outputs.add(t));
      else {
        const open = unused();
        const avoid = [
          ...fixed,
          ...outputs.columns.map((o) => o.expr),
          ...outputs.columns.flatMap((o) => shownAttribute(o.expr) ?? []),
        ];
        const wantsName = listed && item.type !== 'numeric' && !named();
        const avoided = new Set(avoid.map((x) => JSON.stringify(x)));
        const fresh = (c: Typed): boolean => !avoided.has(JSON.stringify(c.expr));
        // What names a row: a name, identifier or contact, or the id of an object that has none.
        // An ordered list is ordered by its name, most likely: one whose order every collation agrees on.
        const orderable = (c: Typed): boolean =>
          shape.orderBy.length === 0 || c.kind !== 'text' || orderSafe(valuesOf(f, c, entities, elements));
        const namesAll = wantsName
          ? candidates(f, entities, elements, item.type).filter((c) => fresh(c) && naming(c.slot?.role))
          : [];
        const namesSafe = namesAll.filter(orderable);
        const names = wantsName
          ? [
              ...(namesSafe.length > 0 ? namesSafe : namesAll),
              ...(item.type === 'any'
                ? entities
                    .filter((a) => !hasNaming(f, a))
                    .map(
                      (a): Typed => ({
                        expr: { kind: 'attribute', alias: a.alias, attribute: 'id' },
                        kind: 'id',
                        label: `${snakeCase(a.entity)}_id`,
                      }),
                    )
                    .filter(fresh)
                : []),
            ]
          : [];
        const thereAll =
          open.length > 0
            ? candidates(f, entities, elements, item.type).filter(
                (c) => open.includes((c.expr as { alias: string }).alias) && fresh(c),
              )
            : [];
        const thereNames = thereAll.filter((c) => naming(c.slot?.role));
        const thereNamed = thereNames.some(orderable) ? thereNames.filter(orderable) : thereNames;
        // A join not yet used comes first; the name may wait for a later column when there is one.
        const later = shape.items
          .slice(shape.items.indexOf(item) + 1)
          .some((i) => i.kind === 'column' && i.type !== 'numeric');
        const there = !wantsName ? thereAll : thereNamed.length > 0 ? thereNamed : later ? thereAll : [];
        const derived =
          !wantsName && there.length === 0 && item.type === 'any' && r.chance(FILL_RATES.derivedOutput)
            ? derivedOutput(f, entities)
            : undefined;
        // Past the joins and the name, a column of the FROM entity, so its rows are not repeated for nothing (repeated-rows).
        const onBase =
          there.length === 0 && names.length === 0 && joins.length > 0 && !readsBase()
            ? candidates(f, entities, elements, item.type).filter(
                (c) => fresh(c) && (c.expr as { alias?: string }).alias === base.alias,
              )
            : [];
        const chosen =
          derived ??
          (there.length > 0
            ? r.pick(there)
            : names.length > 0
              ? r.pick(names)
              : onBase.length > 0
                ? r.pick(onBase)
                : pickColumn(f, entities, elements, item.type, avoid));
        // Now and then the column's year, length, case, band…: an analytic output (never in place of the name).
        const analytic =
          !derived && !wantsName && f.analyticRng.chance(FILL_RATES.analyticColumn)
            ? analyticColumn(
                chosen,
                valuesOf(f, chosen, entities, elements),
                item.type,
                isPlainText(f, chosen, entities),
                isOptional(f, chosen, entities),
                f.analyticRng,
              )
            : undefined;
        outputs.add(analytic ?? chosen);
      }
    }
    const left = unused();
    if (left.length > 0 && !outputs.columns.some((o) => o.expr.kind === 'aggregate'))
      reject('no-fitting-slot', `a join the answer does not use (${left.join(', ')})`);
    if (outputs.columns.some((o) => hasAggregate(o.expr)) && multiplies(f.graph.index, joins, base.alias))
      reject('no-meaningful-slot:cross-product', 'two joined lists would multiply');
    // A total over rows a join repeats for nothing counts them again (fan-out).
    if (left.length > 0 && outputs.columns.some((o) => totals(o.expr)))
      reject('no-meaningful-slot:fan-out', `a total over rows ${left.join(', ')} repeats`);
    if (
      !shape.distinct &&
      joins.length > 0 &&
      !outputs.columns.some((o) => hasAggregate(o.expr)) &&
      !readsBase() &&
      repeatsBase(f.graph.index, base.alias, joins)
    )
      reject('no-meaningful-slot:repeated-rows', `rows repeat per ${base.entity}, neither shown nor filtered`);
    // The same value twice says it once, and so does one attribute shown plain and reworded (constant-output).
    const shown = outputs.columns.map((o) => JSON.stringify(shownAttribute(o.expr) ?? o.expr));
    if (new Set(shown).size < shown.length) reject('no-meaningful-slot:constant-output', 'one output twice');
    if (
      listed &&
      !named() &&
      !(shape.distinct && outputs.columns.every((o) => groupable(slotOf(o.expr)?.role) || naming(slotOf(o.expr)?.role)))
    )
      reject(
        'no-meaningful-slot:shown-by-name',
        `rows of ${outputs.columns.map((o) => o.name).join(', ')} with nothing naming them`,
      );
    // With every attribute, id included, the rows are distinct already; so are they, where no
    // join repeats the FROM entity's objects, with an attribute that tells them apart shown, or
    // pinned to one value (one account by its email is one row).
    const unique = (e: Expr) =>
      e.kind === 'attribute' &&
      e.alias === base.alias &&
      (e.attribute === 'id' || slotOf(e)?.attribute.hints?.unique === true);
    const conjuncts = (p: Predicate | undefined): Predicate[] =>
      !p ? [] : p.kind === 'and' ? p.args.flatMap(conjuncts) : [p];
    const identifying = outputs.columns.some((o) => unique(o.expr));
    const pinned = conjuncts(where).some((p) => p.kind === 'compare' && p.op === '=' && unique(p.left));
    const distinct =
      shape.distinct &&
      !shape.items.some((i) => i.kind === 'star') &&
      !((identifying || pinned) && !repeatsBase(f.graph.index, base.alias, joins));
    const query: SelectQuery = {
      kind: 'select',
      ...(distinct ? { distinct: true } : {}),
      select: outputs.columns,
      from: { entity: base.entity, alias: base.alias },
      ...(joins.length > 0 ? { joins } : {}),
      ...(where ? { where } : {}),
    };
    return { query, outputs };
  }
  // Grouped: by the objects of one alias (id, with label attributes) or by a category.
  // Grouped by objects only where a group holds more than one row (single-object-groups).
  const aggregating = entities.filter((a) => groupsAggregate(f.graph.index, a.alias, base.alias, joins));
  const groupAlias =
    aggregating.includes(base) && r.chance(FILL_RATES.groupByBase)
      ? base
      : aggregating.length > 0
        ? r.pick(aggregating)
        : base;
  // Groups are kinds (group-key): categories and flags the WHERE clause does not fix.
  const pinned = new Set(equalityTargets(where).map((e) => JSON.stringify(e)));
  const categories = candidates(f, entities, [], 'any').filter(
    (c) => groupable(c.slot?.role) && !pinned.has(JSON.stringify(c.expr)),
  );
  const lowCardinality = categories.filter((c) => {
    const n = new Set(valuesOf(f, c, entities, elements)).size;
    return n >= 2 && n <= 12;
  });
  // The year of a date is a category too, when the data spans a few years; so is the kind of
  // an object in a hierarchy.
  if (f.analyticRng.chance(FILL_RATES.yearCategory) || lowCardinality.length === 0) {
    for (const t of candidates(f, entities, [], 'any').filter((c) => c.kind === 'temporal')) {
      const year = yearCategory(t, valuesOf(f, t, entities, elements));
      if (year) lowCardinality.push(year);
    }
  }
  for (const a of entities) {
    const kinds = kindsOf(f, a);
    if (kinds && f.analyticRng.chance(FILL_RATES.kindCategory))
      lowCardinality.push({
        expr: { kind: 'classOf', alias: a.alias, among: kinds },
        kind: 'text',
        label: `${snakeCase(a.entity)}_kind`,
      });
  }
  const keys: Expr[] = [];
  const plainItems = shape.items.filter((i) => i.kind === 'column');
  let countTarget: CountTarget | undefined;
  // Per object of one alias only when another alias supplies what is aggregated; an
  // aggregate over an object's own single row says nothing.
  const byObject = aggregating.length > 0 && (lowCardinality.length === 0 || r.chance(FILL_RATES.groupByObject));
  if (!byObject) {
    if (lowCardinality.length === 0)
      reject(
        aggregating.length === 0 && entities.length + elements.length > 1
          ? 'no-meaningful-slot:single-object-groups'
          : 'no-fitting-slot',
        'no category to group by and nothing joined to aggregate per object',
      );
    const pool = r.shuffle(lowCardinality);
    const wanted = Math.max(1, Math.min(shape.groupBy.length, plainItems.length || 1, pool.length));
    for (const c of pool.slice(0, wanted)) {
      keys.push(c.expr);
      outputs.add(c);
    }
  } else {
    keys.push({ kind: 'attribute', alias: groupAlias.alias, attribute: 'id' });
    const attrs = (f.graph.entities.get(groupAlias.entity)?.attributes ?? []).filter((s) => s.kind !== 'boolean');
    const label = labelOf(f, groupAlias);
    outputs.add(label);
    const extra = r.shuffle(attrs.filter((s) => s.name !== (label.expr as { attribute: string }).attribute));
    for (const s of extra.slice(0, Math.max(0, plainItems.length - 1)))
      outputs.add({
        expr: { kind: 'attribute', alias: groupAlias.alias, attribute: s.name },
        kind: s.kind,
        label: s.name,
      });
    // Counting partners of each object: a LEFT join keeps objects with none as a zero.
    // The same for a set's elements: an empty set counts as zero.
    const partner = entities.find(
      (a) =>
        a !== groupAlias &&
        a.via &&
        joins.some((j) => j.kind === 'relationship' && j.alias === a.alias && j.from === groupAlias.alias),
    );
    const element = elements.find((e) =>
      joins.some((j) => j.kind === 'elements' && j.alias === e.alias && j.of === groupAlias.alias),
    );
    // A WHERE on the grouped objects alone keeps the LEFT join's meaning (objects with no
    // partner still count zero); one on the partners would undo it.
    const partnerFree = !where || !referencedAliases([where]).has((partner ?? element)?.alias ?? '');
    // A LEFT JOIN the skeleton asks for is taken where it has this meaning, refused elsewhere.
    const wantsLeft = shape.leftJoins.length > 0;
    if (wantsLeft && !((partner || element) && joins.length === 1 && partnerFree))
      reject('no-fitting-slot', 'a LEFT JOIN in a grouped query other than counting the partners of each object');
    if (
      (partner || element) &&
      joins.length === 1 &&
      partnerFree &&
      (wantsLeft || r.chance(FILL_RATES.countPartnersLeft))
    ) {
      joins[0] = { ...(joins[0] as Join), type: 'left' };
      countTarget = partner
        ? {
            expr: { kind: 'attribute', alias: partner.alias, attribute: 'id' },
            label: `${snakeCase(partner.entity)}_count`,
          }
        : {
            expr: { kind: 'element', alias: (element as ElementAlias).alias },
            label: `${(element as ElementAlias).slot.name}_count`,
          };
    }
  }
  if (shape.leftJoins.length > 0 && !joins.some((j) => j.type === 'left'))
    reject('no-fitting-slot', 'a LEFT JOIN in a grouped query other than counting the partners of each object');
  const others = entities.filter((a) => a !== groupAlias);
  const aggScope = byObject && others.length > 0 ? others : entities;
  // Counts and totals over two lists at once count their product (cross-product).
  if (multiplies(f.graph.index, joins, byObject ? groupAlias.alias : base.alias))
    reject('no-meaningful-slot:cross-product', 'two joined lists would multiply');
  // Within a group its keys are fixed, and so is the grouped object's every value: no
  // aggregate of them or filtered on them (constant-output).
  const own: Expr[] = byObject
    ? (f.graph.entities.get(groupAlias.entity)?.attributes ?? []).map((s) => ({
        kind: 'attribute',
        alias: groupAlias.alias,
        attribute: s.name,
      }))
    : [];
  const fixedInGroup = [...keys, ...own];
  for (const item of shape.items) {
    if (item.kind === 'aggregate') outputs.add(aggregate(f, item, aggScope, elements, countTarget, fixedInGroup));
    else if (item.kind === 'aggregateArithmetic')
      outputs.add(aggregateArithmetic(f, item, aggScope, elements, countTarget, fixedInGroup));
  }
  // Groups are shown with their count, unless a HAVING clause fixes it ("the titles shared by
  // exactly 2 videos": the 2 beside every title would echo the question, constant-output).
  const countFixed = (shape.having ?? []).some((conj) =>
    conj.some((slot) => slot.kind === 'compareAggregate' && slot.op === '=' && slot.aggregate.mode === 'star'),
  );
  if (!countFixed && !outputs.columns.some((o) => hasAggregate(o.expr)))
    outputs.add(aggregate(f, { kind: 'aggregate', mode: 'star' }, aggScope, elements, countTarget));
  if (new Set(outputs.columns.map((o) => JSON.stringify(o.expr))).size < outputs.columns.length)
    reject('no-meaningful-slot:constant-output', 'one output twice');
  if (outputs.columns.some((o) => totals(o.expr))) {
    const idle = idleAliases(joins, referencedAliases([outputs.columns.map((o) => o.expr), where, keys]));
    if (idle.length > 0) reject('no-meaningful-slot:fan-out', `a total over rows ${idle.join(', ')} repeats`);
  }
  const base0: SelectQuery = {
    kind: 'select',
    select: [...outputs.columns],
    from: { entity: base.entity, alias: base.alias },
    ...(joins.length > 0 ? { joins } : {}),
    ...(where ? { where } : {}),
    groupBy: keys,
  };
  const kept = shape.having ? await having(f, shape.having, base0, aggScope, elements, countTarget) : undefined;
  return { query: { ...base0, ...(kept ? { having: kept } : {}) }, outputs };
}

/**
 * Arithmetic on each row, where a person would compute it (unit-arithmetic): two numbers of
 * one object in one unit (`end_offset - start_offset`), a measure times a count the model
 * declares, a total per a count; or one number converted by a factor (`duration / 60`).
 */
function rowArithmetic(
  f: Fill,
  op: '+' | '-' | '*' | '/',
  entities: readonly EntityAlias[],
  elements: readonly ElementAlias[],
): Typed {
  const numeric = candidates(f, entities, elements, 'numeric').filter(
    (c) => c.expr.kind === 'attribute' && c.label !== 'id' && unitOfRole(c.label, c.slot?.role) !== undefined,
  );
  if (numeric.length === 0) reject('no-fitting-slot', 'no numeric attribute for arithmetic');
  const named = (c: Typed) => ({ name: c.label, role: c.slot?.role });
  const partners = (c: Typed): Typed[] =>
    numeric.filter(
      (d) =>
        d !== c &&
        (d.expr as { alias: string }).alias === (c.expr as { alias: string }).alias &&
        combinable(op, named(c), named(d)),
    );
  const lefts = op === '+' || op === '-' ? numeric.filter((c) => partners(c).length > 0) : numeric;
  if (lefts.length === 0)
    reject('no-meaningful-slot:unit-arithmetic', `no two numbers of one unit to ${op === '+' ? 'add' : 'subtract'}`);
  const left = f.rng.pick(lefts);
  const same = partners(left);
  if (same.length > 0 && (op === '+' || op === '-' || f.rng.chance(FILL_RATES.columnArithmetic))) {
    const right = f.rng.pick(same);
    return {
      expr: { kind: 'arithmetic', op, left: left.expr, right: right.expr },
      kind: 'numeric',
      label: `${left.label}_${op === '+' ? 'plus' : op === '-' ? 'minus' : op === '*' ? 'times' : 'per'}_${right.label}`,
    };
  }
  const k = f.rng.pick(conversionFactors(unitOfRole(left.label, left.slot?.role)));
  const word = op === '*' ? 'times' : 'per';
  return {
    expr: { kind: 'arithmetic', op, left: left.expr, right: { kind: 'literal', value: k } },
    kind: 'numeric',
    label: `${left.label}_${word}_${k}`,
  };
}

/** The attribute an analytic output rewords (a cast, a case change, a band), for finding one shown twice. */
function shownAttribute(e: Expr): Expr | undefined {
  if (e.kind === 'attribute' || e.kind === 'element' || e.kind === 'linkAttribute') return e;
  if (e.kind === 'cast' || e.kind === 'round' || e.kind === 'substring') return shownAttribute(e.arg);
  if (e.kind === 'textFunction') return e.fn === 'length' ? undefined : shownAttribute(e.arg);
  if (e.kind === 'coalesce') return e.args[0] ? shownAttribute(e.args[0]) : undefined;
  if (e.kind === 'simpleCase') return shownAttribute(e.operand);
  if (e.kind === 'case' && e.whens.length === 1 && e.whens[0]?.when.kind === 'compare')
    return shownAttribute(e.whens[0].when.left);
  return undefined;
}

/** Whether `e` is listed by an IN of the conjunction (rows named among several, not by one). */
function conjunctionHasIn(where: Predicate | undefined, e: Expr): boolean {
  const parts = where?.kind === 'and' ? where.args : where ? [where] : [];
  return parts.some((p) => p.kind === 'in' && JSON.stringify(p.expr) === JSON.stringify(e));
}

/** Whether an entity has an attribute that names its objects. */
function hasNaming(f: Fill, a: EntityAlias): boolean {
  return (f.graph.entities.get(a.entity)?.attributes ?? []).some((s) => naming(s.role));
}

/** Whether the WHERE clause picks rows out by a name, an identifier or a contact (`title = '…'`). */
function namedByWhere(f: Fill, where: Predicate | undefined, entities: readonly EntityAlias[]): boolean {
  const equal = equalityTargets(where).filter((e) => !conjunctionHasIn(where, e));
  return equal.some(
    (e) =>
      e.kind === 'attribute' &&
      naming(f.graph.attribute(entities.find((a) => a.alias === e.alias)?.entity ?? '', e.attribute)?.role),
  );
}

/** Outputs only a conceptual query can ask for simply: a set's size, the set itself, the object's class. */
function derivedOutput(f: Fill, entities: readonly EntityAlias[]): Typed | undefined {
  const r = f.rng;
  const a = r.pick(entities);
  const sets = f.graph.entities.get(a.entity)?.sets ?? [];
  const subs = kindsOf(f, a) ?? [];
  const roll = r.next();
  if (roll < FILL_RATES.setSize && sets.length > 0) {
    const slot = r.pick(sets);
    return {
      expr: { kind: 'setSize', alias: a.alias, attribute: slot.name },
      kind: 'numeric',
      label: `${slot.name}_count`,
    };
  }
  if (roll < FILL_RATES.setArray && sets.length > 0) {
    const slot = r.pick(sets);
    return { expr: { kind: 'setArray', alias: a.alias, attribute: slot.name }, kind: 'text', label: slot.name };
  }
  if (subs.length > 1)
    return {
      expr: { kind: 'classOf', alias: a.alias, among: subs },
      kind: 'text',
      label: `${snakeCase(a.entity)}_kind`,
    };
  return undefined;
}

/**
 * The classes an object of `a` can be, most specific first and the entity itself last (where
 * it can have objects of its own), or undefined without subclasses. Listed first, the entity
 * would be every object's class (constant-output).
 */
function kindsOf(f: Fill, a: EntityAlias): string[] | undefined {
  const depth = (name: string): number => f.graph.index.chain(name).length;
  const below = f.graph.index
    .subtree(a.entity)
    .slice(1)
    .map((e) => e.name)
    .sort((x, y) => depth(y) - depth(x));
  const kinds = [...below, ...(f.graph.index.canBeDirect(a.entity) ? [a.entity] : [])];
  return below.length > 0 && kinds.length > 1 ? kinds : undefined;
}

/**
 * Makes the skeleton's LEFT joins LEFT: each object of the alias joined from is kept once
 * with empty partner columns when it has no partner. Refused where that meaning would not
 * hold: a WHERE on the partner drops those rows again, and so does a join on from it.
 */
function leftJoin(joins: Join[], indices: readonly number[], where: Predicate | undefined): void {
  const inWhere = referencedAliases([where]);
  for (const i of indices) {
    const j = joins[i] as Join;
    if (inWhere.has(j.alias))
      reject('no-fitting-slot', `a WHERE on ${j.alias}, LEFT-joined, would drop the rows without one`);
    if (joins.some((k) => (k.kind === 'relationship' ? k.from : k.of) === j.alias))
      reject('no-fitting-slot', `a join from ${j.alias}, LEFT-joined, would drop the rows without one`);
    joins[i] = { ...j, type: 'left' };
  }
}
