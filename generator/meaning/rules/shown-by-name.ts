/**
 * A listed row shows what it is about: a name, an identifier or a contact of some object
 * (SELECT * shows the id), beside any measure. A bare list of prices, of rounded numbers or
 * of tags says nothing a reader can use; a DISTINCT list of categories or names is a list of
 * kinds and needs nothing more. Rows the WHERE clause picks out by a name ("the duration of
 * 'Gone with the Wind'") are named by it; a single row (LIMIT 1) is one value asked for.
 * Grouped rows are shown by their keys; one row of aggregates needs no name.
 */
import type { Query, SelectQuery } from '../../query/conceptual-query.ts';
import { hasAggregate } from '../../query/query-scope.ts';
import type { MeaningCheck } from '../meaning-check.ts';
import { conjuncts, refOf, shownRef, type QueryMeaning } from '../query-meaning.ts';

const NAMING = ['name', 'identifier', 'contact'];
const KINDS = ['name', 'category', 'flag', 'date', 'identifier', 'contact'];

/** The SELECTs whose rows are the answer: the query, or the arms of a set operation. */
export function listedSelects(q: Query): SelectQuery[] {
  return q.kind === 'select' ? [q] : [...listedSelects(q.left), ...listedSelects(q.right)];
}

function fault(m: QueryMeaning, q: SelectQuery): string | undefined {
  if ((q.groupBy ?? []).length > 0 || q.select.some((o) => hasAggregate(o.expr)) || q.limit === 1) return undefined;
  const namedByWhere = conjuncts(q.where).some((p) => {
    const ref = p.kind === 'compare' && p.op === '=' && p.right.kind === 'literal' ? refOf(m, p.left) : undefined;
    return ref !== undefined && NAMING.includes(ref.role.kind);
  });
  if (namedByWhere) return undefined;
  const refs = q.select.map((o) => shownRef(m, o.expr));
  if (refs.some((r) => r !== undefined && NAMING.includes(r.role.kind))) return undefined;
  if (q.distinct && refs.every((r) => r !== undefined && KINDS.includes(r.role.kind))) return undefined;
  // The kind of each object (its subclass) names what it is in a hierarchy.
  if (
    q.distinct &&
    q.select.every((o) => o.expr.kind === 'classOf' || o.expr.kind === 'extract' || o.expr.kind === 'dateTrunc')
  )
    return undefined;
  return `rows of ${q.select.map((o) => o.name).join(', ')} show nothing that names them`;
}

export const shownByName: MeaningCheck = {
  rule: 'shown-by-name',
  query: (m) =>
    listedSelects(m.query)
      .map((q) => fault(m, q))
      .filter((x): x is string => x !== undefined),
};
