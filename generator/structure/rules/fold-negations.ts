/**
 * `NOT x LIKE y` and `x NOT LIKE y` are one construct (sqlglot, which SQLStructEval uses,
 * parses both to the same node); so are `NOT x IN …`, `NOT x BETWEEN …`, `NOT EXISTS …`
 * and `NOT x IS NULL`. The NOT is folded into the node's own negation, and a double NOT
 * cancels (also under SQL's three-valued logic).
 */
import type { Query } from '../../sql/sql-ast.ts';
import { transformQuery } from '../query-transform.ts';

export function foldNegations(query: Query): Query {
  return transformQuery(query, {
    expr: (expr) => {
      if (expr.kind !== 'not') return expr;
      const inner = expr.operand;
      switch (inner.kind) {
        case 'like':
        case 'in-list':
        case 'in-subquery':
        case 'between':
        case 'exists':
        case 'is-null':
          return { ...inner, negated: !inner.negated };
        case 'not':
          return inner.operand;
        default:
          return expr;
      }
    },
  });
}
