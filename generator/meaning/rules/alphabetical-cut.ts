/**
 * No alphabetical order cut by a LIMIT: "the first product by name" asks for nothing but the
 * collation's idea of "first". An order on text without a LIMIT (a sorted list) is fine.
 */
import type { Expr, Query } from '../../query/conceptual-query.ts';
import type { MeaningCheck } from '../meaning-check.ts';
import { refOf, type QueryMeaning } from '../query-meaning.ts';

function isText(m: QueryMeaning, e: Expr): boolean {
  if (
    e.kind === 'classOf' ||
    e.kind === 'setArray' ||
    e.kind === 'substring' ||
    (e.kind === 'textFunction' && e.fn !== 'length')
  )
    return true;
  if (e.kind === 'coalesce') return e.args[0] !== undefined && isText(m, e.args[0]);
  const ref = refOf(m, e);
  return ref?.attribute !== undefined && (ref.attribute.type.kind === 'text' || ref.attribute.type.kind === 'enum');
}

function outputExpr(q: Query, name: string): Expr | undefined {
  return q.kind === 'select' ? q.select.find((o) => o.name === name)?.expr : outputExpr(q.left, name);
}

export const alphabeticalCut: MeaningCheck = {
  rule: 'alphabetical-cut',
  query: (m) => {
    const q = m.query;
    if (q.limit === undefined) return [];
    const first = q.orderBy?.[0];
    if (!first) return [];
    const expr =
      'name' in first
        ? outputExpr(q, first.name)
        : first.expr.kind === 'output'
          ? outputExpr(q, first.expr.name)
          : first.expr;
    return expr && isText(m, expr) ? [`an order by text cut by LIMIT ${q.limit}`] : [];
  },
};
