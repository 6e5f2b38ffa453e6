import type { SqlBinaryOperator, SqlExpr, SqlQuery } from '../sql-tree.ts';
import { rewriteQuery } from '../sql-tree-walk.ts';

const INVERSE: Partial<Record<SqlBinaryOperator, SqlBinaryOperator>> = {
  '=': '<>',
  '<>': '=',
  '<': '>=',
  '>=': '<',
  '>': '<=',
  '<=': '>',
};

/**
 * NOT before a condition that has its own negation is written as that negation: `NOT (x = v)`
 * is `x <> v`, `NOT (x IS NULL)` is `x IS NOT NULL`, `NOT (x IN (…))` is `x NOT IN (…)`,
 * and the same for LIKE, BETWEEN and EXISTS. Each pair is NULL on the same rows, so the
 * rewrite holds in SQL's three-valued logic. A comparison with ANY keeps its NOT.
 *
 * @example
 * // WHERE NOT (p.category = 'Shoes')  →  WHERE p.category <> 'Shoes'
 */
export function negateComparisons(tree: SqlQuery): SqlQuery {
  return rewriteQuery(tree, { expr: negate });
}

function negate(e: SqlExpr): SqlExpr {
  if (e.kind !== 'not') return e;
  let arg = e.arg;
  while (arg.kind === 'paren') arg = arg.arg;
  switch (arg.kind) {
    case 'binary': {
      // NOT (v = ANY (a)) is not v <> ANY (a): one says no element equals v, the other that one differs.
      const op = INVERSE[arg.op];
      return op && arg.left.kind !== 'any' && arg.right.kind !== 'any' ? { ...arg, op } : e;
    }
    case 'isNull':
    case 'in':
    case 'like':
    case 'between':
    case 'exists':
      return { ...arg, negated: !arg.negated };
    case 'not':
      return arg.arg;
    default:
      return e;
  }
}
