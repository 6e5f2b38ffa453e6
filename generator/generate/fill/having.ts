/**
 * HAVING: each slot an aggregate compared with a threshold read off the distribution of the
 * group aggregates (a probe query), strictly inside it, so some groups are kept and others
 * dropped.
 */
import type { Predicate, SelectQuery } from '../../query/conceptual-query.ts';
import { reject } from '../../records/group-record.ts';
import type { ComparisonOp, ConditionShape } from '../skeleton-shape.ts';
import { aggregate } from './aggregates.ts';
import type { CountTarget, ElementAlias, EntityAlias, Fill } from './fill-context.ts';
import { HAVING_QUANTILES } from './fill-rates.ts';
import { finerThreshold, isTyped, roundThreshold } from './rules/typed-value.ts';

/** The largest figure a HAVING asks for exactly. */
const EXACT_AT_MOST = 10;

/** Whether `v op t` holds. */
function holds(v: number, op: ComparisonOp, t: number): boolean {
  return op === '='
    ? v === t
    : op === '<>'
      ? v !== t
      : op === '<'
        ? v < t
        : op === '<='
          ? v <= t
          : op === '>'
            ? v > t
            : v >= t;
}

/** HAVING thresholds from the distribution of the group aggregates, read by a probe. */
export async function having(
  f: Fill,
  shape: ConditionShape,
  q: SelectQuery,
  scope: readonly EntityAlias[],
  elements: readonly ElementAlias[],
  countTarget?: CountTarget,
): Promise<Predicate> {
  const disjuncts: Predicate[] = [];
  for (const conj of shape) {
    const parts: Predicate[] = [];
    for (const slot of conj) {
      if (slot.kind !== 'compareAggregate') return reject('meaningless-skeleton', 'HAVING without an aggregate');
      const t = aggregate(f, slot.aggregate, scope, elements, countTarget, q.groupBy ?? [], true);
      if (t.kind !== 'numeric') reject('no-fitting-slot', 'HAVING on a date aggregate');
      const rows = await f.ctx.probe({
        ...q,
        select: [{ name: 'h', expr: t.expr }],
        orderBy: undefined,
        limit: undefined,
      });
      const values = [
        ...new Set(
          rows
            .map((row) => row[0])
            .filter((v): v is string => v !== null)
            .map(Number),
        ),
      ].sort((a, b) => a - b);
      if (values.length < 2) reject('no-fitting-value', 'the group aggregate takes fewer than two values');
      // An equality is asked of a small count a group has ("exactly 2 orders"); of a large one
      // ("exactly 85 videos"), or of a lowest, highest or average figure ("whose lowest stock
      // quantity is 3"), a person asks "at least".
      const counted = t.expr.kind === 'aggregate' && t.expr.fn === 'count';
      const small = counted ? values.filter((v) => isTyped(v) && v >= 1 && v <= EXACT_AT_MOST) : [];
      const op: ComparisonOp = slot.op === '<>' ? '>' : slot.op === '=' && small.length === 0 ? '>=' : slot.op;
      // A threshold strictly inside the distribution keeps some groups and drops others.
      // An equality takes a value the groups have as it is: rounding 7 to 10 would match no group.
      const inner = op === '=' ? small : op.startsWith('>') ? values.slice(0, -1) : values.slice(1);
      if (inner.length === 0) reject('no-meaningful-slot:typed-value', `no round value among the values of ${t.label}`);
      const pick = inner[Math.floor(f.rng.pick(HAVING_QUANTILES) * (inner.length - 1))] as number;
      const exact =
        op === '>='
          ? (values[values.indexOf(pick) + 1] ?? pick)
          : op === '<='
            ? (values[values.indexOf(pick) - 1] ?? pick)
            : pick;
      // A threshold a person types (typed-value), still keeping some groups and dropping others:
      // the picked value rounded, else the typed bound nearest it that falls inside.
      const inside = (x: number): boolean =>
        values.some((v) => holds(v, op, x)) && !values.every((v) => holds(v, op, x));
      const rounded = roundThreshold(exact);
      const nearest = [...new Set(inner.flatMap((v) => [roundThreshold(v), finerThreshold(v)]))]
        .filter(inside)
        .sort((a, b) => Math.abs(a - exact) - Math.abs(b - exact) || a - b)[0];
      const threshold = inside(rounded) ? rounded : nearest;
      if (threshold === undefined)
        return reject('no-meaningful-slot:typed-value', `no round threshold inside the values of ${t.label}`);
      parts.push({ kind: 'compare', op, left: t.expr, right: { kind: 'literal', value: threshold } });
    }
    disjuncts.push(parts.length === 1 ? (parts[0] as Predicate) : { kind: 'and', args: parts });
  }
  return disjuncts.length === 1 ? (disjuncts[0] as Predicate) : { kind: 'or', args: disjuncts };
}
