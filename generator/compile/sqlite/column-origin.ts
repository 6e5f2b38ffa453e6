import type { RelationalSchema } from '../../variants/relational-schema.ts';
import type { SqlColumn, SqlExpr, SqlQuery, SqlSelect } from '../sql-tree.ts';
import { rewriteQuery } from '../sql-tree-walk.ts';

/**
 * Where a column of a SELECT comes from, for the dialect rules that depend on what it holds:
 * a table's column (with its PostgreSQL type, where the schema names the table), or an output
 * of a derived table or WITH query (the first arm's, which names the columns).
 */
export type ColumnOrigin =
  | { readonly kind: 'table'; readonly sqlType: string | undefined }
  | { readonly kind: 'output'; readonly query: SqlQuery; readonly arm: SqlSelect; readonly expr: SqlExpr };

/** The WITH queries a FROM anywhere in the tree may name. */
export function withQueries(tree: SqlQuery): ReadonlyMap<string, SqlQuery> {
  const ctes = new Map<string, SqlQuery>();
  rewriteQuery(tree, {
    select: (q) => {
      for (const c of q.with ?? []) ctes.set(c.name, c.query);
      return q;
    },
  });
  return ctes;
}

/** The first SELECT of a query, whose outputs name a compound's columns. */
export function firstArm(q: SqlQuery): SqlSelect {
  return q.kind === 'set' ? firstArm(q.left) : q;
}

/** Every SELECT of a query, left to right: a compound's arms. */
function armsOf(q: SqlQuery): SqlSelect[] {
  return q.kind === 'set' ? [...armsOf(q.left), ...armsOf(q.right)] : [q];
}

/** The expression of `arm`'s output named `name`: its alias, or a bare column of that name. */
export function outputOf(arm: SqlSelect, name: string): SqlExpr | undefined {
  return arm.columns.find(
    (c) => c.alias === name || (c.alias === undefined && c.expr.kind === 'column' && c.expr.name === name),
  )?.expr;
}

/** The origin of column `e` read in `q`; undefined where no FROM item of `q` is its. */
export function columnOrigin(
  q: SqlSelect,
  e: SqlColumn,
  ctes: ReadonlyMap<string, SqlQuery>,
  schema: RelationalSchema | undefined,
): ColumnOrigin | undefined {
  const items = [q.from, ...q.joins.map((j) => j.item)];
  // A bare column is the only item's, when there is one.
  const item =
    e.table === undefined ? (items.length === 1 ? items[0] : undefined) : items.find((i) => i.alias === e.table);
  const inner = item?.kind === 'derived' ? item.query : item?.kind === 'table' ? ctes.get(item.name) : undefined;
  if (inner !== undefined) {
    const arm = firstArm(inner);
    const expr = outputOf(arm, e.name);
    return expr === undefined || expr === e ? undefined : { kind: 'output', query: inner, arm, expr };
  }
  if (item?.kind !== 'table') return undefined;
  const sqlType = schema?.tables.find((t) => t.name === item.name)?.columns.find((c) => c.name === e.name)?.sqlType;
  return { kind: 'table', sqlType };
}

/**
 * The PostgreSQL type of column `e` read in `q`, followed through derived tables; undefined
 * where unknown, or where a compound's arms give the column different types.
 */
export function columnType(
  q: SqlSelect,
  e: SqlColumn,
  ctes: ReadonlyMap<string, SqlQuery>,
  schema: RelationalSchema | undefined,
): string | undefined {
  const origin = columnOrigin(q, e, ctes, schema);
  if (origin?.kind === 'table') return origin.sqlType;
  if (origin?.kind !== 'output') return undefined;
  const at = origin.arm.columns.findIndex((c) => c.expr === origin.expr);
  const types = armsOf(origin.query).map((arm) => {
    const expr = arm.columns[at]?.expr;
    return expr?.kind === 'column' ? columnType(arm, expr, ctes, schema) : undefined;
  });
  return types.every((t) => t === types[0]) ? types[0] : undefined;
}
