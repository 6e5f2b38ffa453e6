import type { Expr, SelectQuery, WindowExpr, WindowFunction } from './conceptual-query.ts';

/**
 * The rules of window functions and `qualify` in a conceptual query, beside the general
 * checks of query-scope.ts: which functions take which parts, and whether a window's order
 * decides its answer alone. Every variant and instance must agree on a query's answer, so a
 * window whose value depends on how ties are ordered must not have ties.
 */

export const WINDOW_FUNCTIONS: readonly WindowFunction[] = [
  'row_number',
  'rank',
  'dense_rank',
  'lag',
  'lead',
  'sum',
  'avg',
  'count',
];

/** Functions whose value changes when two rows tied in the window order swap places. */
export const ORDER_SENSITIVE: ReadonlySet<WindowFunction> = new Set(['row_number', 'lag', 'lead']);

/** Functions that number rows, so they need an order and take no argument. */
export const RANKING: ReadonlySet<WindowFunction> = new Set(['row_number', 'rank', 'dense_rank']);

/** What a window function takes: whether `arg` is required, allowed, or refused; whether it needs an ORDER BY. */
export function windowShape(fn: WindowFunction): {
  readonly arg: 'required' | 'optional' | 'none';
  readonly needsOrder: boolean;
  readonly offset: boolean;
} {
  if (RANKING.has(fn)) return { arg: 'none', needsOrder: true, offset: false };
  if (fn === 'lag' || fn === 'lead') return { arg: 'required', needsOrder: true, offset: true };
  return { arg: fn === 'count' ? 'optional' : 'required', needsOrder: false, offset: false };
}

/**
 * The relative path of the first window function of this query level inside an expression
 * or condition, if any; subqueries are levels of their own and are not entered.
 */
export function windowIn(node: unknown, at = ''): string | undefined {
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const found = windowIn(node[i], `${at}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (typeof node !== 'object' || node === null) return undefined;
  const record = node as Record<string, unknown>;
  if (record['kind'] === 'window') return at;
  if (record['kind'] === 'scalarSubquery' || record['kind'] === 'exists' || record['kind'] === 'inQuery') {
    // An IN subquery's left-hand expression still belongs to this level.
    return record['kind'] === 'inQuery' ? windowIn(record['expr'], `${at}.expr`) : undefined;
  }
  for (const [key, value] of Object.entries(record)) {
    if (key === 'query') continue;
    const found = windowIn(value, `${at}.${key}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Every window function of one query level where windows may stand, with its path. */
export function windowsOf(q: SelectQuery, path: string): { readonly window: WindowExpr; readonly path: string }[] {
  const out: { window: WindowExpr; path: string }[] = [];
  const walk = (node: unknown, at: string): void => {
    if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${at}[${i}]`));
    if (typeof node !== 'object' || node === null) return;
    const record = node as Record<string, unknown>;
    if (record['kind'] === 'window') {
      out.push({ window: record as unknown as WindowExpr, path: at });
      return;
    }
    if (record['kind'] === 'scalarSubquery') return;
    for (const [key, value] of Object.entries(record)) walk(value, `${at}.${key}`);
  };
  q.select.forEach((c, i) => walk(c.expr, `${path}.select[${i}].expr`));
  (q.orderBy ?? []).forEach((o, i) => walk(o.expr, `${path}.orderBy[${i}].expr`));
  if (q.qualify) walk(q.qualify.window, `${path}.qualify.window`);
  return out;
}

/**
 * What a window's partition and order keys leave undecided, when its value depends on the
 * order among ties: the keys must single out a row of the query, that is name the id (or the
 * element) of every alias of the query, or, when the query is grouped, every grouping key.
 * Returns the first missing key as a message, or undefined when the order is total or does
 * not matter (`rank`, `dense_rank` and the running aggregates give ties one value).
 */
export function windowOrderGap(
  q: SelectQuery,
  w: WindowExpr,
  canonical: (value: unknown) => string,
  grouped: boolean,
): string | undefined {
  if (!ORDER_SENSITIVE.has(w.fn)) return undefined;
  const keys = new Set([...(w.partitionBy ?? []), ...(w.orderBy ?? []).map((o) => o.expr)].map(canonical));
  if (grouped) {
    const missing = (q.groupBy ?? []).find((g) => !keys.has(canonical(g)));
    return missing === undefined
      ? undefined
      : `${w.fn} must order every group apart: add the grouping key ${describeKey(missing)} to its orderBy (a tie-break)`;
  }
  const rowKeys: Expr[] = [{ kind: 'attribute', alias: q.from.alias, attribute: 'id' }];
  for (const j of q.joins ?? [])
    rowKeys.push(
      j.kind === 'elements'
        ? { kind: 'element', alias: j.alias }
        : { kind: 'attribute', alias: j.alias, attribute: 'id' },
    );
  const missing = rowKeys.find((k) => !keys.has(canonical(k)));
  return missing === undefined
    ? undefined
    : `${w.fn} must order every row apart: add ${describeKey(missing)} to its orderBy (a tie-break)`;
}

function describeKey(e: Expr): string {
  if (e.kind === 'attribute') return `${e.alias}.${e.attribute}`;
  if (e.kind === 'element') return `element ${e.alias}`;
  return JSON.stringify(e);
}
