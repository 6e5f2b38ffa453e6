/**
 * Typed column slots: which attribute, element or link attribute expressions of the query's
 * aliases fit a slot's type, and what the filler knows of each (optional, plain text, the
 * label that names an object).
 */
import { snakeCase } from '../../er-model/er-index.ts';
import type { Expr } from '../../query/conceptual-query.ts';
import { reject } from '../../records/group-record.ts';
import type { SlotKind } from '../schema-graph.ts';
import type { ColumnSlot } from '../skeleton-shape.ts';
import type { ElementAlias, EntityAlias, Fill, Typed } from './fill-context.ts';
import { canonicalKey } from '../../query/walk.ts';

function fits(kind: SlotKind, type: ColumnSlot['type']): boolean {
  if (type === 'numeric') return kind === 'numeric';
  if (type === 'text') return kind === 'text';
  return kind !== 'boolean';
}

/** Attribute (or element, or link attribute) expressions of the aliases that fit a slot. */
export function candidates(
  f: Fill,
  entities: readonly EntityAlias[],
  elements: readonly ElementAlias[],
  type: ColumnSlot['type'],
): Typed[] {
  const out: Typed[] = [];
  for (const a of entities) {
    for (const slot of f.graph.entities.get(a.entity)?.attributes ?? []) {
      if (fits(slot.kind, type))
        out.push({
          expr: { kind: 'attribute', alias: a.alias, attribute: slot.name },
          kind: slot.kind,
          label: slot.name,
          slot,
        });
    }
    for (const slot of a.via?.attributes ?? []) {
      if (fits(slot.kind, type))
        out.push({
          expr: { kind: 'linkAttribute', alias: a.alias, attribute: slot.name },
          kind: slot.kind,
          label: slot.name,
          slot,
        });
    }
  }
  for (const e of elements) {
    if (fits(e.slot.kind, type))
      out.push({
        expr: { kind: 'element', alias: e.alias },
        kind: e.slot.kind,
        label: e.slot.name.replace(/s$/u, ''),
        slot: e.slot,
      });
  }
  return out;
}

/** One expression that fits the slot, other than those in `avoid`. */
export function pickColumn(
  f: Fill,
  entities: readonly EntityAlias[],
  elements: readonly ElementAlias[],
  type: ColumnSlot['type'],
  avoid: readonly Expr[] = [],
): Typed {
  const key = (e: Expr): string => canonicalKey(e);
  const avoided = new Set(avoid.map(key));
  const all = candidates(f, entities, elements, type).filter((c) => !avoided.has(key(c.expr)));
  if (all.length === 0) reject('no-fitting-slot', `no ${type} column on ${entities.map((e) => e.entity).join(', ')}`);
  return f.rng.pick(all);
}

/** Whether an attribute expression may be NULL (an optional attribute). */
export function isOptional(f: Fill, t: Typed, entities: readonly EntityAlias[]): boolean {
  const e = t.expr;
  if (e.kind !== 'attribute' || e.attribute === 'id') return false;
  const a = entities.find((x) => x.alias === e.alias);
  return f.graph.attribute(a?.entity ?? '', e.attribute)?.attribute.optional === true;
}

/** Text that LIKE can search: plain text, not an enum (PostgreSQL has no LIKE on enums). */
export function isPlainText(f: Fill, t: Typed, entities: readonly EntityAlias[]): boolean {
  const e = t.expr;
  if (e.kind !== 'attribute') return t.kind === 'text';
  const a = entities.find((x) => x.alias === e.alias);
  return f.graph.attribute(a?.entity ?? '', e.attribute)?.attribute.type.kind === 'text';
}

/**
 * What names an object of an entity: its first required name, else an identifier or a
 * contact (shown-by-name), else its id.
 */
export function labelOf(f: Fill, a: EntityAlias): Typed {
  const required = (f.graph.entities.get(a.entity)?.attributes ?? []).filter((s) => !s.attribute.optional);
  const slot = ['name', 'identifier', 'contact']
    .map((kind) => required.find((s) => s.role.kind === kind))
    .find((s) => s !== undefined);
  if (!slot)
    return {
      expr: { kind: 'attribute', alias: a.alias, attribute: 'id' },
      kind: 'id',
      label: `${snakeCase(a.entity)}_id`,
    };
  return { expr: { kind: 'attribute', alias: a.alias, attribute: slot.name }, kind: slot.kind, label: slot.name, slot };
}

/**
 * `SELECT *` as the conceptual query states it: the id and every single-valued attribute
 * of the entity (inherited ones first), each named by its attribute. The compiler lists
 * them, so every variant gives the same columns whatever its tables hold besides.
 */
export function everyAttribute(f: Fill, a: EntityAlias): Typed[] {
  const attrs = f.graph.entities.get(a.entity)?.attributes ?? [];
  return [
    { expr: { kind: 'attribute', alias: a.alias, attribute: 'id' }, kind: 'id', label: 'id' },
    ...attrs.map(
      (s): Typed => ({
        expr: { kind: 'attribute', alias: a.alias, attribute: s.name },
        kind: s.kind,
        label: s.name,
        slot: s,
      }),
    ),
  ];
}
