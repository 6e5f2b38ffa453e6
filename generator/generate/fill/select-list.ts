/**
 * One SELECT filled: FROM and joins, WHERE, then the select list. Ungrouped, each item gets
 * a column of a joined alias nothing refers to yet (so every join serves the answer), now and
 * then a derived or analytic output; grouped, the groups are the objects of one alias (shown
 * by a label) or few-valued categories, and the aggregates read the other aliases.
 */
import { snakeCase } from '../../er-model/er-index.ts';
import type { Expr, Join, Predicate, SelectQuery } from '../../query/conceptual-query.ts';
import { hasAggregate } from '../../query/query-scope.ts';
import { reject } from '../group-record.ts';
import type { SelectShape } from '../skeleton-shape.ts';
import { aggregate, aggregateArithmetic } from './aggregates.ts';
import { analyticColumn, yearCategory } from './analytic.ts';
import { candidates, everyAttribute, isOptional, isPlainText, labelOf, pickColumn } from './column-slots.ts';
import { type CountTarget, type ElementAlias, type EntityAlias, type Fill, newAlias, type Typed } from './fill-context.ts';
import { FILL_RATES } from './fill-rates.ts';
import { having } from './having.ts';
import { valuesOf } from './instance-values.ts';
import { drawJoins, pickEntity } from './join-paths.ts';
import { equalityTargets, OutputList, referencedAliases } from './outputs.ts';
import { condition } from './predicates.ts';

/** A filled SELECT and its select list (which ORDER BY reads). */
export async function fillSelect(f: Fill, shape: SelectShape, baseEntity?: string): Promise<{ query: SelectQuery; outputs: OutputList }> {
  const outputs = new OutputList();
  const r = f.rng;
  const baseName = baseEntity ?? pickEntity(f);
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
      return [...entities.slice(1).map((a) => a.alias), ...elements.map((e) => e.alias)].filter((a) => !referenced.has(a) && !feeding.has(a));
    };
    for (const item of shape.items) {
      if (item.kind === 'aggregate') outputs.add(aggregate(f, item, entities, elements, undefined, fixed));
      else if (item.kind === 'aggregateArithmetic') outputs.add(aggregateArithmetic(f, item, entities, elements, undefined, fixed));
      else if (item.kind === 'arithmetic') outputs.add(rowArithmetic(f, item.op, entities, elements));
      else if (item.kind === 'star') everyAttribute(f, base).forEach((t) => outputs.add(t));
      else {
        const open = unused();
        const avoid = [...fixed, ...outputs.columns.map((o) => o.expr)];
        const there = open.length > 0 ? candidates(f, entities, elements, item.type).filter((c) => open.includes((c.expr as { alias: string }).alias) && !avoid.some((x) => JSON.stringify(x) === JSON.stringify(c.expr))) : [];
        const derived = there.length === 0 && item.type === 'any' && r.chance(FILL_RATES.derivedOutput) ? derivedOutput(f, entities) : undefined;
        const chosen = derived ?? (there.length > 0 ? r.pick(there) : pickColumn(f, entities, elements, item.type, avoid));
        // Now and then the column's year, length, case, band…: an analytic output.
        const analytic = !derived && f.analyticRng.chance(FILL_RATES.analyticColumn) ? analyticColumn(chosen, valuesOf(f, chosen, entities, elements), item.type, isPlainText(f, chosen, entities), isOptional(f, chosen, entities), f.analyticRng) : undefined;
        outputs.add(analytic ?? chosen);
      }
    }
    const left = unused();
    if (left.length > 0 && !outputs.columns.some((o) => o.expr.kind === 'aggregate')) reject('no-fitting-slot', `a join the answer does not use (${left.join(', ')})`);
    // With every attribute, id included, the rows are distinct already.
    const distinct = shape.distinct && !shape.items.some((i) => i.kind === 'star');
    const query: SelectQuery = { kind: 'select', ...(distinct ? { distinct: true } : {}), select: outputs.columns, from: { entity: base.entity, alias: base.alias }, ...(joins.length > 0 ? { joins } : {}), ...(where ? { where } : {}) };
    return { query, outputs };
  }
  // Grouped: by the objects of one alias (id, with label attributes) or by a category.
  const groupAlias = r.chance(FILL_RATES.groupByBase) ? base : r.pick(entities);
  const categories = candidates(f, entities, [], 'any').filter((c) => c.kind === 'text' || c.kind === 'boolean');
  const lowCardinality = categories.filter((c) => {
    const n = new Set(valuesOf(f, c, entities, elements)).size;
    return n >= 2 && n <= 12;
  });
  // The year of a date is a category too, when the data spans a few years.
  if (f.analyticRng.chance(FILL_RATES.yearCategory)) {
    for (const t of candidates(f, entities, [], 'any').filter((c) => c.kind === 'temporal')) {
      const year = yearCategory(t, valuesOf(f, t, entities, elements));
      if (year) lowCardinality.push(year);
    }
  }
  const keys: Expr[] = [];
  const plainItems = shape.items.filter((i) => i.kind === 'column');
  let countTarget: CountTarget | undefined;
  // Per object of one alias only when another alias supplies what is aggregated; an
  // aggregate over an object's own single row says nothing.
  const byObject = entities.length + elements.length > 1 && (lowCardinality.length === 0 || r.chance(FILL_RATES.groupByObject));
  if (!byObject) {
    if (lowCardinality.length === 0) reject('no-fitting-slot', 'no category to group by and nothing joined to aggregate per object');
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
    for (const s of extra.slice(0, Math.max(0, plainItems.length - 1))) outputs.add({ expr: { kind: 'attribute', alias: groupAlias.alias, attribute: s.name }, kind: s.kind, label: s.name });
    // Counting partners of each object: a LEFT join keeps objects with none as a zero.
    // The same for a set's elements: an empty set counts as zero.
    const partner = entities.find((a) => a !== groupAlias && a.via && joins.some((j) => j.kind === 'relationship' && j.alias === a.alias && j.from === groupAlias.alias));
    const element = elements.find((e) => joins.some((j) => j.kind === 'elements' && j.alias === e.alias && j.of === groupAlias.alias));
    // A WHERE on the grouped objects alone keeps the LEFT join's meaning (objects with no
    // partner still count zero); one on the partners would undo it.
    const partnerFree = !where || !referencedAliases([where]).has((partner ?? element)?.alias ?? '');
    // A LEFT JOIN the skeleton asks for is taken where it has this meaning, refused elsewhere.
    const wantsLeft = shape.leftJoins.length > 0;
    if (wantsLeft && !((partner || element) && joins.length === 1 && partnerFree)) reject('no-fitting-slot', 'a LEFT JOIN in a grouped query other than counting the partners of each object');
    if ((partner || element) && joins.length === 1 && partnerFree && (wantsLeft || r.chance(FILL_RATES.countPartnersLeft))) {
      joins[0] = { ...(joins[0] as Join), type: 'left' };
      countTarget = partner
        ? { expr: { kind: 'attribute', alias: partner.alias, attribute: 'id' }, label: `${snakeCase(partner.entity)}_count` }
        : { expr: { kind: 'element', alias: (element as ElementAlias).alias }, label: `${(element as ElementAlias).slot.name}_count` };
    }
  }
  if (shape.leftJoins.length > 0 && !joins.some((j) => j.type === 'left')) reject('no-fitting-slot', 'a LEFT JOIN in a grouped query other than counting the partners of each object');
  const others = entities.filter((a) => a !== groupAlias);
  const aggScope = byObject && others.length > 0 ? others : entities;
  for (const item of shape.items) {
    if (item.kind === 'aggregate') outputs.add(aggregate(f, item, aggScope, elements, countTarget));
    else if (item.kind === 'aggregateArithmetic') outputs.add(aggregateArithmetic(f, item, aggScope, elements, countTarget));
  }
  if (!outputs.columns.some((o) => hasAggregate(o.expr))) outputs.add(aggregate(f, { kind: 'aggregate', mode: 'star' }, aggScope, elements, countTarget));
  const base0: SelectQuery = { kind: 'select', select: [...outputs.columns], from: { entity: base.entity, alias: base.alias }, ...(joins.length > 0 ? { joins } : {}), ...(where ? { where } : {}), groupBy: keys };
  const kept = shape.having ? await having(f, shape.having, base0, aggScope, elements, countTarget) : undefined;
  return { query: { ...base0, ...(kept ? { having: kept } : {}) }, outputs };
}

/** Arithmetic on each row: two numbers of one object, or one and a number. */
function rowArithmetic(f: Fill, op: '+' | '-' | '*' | '/', entities: readonly EntityAlias[], elements: readonly ElementAlias[]): Typed {
  const numeric = candidates(f, entities, elements, 'numeric').filter((c) => c.expr.kind === 'attribute' && c.label !== 'id');
  if (numeric.length === 0) reject('no-fitting-slot', 'no numeric attribute for arithmetic');
  const left = f.rng.pick(numeric);
  const same = numeric.filter((c) => c !== left && (c.expr as { alias: string }).alias === (left.expr as { alias: string }).alias);
  if (same.length > 0 && op !== '/' && f.rng.chance(FILL_RATES.columnArithmetic)) {
    const right = f.rng.pick(same);
    return { expr: { kind: 'arithmetic', op, left: left.expr, right: right.expr }, kind: 'numeric', label: `${left.label}_${op === '+' ? 'plus' : op === '-' ? 'minus' : 'times'}_${right.label}` };
  }
  const k = f.rng.pick([2, 10, 100]);
  const word = op === '+' ? 'plus' : op === '-' ? 'minus' : op === '*' ? 'times' : 'per';
  return { expr: { kind: 'arithmetic', op, left: left.expr, right: { kind: 'literal', value: k } }, kind: 'numeric', label: `${left.label}_${word}_${k}` };
}

/** Outputs only a conceptual query can ask for simply: a set's size, the set itself, the object's class. */
function derivedOutput(f: Fill, entities: readonly EntityAlias[]): Typed | undefined {
  const r = f.rng;
  const a = r.pick(entities);
  const sets = f.graph.entities.get(a.entity)?.sets ?? [];
  const subs = f.graph.index.subtree(a.entity).map((e) => e.name);
  const roll = r.next();
  if (roll < FILL_RATES.setSize && sets.length > 0) {
    const slot = r.pick(sets);
    return { expr: { kind: 'setSize', alias: a.alias, attribute: slot.name }, kind: 'numeric', label: `${slot.name}_count` };
  }
  if (roll < FILL_RATES.setArray && sets.length > 0) {
    const slot = r.pick(sets);
    return { expr: { kind: 'setArray', alias: a.alias, attribute: slot.name }, kind: 'text', label: slot.name };
  }
  if (subs.length > 1) return { expr: { kind: 'classOf', alias: a.alias, among: subs }, kind: 'text', label: `${snakeCase(a.entity)}_kind` };
  return undefined;
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
    if (inWhere.has(j.alias)) reject('no-fitting-slot', `a WHERE on ${j.alias}, LEFT-joined, would drop the rows without one`);
    if (joins.some((k) => (k.kind === 'relationship' ? k.from : k.of) === j.alias)) reject('no-fitting-slot', `a join from ${j.alias}, LEFT-joined, would drop the rows without one`);
    joins[i] = { ...j, type: 'left' };
  }
}
