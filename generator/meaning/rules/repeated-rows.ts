/**
 * No list whose rows repeat once per object of the FROM entity when the query neither shows
 * nor filters on that entity: "the last name of the employee, for every product, paired
 * with each employee who recommends it" lists each name once per recommendation, which no
 * one asks. DISTINCT, an aggregate, a grouping, or showing the FROM entity gives the rows a
 * meaning; so does a join that reaches at most one partner (each row is one object still).
 */
import type { SelectQuery } from '../../query/conceptual-query.ts';
import { hasAggregate } from '../../query/query-scope.ts';
import type { MeaningCheck } from '../meaning-check.ts';
import { visit, type QueryMeaning } from '../query-meaning.ts';

function reads(parts: readonly unknown[], alias: string): boolean {
  let found = false;
  visit(parts, (n) => {
    if (n.kind !== 'relationship' && n.kind !== 'elements' && n['alias'] === alias) found = true;
  });
  return found;
}

function fault(m: QueryMeaning, q: SelectQuery): string | undefined {
  const joins = q.joins ?? [];
  if (q.distinct || joins.length === 0 || (q.groupBy ?? []).length > 0 || q.select.some((o) => hasAggregate(o.expr)))
    return undefined;
  const base = q.from.alias;
  if (reads([q.select, q.where, q.qualify, q.orderBy], base)) return undefined;
  const fromBase = joins.filter((j) => (j.kind === 'relationship' ? j.from : j.of) === base);
  const toMany = fromBase.some((j) => {
    if (j.kind === 'elements') return true;
    const c = m.index.relationship(j.relationship).cardinality;
    return !(c === 'one-to-one' || (c === 'many-to-one' && j.direction === 'forward'));
  });
  // Reached from many FROM objects, a partner appears once per object that reaches it.
  const many = joins.some((j) => {
    if (j.kind !== 'relationship') return false;
    const c = m.index.relationship(j.relationship).cardinality;
    return c === 'many-to-many' || (c === 'many-to-one' && j.direction === 'forward');
  });
  return toMany || many
    ? `rows repeat once per ${q.from.entity} ${base}, which the query neither shows nor filters on`
    : undefined;
}

export const repeatedRows: MeaningCheck = {
  rule: 'repeated-rows',
  // The rows of the answer only: a subquery's repeats change nothing, and a set operation's arms are judged by it.
  query: (m) => {
    const x = m.query.kind === 'select' ? fault(m, m.query) : undefined;
    return x ? [x] : [];
  },
};
