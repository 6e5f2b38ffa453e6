import type { ErIndex } from '../../generator/er-model/er-index.ts';
import type { Expr, Predicate, Query, SelectQuery, WindowExpr } from '../../generator/query/conceptual-query.ts';

// Checks of template questions shared by the question tests: English faults, and the facts a
// question must state, worked out from the query independently of the writer.

/** Text outside quoted literals, where the English checks apply. */
function prose(text: string): string {
  return text.replace(/"[^"]*"/gu, '"…"');
}

/** English faults of one question; empty when it reads right. */
export function englishFaults(text: string): string[] {
  const faults: string[] = [];
  const p = prose(text);
  if (/[{}]|undefined|NaN|\[object/u.test(p)) faults.push('placeholder');
  const doubled = /\b(\w+) \1\b/iu.exec(p);
  if (doubled) faults.push(`doubled word "${doubled[0]}"`);
  if (/\bthe the\b/iu.test(p)) faults.push('"the the"');
  if (/\w_\w/u.test(p)) faults.push('raw identifier');
  const an = /\ban [b-df-hj-np-tv-z]\w*/iu.exec(p);
  if (an) faults.push(`article "${an[0]}"`);
  const a = /\ba [aeio]\w*/iu.exec(p);
  if (a) faults.push(`article "${a[0]}"`);
  if (
    /\b(a|one|each|every) \w+s of any kind\b/u.test(p) &&
    !/\b(a|one|each|every) (\w+ )*(status|alias|process)\w* of any kind/u.test(p)
  )
    faults.push('plural after a singular determiner');
  if (/,,|\s[,.?]/u.test(p)) faults.push('punctuation');
  if (!/^[A-Z"0-9]/u.test(text)) faults.push('no capital');
  return faults;
}

/** The entity an alias of a select (its base or a join) ranges over. */
function entityOfAlias(q: SelectQuery, alias: string): string | undefined {
  if (q.from.alias === alias) return q.from.entity;
  const j = (q.joins ?? []).find((x) => x.alias === alias);
  return j?.kind === 'relationship' ? j.entity : undefined;
}

function conjunctsOf(p: Predicate | undefined): Predicate[] {
  if (!p) return [];
  return p.kind === 'and' ? p.args.flatMap(conjunctsOf) : [p];
}

/**
 * Facts the question must state, worked out here from the query itself (not from the
 * writer), by construct: limit, tie-break, distinct, zero counts, subtype scope.
 */
export function expectedFacts(index: ErIndex, query: Query): { construct: string; test: (text: string) => boolean }[] {
  const facts: { construct: string; test: (text: string) => boolean }[] = [];
  const visit = (q: Query, top: boolean): void => {
    if (q.kind === 'set') {
      if (q.op === 'union all')
        facts.push({ construct: 'union all keeps repeats', test: (t) => /repeats kept/u.test(t) });
      else facts.push({ construct: `${q.op} is distinct`, test: (t) => /distinct/u.test(t) });
      visit(q.left, false);
      visit(q.right, false);
    } else {
      visitSelect(q, top);
    }
    if (q.limit !== undefined) {
      const n = q.limit;
      facts.push({ construct: 'limit', test: (t) => new RegExp(`\\b${n}\\b|first row`, 'u').test(t) });
    }
    // The concise style says "ties by …" and "descending" where the others say "ties broken by …" and "in
    // descending order"; the implicit style's evidence, "Ties are broken by …".
    if ((q.orderBy?.length ?? 0) > 1)
      facts.push({ construct: 'tie-break', test: (t) => /\b[Tt]ies (are )?(broken )?by /u.test(t) });
    if ((q.orderBy?.length ?? 0) >= 1)
      facts.push({ construct: 'order direction', test: (t) => /\b(ascending|descending)\b/u.test(t) });
  };
  const visitSelect = (q: SelectQuery, top: boolean): void => {
    const subs = index.subtree(q.from.entity).slice(1);
    for (const s of subs)
      facts.push({ construct: `subtype scope of ${q.from.entity}`, test: (t) => t.includes(s.lexicon.plural) });
    if (q.distinct) facts.push({ construct: 'distinct', test: (t) => /distinct|duplicates are removed/u.test(t) });
    const left = new Set((q.joins ?? []).filter((j) => j.type === 'left').map((j) => j.alias));
    for (const j of q.joins ?? [])
      if (j.type === 'left')
        facts.push({
          construct: 'left join keeps the unmatched',
          test: (t) => /kept once|or with none|including those without/u.test(t),
        });
    const exprs: Expr[] = q.select.map((o) => o.expr);
    const countsLeft = exprs.some(
      (e) => e.kind === 'aggregate' && e.fn === 'count' && e.arg?.kind === 'attribute' && left.has(e.arg.alias),
    );
    if (countsLeft && top)
      facts.push({ construct: 'zero counts', test: (t) => /0 when there are none|\(0 if none\)/u.test(t) });
    // The columns are named in their order: each attribute's noun after the one before.
    if (q.select.length > 1 && top) {
      const nounsInOrder = q.select.flatMap((o) => {
        if (o.expr.kind !== 'attribute' || o.expr.attribute === 'id') return [];
        const alias = o.expr.alias;
        const entity = entityOfAlias(q, alias);
        const a = entity
          ? index.allAttributes(entity).find((x) => x.attribute.name === (o.expr as { attribute: string }).attribute)
              ?.attribute
          : undefined;
        return a?.lexicon ? [a.lexicon.singular.toLowerCase()] : [];
      });
      facts.push({
        construct: 'output columns in order',
        test: (t) => {
          const lower = t.toLowerCase();
          let at = 0;
          for (const noun of nounsInOrder) {
            const i = lower.indexOf(noun, at);
            if (i < 0) return false;
            at = i + 1;
          }
          return true;
        },
      });
    }
    for (const c of conjunctsOf(q.where)) {
      if (c.kind === 'exists' || c.kind === 'inQuery') visit(c.query, false);
    }
    // Windows: the tie-break of their order, what ties and the edge rows get, running frames.
    const windows = [...exprs, ...(q.orderBy ?? []).map((o) => o.expr)].filter(
      (e): e is WindowExpr => e.kind === 'window',
    );
    if (q.qualify) {
      windows.push(q.qualify.window);
      const n = q.qualify.value;
      facts.push({ construct: 'qualify threshold', test: (t) => new RegExp(`\\b${n}\\b`, 'u').test(t) });
    }
    for (const w of windows) {
      if ((w.orderBy?.length ?? 0) > 1)
        facts.push({ construct: 'window tie-break', test: (t) => /\b[Tt]ies (broken )?by /u.test(t) });
      if ((w.partitionBy?.length ?? 0) > 0)
        facts.push({ construct: 'window partition', test: (t) => t.includes('with the same') });
      if (w.fn === 'rank' || w.fn === 'dense_rank')
        facts.push({
          construct: 'rank ties',
          test: (t) =>
            t.includes(w.fn === 'rank' ? 'share a rank and the next rank skips' : 'share a rank, with no gaps'),
        });
      if (w.fn === 'lag' || w.fn === 'lead')
        facts.push({
          construct: 'lag/lead edge',
          test: (t) => t.includes(`empty for the ${w.fn === 'lag' ? 'first' : 'last'}`),
        });
      if (['sum', 'avg', 'count'].includes(w.fn) && (w.orderBy?.length ?? 0) > 0)
        facts.push({
          construct: 'running frame',
          test: (t) => t.includes('up to and including this one and any tied with it'),
        });
    }
  };
  visit(query, true);
  facts.push(...analyticFacts(query));
  return facts;
}

/**
 * Facts of the analytic constructs, wherever they sit in the query: a CASE's fallback, a
 * ratio's scale and its division by zero, a filter's rows, distinct values, an explicit
 * NULLS position, a cast's rounding, a position's 0, an interval's length.
 */
function analyticFacts(query: Query): { construct: string; test: (text: string) => boolean }[] {
  const facts: { construct: string; test: (text: string) => boolean }[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!node || typeof node !== 'object') return;
    const n = node as Record<string, unknown>;
    switch (n['kind']) {
      case 'case':
      case 'simpleCase':
        facts.push(
          n['else'] === undefined
            ? { construct: 'case without else is empty', test: (t) => t.includes('empty otherwise') }
            : { construct: 'case fallback', test: (t) => t.includes('otherwise') },
        );
        break;
      case 'ratio': {
        const digits = n['digits'] as number;
        facts.push({
          construct: 'ratio scale',
          test: (t) => t.includes(`rounded to ${digits} decimal place`) || t.includes(`rounded to ${digits} decimals`),
        });
        // A number other than 0 as the denominator is never 0.
        const denominator = n['denominator'] as { kind?: string; value?: unknown } | undefined;
        const constant =
          denominator?.kind === 'literal' && typeof denominator.value === 'number' && denominator.value !== 0;
        if (!constant)
          facts.push({ construct: 'ratio by zero', test: (t) => /empty when (.* is 0|there are no )/u.test(t) });
        if (n['percent']) facts.push({ construct: 'percentage', test: (t) => t.includes('percent') });
        break;
      }
      case 'aggregate':
        if (n['filter']) facts.push({ construct: 'aggregate filter', test: (t) => t.includes('only the rows where') });
        if (n['distinct'] && n['fn'] !== 'count')
          facts.push({ construct: 'distinct aggregate', test: (t) => t.includes('distinct values') });
        break;
      case 'cast':
        if (n['to'] === 'integer')
          facts.push({ construct: 'cast to integer rounds', test: (t) => t.includes('nearest whole number') });
        break;
      case 'position':
        facts.push({ construct: 'position is 0 when absent', test: (t) => t.includes('0 when it does not occur') });
        break;
      case 'dateShift': {
        const amount = Math.abs(n['amount'] as number);
        facts.push({ construct: 'interval length', test: (t) => t.includes(`${amount} ${n['unit']}`) });
        break;
      }
      case 'ageYears':
        facts.push({ construct: 'age in whole years', test: (t) => t.includes('whole years') });
        break;
      default:
        break;
    }
    if (Array.isArray(n['orderBy'])) {
      for (const o of n['orderBy'] as { nulls?: string }[])
        if (o.nulls)
          facts.push({
            construct: 'nulls position',
            test: (t) => t.includes(`missing values ${o.nulls}`) || t.includes(`missing ${o.nulls}`),
          });
    }
    for (const [k, v] of Object.entries(n)) if (k !== 'kind') walk(v);
  };
  walk(query);
  return facts;
}

export { MACHINE_PHRASES, machinePhrases } from '../../generator/questions/natural/machine-phrases.ts';

/**
 * What a natural question and its evidence must state, worked out from the query (not from
 * the writer): each answer-deciding choice the query makes that the register's defaults
 * (templates/README.md, "The natural register") do not already give.
 */
export function expectedNaturalFacts(
  index: ErIndex,
  query: Query,
): { construct: string; test: (text: string) => boolean }[] {
  const facts: { construct: string; test: (text: string) => boolean }[] = [];
  const grouping = (q: SelectQuery) =>
    (q.groupBy?.length ?? 0) > 0 || q.select.some((o) => JSON.stringify(o.expr).includes('"kind":"aggregate"'));
  if (query.limit !== undefined) {
    const n = query.limit;
    const spelled = n >= 10000 ? n.toLocaleString('en-US') : String(n);
    facts.push({
      construct: 'limit',
      test: (t) =>
        n === 1
          ? /\b(one|single|has the|is the|with the)\b|first (group|value|row)|\bthe (most \w+|\w+est)\b/u.test(t)
          : new RegExp(`\\b${spelled}\\b`, 'u').test(t),
    });
  }
  const order = query.orderBy ?? [];
  if (order.length > 1) facts.push({ construct: 'tie-break', test: (t) => /Ties are broken by /u.test(t) });
  if (order[0]) {
    const desc = order[0].direction === 'desc';
    facts.push({
      construct: 'order direction',
      test: (t) =>
        (desc
          ? /\b(most|highest|latest|descending|reverse|last)\b/u
          : /\b(fewest|lowest|earliest|ordered by|order them by|order the result by|alphabetical|ascending|first)\b/iu
        ).test(t),
    });
  }
  if (query.kind === 'set') {
    if (query.op === 'union all')
      facts.push({
        construct: 'union all keeps repeats',
        test: (t) => /twice|even when the two numbers are equal/u.test(t),
      });
  } else {
    const q = query;
    // A noun covers its subtypes (the register's first default): the question names the entity the rows range over.
    const lex = index.entity(q.from.entity).lexicon;
    const names = [lex, ...(lex.everyday ? [lex.everyday] : [])]
      .flatMap((l) => [l.singular, l.plural])
      .map((w) => w.toLowerCase());
    facts.push({
      construct: `the rows' noun ${lex.plural}`,
      test: (t) => names.some((w) => t.toLowerCase().includes(w)),
    });
    if (q.distinct) facts.push({ construct: 'distinct', test: (t) => /\b(distinct|different)\b/u.test(t) });
    // A WHERE conjunct on the partner (other than IS NULL) drops the unmatched rows again.
    const reads = (p: Predicate, alias: string) => JSON.stringify(p).includes(`"alias":${JSON.stringify(alias)}`);
    const rejects = (c: Predicate, alias: string): boolean => {
      if (c.kind === 'or') return c.args.every((a) => rejects(a, alias));
      if (c.kind === 'isNull') return c.negated === true && reads(c, alias);
      // NOT of a comparison on a missing value is still unknown; NOT IS NULL is IS NOT NULL.
      if (c.kind === 'not')
        return c.arg.kind === 'isNull' ? c.arg.negated !== true && reads(c, alias) : rejects(c.arg, alias);
      return reads(c, alias);
    };
    const rejected = (alias: string) => conjunctsOf(q.where).some((c) => rejects(c, alias));
    const left = (q.joins ?? []).filter((j) => j.type === 'left' && !rejected(j.alias));
    if (left.length > 0 && !grouping(q))
      facts.push({
        construct: 'left join keeps the unmatched',
        test: (t) => /listed too|listed once|\band any\b|still counts as one/u.test(t),
      });
    const perBase = (q.groupBy ?? []).some(
      (k) => k.kind === 'attribute' && k.attribute === 'id' && k.alias === q.from.alias,
    );
    if (
      perBase &&
      (q.joins ?? []).some((j) => j.type === 'inner' && j.kind === 'relationship' && j.from === q.from.alias)
    ) {
      facts.push({ construct: 'partners required', test: (t) => /at least one|\bOnly\b/u.test(t) });
    }
  }
  // Windows and analytic constructs keep the precise wording (their whole definition) or state it in the evidence.
  const windows: WindowExpr[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!node || typeof node !== 'object') return;
    const n = node as Record<string, unknown>;
    if (n['kind'] === 'window') windows.push(n as unknown as WindowExpr);
    if (n['kind'] === 'aggregate' && n['distinct'] && (n['fn'] === 'sum' || n['fn'] === 'avg'))
      facts.push({ construct: 'distinct aggregate', test: (t) => /\bdistinct\b/u.test(t) });
    for (const [k, v] of Object.entries(n)) if (k !== 'kind') walk(v);
  };
  walk(query);
  for (const w of windows) {
    if (w.fn === 'rank' || w.fn === 'dense_rank')
      facts.push({
        construct: 'rank ties',
        test: (t) =>
          t.includes(w.fn === 'rank' ? 'share a rank and the next rank skips' : 'share a rank, with no gaps'),
      });
    if (w.fn === 'lag' || w.fn === 'lead')
      facts.push({
        construct: 'lag/lead edge',
        test: (t) => t.includes(`empty for the ${w.fn === 'lag' ? 'first' : 'last'}`),
      });
  }
  if (query.kind === 'select' && query.qualify) {
    const v = query.qualify.value;
    facts.push({
      construct: 'qualify threshold',
      // One per group: "the one with the highest price", or "the most expensive device for each material".
      test: (t) =>
        new RegExp(`\\b${v}\\b`, 'u').test(t) ||
        (v === 1 && /\bthe one with\b|\bthe (most|least) \w+ .*\bfor each\b|\bthe \w+est .*\bfor each\b/u.test(t)),
    });
  }
  // The natural evidence says where missing values sort ("… with no x come first"), where a value can be missing at all.
  const sorts = (q: Query): void => {
    if (q.kind === 'set') return sorts(q.left);
    for (const o of q.orderBy ?? [])
      if (o.nulls && mayBeMissing(index, q, o.expr))
        facts.push({ construct: 'nulls position', test: (t) => /come (first|last)/u.test(t) });
  };
  sorts(query);
  // A percentage of the rows that meet a condition is defined as such: "the number of apps in
  // exe format as a percent of the number of apps"; the condition's CASE or FILTER is not spelled.
  let countedShares = 0;
  const plain = JSON.parse(JSON.stringify(query), (_k, v) => {
    if (v?.kind !== 'ratio' || !isCountOfCondition(v.numerator)) return v;
    if (
      v.denominator?.kind !== 'aggregate' ||
      v.denominator.fn !== 'count' ||
      v.denominator.arg ||
      v.denominator.filter
    )
      return v;
    countedShares++;
    return { ...v, numerator: { kind: 'aggregate', fn: 'count' } };
  }) as Query;
  if (countedShares > 0)
    facts.push({
      construct: 'share of the rows that meet a condition',
      test: (t) => /is the number of .* as a (percent|share) of the number of /u.test(t),
    });
  for (const f of analyticFacts(plain)) {
    if (f.construct === 'nulls position' || f.construct === 'distinct aggregate') continue; // above; and only a total or an average of distinct values differs
    facts.push(f);
  }
  return facts;
}

/** `count(*) FILTER (WHERE p)` or `sum(CASE WHEN p THEN 1 ELSE 0 END)`. */
function isCountOfCondition(e: Record<string, unknown> | undefined): boolean {
  if (e?.['kind'] !== 'aggregate') return false;
  if (e['fn'] === 'count') return !e['arg'] && e['filter'] !== undefined;
  const arg = e['arg'] as
    | { kind?: string; whens?: { then: { kind: string; value: unknown } }[]; else?: { kind: string; value: unknown } }
    | undefined;
  return (
    e['fn'] === 'sum' &&
    arg?.kind === 'case' &&
    arg.whens?.length === 1 &&
    arg.whens[0]?.then.kind === 'literal' &&
    arg.whens[0].then.value === 1 &&
    arg.else?.kind === 'literal' &&
    arg.else.value === 0
  );
}

/** Whether a sort key of `q` can be missing, worked out from the model: an optional attribute, a LEFT-joined partner's, an aggregate of either; anything else is taken as possibly missing. */
function mayBeMissing(
  index: ErIndex,
  q: SelectQuery,
  e: Expr | { readonly kind: 'output'; readonly name: string },
): boolean {
  if (e.kind === 'output') {
    const out = q.select.find((o) => o.name === e.name)?.expr;
    return out === undefined || mayBeMissing(index, q, out);
  }
  if (e.kind === 'attribute') {
    if ((q.joins ?? []).some((j) => j.alias === e.alias && j.type === 'left')) return true;
    if (e.attribute === 'id') return false;
    const entity = entityOfAlias(q, e.alias);
    const a = entity ? index.allAttributes(entity).find((x) => x.attribute.name === e.attribute)?.attribute : undefined;
    return a === undefined || a.optional === true;
  }
  if (e.kind === 'aggregate')
    return e.fn !== 'count' && (e.filter !== undefined || e.arg === undefined || mayBeMissing(index, q, e.arg));
  if (e.kind === 'cast' || e.kind === 'round' || e.kind === 'dateTrunc' || e.kind === 'extract')
    return mayBeMissing(index, q, e.arg);
  if (e.kind === 'window')
    return (
      !['row_number', 'rank', 'dense_rank', 'count'].includes(e.fn) &&
      (e.arg === undefined || mayBeMissing(index, q, e.arg))
    );
  // A set's size is 0 when it is empty; a coalesce ending in a value always has one.
  if (e.kind === 'textFunction' || e.kind === 'position' || e.kind === 'substring')
    return mayBeMissing(index, q, e.arg);
  if (e.kind === 'setSize' || e.kind === 'setArray')
    return (q.joins ?? []).some((j) => j.alias === e.alias && j.type === 'left');
  if (e.kind === 'coalesce') return e.args.every((a) => mayBeMissing(index, q, a));
  if (e.kind === 'literal') return e.value === null;
  if (e.kind === 'case' || e.kind === 'simpleCase')
    return (
      e.else === undefined || mayBeMissing(index, q, e.else) || e.whens.some((w) => mayBeMissing(index, q, w.then))
    );
  if (e.kind === 'ageYears') return mayBeMissing(index, q, e.from) || mayBeMissing(index, q, e.to);
  if (e.kind === 'arithmetic') return mayBeMissing(index, q, e.left) || mayBeMissing(index, q, e.right);
  return true;
}
