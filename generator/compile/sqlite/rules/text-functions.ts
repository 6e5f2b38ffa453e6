import type { SqlQuery } from '../../sql-tree.ts';
import { rewriteQuery } from '../../sql-tree-walk.ts';

/**
 * PostgreSQL's text functions under SQLite's names: `strpos(x, 'a')` is `instr(x, 'a')` (both
 * 1-based, 0 when absent). `substring`, `lower`, `upper`, `length` keep theirs (SQLite's
 * lower and upper fold ASCII only, as the C collation PostgreSQL runs under here does).
 */
export function textFunctions(tree: SqlQuery): SqlQuery {
  return rewriteQuery(tree, { expr: (e) => (e.kind === 'call' && e.name === 'strpos' ? { ...e, name: 'instr' } : e) });
}
