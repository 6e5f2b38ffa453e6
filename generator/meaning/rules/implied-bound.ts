/**
 * No bound another bound on the same value implies: `age >= 53 AND age > 34` says
 * `age >= 53`; `x = 5 AND x > 3` says `x = 5`; `x > 5 OR x > 10` says `x > 5`. Nor one
 * that contradicts it (`x = 'tech' AND x IS NULL` keeps nothing, so an OR beside it is all the
 * filter says), nor one condition said twice (`is a subscriber and is a subscriber`).
 */
import type { Predicate } from '../../query/conceptual-query.ts';
import type { MeaningCheck } from '../meaning-check.ts';
import { conjuncts, exprKey, ownNodes } from '../query-meaning.ts';

type Side = 'lower' | 'upper' | 'equal';

/** The bounds a predicate puts on a value: (value, side) pairs. */
function bounds(p: Predicate): [string, Side][] {
  if (p.kind === 'compare' && (p.right.kind === 'literal' || p.right.kind === 'dateShift')) {
    const side: Side | undefined =
      p.op === '>' || p.op === '>='
        ? 'lower'
        : p.op === '<' || p.op === '<='
          ? 'upper'
          : p.op === '='
            ? 'equal'
            : undefined;
    return side ? [[exprKey(p.left), side]] : [];
  }
  if (p.kind === 'between' && !p.negated)
    return [
      [exprKey(p.expr), 'lower'],
      [exprKey(p.expr), 'upper'],
    ];
  if (p.kind === 'in' && !p.negated) return [[exprKey(p.expr), 'equal']];
  return [];
}

/** A value a conjunct says is NULL (or not). */
function nullTest(p: Predicate): [string, boolean] | undefined {
  return p.kind === 'isNull' ? [exprKey(p.expr), p.negated !== true] : undefined;
}

/** The same condition twice among `parts`. */
function repeated(parts: readonly Predicate[]): string[] {
  const keys = parts.map((p) => JSON.stringify(p));
  return keys.some((k, i) => keys.indexOf(k) !== i) ? ['one condition stated twice'] : [];
}

function conjunctionFaults(parts: readonly Predicate[]): string[] {
  const seen = new Map<string, Side[]>();
  for (const p of parts) for (const [key, side] of bounds(p)) seen.set(key, [...(seen.get(key) ?? []), side]);
  const out: string[] = repeated(parts);
  // A bound or an equality holds only of a value that is there: beside IS NULL it keeps
  // nothing, beside IS NOT NULL it says it already.
  for (const p of parts) {
    const test = nullTest(p);
    if (test && seen.has(test[0]))
      out.push(test[1] ? `${test[0]} both bounded and NULL` : `IS NOT NULL beside a bound on ${test[0]}`);
  }
  for (const [key, sides] of seen) {
    const n = (s: Side): number => sides.filter((x) => x === s).length;
    if (n('lower') > 1 || n('upper') > 1) out.push(`two bounds on one side of ${key}`);
    else if (n('equal') > 0 && sides.length > 1) out.push(`a bound beside an equality on ${key}`);
  }
  return out;
}

function disjunctionFaults(p: Extract<Predicate, { kind: 'or' }>): string[] {
  const sides = p.args
    .flatMap((a) => (a.kind === 'compare' || a.kind === 'between' ? bounds(a) : []))
    .filter(([, s]) => s !== 'equal');
  const keys = sides.map(([k, s]) => `${k}|${s}`);
  return [
    ...repeated(p.args),
    ...(keys.some((k, i) => keys.indexOf(k) !== i) ? ['two alternatives bounding one value on one side'] : []),
  ];
}

export const impliedBound: MeaningCheck = {
  rule: 'implied-bound',
  select: (_m, q) => {
    const out: string[] = [];
    for (const p of [q.where, q.having]) out.push(...conjunctionFaults(conjuncts(p)));
    ownNodes(q, (n) => {
      const p = n as unknown as Predicate;
      if (p.kind === 'or') {
        out.push(...disjunctionFaults(p));
        for (const a of p.args) if (a.kind === 'and') out.push(...conjunctionFaults(conjuncts(a)));
      }
    });
    return out;
  },
};
