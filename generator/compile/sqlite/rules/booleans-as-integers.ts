import type { SqlQuery } from '../../sql-tree.ts';
import { literal } from '../../sql-tree.ts';
import { rewriteQuery } from '../../sql-tree-walk.ts';

/**
 * Booleans as SQLite stores them, 1 and 0: `coalesce(x, FALSE)` is `coalesce(x, 0)`,
 * `c.verified = TRUE` is `c.verified = 1`. (A LEFT JOIN's `ON TRUE` is the printer's.)
 */
export function booleansAsIntegers(tree: SqlQuery): SqlQuery {
  return rewriteQuery(tree, {
    expr: (e) => (e.kind === 'literal' && typeof e.value === 'boolean' ? literal(e.value ? 1 : 0) : e),
  });
}
