/**
 * SQLStructEval's logical-operator normalization: nested ANDs become one list of
 * conjuncts, sorted by their SQL text, rebuilt left-deep. `a AND b` and `b AND a` then
 * print the same. OR is left as written, as the paper does.
 */
import type { Expr, Query } from '../../sql/sql-ast.ts';
import { printExpr } from '../../sql/sql-printer.ts';
import { transformQuery } from '../query-transform.ts';

function conjuncts(expr: Expr): Expr[] {
  return expr.kind === 'logical' && expr.op === 'and' ? [...conjuncts(expr.left), ...conjuncts(expr.right)] : [expr];
}

export function sortConjuncts(query: Query): Query {
  return transformQuery(query, {
    expr: (expr) => {
      if (expr.kind !== 'logical' || expr.op !== 'and') return expr;
      const keyed = conjuncts(expr).map((c) => ({ c, key: printExpr(c).toLowerCase() }));
      keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      const [first, ...rest] = keyed.map((k) => k.c);
      return rest.reduce<Expr>((left, right) => ({ kind: 'logical', op: 'and', left, right }), first as Expr);
    },
  });
}
