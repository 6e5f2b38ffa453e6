import type { SqlExpr, SqlQuery } from '../../sql-tree.ts';
import { call } from '../../sql-tree.ts';
import { rewriteQuery } from '../../sql-tree-walk.ts';
import { DialectError } from '../../../common/errors.ts';

/**
 * Casts with PostgreSQL's results in SQLite's types (`x::t` is always `CAST(x AS T)`):
 *
 * | PostgreSQL | SQLite | why |
 * |---|---|---|
 * | `CAST('2024-03-05' AS date)` | `'2024-03-05'` | a date is its ISO text |
 * | `CAST(x AS date)` | `date(x)` | a timestamp's day |
 * | `CAST(x AS integer)` | `CAST(round(x) AS INTEGER)` | PostgreSQL rounds a fraction, SQLite's CAST truncates it |
 * | `CAST(x AS numeric)`, `real` | `CAST(x AS REAL)` | numeric division of integers must not truncate |
 * | `CAST(x AS text)` | `CAST(x AS TEXT)` | |
 * | `'762.05'` | `762.05` | an untyped literal beside a numeric is a number; SQLite would compare text |
 *
 * Integer division and its truncation toward zero are the same in both, so `a / b` of two
 * integers needs nothing. Casts this dialect's rules wrote themselves are upper case
 * (`INTEGER`) and are left alone; any other type is refused.
 */
export function castsForSqlite(tree: SqlQuery): SqlQuery {
  return rewriteQuery(tree, { expr: rewriteCast });
}

const SQLITE_TYPES = new Set(['INTEGER', 'REAL', 'TEXT', 'NUMERIC']);

function rewriteCast(e: SqlExpr): SqlExpr {
  // A decimal written as a string ('762.05', the instance's numeric form) is PostgreSQL's
  // untyped literal, read as a number beside a number; SQLite would compare it as text.
  if (e.kind === 'literal' && typeof e.value === 'string' && /^-?\d+\.\d+$/u.test(e.value))
    return { kind: 'literal', value: Number(e.value), text: e.value };
  if (e.kind !== 'cast' || SQLITE_TYPES.has(e.type)) return e;
  const type = e.type.toLowerCase();
  if (type === 'date') return e.arg.kind === 'literal' && typeof e.arg.value === 'string' ? e.arg : call('date', e.arg);
  if (type === 'integer' || type === 'bigint' || type === 'smallint')
    return { kind: 'cast', arg: isWhole(e.arg) ? e.arg : call('round', e.arg), type: 'INTEGER' };
  if (type === 'numeric' || type.startsWith('numeric(') || type === 'real' || type === 'double precision')
    return isFraction(e.arg) ? e.arg : { kind: 'cast', arg: e.arg, type: 'REAL' };
  if (type === 'text') return { kind: 'cast', arg: e.arg, type: 'TEXT' };
  throw new DialectError('sqlite', `CAST(… AS ${e.type})`, 'no SQLite type holds it with the same meaning');
}

/** Values already whole numbers, which a cast to integer need not round: counts, integer literals. */
function isWhole(e: SqlExpr): boolean {
  if (e.kind === 'literal') return typeof e.value === 'number' && Number.isInteger(e.value) && e.text === undefined;
  return e.kind === 'call' && e.name === 'count';
}

/** Values already REAL: a decimal literal, a REAL cast, an average. */
function isFraction(e: SqlExpr): boolean {
  if (e.kind === 'literal') return e.text !== undefined && e.text.includes('.');
  if (e.kind === 'cast') return e.type === 'REAL';
  return e.kind === 'call' && e.name === 'avg';
}
