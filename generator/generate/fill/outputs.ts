/**
 * The select list as it is filled: output columns named after what they hold (numbered when a
 * name repeats), with the kind of each, which ORDER BY reads (numbers and dates order
 * without ties to break).
 */
import type { Expr, OutputColumn, Predicate, Query } from '../../query/conceptual-query.ts';
import type { Typed } from './fill-context.ts';

export class OutputList {
  readonly columns: OutputColumn[] = [];
  readonly kinds = new Map<string, Typed['kind']>();

  add(t: Typed): OutputColumn {
    let name = t.label;
    for (let i = 2; this.columns.some((o) => o.name === name); i++) name = `${t.label}_${i}`;
    const out = { name, expr: t.expr };
    this.columns.push(out);
    this.kinds.set(name, t.kind);
    return out;
  }
}

/** Aliases an expression or predicate refers to (subqueries included). */
export function referencedAliases(nodes: readonly unknown[]): Set<string> {
  const out = new Set<string>();
  const walk = (n: unknown): void => {
    if (Array.isArray(n)) return n.forEach(walk);
    if (n === null || typeof n !== 'object') return;
    const o = n as Record<string, unknown>;
    if (typeof o['alias'] === 'string' && o['kind'] !== undefined) out.add(o['alias']);
    for (const k of Object.keys(o)) walk(o[k]);
  };
  walk(nodes);
  return out;
}

/** Expressions a predicate pins to one value or a few named ones (`x = literal`, `x IN (…)` in a conjunction). */
export function equalityTargets(p: Predicate | undefined): Expr[] {
  if (!p) return [];
  if (p.kind === 'compare' && p.op === '=' && p.right.kind === 'literal') return [p.left];
  if (p.kind === 'in' && !p.negated) return [p.expr];
  if (p.kind === 'and') return p.args.flatMap(equalityTargets);
  return [];
}

/** The output column names of a query (a set query's are its left arm's). */
export function outputNames(q: Query): string[] {
  return q.kind === 'select' ? q.select.map((o) => o.name) : outputNames(q.left);
}
