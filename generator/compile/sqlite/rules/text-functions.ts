import { DialectError } from '../../../common/errors.ts';
import type { SqlQuery } from '../../sql-tree.ts';
import { rewriteQuery } from '../../sql-tree-walk.ts';

/**
 * PostgreSQL's text functions under SQLite's names: `strpos(x, 'a')` is `instr(x, 'a')` (both
 * 1-based, 0 when absent). `substring` and `length` keep theirs (both count characters).
 * `lower` and `upper` are refused: SQLite folds ASCII letters only, PostgreSQL under a UTF-8
 * locale every letter (`lower('ÉCOLE')` is `école` there, `École` in SQLite).
 */
export function textFunctions(tree: SqlQuery): SqlQuery {
  return rewriteQuery(tree, {
    expr: (e) => {
      if (e.kind !== 'call') return e;
      if (e.name === 'lower' || e.name === 'upper')
        throw new DialectError('sqlite', `${e.name}()`, 'SQLite folds ASCII letters only');
      return e.name === 'strpos' ? { ...e, name: 'instr' } : e;
    },
  });
}
