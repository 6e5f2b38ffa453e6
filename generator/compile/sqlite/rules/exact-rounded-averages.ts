import type { RelationalSchema } from '../../../variants/relational-schema.ts';
import type { SqlCall, SqlExpr, SqlLiteral, SqlQuery, SqlSelect } from '../../sql-tree.ts';
import { binary, call } from '../../sql-tree.ts';
import { rewriteExpr, rewriteQuery } from '../../sql-tree-walk.ts';
import { columnType, withQueries } from '../column-origin.ts';

/**
 * A rounded average of exact numbers, rounded as PostgreSQL rounds it. PostgreSQL averages
 * integers and numerics in exact numeric, so an average of 1.10 and 1.20 is 1.15 and
 * `round(…, 1)` gives 1.2. SQLite averages in REAL, where 1.15 is a binary fraction just below
 * it, and gives 1.1. The average is taken in whole units of the column's last decimal instead
 * (cents of a `numeric(10,2)`), whose sum is exact, and divided once: the quotient of two
 * exact numbers is the nearest REAL to the true one, so an exact half stays an exact half.
 *
 * | PostgreSQL | SQLite |
 * |---|---|
 * | `round(avg(p.price), 2)` (`numeric(10,2)`) | `round(sum(round(p.price * 100)) / count(p.price)) / 100` |
 * | `round(avg(p.price), 1)` | `round(sum(round(p.price * 100)) / (10 * count(p.price))) / 10` |
 * | `round(avg(o.quantity), 2)` (integer) | `round(sum(o.quantity) * 100.0 / count(o.quantity)) / 100` |
 *
 * DISTINCT, FILTER and OVER go to both the sum and the count. An average of anything other
 * than an integer or numeric column whose scale the schema gives (an expression, a REAL) is
 * left as it is; generation's engine agreement still checks its answer.
 */
export function exactRoundedAverages(tree: SqlQuery, schema: RelationalSchema): SqlQuery {
  const ctes = withQueries(tree);
  return rewriteQuery(tree, {
    select: (q) => {
      const columns = q.columns.map((c) => {
        const expr = rewriteExpr(c.expr, { expr: (e) => exactRound(q, e, ctes, schema) ?? e });
        return expr === c.expr ? c : { ...c, expr };
      });
      const orderBy = q.orderBy.map((o) => {
        const expr = rewriteExpr(o.expr, { expr: (e) => exactRound(q, e, ctes, schema) ?? e });
        return expr === o.expr ? o : { ...o, expr };
      });
      const having = q.having.map((h) => rewriteExpr(h, { expr: (e) => exactRound(q, e, ctes, schema) ?? e }));
      const changed =
        columns.some((c, i) => c !== q.columns[i]) ||
        orderBy.some((o, i) => o !== q.orderBy[i]) ||
        having.some((h, i) => h !== q.having[i]);
      return changed ? { ...q, columns, orderBy, having } : q;
    },
  });
}

/** The decimal places of an exact numeric type: 0 for integer and smallint, s of `numeric(p,s)`; undefined otherwise. */
export function exactScale(sqlType: string | undefined): number | undefined {
  if (sqlType === undefined) return undefined;
  // Not bigint: SQLite's sum() of integers past 2^63 fails where avg() does not.
  if (['integer', 'smallint'].includes(sqlType)) return 0;
  const numeric = /^numeric\(\d+,\s*(\d+)\)$/u.exec(sqlType);
  return numeric ? Number(numeric[1]) : undefined;
}

const whole = (n: number, real = false): SqlLiteral => ({
  kind: 'literal',
  value: n,
  ...(real ? { text: `${n}.0` } : {}),
});

/** `round(avg(x), n)` of an exact column `x` of `q`, in exact units; undefined for anything else. */
function exactRound(
  q: SqlSelect,
  e: SqlExpr,
  ctes: ReadonlyMap<string, SqlQuery>,
  schema: RelationalSchema,
): SqlExpr | undefined {
  if (e.kind !== 'call' || e.name !== 'round' || e.args.length > 2) return undefined;
  const [avg, digitsArg] = e.args;
  const digits = digitsArg === undefined ? 0 : digitsArg.kind === 'literal' ? digitsArg.value : undefined;
  if (typeof digits !== 'number' || !Number.isInteger(digits) || digits < 0 || digits > 6) return undefined;
  if (avg?.kind !== 'call' || avg.name !== 'avg' || avg.args.length !== 1) return undefined;
  const x = avg.args[0] as SqlExpr;
  if (x.kind !== 'column') return undefined;
  const scale = exactScale(columnType(q, x, ctes, schema));
  if (scale === undefined || scale > 6) return undefined;
  // The same aggregate options on the sum and the count.
  const like = (name: string, arg: SqlExpr): SqlCall => ({ ...avg, name, args: [arg] });
  const units = scale === 0 ? x : call('round', binary('*', x, whole(10 ** scale)));
  const sum = like('sum', units);
  const count = like('count', x);
  const shift = digits - scale;
  // The average in units of the result's last digit: an integer sum is made REAL before it is divided.
  const quotient =
    shift > 0
      ? binary('/', binary('*', sum, whole(10 ** shift, scale === 0)), count)
      : shift < 0
        ? binary('/', sum, binary('*', whole(10 ** -shift), count))
        : binary('/', scale === 0 ? binary('*', sum, whole(1, true)) : sum, count);
  const rounded = call('round', quotient);
  return digits === 0 ? rounded : binary('/', rounded, whole(10 ** digits));
}

/** A quotient this rule wrote: a sum of exact units (times a power of ten) over a count (times one). */
export function isExactQuotient(e: SqlExpr): boolean {
  const isCall = (x: SqlExpr, name: string): boolean => x.kind === 'call' && x.name === name;
  const scaled = (x: SqlExpr, name: string): boolean =>
    isCall(x, name) ||
    (x.kind === 'binary' &&
      x.op === '*' &&
      ((isCall(x.left, name) && x.right.kind === 'literal') || (x.left.kind === 'literal' && isCall(x.right, name))));
  return e.kind === 'binary' && e.op === '/' && scaled(e.left, 'sum') && scaled(e.right, 'count');
}
