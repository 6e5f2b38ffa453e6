import { sharedValues } from '../../generator/compile/compile-shared-value.ts';
import type { Query, SelectQuery } from '../../generator/query/conceptual-query.ts';

// The property test's coverage check, apart from vitest so a script can count a draw too.

/** The constructs a query uses, by name, for the coverage check. */
export function constructsOf(query: Query): Set<string> {
  const found = new Set<string>();
  const walk = (node: unknown, parent?: string): void => {
    if (Array.isArray(node)) {
      node.forEach((n) => walk(n, parent));
      return;
    }
    if (!node || typeof node !== 'object') return;
    const n = node as Record<string, unknown>;
    const kind = n['kind'] as string | undefined;
    if (kind === 'relationship') found.add(`join:${n['type']}:${n['direction']}`);
    else if (kind === 'elements') found.add(`elements:${n['type']}`);
    else if (kind === 'like') found.add(n['caseInsensitive'] ? 'ilike' : 'like');
    else if (kind === 'exists') found.add(n['negated'] ? 'not exists' : 'exists');
    else if (kind === 'aggregate') {
      found.add(`aggregate:${n['fn']}${n['distinct'] ? ' distinct' : ''}${n['arg'] ? '' : ' *'}`);
      if (n['filter']) found.add('aggregate filter');
      if (n['fn'] === 'sum' && (n['arg'] as { kind?: string } | undefined)?.kind === 'case') found.add('sum of case');
    } else if (kind === 'cast') found.add(`cast:${n['to']}`);
    else if (kind === 'textFunction') found.add(`textFunction:${n['fn']}`);
    else if (kind === 'ratio') found.add(n['percent'] ? 'percentage' : 'ratio');
    else if (kind === 'arithmetic' && n['op'] === '||') found.add('concat');
    else if (kind === 'set') found.add(`set:${n['op']}`);
    else if (kind === 'window') {
      found.add(`window:${n['fn']}`);
      if (Array.isArray(n['partitionBy'])) found.add('window partition');
      if (Array.isArray(n['partitionBy']) && (n['partitionBy'] as { kind: string }[]).some((k) => k.kind === 'classOf'))
        found.add('window partition by kind');
      if (['sum', 'avg', 'count'].includes(n['fn'] as string) && Array.isArray(n['orderBy']))
        found.add('window running');
    } else if (kind === 'select') {
      const q = n as unknown as {
        distinct?: boolean;
        groupBy?: unknown[];
        having?: unknown;
        orderBy?: unknown[];
        limit?: number;
        joins?: { kind: string; relationship?: string }[];
      };
      if (q.distinct) found.add('distinct');
      if ((q as { qualify?: unknown }).qualify) found.add('qualify (top-N per group)');
      if (sharedValues(q as unknown as SelectQuery).length > 0) found.add('value computed once (WITH)');
      for (const o of (q.orderBy ?? []) as { nulls?: string }[]) if (o.nulls) found.add(`nulls ${o.nulls}`);
      if ((q.groupBy?.length ?? 0) > 0) found.add('group by');
      if (q.having) found.add('having');
      if ((q.orderBy?.length ?? 0) > 0 && q.limit !== undefined) found.add('order by + limit');
      const rels = (q.joins ?? []).filter((j) => j.kind === 'relationship').map((j) => j.relationship);
      if (new Set(rels).size < rels.length) found.add('relationship joined twice');
    } else if (kind !== undefined && kind !== 'attribute' && kind !== 'literal' && kind !== 'output') found.add(kind);
    if (n['negated'] === true && kind === 'inQuery') found.add('not in query');
    if (kind === 'relationship' && n['on']) found.add('join on');
    for (const [k, v] of Object.entries(n)) if (k !== 'kind') walk(v, kind);
  };
  walk(query);
  return found;
}

/** Every construct of the IR the property test must exercise. */
export const REQUIRED_CONSTRUCTS = [
  'join:inner:forward',
  'join:inner:reverse',
  'join:left:forward',
  'join:left:reverse',
  'join on',
  'relationship joined twice',
  'elements:inner',
  'elements:left',
  'compare',
  'in',
  'like',
  'ilike',
  'between',
  'isNull',
  'contains',
  'isA',
  'and',
  'or',
  'not',
  'exists',
  'not exists',
  'inQuery',
  'not in query',
  'scalarSubquery',
  'aggregate:count *',
  'aggregate:count',
  'aggregate:count distinct',
  'aggregate:sum',
  'aggregate:avg',
  'aggregate:min',
  'aggregate:max',
  'group by',
  'having',
  'order by + limit',
  'distinct',
  'set:union',
  'set:union all',
  'set:intersect',
  'set:except',
  'setArray',
  'setSize',
  'classOf',
  'round',
  'element',
  'arithmetic',
  // Windows, top-N per group and WITH.
  'window:row_number',
  'window:rank',
  'window:dense_rank',
  'window:lag',
  'window:lead',
  'window:sum',
  'window:avg',
  'window:count',
  'window partition',
  'window partition by kind',
  'window running',
  'qualify (top-N per group)',
  'value computed once (WITH)',
  // Scalar analytics.
  'case',
  'simpleCase',
  'cast:numeric',
  'cast:real',
  'cast:integer',
  'cast:text',
  'cast:date',
  'nullif',
  'coalesce',
  'aggregate filter',
  'sum of case',
  'percentage',
  'ratio',
  'extract',
  'dateTrunc',
  'dateShift',
  'ageYears',
  'textFunction:lower',
  'textFunction:upper',
  'textFunction:length',
  'substring',
  'position',
  'concat',
  'nulls first',
  'nulls last',
  'aggregate:sum distinct',
  'aggregate:avg distinct',
  'aggregate:min distinct',
  'aggregate:max distinct',
];
