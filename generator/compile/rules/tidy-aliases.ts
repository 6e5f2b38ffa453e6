import type { SqlQuery, SqlSelect } from '../sql-tree.ts';
import { rewriteQuery } from '../sql-tree-walk.ts';

/**
 * A column read under its own name needs no `AS`: `t.tag AS tag` is `t.tag`, a bare
 * `count AS count` is `count`. PostgreSQL names the output after the column either way.
 *
 * @example
 * // SELECT st.tag AS tag, count(*) AS tag_count  →  SELECT st.tag, count(*) AS tag_count
 */
export function tidyAliases(tree: SqlQuery): SqlQuery {
  return rewriteQuery(tree, {
    select: (q: SqlSelect): SqlSelect => {
      if (!q.columns.some((c) => c.alias !== undefined && c.expr.kind === 'column' && c.expr.name === c.alias))
        return q;
      return {
        ...q,
        columns: q.columns.map((c) =>
          c.alias !== undefined && c.expr.kind === 'column' && c.expr.name === c.alias ? { expr: c.expr } : c,
        ),
      };
    },
  });
}
