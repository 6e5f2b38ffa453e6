import type { SqlExpr, SqlFromItem, SqlJoin, SqlQuery, SqlSelect, SqlSubquery } from '../../sql-tree.ts';
import { call, column, emptySelect, isBoolean, literal } from '../../sql-tree.ts';
import { rewriteQuery } from '../../sql-tree-walk.ts';
import { DialectError } from '../../../common/errors.ts';

/**
 * Multi-valued attributes stored in the owner's row. SQLite has neither arrays nor JSONB: both
 * encodings are a JSON array in a TEXT column (see `sqlite-storage.ts`), read through
 * `json_each`, whose `value` column is each element with its JSON type (a number is an
 * INTEGER, a string TEXT, true 1):
 *
 * | PostgreSQL | SQLite |
 * |---|---|
 * | `CROSS JOIN unnest(p.tags) AS t(value)`, `jsonb_array_elements_text(…)` | `CROSS JOIN json_each(p.tags) AS t` |
 * | `'red' = ANY (p.colors)`, `p.colors @> '["red"]'::jsonb` | `'red' IN (SELECT value FROM json_each(p.colors))` |
 * | `cardinality(p.tags)`, `jsonb_array_length(p.tags)` | `json_array_length(p.tags)` |
 * | `ARRAY(SELECT … FROM jsonb_array_elements_text(p.tags) …)`, `coalesce(p.tags, '{}')` | `coalesce(p.tags, '[]')` (an absent set is empty, as in PostgreSQL) |
 * | `ARRAY(SELECT t.tag FROM tags AS t WHERE …)` | `(SELECT json_group_array(t.tag) FROM tags AS t WHERE …)` |
 * | `t.value::integer` on an element | `t.value` (a JSON number is one); a numeric's `CAST(t.value AS REAL)` |
 */
export function setsThroughJsonEach(tree: SqlQuery): SqlQuery {
  const elementAliases = new Set<string>();
  // Aliases of the element functions, wherever they are: an element is read where it is joined.
  rewriteQuery(tree, {
    select: (q) => {
      for (const item of [q.from, ...q.joins.map((j) => j.item)])
        if (item.kind === 'function') elementAliases.add(item.alias);
      return q;
    },
  });
  return rewriteQuery(tree, {
    expr: (e) => rewriteSetExpr(e, elementAliases),
    select: (q) => {
      const from = jsonEachItem(q.from);
      const joins = q.joins.map((j): SqlJoin => {
        const item = jsonEachItem(j.item);
        if (item === j.item) return j;
        // ON TRUE of a LEFT JOIN is the printer's to write.
        return { ...j, item, on: j.on.filter((c) => !isBoolean(c, true)) };
      });
      const changed = from !== q.from || joins.some((j, i) => j !== q.joins[i]);
      return changed ? { ...q, from, joins } : q;
    },
  });
}

const ELEMENT_FUNCTIONS = new Set(['unnest', 'jsonb_array_elements_text']);

function jsonEachItem(item: SqlFromItem): SqlFromItem {
  if (item.kind !== 'function' || !ELEMENT_FUNCTIONS.has(item.call.name)) return item;
  return { kind: 'function', call: { ...item.call, name: 'json_each' }, alias: item.alias };
}

/** `(SELECT value FROM json_each(x))`: the elements of a stored set. */
function elementsOf(nested: SqlExpr): SqlSubquery {
  const q: SqlSelect = {
    ...emptySelect({ kind: 'function', call: call('json_each', nested), alias: 'json_each' }),
    columns: [{ expr: column(undefined, 'value') }],
  };
  return { kind: 'subquery', layout: 'line', query: q };
}

function rewriteSetExpr(e: SqlExpr, elementAliases: ReadonlySet<string>): SqlExpr {
  switch (e.kind) {
    case 'binary':
      if (e.op === '=' && e.right.kind === 'any')
        return { kind: 'in', arg: e.left, values: elementsOf(e.right.arg), negated: false };
      if (e.op === '@>') {
        const probe = e.right.kind === 'cast' ? e.right.arg : e.right;
        if (probe.kind !== 'literal' || typeof probe.value !== 'string')
          throw new DialectError('sqlite', 'jsonb containment of a computed value', 'only a literal can be probed');
        const values = JSON.parse(probe.value) as unknown[];
        if (values.length !== 1) throw new DialectError('sqlite', 'jsonb containment of several values', probe.value);
        const value = values[0];
        if (typeof value !== 'string' && typeof value !== 'number')
          throw new DialectError('sqlite', 'jsonb containment of a non-scalar', probe.value);
        return { kind: 'in', arg: literal(value), values: elementsOf(e.left), negated: false };
      }
      return e;
    case 'call':
      if ((e.name === 'cardinality' || e.name === 'jsonb_array_length') && !e.over)
        return { ...e, name: 'json_array_length' };
      if (e.name === 'coalesce' && e.args.length === 2 && e.args[1]?.kind === 'literal' && e.args[1].value === '{}')
        return { ...e, args: [e.args[0] as SqlExpr, literal('[]')] };
      return e;
    case 'cast':
      if (
        e.arg.kind === 'column' &&
        e.arg.name === 'value' &&
        e.arg.table !== undefined &&
        elementAliases.has(e.arg.table)
      ) {
        // Integers and booleans come out of JSON typed; dates and timestamps are the text stored.
        return /^numeric/u.test(e.type) || e.type === 'real' ? { kind: 'cast', arg: e.arg, type: 'REAL' } : e.arg;
      }
      return e;
    case 'array': {
      const q = e.query.query;
      if (q.kind !== 'select')
        throw new DialectError('sqlite', 'ARRAY of a set operation', 'no JSON aggregate over it');
      // The stored JSON array is the set itself; a missing one (a LEFT JOIN's absent partner) is
      // PostgreSQL's empty ARRAY(…), not NULL.
      if (
        q.from.kind === 'function' &&
        q.from.call.name === 'json_each' &&
        q.where.length === 0 &&
        q.joins.length === 0
      )
        return call('coalesce', q.from.call.args[0] as SqlExpr, literal('[]'));
      const only = q.columns.length === 1 ? q.columns[0] : undefined;
      if (!only) throw new DialectError('sqlite', 'ARRAY of several columns', 'no JSON aggregate over it');
      return {
        kind: 'subquery',
        layout: e.query.layout,
        query: { ...q, columns: [{ expr: call('json_group_array', only.expr) }] },
      };
    }
    default:
      return e;
  }
}
