/**
 * No output that is the same in every row or only restates a value: a literal, a value the
 * WHERE clause pins (`platform` where `platform = 'kick'`), an aggregate the HAVING clause pins
 * (`count(*)` where `HAVING count(*) = 4`), an aggregate of a value the WHERE clause pins
 * (`count(DISTINCT title)` where `title = 'Dora'`), the class of an object among a
 * list that names its own type before its subclasses (`CASE WHEN TRUE THEN
 * 'PhysicalProduct' …`), a default for a value that is never missing, a whole number cast
 * to a whole number, zero turned into NULL with no division after, an output twice, or one
 * attribute shown twice (a price and the price cast to whole units).
 */
import type { Expr, Predicate, SelectQuery } from '../../query/conceptual-query.ts';
import type { MeaningCheck } from '../meaning-check.ts';
import { conjuncts, exprKey, refOf, visit, type QueryMeaning } from '../query-meaning.ts';
import { listedSelects } from './shown-by-name.ts';

function fault(
  m: QueryMeaning,
  q: SelectQuery,
  e: Expr,
  pinned: ReadonlySet<string>,
  fixed: ReadonlySet<string>,
): string | undefined {
  if (pinned.has(exprKey(e))) return 'a value the WHERE or HAVING clause fixes or lists';
  switch (e.kind) {
    case 'aggregate':
      // "the number of different titles of live streams titled Dora" is 1; their lowest title
      // is "Dora". A list of values (`IN (4, 5)`) leaves the aggregate free, and a total of one
      // value still counts the rows.
      return e.arg &&
        fixed.has(exprKey(e.arg)) &&
        ((e.fn === 'count' && e.distinct === true) || ['min', 'max', 'avg'].includes(e.fn))
        ? 'an aggregate of a value the WHERE clause fixes'
        : undefined;
    case 'literal':
      return 'a literal';
    case 'classOf': {
      const info = m.aliases.get(e.alias);
      if (info?.kind !== 'entity') return undefined;
      const own = m.index.chain(info.entity).map((x) => x.name);
      const at = e.among.findIndex((c) => own.includes(c));
      return at >= 0 && at < e.among.length - 1
        ? `the class of ${e.alias} among a list naming ${e.among[at]} before its subclasses`
        : undefined;
    }
    case 'coalesce': {
      const ref = e.args[0] ? refOf(m, e.args[0]) : undefined;
      return ref && ref.attribute && ref.attribute.optional !== true && !isOuter(q, ref.alias)
        ? `a default for ${ref.name}, which is never missing`
        : undefined;
    }
    case 'cast': {
      const ref = refOf(m, e.arg);
      const whole = ['integer', 'bigint'];
      return ref &&
        e.to === 'integer' &&
        (ref.name === 'id' || (ref.attribute && whole.includes(ref.attribute.type.kind)))
        ? `${ref.name} cast to what it is`
        : undefined;
    }
    case 'nullif':
      return 'zero turned into NULL with no division after';
    case 'case':
    case 'simpleCase': {
      const thens = [...e.whens.map((w) => exprKey(w.then)), ...(e.else ? [exprKey(e.else)] : [])];
      return new Set(thens).size <= 1 ? 'a CASE with one outcome' : undefined;
    }
    default:
      return undefined;
  }
}

/** The attribute an output shows, through a cast, a rounding, a default, a case change or a band. */
function wrapped(e: Expr): Expr | undefined {
  switch (e.kind) {
    case 'attribute':
    case 'element':
    case 'linkAttribute':
      return e;
    case 'cast':
    case 'round':
    case 'textFunction':
    case 'substring':
      return e.kind === 'textFunction' && e.fn === 'length' ? undefined : wrapped(e.arg);
    case 'coalesce':
      return e.args[0] ? wrapped(e.args[0]) : undefined;
    case 'simpleCase':
      return wrapped(e.operand);
    case 'case':
      return e.whens.length === 1 && e.whens[0]?.when.kind === 'compare' ? wrapped(e.whens[0].when.left) : undefined;
    default:
      return undefined;
  }
}

/** Whether an alias comes from a LEFT join, where a default can stand for the missing partner. */
function isOuter(q: SelectQuery, alias: string): boolean {
  return (q.joins ?? []).some((j) => j.alias === alias && j.type === 'left');
}

/** Conditions inside aggregates (FILTER, CASE) that test only a group key, and aggregates of a group key: the same in every row of a group. */
function keyConditions(q: SelectQuery): string[] {
  const keys = new Set((q.groupBy ?? []).map(exprKey));
  if (keys.size === 0) return [];
  const out: string[] = [];
  const onKey = (p: Predicate): boolean =>
    p.kind === 'compare' && keys.has(exprKey(p.left)) && p.right.kind === 'literal';
  visit([q.select, q.having], (n) => {
    const e = n as unknown as Expr;
    if (e.kind === 'aggregate' && e.filter && onKey(e.filter)) out.push('an aggregate filtered on its own group key');
    if (e.kind === 'aggregate' && e.arg?.kind === 'case' && e.arg.whens.every((w) => onKey(w.when)))
      out.push('an aggregate of a CASE on its own group key');
    // The number of different preference notes of each preference note is 1 (0 for the missing one).
    if (e.kind === 'aggregate' && e.fn !== 'count' && e.arg && keys.has(exprKey(e.arg)))
      out.push('an aggregate of its own group key');
    if (e.kind === 'aggregate' && e.fn === 'count' && e.distinct && e.arg && keys.has(exprKey(e.arg)))
      out.push('a count of different values of its own group key');
  });
  return out;
}

/** Aggregates (but counts) of a grouped object's own attribute: one value in its group. */
function ownAggregates(m: QueryMeaning, q: SelectQuery): string[] {
  const grouped = new Set(
    (q.groupBy ?? [])
      .map((k) => refOf(m, k))
      .filter((r) => r?.name === 'id')
      .map((r) => r?.alias as string),
  );
  if (grouped.size === 0) return [];
  const out: string[] = [];
  visit([q.select, q.having], (n) => {
    const e = n as unknown as Expr;
    if (e.kind === 'aggregate' && e.fn !== 'count' && e.arg?.kind === 'attribute' && grouped.has(e.arg.alias))
      out.push(`${e.fn} of ${e.arg.attribute}, one value per group of ${e.arg.alias}`);
  });
  return out;
}

export const constantOutput: MeaningCheck = {
  rule: 'constant-output',
  select: (m, q) => [...keyConditions(q), ...ownAggregates(m, q)],
  query: (m) => {
    const out: string[] = [];
    for (const q of listedSelects(m.query)) {
      const pinned = new Set(
        conjuncts(q.where).flatMap((p) =>
          p.kind === 'compare' && p.op === '=' && p.right.kind === 'literal'
            ? [exprKey(p.left)]
            : p.kind === 'in' && !p.negated
              ? [exprKey(p.expr)]
              : [],
        ),
      );
      // One value only: `x = v` or `x IN (v)`.
      const fixed = new Set(
        conjuncts(q.where).flatMap((p) =>
          p.kind === 'compare' && p.op === '=' && p.right.kind === 'literal'
            ? [exprKey(p.left)]
            : p.kind === 'in' && !p.negated && p.values.length === 1
              ? [exprKey(p.expr)]
              : [],
        ),
      );
      // "Only viewers whose number of views is 4": that number is 4 in every row.
      for (const p of conjuncts(q.having))
        if (p.kind === 'compare' && p.op === '=' && p.right.kind === 'literal') pinned.add(exprKey(p.left));
      const seen = new Set<string>();
      const shown = new Set<string>();
      for (const o of q.select) {
        const base = wrapped(o.expr);
        const again = seen.has(exprKey(o.expr))
          ? 'the same as an earlier output'
          : base && shown.has(exprKey(base))
            ? 'an attribute shown again, reworded'
            : undefined;
        const x = again ?? fault(m, q, o.expr, pinned, fixed);
        seen.add(exprKey(o.expr));
        if (base) shown.add(exprKey(base));
        if (x) out.push(`${o.name}: ${x}`);
      }
    }
    return out;
  },
};
