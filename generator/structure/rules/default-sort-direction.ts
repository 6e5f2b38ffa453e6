/**
 * `ORDER BY x ASC` is `ORDER BY x`: ascending is the default, so the explicit keyword is
 * dropped. (An addition to SQLStructEval's list, which keeps surface keywords.)
 */
import type { OrderItem, Query } from '../../sql/sql-ast.ts';
import { transformQuery } from '../query-transform.ts';

export function defaultSortDirection(query: Query): Query {
  const drop = (items: readonly OrderItem[]): OrderItem[] =>
    items.map((o) => ({ ...o, direction: o.direction === 'asc' ? null : o.direction }));
  return transformQuery(query, {
    select: (select) => ({ ...select, orderBy: drop(select.orderBy) }),
    compound: (compound) => ({ ...compound, orderBy: drop(compound.orderBy) }),
  });
}
