/**
 * The other readings of a question: for each choice the natural writer left to the
 * register's defaults, the conceptual query a reader who chose otherwise would write. The
 * generate stage runs them beside the gold (generate/readings-check.ts); where one answers
 * differently, the question is ambiguous and the candidate is rejected as
 * `ambiguous:<choice>`. A choice the question or evidence states (the writer's covered
 * constructs say which) has no other reading.
 */
import type { ErIndex } from '../er-model/er-index.ts';
import type { Join, Predicate, Query, SelectQuery } from '../query/conceptual-query.ts';
import { aliasesOfKind } from '../query/walk.ts';

/** The choices a reader could make otherwise, each a rejection reason of its own. */
export const READING_CHOICES = [
  /** "devices with their standards": drop the devices with none (inner) or keep them (outer). */
  'outer-join',
  /** "accounts": every account, or only the accounts of no more specific kind. */
  'subtypes',
  /** "whose name contains 'Valeo'": matching with case or without. */
  'case',
  /** "titles and number of quality options of live streams": one row per stream, or one per title. */
  'grouping',
  /** "Ties are broken by id": ascending or descending. */
  'ties',
  /** "for each device, the customers": through which relationship the two are linked. */
  'path',
] as const;

export type ReadingChoice = (typeof READING_CHOICES)[number];

/** Another reading of a question: the choice made otherwise, where, and its query. */
export interface Reading {
  readonly choice: ReadingChoice;
  /** What words would settle this reading alone: `subtypes:<entity>`, `path:<relationship>`. */
  readonly key?: string;
  readonly detail: string;
  readonly query: Query;
}

/**
 * The covered constructs (the natural writer's `covered`) that state each choice in words,
 * so a reader has no other reading of it; subtypes and paths are settled one by one (a
 * reading's `key`, in the writer's `stated`).
 */
const STATED: Readonly<Record<ReadingChoice, readonly string[]>> = {
  'outer-join': ['inner-elements', 'left-elements', 'left-join', 'count-star-left'],
  subtypes: [],
  case: ['like-case', 'like-case-sensitive'],
  grouping: ['one-row-per-object'],
  ties: ['tie-break'],
  path: [],
};

/**
 * The readings of `query` other than its own, for the choices `covered` (the writer's
 * covered constructs and what it stated) leaves unstated:
 * the outermost select's joins, kinds, text matches, grouping, tie-breaks and links.
 *
 * @example
 * // "List the titles of apps with their tags." with an inner join and nothing stated:
 * otherReadings(index, q, new Set(['elements']));
 * // [{ choice: 'outer-join', detail: 'elements join t kept when empty', query: … LEFT … }]
 */
export function otherReadings(index: ErIndex, query: Query, covered: ReadonlySet<string>): Reading[] {
  if (query.kind !== 'select') return [];
  const open = (choice: ReadingChoice) => !STATED[choice].some((c) => covered.has(c));
  const readings: Reading[] = [
    ...(open('outer-join') ? joinReadings(query) : []),
    ...(open('subtypes') ? subtypeReadings(index, query) : []),
    ...(open('case') ? caseReadings(query) : []),
    ...(open('grouping') ? groupingReadings(query) : []),
    ...(open('ties') ? tieReadings(query) : []),
    ...(open('path') ? pathReadings(index, query) : []),
  ];
  return readings.filter((r) => r.key === undefined || !covered.has(r.key));
}

/** Each join of the other type: an inner join kept when empty, a left join required. */
function joinReadings(q: SelectQuery): Reading[] {
  return (q.joins ?? []).flatMap((j, i): Reading[] => {
    // "clips derived from live streams" requires a stream in its words; "with their tags" does not.
    if (j.kind === 'relationship' && j.type === 'inner') return [];
    const joins = (q.joins ?? []).map(
      (x, k): Join => (k === i ? { ...x, type: x.type === 'inner' ? 'left' : 'inner' } : x),
    );
    return [
      {
        choice: 'outer-join',
        detail: `${j.kind} join ${j.alias} ${j.type === 'inner' ? 'kept when empty' : 'required'}`,
        query: { ...q, joins },
      },
    ];
  });
}

/** The base and each joined alias whose kind has subkinds, read as its plain objects only. */
function subtypeReadings(index: ErIndex, q: SelectQuery): Reading[] {
  const aliases = [
    { alias: q.from.alias, entity: q.from.entity },
    ...(q.joins ?? []).flatMap((j) => (j.kind === 'relationship' ? [{ alias: j.alias, entity: j.entity }] : [])),
  ];
  // "accounts that are not streamers", "the account type of accounts": the words say which kinds.
  const saidKinds = aliasesOfKind(q);
  return aliases.flatMap(({ alias, entity }): Reading[] => {
    const children = index.children(entity);
    if (children.length === 0 || !index.canBeDirect(entity) || saidKinds.has(alias)) return [];
    const plain: Predicate[] = children.map((c) => ({ kind: 'isA', alias, entity: c.name, negated: true }));
    return [
      {
        choice: 'subtypes',
        key: `subtypes:${entity}`,
        detail: `${alias} only plain ${entity}`,
        query: { ...q, where: and([...(q.where ? [q.where] : []), ...plain]) },
      },
    ];
  });
}

/** Each LIKE of the WHERE clause matched the other way about case. */
function caseReadings(q: SelectQuery): Reading[] {
  const likes: number[] = [];
  let seen = 0;
  const flip = (p: Predicate, target: number): Predicate => {
    switch (p.kind) {
      case 'like': {
        const at = seen++;
        if (target < 0 && /\p{L}/u.test(p.pattern)) likes.push(at);
        return at === target ? { ...p, caseInsensitive: !p.caseInsensitive } : p;
      }
      case 'and':
      case 'or':
        return { ...p, args: p.args.map((a) => flip(a, target)) };
      case 'not':
        return { ...p, arg: flip(p.arg, target) };
      default:
        return p;
    }
  };
  if (!q.where) return [];
  flip(q.where, -1);
  return likes.map((target) => {
    seen = 0;
    return {
      choice: 'case' as const,
      detail: `LIKE ${target + 1} ${caseOf(q.where as Predicate, target)}`,
      query: { ...q, where: flip(q.where as Predicate, target) },
    };
  });
}

function caseOf(p: Predicate, target: number): string {
  let seen = 0;
  let out = '';
  const visit = (x: Predicate): void => {
    if (x.kind === 'like' && seen++ === target) out = x.caseInsensitive ? 'with case' : 'ignoring case';
    if (x.kind === 'and' || x.kind === 'or') x.args.forEach(visit);
    if (x.kind === 'not') visit(x.arg);
  };
  visit(p);
  return out;
}

/**
 * One row per object of the base, its id not shown: grouped by the shown values instead. Two
 * objects sharing a title are one row for a reader who reads "the titles and their counts".
 */
function groupingReadings(q: SelectQuery): Reading[] {
  const keys = q.groupBy ?? [];
  const byId = keys.some((k) => k.kind === 'attribute' && k.attribute === 'id' && k.alias === q.from.alias);
  if (!byId || q.qualify) return [];
  const shown = q.select.filter((o) => o.expr.kind === 'attribute');
  if (shown.length === 0 || shown.some((o) => o.expr.kind === 'attribute' && o.expr.attribute === 'id')) return [];
  // An order on what the grouping no longer has cannot be read the other way; the output names stay.
  const orderBy = q.orderBy?.filter(
    (o) => o.expr.kind === 'output' || q.select.some((s) => JSON.stringify(s.expr) === JSON.stringify(o.expr)),
  );
  const { distinct: _distinct, ...rest } = q;
  return [
    {
      choice: 'grouping',
      detail: `grouped by ${shown.map((o) => o.name).join(', ')} instead of ${q.from.alias}.id`,
      query: {
        ...rest,
        groupBy: shown.map((o) => o.expr),
        ...(orderBy && orderBy.length > 0 ? { orderBy } : { orderBy: undefined }),
      },
    },
  ];
}

/** The tie-break keys of an ordered, limited query, each in the other direction. */
function tieReadings(q: SelectQuery): Reading[] {
  const order = q.orderBy ?? [];
  if (order.length < 2 || q.limit === undefined) return [];
  const flipped = order.map((o, i) =>
    i === 0 ? o : { ...o, direction: o.direction === 'asc' ? ('desc' as const) : ('asc' as const) },
  );
  return [{ choice: 'ties', detail: 'tie-break keys in the other direction', query: { ...q, orderBy: flipped } }];
}

/**
 * Each relationship join read through another relationship between the same two kinds, in
 * the same direction: "devices and their customers" through orders or through reviews.
 */
function pathReadings(index: ErIndex, q: SelectQuery): Reading[] {
  return (q.joins ?? []).flatMap((j, i): Reading[] => {
    if (j.kind !== 'relationship') return [];
    const r = index.relationship(j.relationship);
    const [near, far] = j.direction === 'forward' ? [r.from, r.to] : [r.to, r.from];
    return index.domain.relationships
      .filter((o) => o.name !== r.name)
      .flatMap((o): Reading[] => {
        const direction =
          o.from === near && o.to === far ? 'forward' : o.to === near && o.from === far ? 'reverse' : undefined;
        if (!direction) return [];
        const joins = (q.joins ?? []).map((x, k): Join => (k === i ? { ...j, relationship: o.name, direction } : x));
        return [
          {
            choice: 'path',
            key: `path:${j.relationship}`,
            detail: `${j.alias} through ${o.name} instead of ${r.name}`,
            query: { ...q, joins },
          },
        ];
      });
  });
}

function and(args: readonly Predicate[]): Predicate {
  return args.length === 1 ? (args[0] as Predicate) : { kind: 'and', args };
}
