/**
 * fan-out, as the filler decides it: a query that totals or averages must not carry a join
 * nothing reads, which would only repeat the rows being totalled.
 */
import type { Expr, Join } from '../../../query/conceptual-query.ts';

/** Whether an expression holds a SUM or an AVG (plain or windowed). */
export function totals(e: Expr): boolean {
  let found = false;
  const walk = (n: unknown): void => {
    if (found || n === null || typeof n !== 'object') return;
    if (Array.isArray(n)) return n.forEach(walk);
    const o = n as { kind?: string; fn?: string };
    if ((o.kind === 'aggregate' || o.kind === 'window') && (o.fn === 'sum' || o.fn === 'avg')) found = true;
    else Object.values(n).forEach(walk);
  };
  walk(e);
  return found;
}

/** Joined aliases neither `read` nor joined from. */
export function idleAliases(joins: readonly Join[], read: ReadonlySet<string>): string[] {
  const feeding = new Set(joins.map((j) => (j.kind === 'relationship' ? j.from : j.of)));
  return joins.map((j) => j.alias).filter((a) => !read.has(a) && !feeding.has(a));
}
