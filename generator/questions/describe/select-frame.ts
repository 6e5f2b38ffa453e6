import type { Expr, Join, SelectQuery } from '../../query/conceptual-query.ts';
import { hasAggregate } from '../../query/query-scope.ts';
import { mention, note, type DescribeContext } from './context.ts';
import type { QueryFrame } from './describe-query.ts';
import { article, listing } from './english.ts';
import { expr, nullable, windowWords } from './expressions.ts';
import { rows } from './joins.ts';
import { attributeNoun, canonical, info, noun, ref, related, scoped } from './nouns.ts';
import { limit, order } from './order.ts';
import { predicate } from './predicates.ts';
import { describeQualify } from './window.ts';
import { aliasesIn, type IrNode } from '../../query/walk.ts';

/** The frame of a select: its outputs, rows, grouping, filters, order and limit, and the notes. */
export function selectFrame(d: DescribeContext, q: SelectQuery): QueryFrame {
  for (const o of q.select) d.outputsByName.set(o.name, o.expr);
  d.currentLeft = (q.joins ?? []).filter((j) => d.aliases.get(j.alias)?.optional).map((j) => j.alias);
  d.currentBase = q.from.alias;
  d.currentRows = rowNoun(d, q);
  // A plain count of an alias repeats when another join fans its rows out.
  const joins = q.joins ?? [];
  for (const a of [q.from.alias, ...joins.map((j) => j.alias)]) {
    const fanOut = joins.some(
      (j) =>
        j.alias !== a &&
        (j.kind === 'elements' ||
          !(j.kind === 'relationship' && j.from === a && joins.length === 1 && a === q.from.alias)),
    );
    if (joins.length > 1 || (joins.length === 1 && a === q.from.alias) || fanOut) d.repeats.add(a);
  }
  const grouped = (q.groupBy?.length ?? 0) > 0 || q.select.some((o) => hasAggregate(o.expr));
  d.windowUnit = grouped ? 'group' : 'row';
  d.collapsed = collapsible(d, q);
  const r = d.collapsed ? collapsedRows(d, q, d.collapsed) : rows(d, q);
  const outs = outputs(d, q, grouped);
  let group = '';
  if (d.collapsed) {
    // One row per base object is what "every creator" already says.
    d.covered.add('group-by');
  } else if ((q.groupBy?.length ?? 0) > 0) {
    // An object's attributes grouped beside its id change no group (the id decides them): "for
    // each customer", not "for each combination of the customer and the value of its name".
    const byId = new Set(
      (q.groupBy ?? [])
        .filter((k) => k.kind === 'attribute' && k.attribute === 'id')
        .map((k) => canonical(d, (k as { alias: string }).alias)),
    );
    const significant = (q.groupBy ?? []).filter(
      (k) => !(k.kind === 'attribute' && k.attribute !== 'id' && byId.has(canonical(d, k.alias))),
    );
    const keys = significant.map((k) => groupKey(d, k));
    group =
      keys.length === 1 ? `, for each ${keys[0]}` : `, for each combination of ${listing(keys.map((k) => `the ${k}`))}`;
    mention(d, 'group-by', ['for each']);
    for (const k of significant) {
      if (nullable(d, k)) {
        const what =
          (k.kind === 'attribute' && k.attribute === 'id') || k.kind === 'element'
            ? `no ${noun(d, k.alias)}`
            : `no value for ${expr(d, k)}`;
        note(d, `Rows with ${what} form one group of their own.`, 'null-group');
      }
    }
  } else if (grouped) {
    // An aggregate over every row gives one row: "the number of subscribers" says so.
    d.covered.add('aggregate-only');
  }
  const condition = q.where ? predicate(d, q.where) : '';
  const filter = condition ? `, where ${condition}` : '';
  // A collapsed query speaks of its base objects, not of groups.
  const having =
    (q.having
      ? `, keeping only ${d.collapsed ? 'those' : 'the groups'} where ${predicate(d, q.having, { grouped: true })}`
      : '') + (q.qualify ? describeQualify(q.qualify, windowWords(d)) : '');
  if (q.having) d.covered.add('having');
  const ord = order(d, q.orderBy ?? []);
  const lim = limit(d, q.limit, (q.orderBy?.length ?? 0) > 0);
  if (q.distinct) {
    note(d, 'Each distinct row appears once: duplicates are removed.', 'distinct');
    mention(d, 'distinct', ['distinct'], ['duplicate']);
  } else if (!grouped && joins.length > 0) {
    note(d, 'Duplicate rows are kept: a row appears once for each pairing that gives it.', 'duplicates-kept');
  }
  return {
    outputs: outs,
    rows: r,
    group,
    filter,
    condition,
    having,
    order: ord,
    limit: lim,
    notes: d.notes,
    topic: d.index.entity(q.from.entity).lexicon.plural,
    covered: [...d.covered].sort(),
  };
}

/**
 * The one join of a query that groups by its base object and only counts the partners of
 * that join: "every creator, with the number of channels owned by the creator", not "every
 * creator with each channel …, for each creator, the number of channels".
 * Undefined when the query is any other shape (then the pairing is described as it is).
 */
export function collapsible(d: DescribeContext, q: SelectQuery): Extract<Join, { kind: 'relationship' }> | undefined {
  const joins = q.joins ?? [];
  const j = joins[0];
  if (
    joins.length !== 1 ||
    j?.kind !== 'relationship' ||
    j.from !== q.from.alias ||
    j.on ||
    d.aliases.get(j.alias)?.sameAs
  )
    return undefined;
  const base = canonical(d, q.from.alias);
  const keys = q.groupBy ?? [];
  if (!keys.some((k) => k.kind === 'attribute' && k.attribute === 'id')) return undefined;
  if (!keys.every((k) => k.kind === 'attribute' && canonical(d, k.alias) === base)) return undefined;
  const mentionsJoin = (x: IrNode | undefined): boolean => x !== undefined && aliasesIn(x).has(j.alias);
  // Aggregates count the join's objects; everything else speaks of the base object only.
  const ok = (e: Expr): boolean => {
    if (e.kind === 'aggregate')
      return e.fn === 'count' && e.arg?.kind === 'attribute' && e.arg.alias === j.alias && e.arg.attribute === 'id';
    if (e.kind === 'arithmetic') return ok(e.left) && ok(e.right);
    if (e.kind === 'round') return ok(e.arg);
    return !mentionsJoin(e) && e.kind !== 'scalarSubquery';
  };
  if (mentionsJoin(q.where)) return undefined;
  if (!q.select.every((o) => ok(o.expr))) return undefined;
  if (
    !q.select.some((o) => hasAggregate(o.expr)) &&
    !(q.orderBy ?? []).some((o) => o.expr.kind !== 'output' && hasAggregate(o.expr))
  )
    return undefined;
  if (q.having && !(q.having.kind === 'compare' && ok(q.having.left) && ok(q.having.right))) return undefined;
  if (!(q.orderBy ?? []).every((o) => o.expr.kind === 'output' || ok(o.expr))) return undefined;
  return j;
}

/** The rows of a collapsed query: its base objects, all of them or those with a partner. */
function collapsedRows(d: DescribeContext, q: SelectQuery, j: Extract<Join, { kind: 'relationship' }>): string {
  const base = scoped(d, q.from.entity, 'every', q.from.alias);
  if (j.type === 'left') {
    mention(d, 'left-join', ['including those without']);
    return `${base}, including those without any ${noun(d, j.alias)}`;
  }
  d.covered.add('inner-join');
  return `${base} with at least one ${related(d, j, false, '')}`;
}

/** What COUNT(*) counts, in words: the base objects, or the combinations the joins make. */
function rowNoun(d: DescribeContext, q: SelectQuery): string {
  const joined = (q.joins ?? []).filter((j) => !d.aliases.get(j.alias)?.sameAs).map((j) => noun(d, j.alias));
  if (joined.length === 0) return noun(d, q.from.alias, true);
  if (joined.length === 1) return `pairings of ${article(noun(d, q.from.alias))} with ${article(joined[0] as string)}`;
  return `combinations of ${listing([noun(d, q.from.alias), ...joined].map((n) => article(n)))}`;
}

/** A grouping key in words: the object it stands for, or "value of …". */
export function groupKey(d: DescribeContext, k: Expr): string {
  if (k.kind === 'attribute' && k.attribute === 'id') return noun(d, k.alias);
  if (k.kind === 'element') return noun(d, k.alias);
  return expr(d, k).replace(/^the /u, '');
}

function outputs(d: DescribeContext, q: SelectQuery, grouped: boolean): string {
  const parts: string[] = [];
  // Neighbouring attributes of one object share it: "the first name, last name and email
  // address of the customer", not the customer three times. Order is kept, so the columns
  // still read in their order.
  const select = q.select;
  for (let i = 0; i < select.length; i++) {
    const e = select[i]?.expr as Expr;
    if (e.kind === 'attribute') {
      const run = [e.attribute];
      while (i + run.length < select.length) {
        const next = select[i + run.length]?.expr as Expr;
        // A column asked twice is said twice ("the last name of the customer and the last name of the customer").
        if (
          next.kind !== 'attribute' ||
          canonical(d, next.alias) !== canonical(d, e.alias) ||
          run.includes(next.attribute)
        )
          break;
        run.push(next.attribute);
      }
      if (run.length > 1) {
        const nouns = listing(run.map((a) => attributeNoun(d, e.alias, a)));
        // The id and every attribute, in the model's order: what `SELECT *` of the entity means.
        const entity = info(d, e.alias).entity;
        const every = entity
          ? [
              'id',
              ...d.index
                .allAttributes(entity)
                .filter((x) => !x.attribute.multiValued)
                .map((x) => x.attribute.name),
            ]
          : [];
        parts.push(
          run.join() === every.join()
            ? `all the details of ${ref(d, e.alias)}, namely its ${nouns}`
            : `the ${nouns} of ${ref(d, e.alias)}`,
        );
        i += run.length - 1;
        continue;
      }
    }
    parts.push(expr(d, e, { grouped: grouped && hasAggregate(e) }));
  }
  // The columns are named in their order; "A, B and C" says it.
  d.covered.add('outputs');
  for (const o of q.select) {
    if (!hasAggregate(o.expr) && nullable(d, o.expr) && o.expr.kind !== 'classOf')
      note(d, `Where ${expr(d, o.expr)} is missing, that column is left empty.`, 'null-output');
  }
  return listing(parts);
}
