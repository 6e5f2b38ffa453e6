import type { SqlCall, SqlExpr, SqlQuery } from '../../sql-tree.ts';
import { binary, call, literal, paren } from '../../sql-tree.ts';
import { rewriteQuery } from '../../sql-tree-walk.ts';
import { DialectError } from '../../../common/errors.ts';

/**
 * Dates through SQLite's date functions. SQLite keeps a date as ISO text (`2024-03-05`) and a
 * timestamp as `2024-03-05 07:08:09` (UTC), so every date construct PostgreSQL spells with
 * its types becomes a call on that text:
 *
 * | PostgreSQL | SQLite |
 * |---|---|
 * | `EXTRACT(YEAR FROM x)` | `CAST(strftime('%Y', x) AS INTEGER)` (month `%m`, day `%d`, dow `%w`, hour `%H`) |
 * | `EXTRACT(QUARTER FROM x)` | `(CAST(strftime('%m', x) AS INTEGER) + 2) / 3` |
 * | `CAST(date_trunc('month', x) AS date)` | `date(x, 'start of month')` (year alike; week `date(x, '-6 days', 'weekday 1')`; quarter through `printf`) |
 * | `CAST(x + INTERVAL '1 month' AS date)` | `min(date(x, '+1 months'), date(x, 'start of month', '+2 months', '-1 day'))`; a timestamp, `datetime(…)` |
 * | `'2024-03-05 07:08:09+00'` | `'2024-03-05 07:08:09'` (timestamps are stored in UTC without the offset) |
 * | `EXTRACT(YEAR FROM age(b, a))` | `(CAST(strftime('%Y%m%d%H%M%S', b) AS INTEGER) - CAST(strftime('%Y%m%d%H%M%S', a) AS INTEGER)) / 10000000000` |
 *
 * A month or year shift keeps the day inside the month, as PostgreSQL does (January 31 plus
 * a month is February 29): SQLite's own shift runs over into the next month (March 2), so the
 * shifted day is capped by the last day of the month shifted to. SQLite 3.46 says the same
 * with a `floor` modifier, which older SQLite (Debian 12's shell, Python's bundled module)
 * takes for an error and answers NULL; the cap reads the same in every version.
 * Whole years between two instants are the difference of their `YYYYMMDDhhmmss` numbers
 * divided by 10^10, truncated toward zero as PostgreSQL's age is for either order.
 */
export function datesThroughStrftime(tree: SqlQuery): SqlQuery {
  return rewriteQuery(rewriteQuery(tree, { expr: rewriteDate }), { expr: capShift });
}

/** The marker a month or year shift carries until `capShift` writes its cap. */
const CAPPED = 'cap at the month end';

const FIELD_FORMAT: Readonly<Record<string, string>> = { year: '%Y', month: '%m', day: '%d', dow: '%w', hour: '%H' };

const asInteger = (e: SqlExpr): SqlExpr => ({ kind: 'cast', arg: e, type: 'INTEGER' });
const part = (format: string, e: SqlExpr): SqlExpr => asInteger(call('strftime', literal(format), e));

/** `(CAST(strftime('%m', x) AS INTEGER) + 2) / 3`: 1 to 4. */
const quarterOf = (e: SqlExpr): SqlExpr =>
  paren(binary('/', paren(binary('+', part('%m', e), literal(2))), literal(3)));

function rewriteDate(e: SqlExpr): SqlExpr {
  // A timestamp literal in the stored form: UTC, without the `+00` SQLite would compare as text.
  if (e.kind === 'literal' && typeof e.value === 'string' && /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\+00$/u.test(e.value))
    return literal(e.value.slice(0, -3));
  if (e.kind === 'extract') {
    if (e.arg.kind === 'call' && e.arg.name === 'age' && e.field === 'year') {
      const [to, from] = e.arg.args as [SqlExpr, SqlExpr];
      const stamp = (x: SqlExpr): SqlExpr => part('%Y%m%d%H%M%S', x);
      return paren(binary('/', paren(binary('-', stamp(to), stamp(from))), literal(10_000_000_000)));
    }
    if (e.field === 'quarter') return quarterOf(e.arg);
    const format = FIELD_FORMAT[e.field];
    if (format === undefined)
      throw new DialectError('sqlite', `EXTRACT(${e.field.toUpperCase()})`, 'no strftime field gives it');
    return part(format, e.arg);
  }
  // CAST(date_trunc(unit, x) AS date)
  if (e.kind === 'cast' && e.type === 'date' && e.arg.kind === 'call' && e.arg.name === 'date_trunc')
    return truncated(e.arg);
  // x ± INTERVAL …: a timestamp; cast to a date, a date.
  if (e.kind === 'binary' && (e.op === '+' || e.op === '-') && e.right.kind === 'interval')
    return call('datetime', e.left, ...shiftModifiers(e.op, e.right.text));
  if (e.kind === 'cast' && e.type === 'date' && e.arg.kind === 'call' && e.arg.name === 'datetime')
    return { ...e.arg, name: 'date' };
  if (e.kind === 'paren' && e.arg.kind === 'call' && e.arg.name === 'datetime') return e.arg;
  return e;
}

function truncated(trunc: SqlCall): SqlExpr {
  const [unit, arg] = trunc.args as [SqlExpr, SqlExpr];
  const name = unit.kind === 'literal' ? unit.value : undefined;
  switch (name) {
    case 'day':
      return call('date', arg);
    case 'month':
      return call('date', arg, literal('start of month'));
    case 'year':
      return call('date', arg, literal('start of year'));
    case 'week':
      // PostgreSQL's weeks start on Monday: back six days, then forward to a Monday.
      return call('date', arg, literal('-6 days'), literal('weekday 1'));
    case 'quarter':
      // The start of the year, then 3(q - 1) months on; NULL stays NULL.
      return call(
        'date',
        arg,
        literal('start of year'),
        call('printf', literal('+%d months'), binary('*', paren(binary('-', quarterOf(arg), literal(1))), literal(3))),
      );
    default:
      throw new DialectError('sqlite', `date_trunc('${String(name)}')`, 'no date modifier truncates to it');
  }
}

function shiftModifiers(op: '+' | '-', text: string): SqlExpr[] {
  const m = /^(\d+) (year|month|week|day)s?$/u.exec(text);
  if (!m) throw new DialectError('sqlite', `INTERVAL '${text}'`, 'no date modifier shifts by it');
  let n = Number(m[1]);
  let unit = m[2] as string;
  if (unit === 'week') {
    n *= 7;
    unit = 'day';
  }
  const modifiers: SqlExpr[] = [literal(`${op}${n} ${unit}s`)];
  if (unit === 'month' || unit === 'year') modifiers.push(literal(CAPPED));
  return modifiers;
}

/**
 * `date(x, '+1 months')` capped by the last day of the month shifted to:
 * `min(date(x, '+1 months'), date(x, 'start of month', '+2 months', '-1 day'))`; a timestamp
 * keeps its time of day (`… || ' ' || time(x)`). Both sides are ISO text, so `min` compares them
 * as dates; NULL stays NULL.
 */
function capShift(e: SqlExpr): SqlExpr {
  if (e.kind !== 'call' || (e.name !== 'date' && e.name !== 'datetime')) return e;
  const last = e.args[e.args.length - 1];
  if (last?.kind !== 'literal' || last.value !== CAPPED) return e;
  const [arg, shift] = e.args as [SqlExpr, SqlExpr];
  const m = /^([+-])(\d+) (months|years)$/u.exec(shift.kind === 'literal' ? String(shift.value) : '');
  if (!m) throw new DialectError('sqlite', 'a month shift', `cannot cap ${JSON.stringify(shift)}`);
  const n = (m[1] === '-' ? -1 : 1) * Number(m[2]);
  // The first day of the month after the one shifted to, then a day back.
  const toMonthEnd =
    m[3] === 'months'
      ? n + 1 === 0
        ? []
        : [literal(`${n + 1 > 0 ? '+' : ''}${n + 1} months`)]
      : [literal(`${m[1]}${m[2]} years`), literal('+1 months')];
  const monthEnd: SqlExpr = call('date', arg, literal('start of month'), ...toMonthEnd, literal('-1 day'));
  const shifted = call(e.name, arg, shift);
  return call(
    'min',
    shifted,
    e.name === 'date' ? monthEnd : binary('||', binary('||', monthEnd, literal(' ')), call('time', arg)),
  );
}
