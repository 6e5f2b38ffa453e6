/**
 * ORDER BY and LIMIT: the skeleton's keys as output columns, and a LIMIT placed where the
 * order is strict (read by a probe): the rows up to the cut are strictly ordered and the cut
 * does not fall inside a tie. Without a LIMIT, tied rows that differ get tie-breakers.
 */
import type { Expr, OrderItem, Query, SelectQuery } from '../../query/conceptual-query.ts';
import { hasAggregate } from '../../query/query-scope.ts';
import { reject } from '../../records/group-record.ts';
import { isAggregateItem, type ItemSlot, type SelectShape } from '../skeleton-shape.ts';
import type { Fill } from './fill-context.ts';
import { FILL_RATES } from './fill-rates.ts';
import { type OutputList, outputNames } from './outputs.ts';
import { ROUND_LIMITS } from './rules/typed-value.ts';
import { candidates } from './column-slots.ts';
import { valuesOf } from './instance-values.ts';

/**
 * Orders by the skeleton's keys and places the LIMIT where the order is strict: the rows
 * up to the cut are strictly ordered and the cut does not fall inside a tie. Without a
 * LIMIT, remaining outputs are added as tie-breakers when tied rows differ.
 */
export async function orderAndLimit(
  f: Fill,
  q: SelectQuery,
  outputs: OutputList,
  shape: SelectShape,
): Promise<SelectQuery> {
  const { orderBy: order, limit } = shape;
  if (order.length === 0) {
    if (limit !== null) reject('meaningless-skeleton', 'LIMIT without ORDER BY leaves the rows to the database');
    return q;
  }
  const grouped = (q.groupBy?.length ?? 0) > 0;
  const items: OrderItem[] = [];
  const taken = new Set<string>();
  for (const [i, o] of order.entries()) {
    // Rows listed by their name are ordered by a number or date of their own, not shown.
    const hidden = i === 0 ? unshownKey(f, q, o.key, outputs, shape) : undefined;
    if (hidden) {
      items.push({ expr: hidden, direction: o.direction });
      continue;
    }
    // An order cut by a LIMIT starts with a number or a date, not text (alphabetical-cut).
    const key = orderKey(f, o.key, outputs, grouped, shape, taken, i === 0 && limit !== null);
    taken.add(key.name);
    // Now and then NULLs go to the other end than PostgreSQL's default, said explicitly.
    const nulls = f.analyticRng.chance(FILL_RATES.nullsOtherEnd)
      ? { nulls: o.direction === 'desc' ? ('last' as const) : ('first' as const) }
      : {};
    items.push({ expr: { kind: 'output', name: key.name }, direction: o.direction, ...nulls });
  }
  // SELECT * shows the id: it ends the order, so ties on either instance have a known order.
  if (shape.items.some((i) => i.kind === 'star') && !taken.has('id') && (q.joins ?? []).length === 0)
    items.push({ expr: { kind: 'output', name: 'id' }, direction: 'asc' });
  const ordered: SelectQuery = {
    ...q,
    select: outputs.columns.length > q.select.length ? [...outputs.columns] : q.select,
    orderBy: items,
  };
  return placeLimit(f, ordered, limit, outputs);
}

/**
 * Spider's `SELECT name FROM singer ORDER BY age`: when every output is text, whose order is
 * the collation's (collation-dependent) or cut alphabetically (alphabetical-cut), a plain list
 * of one entity is ordered by a required number or date of that entity, not shown. Not under
 * DISTINCT (PostgreSQL orders a DISTINCT list only by what it shows), joins or aggregates.
 */
function unshownKey(f: Fill, q: SelectQuery, key: ItemSlot, outputs: OutputList, shape: SelectShape): Expr | undefined {
  if (key.kind !== 'column' || key.type === 'text') return undefined;
  if (shape.distinct || (q.groupBy?.length ?? 0) > 0 || (q.joins ?? []).length > 0) return undefined;
  if (outputs.columns.some((o) => hasAggregate(o.expr) || outputs.kinds.get(o.name) !== 'text')) return undefined;
  const base = { alias: q.from.alias, entity: q.from.entity };
  const shown = new Set(outputs.columns.map((o) => JSON.stringify(o.expr)));
  const keys = candidates(f, [base], [], 'any').filter(
    (c) =>
      (c.kind === 'numeric' || c.kind === 'temporal') &&
      c.slot !== undefined &&
      c.slot.attribute.optional !== true &&
      !shown.has(JSON.stringify(c.expr)) &&
      new Set(valuesOf(f, c, [base], []).map(String)).size >= 2,
  );
  return keys.length > 0 ? f.rng.pick(keys).expr : undefined;
}

function orderKey(
  f: Fill,
  key: ItemSlot,
  outputs: OutputList,
  grouped: boolean,
  shape: SelectShape,
  taken: Set<string>,
  cut: boolean,
): { name: string } {
  const all = outputs.columns.filter((o) => !taken.has(o.name));
  const outs = cut ? all.filter((o) => outputs.kinds.get(o.name) !== 'text') : all;
  if (outs.length === 0 && all.length > 0)
    reject('no-meaningful-slot:alphabetical-cut', 'only text to order by before a LIMIT');
  const isAgg = (e: Expr): boolean => hasAggregate(e);
  if (isAggregateItem(key)) {
    const existing = outs.filter((o) => isAgg(o.expr));
    if (existing.length > 0) return f.rng.pick(existing);
    if (!grouped) reject('meaningless-skeleton', 'ORDER BY an aggregate in an ungrouped query');
  }
  // Prefer ordered kinds (numbers, dates) over text, whose order depends on the collation.
  // Before a LIMIT an aggregate may stand for the column asked for: the group with the most
  // of something, rather than the alphabetically first group.
  const plain = outs.filter((o) => !isAgg(o.expr) || key.kind !== 'column');
  const usable = plain.length > 0 || !cut ? plain : outs;
  // An id orders rows by nothing a reader knows: only when there is nothing else. Numbers and
  // dates come before text, whose order is the collation's.
  const unnamed = usable.filter((o) => !(o.expr.kind === 'attribute' && o.expr.attribute === 'id'));
  const untexted = unnamed.filter((o) => outputs.kinds.get(o.name) !== 'text');
  const known = untexted.length > 0 ? untexted : unnamed;
  // Among every attribute of SELECT *, a number or a date: text orders by collation, and
  // flags and categories tie, so a LIMIT seldom finds a cut.
  const ordered = shape.items.some((i) => i.kind === 'star')
    ? known.filter((o) => ['numeric', 'temporal'].includes(outputs.kinds.get(o.name) ?? ''))
    : [];
  if (ordered.length > 0) return f.rng.pick(ordered);
  if (known.length > 0) return f.rng.pick(known);
  if (usable.length > 0) return f.rng.pick(usable);
  if (shape.distinct || grouped) reject('no-fitting-slot', 'no output left to order by');
  return reject('no-fitting-slot', 'no output to order by');
}

export async function placeLimit(
  f: Fill,
  q: Query,
  limit: SelectShape['limit'],
  outputs?: OutputList,
): Promise<Query & SelectQuery>;
export async function placeLimit(f: Fill, q: Query, limit: SelectShape['limit'], outputs?: OutputList): Promise<Query> {
  // A key not shown (unshownKey) is read by the probe as an extra column.
  const unshown =
    q.kind === 'select'
      ? (q.orderBy ?? []).flatMap((o) => (o.expr.kind === 'output' ? [] : [{ item: o, expr: o.expr as Expr }]))
      : [];
  const probed: Query =
    q.kind === 'select' && unshown.length > 0
      ? { ...q, select: [...q.select, ...unshown.map((o, i) => ({ name: `order_key_${i}`, expr: o.expr }))] }
      : q;
  const keys = (q.orderBy ?? []).map((o) =>
    'name' in o
      ? o.name
      : o.expr.kind === 'output'
        ? o.expr.name
        : `order_key_${unshown.findIndex((u) => u.item === o)}`,
  );
  const names = outputNames(probed);
  const idx = keys.map((k) => names.indexOf(k));
  const rows = await f.ctx.probe(probed);
  const keyOf = (row: readonly (string | null)[]): string => JSON.stringify(idx.map((i) => row[i] ?? null));
  if (limit === null) {
    // Tied rows that differ would leave their order to the database: break ties by every output.
    const tiedDiffer = rows.some(
      (row, i) =>
        i > 0 && keyOf(row) === keyOf(rows[i - 1] as typeof row) && JSON.stringify(row) !== JSON.stringify(rows[i - 1]),
    );
    if (!tiedDiffer) return q;
    // Ordered by a key not shown, ties are broken by the entity's id, not shown either: the
    // outputs are text, whose order is the collation's.
    if (q.kind === 'select' && unshown.length > 0)
      return {
        ...q,
        orderBy: [
          ...(q.orderBy ?? []),
          { expr: { kind: 'attribute', alias: q.from.alias, attribute: 'id' }, direction: 'asc' },
        ],
      };
    // Over one entity, its id alone (when shown) breaks every tie.
    const id =
      q.kind === 'select' && (q.joins ?? []).length === 0
        ? q.select.find(
            (o) =>
              o.expr.kind === 'attribute' &&
              o.expr.alias === q.from.alias &&
              o.expr.attribute === 'id' &&
              !keys.includes(o.name),
          )
        : undefined;
    // Numbers and dates break ties before text, so the collation decides as little as it can.
    const textLast = (ns: string[]): string[] => [
      ...ns.filter((n) => outputs?.kinds.get(n) !== 'text'),
      ...ns.filter((n) => outputs?.kinds.get(n) === 'text'),
    ];
    const rest = (id ? [id.name] : textLast(names.filter((n) => !keys.includes(n)))).map((name) => ({
      expr: { kind: 'output' as const, name },
      direction: 'asc' as const,
    }));
    if (q.kind === 'set')
      return {
        ...q,
        orderBy: [...(q.orderBy ?? []), ...rest.map((x) => ({ name: x.expr.name, direction: x.direction }))],
      };
    return { ...q, orderBy: [...(q.orderBy ?? []), ...rest] };
  }
  // Positions k where rows 1..k are strictly ordered and row k+1 is below row k.
  const fits: number[] = [];
  for (let k = 1; k < rows.length && k <= 10; k++) {
    if (keyOf(rows[k] as (string | null)[]) === keyOf(rows[k - 1] as (string | null)[])) break;
    fits.push(k);
  }
  // LIMITs a person asks for (round-limit): the top 3, 5 or 10.
  const wanted = limit === 'one' ? fits.filter((k) => k === 1) : fits.filter((k) => k >= 2 && ROUND_LIMITS.includes(k));
  if (wanted.length === 0)
    reject(
      'no-fitting-value',
      limit === 'one' ? 'the first two rows tie on the ORDER BY keys' : 'no strict cut between 2 and 10 rows',
    );
  return { ...q, limit: f.rng.pick(wanted) };
}
