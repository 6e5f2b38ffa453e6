import { DialectError } from '../../../common/errors.ts';
import type { RelationalSchema } from '../../../variants/relational-schema.ts';
import type { SqlExpr, SqlFromItem, SqlOrderItem, SqlQuery, SqlSelect, SqlSet } from '../../sql-tree.ts';
import { rewriteQuery } from '../../sql-tree-walk.ts';
import { columnOrigin, firstArm, outputOf, withQueries } from '../column-origin.ts';

/**
 * ORDER BY an output named by its column. PostgreSQL reads a bare `ORDER BY id` as the output
 * column `id`; SQLite takes a bare name as an output only when an `AS` gave it, and otherwise
 * as a column of the tables, ambiguous when two have one. So an ORDER BY name that is an
 * unaliased output `u.id` orders by `u.id`; after a UNION, INTERSECT or EXCEPT, where only an
 * output can be named, the first arm's output is given its name (`u1.id AS id`).
 *
 * An array (a set stored in its owner's row, or gathered by `ARRAY(…)`) is refused as an
 * ORDER BY key: PostgreSQL orders arrays element by element, SQLite the JSON text that holds
 * them (`[]` after `["480p"]`).
 *
 * @example
 * // SELECT u.id FROM users AS u JOIN orders AS o ON … ORDER BY id  →  … ORDER BY u.id
 * // SELECT a.id FROM a JOIN … UNION SELECT b.id FROM b JOIN … ORDER BY id  →  SELECT a.id AS id … ORDER BY id
 */
export function orderByColumns(tree: SqlQuery, schema?: RelationalSchema): SqlQuery {
  refuseArrayKeys(tree, schema);
  const named = rewriteQuery(tree, {
    select: (q) => {
      const from = compoundItem(q.from);
      const joins = q.joins.map((j) => {
        const item = compoundItem(j.item);
        return item === j.item ? j : { ...j, item };
      });
      const inner = from !== q.from || joins.some((j, i) => j !== q.joins[i]) ? { ...q, from, joins } : q;
      if (!inner.orderBy.some((o) => bareName(o.expr) !== undefined)) return inner;
      const orderBy = inner.orderBy.map((o): SqlOrderItem => {
        const name = bareName(o.expr);
        if (name === undefined || inner.columns.some((c) => c.alias === name)) return o;
        const output = inner.columns.find(
          (c) => c.alias === undefined && c.expr.kind === 'column' && c.expr.name === name,
        );
        return output ? { ...o, expr: output.expr } : o;
      });
      return { ...inner, orderBy };
    },
  });
  return named.kind === 'set' ? compoundOrder(named) : named;
}

function bareName(e: SqlExpr): string | undefined {
  return e.kind === 'column' && e.table === undefined ? e.name : undefined;
}

function compoundItem(item: SqlFromItem): SqlFromItem {
  return item.kind === 'derived' && item.query.kind === 'set' ? { ...item, query: compoundOrder(item.query) } : item;
}

/** A compound's ORDER BY names: each an alias of the first arm, which SQLite matches whatever the arms join. */
function compoundOrder(q: SqlSet): SqlSet {
  const left = q.left.kind === 'set' ? compoundOrder(q.left) : q.left;
  const right = q.right.kind === 'set' ? compoundOrder(q.right) : q.right;
  const names = q.orderBy.map((o) => bareName(o.expr)).filter((n): n is string => n !== undefined);
  return { ...q, left: names.reduce(aliasFirstArm, left), right };
}

function aliasFirstArm(q: SqlQuery, name: string): SqlQuery {
  if (q.kind === 'set') return { ...q, left: aliasFirstArm(q.left, name) };
  if (q.columns.some((c) => c.alias === name)) return q;
  const at = q.columns.findIndex((c) => c.alias === undefined && c.expr.kind === 'column' && c.expr.name === name);
  return at < 0 ? q : { ...q, columns: q.columns.map((c, i) => (i === at ? { ...c, alias: name } : c)) };
}

/** Refuses an ORDER BY key that is an array, in any SELECT of the tree. */
function refuseArrayKeys(tree: SqlQuery, schema: RelationalSchema | undefined): void {
  const ctes = withQueries(tree);
  const arrayColumn = (q: SqlSelect, e: SqlExpr): boolean => {
    // ARRAY(…) as PostgreSQL says it, or the JSON array the sets rule made of it.
    if (e.kind === 'array') return true;
    if (e.kind === 'call' && e.name === 'coalesce' && e.args[0] !== undefined && arrayColumn(q, e.args[0])) return true;
    if (
      e.kind === 'subquery' &&
      e.query.kind === 'select' &&
      e.query.columns[0]?.expr.kind === 'call' &&
      e.query.columns[0].expr.name === 'json_group_array'
    )
      return true;
    if (e.kind !== 'column' || schema === undefined) return false;
    const origin = columnOrigin(q, e, ctes, schema);
    // A derived table's or a WITH query's column is its first arm's output of that name.
    if (origin?.kind === 'output') return arrayColumn(origin.arm, origin.expr);
    const type = origin?.sqlType;
    return type !== undefined && (type.endsWith('[]') || type === 'jsonb');
  };
  const keyOf = (q: SqlSelect, o: SqlOrderItem): SqlExpr => {
    const name = bareName(o.expr);
    return (name === undefined ? undefined : outputOf(q, name)) ?? o.expr;
  };
  const check = (q: SqlSelect, items: readonly SqlOrderItem[]): void => {
    for (const o of items)
      if (arrayColumn(q, keyOf(q, o)))
        throw new DialectError(
          'sqlite',
          'ORDER BY an array',
          'SQLite orders the JSON text that holds it, not its elements',
        );
  };
  if (tree.kind === 'set') check(firstArm(tree), tree.orderBy);
  rewriteQuery(tree, {
    select: (q) => {
      check(q, q.orderBy);
      for (const item of [q.from, ...q.joins.map((j) => j.item)])
        if (item.kind === 'derived' && item.query.kind === 'set') check(firstArm(item.query), item.query.orderBy);
      return q;
    },
  });
}
