import { printExpr } from '../print-sql.ts';
import type { SqlBinaryOperator, SqlExpr, SqlQuery, SqlSelect } from '../sql-tree.ts';
import { rewriteQuery } from '../sql-tree-walk.ts';

/**
 * A condition that the others of its clause imply goes (WHERE, HAVING, ON, FILTER: lists
 * whose conditions are ANDed and whose rows are kept only where all are true):
 *
 * - `x IS NOT NULL` beside a comparison, IN, LIKE or BETWEEN on `x`, which is not true on NULL;
 * - a bound on `x` that a stronger bound on `x` implies (`x >= 53 AND x > 34` keeps
 *   `x >= 53`), and any bound that `x = c` satisfies.
 *
 * Only whole clauses are read: inside NOT or OR the same conditions are not redundant.
 *
 * @example
 * // WHERE o.customer_id IS NOT NULL AND o.customer_id = c.id  →  WHERE o.customer_id = c.id
 * // HAVING count(*) >= 53 AND count(*) > 34                     →  HAVING count(*) >= 53
 */
export function dropImpliedPredicates(tree: SqlQuery): SqlQuery {
  return rewriteQuery(tree, {
    select: (q: SqlSelect): SqlSelect => {
      const where = simplify(q.where);
      const having = simplify(q.having);
      const joins = q.joins.map((j) => {
        const on = simplify(j.on);
        return on === j.on ? j : { ...j, on };
      });
      if (where === q.where && having === q.having && joins.every((j, i) => j === q.joins[i])) return q;
      return { ...q, where, having, joins };
    },
    expr: (e) => {
      if (e.kind !== 'call' || !e.filter) return e;
      const filter = simplify(e.filter);
      return filter === e.filter ? e : { ...e, filter };
    },
  });
}

/** A key for an expression: a column's name, or the expression's text. */
function keyOf(e: SqlExpr): string {
  return e.kind === 'column' ? `${e.table ?? ''}.${e.name}` : printExpr(e);
}

const STRICT_COMPARISONS = new Set<SqlBinaryOperator>(['=', '<>', '<', '<=', '>', '>=']);

/** The expressions a condition is not true without (NULL in any of them: not true). */
function strictOperands(c: SqlExpr): SqlExpr[] {
  switch (c.kind) {
    case 'binary':
      return STRICT_COMPARISONS.has(c.op) ? [c.left, c.right] : [];
    case 'in':
    case 'like':
      return [c.arg];
    case 'between':
      return [c.arg, c.low, c.high];
    default:
      return [];
  }
}

interface Bound {
  readonly index: number;
  readonly key: string;
  readonly op: '<' | '<=' | '>' | '>=' | '=';
  readonly value: number;
}

const FLIP: Record<string, Bound['op']> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=', '=': '=' };

/** `x op c` (or `c op x`) with c a number. */
function boundOf(c: SqlExpr, index: number): Bound | undefined {
  if (c.kind !== 'binary' || !(c.op in FLIP)) return undefined;
  const number = (e: SqlExpr): number | undefined =>
    e.kind === 'literal' && typeof e.value === 'number' ? e.value : undefined;
  const right = number(c.right);
  if (right !== undefined && number(c.left) === undefined)
    return { index, key: keyOf(c.left), op: c.op as Bound['op'], value: right };
  const left = number(c.left);
  if (left !== undefined && number(c.right) === undefined)
    return { index, key: keyOf(c.right), op: FLIP[c.op] as Bound['op'], value: left };
  return undefined;
}

/** Whether every value meeting `a` meets `b`. */
function implies(a: Bound, b: Bound): boolean {
  if (a.op === '=') {
    const v = a.value;
    return b.op === '='
      ? v === b.value
      : b.op === '<'
        ? v < b.value
        : b.op === '<='
          ? v <= b.value
          : b.op === '>'
            ? v > b.value
            : v >= b.value;
  }
  const lower = (op: string): boolean => op === '>' || op === '>=';
  if (b.op === '=' || lower(a.op) !== lower(b.op)) return false;
  if (lower(a.op)) return a.value > b.value || (a.value === b.value && (a.op === '>' || b.op === '>='));
  return a.value < b.value || (a.value === b.value && (a.op === '<' || b.op === '<='));
}

function simplify(list: readonly SqlExpr[]): readonly SqlExpr[] {
  if (list.length < 2) return list;
  const drop = new Set<number>();
  const strict = new Set(list.flatMap(strictOperands).map(keyOf));
  list.forEach((c, i) => {
    if (c.kind === 'isNull' && c.negated && strict.has(keyOf(c.arg))) drop.add(i);
  });
  const bounds = list.map(boundOf).filter((b): b is Bound => b !== undefined);
  for (const b of bounds) {
    // Of two bounds that imply each other (the same written twice), the first stays.
    const stronger = bounds.find(
      (a) => a !== b && !drop.has(a.index) && a.key === b.key && implies(a, b) && (!implies(b, a) || a.index < b.index),
    );
    if (stronger) drop.add(b.index);
  }
  return drop.size === 0 ? list : list.filter((_, i) => !drop.has(i));
}
