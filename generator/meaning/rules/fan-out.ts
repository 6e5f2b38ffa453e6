/**
 * No SUM or AVG over rows a join multiplies for nothing: `sum(file_size_mb)` over recorded
 * content joined to its quality options counts each file once per option. A join nothing
 * refers to (no output, condition, key or further join reads its alias) only repeats the
 * rows it came from; a count of the pairs it makes says what it counts, a total does not.
 */
import type { Expr, SelectQuery } from '../../query/conceptual-query.ts';
import type { MeaningCheck } from '../meaning-check.ts';
import { visit } from '../query-meaning.ts';

/** Aliases a part of a query reads, its subqueries' included. */
function readAliases(parts: readonly unknown[]): Set<string> {
  const out = new Set<string>();
  visit(parts, (n) => {
    if (typeof n['alias'] === 'string' && n.kind !== 'relationship' && n.kind !== 'elements')
      out.add(n['alias'] as string);
    if (
      n.kind === 'classOf' ||
      n.kind === 'setSize' ||
      n.kind === 'setArray' ||
      n.kind === 'contains' ||
      n.kind === 'isA'
    )
      out.add(n['alias'] as string);
  });
  return out;
}

function totals(q: SelectQuery): boolean {
  let found = false;
  visit([q.select, q.having, q.orderBy], (n) => {
    const e = n as unknown as Expr;
    if (
      (e.kind === 'aggregate' && (e.fn === 'sum' || e.fn === 'avg')) ||
      (e.kind === 'window' && (e.fn === 'sum' || e.fn === 'avg'))
    )
      found = true;
  });
  return found;
}

export const fanOut: MeaningCheck = {
  rule: 'fan-out',
  select: (_m, q) => {
    const joins = q.joins ?? [];
    if (joins.length === 0 || !totals(q)) return [];
    const read = readAliases([
      q.select,
      q.where,
      q.groupBy,
      q.having,
      q.orderBy,
      q.qualify,
      joins.map((j) => ('on' in j ? j.on : undefined)),
    ]);
    const feeding = new Set(joins.map((j) => (j.kind === 'relationship' ? j.from : j.of)));
    const idle = joins.filter((j) => !read.has(j.alias) && !feeding.has(j.alias)).map((j) => j.alias);
    return idle.length > 0 ? [`a total over rows ${idle.join(', ')} multiplies for nothing`] : [];
  },
};
