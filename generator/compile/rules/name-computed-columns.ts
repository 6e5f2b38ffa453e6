import { snakeCase, type ErIndex } from '../../er-model/er-index.ts';
import type { Expr, Join, OutputColumn, Query, SelectQuery } from '../../query/conceptual-query.ts';

/**
 * A count's output is named by what it counts, from the model's lexicon: `channel_count`,
 * `tag_count`, not `count`. An output called after its bare function (`count`, `count_2`,
 * `sum`…) is renamed, and so is every ORDER BY that names it; a name the query already uses
 * gets a number. Under a set operation the arms count objects of one family, and the
 * column is named after the first arm.
 *
 * This rule reads the conceptual query (it runs before lowering): only there is it known
 * which entity a row stands for, the same on every variant.
 *
 * @example
 * // { from: { entity: 'Channel', alias: 'c' }, select: [{ name: 'count', expr: { kind: 'aggregate', fn: 'count' } }] }
 * // → SELECT count(*) AS channel_count FROM channel AS c
 */
export function nameComputedColumns(query: Query, index: ErIndex): Query {
  if (query.kind === 'set') {
    const left = nameComputedColumns(query.left, index);
    const renames = renamesOf(first(query), first(left));
    const right = nameComputedColumns(query.right, index);
    const orderBy = query.orderBy?.map((o) => ({ ...o, name: renames.get(o.name) ?? o.name }));
    return { ...query, left, right, ...(orderBy ? { orderBy } : {}) };
  }
  return nameSelect(query, index);
}

const GENERIC = /^(count|sum|avg|min|max)(_\d+)?$/u;

function first(q: Query): SelectQuery {
  return q.kind === 'set' ? first(q.left) : q;
}

function renamesOf(before: SelectQuery, after: SelectQuery): Map<string, string> {
  return new Map(before.select.map((c, i) => [c.name, after.select[i]?.name ?? c.name]));
}

function nameSelect(q: SelectQuery, index: ErIndex): SelectQuery {
  if (!q.select.some((c) => GENERIC.test(c.name))) return q;
  const taken = new Set(q.select.map((c) => c.name));
  const renames = new Map<string, string>();
  const select = q.select.map((c): OutputColumn => {
    if (!GENERIC.test(c.name)) return c;
    const proposal = proposedName(c.expr, q, index);
    if (proposal === undefined) return c;
    let name = proposal;
    for (let i = 2; taken.has(name); i++) name = `${proposal}_${i}`;
    taken.add(name);
    renames.set(c.name, name);
    return { ...c, name };
  });
  if (renames.size === 0) return q;
  const orderBy = q.orderBy?.map((o) =>
    o.expr.kind === 'output' && renames.has(o.expr.name)
      ? { ...o, expr: { kind: 'output' as const, name: renames.get(o.expr.name) as string } }
      : o,
  );
  return { ...q, select, ...(orderBy ? { orderBy } : {}) };
}

/** `<noun>_count` for a count, from what its rows or its argument stand for. */
function proposedName(e: Expr, q: SelectQuery, index: ErIndex): string | undefined {
  if (e.kind !== 'aggregate' || e.fn !== 'count' || e.distinct) return undefined;
  if (e.arg === undefined) return `${rowNoun(q, index)}_count`;
  if (e.arg.kind === 'attribute')
    return e.arg.attribute === 'id' ? `${aliasNoun(q, e.arg.alias, index) ?? 'row'}_count` : `${e.arg.attribute}_count`;
  if (e.arg.kind === 'element') return `${aliasNoun(q, e.arg.alias, index) ?? 'element'}_count`;
  return undefined;
}

/** What one row of the query stands for: the last join's alias (the many side), else the FROM entity. */
function rowNoun(q: SelectQuery, index: ErIndex): string {
  const joins = q.joins ?? [];
  const last = joins[joins.length - 1];
  return (last ? aliasNoun(q, last.alias, index) : undefined) ?? entityNoun(q.from.entity, index);
}

function aliasNoun(q: SelectQuery, alias: string, index: ErIndex): string | undefined {
  if (q.from.alias === alias) return entityNoun(q.from.entity, index);
  const j: Join | undefined = (q.joins ?? []).find((x) => x.alias === alias);
  if (!j) return undefined;
  if (j.kind === 'relationship') return entityNoun(j.entity, index);
  const owner =
    j.of === q.from.alias ? q.from.entity : (q.joins ?? []).find((x) => x.alias === j.of && x.kind === 'relationship');
  const entity = typeof owner === 'string' ? owner : owner?.kind === 'relationship' ? owner.entity : undefined;
  const attribute = entity
    ? index.allAttributes(entity).find((a) => a.attribute.name === j.attribute)?.attribute
    : undefined;
  return attribute?.lexicon ? snakeCase(attribute.lexicon.singular) : singular(j.attribute);
}

function entityNoun(entity: string, index: ErIndex): string {
  return snakeCase(index.entity(entity).lexicon.singular).replace(/[^a-z0-9_]/gu, '_');
}

/** `tags` → `tag`, `phone_nos` → `phone_no`: a set attribute's name made singular. */
function singular(name: string): string {
  return name.replace(/ies$/u, 'y').replace(/(?<!s)s$/u, '');
}
