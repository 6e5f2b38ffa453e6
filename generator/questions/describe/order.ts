import type { Expr, OrderItem, WindowExpr } from '../../query/conceptual-query.ts';
import { hasAggregate } from '../../query/query-scope.ts';
import { mention, type DescribeContext } from './context.ts';
import { listing, words } from './english.ts';
import { expr, nullable } from './expressions.ts';
import { sameNode } from '../../query/walk.ts';

/** How an ORDER BY names a window the outputs already show. */
const WINDOW_NOUN: Readonly<Record<WindowExpr['fn'], string>> = {
  row_number: 'position',
  rank: 'rank',
  dense_rank: 'rank',
  lag: 'previous value',
  lead: 'next value',
  sum: 'running total',
  avg: 'running average',
  count: 'running count',
};

type SortItem = OrderItem | { name: string; direction: 'asc' | 'desc' };

function orderKey(d: DescribeContext, item: SortItem): { text: string; nullable: boolean } {
  const e: Expr | undefined =
    'name' in item
      ? d.outputsByName.get(item.name)
      : item.expr.kind === 'output'
        ? d.outputsByName.get(item.expr.name)
        : item.expr;
  if (!e) {
    const name = 'name' in item ? item.name : (item.expr as { name: string }).name;
    return { text: `the ${words(name)}`, nullable: false };
  }
  const grouped = hasAggregate(e);
  // A window the answer already shows is named by what it gives; its whole wording (partition,
  // order, tie-break) was said once with the outputs.
  if (e.kind === 'window' && [...d.outputsByName.values()].some((o) => sameNode(o, e))) {
    return { text: `that ${WINDOW_NOUN[e.fn]}`, nullable: nullable(d, e) };
  }
  return { text: expr(d, e, { grouped }), nullable: nullable(d, e) };
}

/** ", sorted by … in descending order, ties broken by … in ascending order", NULL placement included. */
export function order(d: DescribeContext, items: readonly SortItem[]): string {
  if (items.length === 0) return '';
  const keys = items.map((item) => {
    const k = orderKey(d, item);
    const dir = item.direction === 'desc' ? 'in descending order' : 'in ascending order';
    // PostgreSQL sorts NULLs as larger than every value, unless NULLS FIRST/LAST says otherwise.
    const explicit = 'nulls' in item ? item.nulls : undefined;
    const first = explicit ? explicit === 'first' : item.direction === 'desc';
    const said = first ? 'missing values first' : 'missing values last';
    const nulls = k.nullable || explicit ? `, ${said}` : '';
    if (k.nullable || explicit) mention(d, 'order-nulls', [said], [said.replace(' values', '')]);
    return `${k.text} ${dir}${nulls}`;
  });
  mention(d, 'order', ['sorted by'], ['sort them by']);
  if (keys.length === 1) return `, sorted by ${keys[0]}`;
  mention(d, 'tie-break', ['ties broken by'], ['ties by'], ['ties are broken by']);
  return `, sorted by ${keys[0]}, ties broken by ${listing(keys.slice(1), 'then by')}`;
}

/** ", keeping only the first 50 rows", or ", at most 50 rows" without an order. */
export function limit(d: DescribeContext, n: number | undefined, ordered: boolean): string {
  if (n === undefined) return '';
  mention(d, 'limit', [n === 1 ? 'first row' : String(n)]);
  if (!ordered) return `, at most ${n} row${n === 1 ? '' : 's'}`;
  return n === 1 ? ', keeping only the first row' : `, keeping only the first ${n} rows`;
}
