/**
 * The checks every accepted group passes (issue 8, item 3), each rejecting with its own
 * reason:
 *
 * - compiles for every variant, runs read-only within the timeout on every variant of every
 *   instance (`compile-error`, `execution-error`, `timeout`);
 * - all variants agree on every instance (`variants-disagree`);
 * - the main instance's answer is non-empty and not degenerate (`empty-answer`,
 *   `null-answer`, `zero-count`, `filter-keeps-everything` (a WHERE clause or a window filter that
 *   keeps every row, a set operation one of whose parts changes nothing), `constant-aggregate`);
 * - the answer is determined by the query (`limit-inside-tie`, `limit-cuts-nothing`,
 *   `order-undetermined`, `collation-dependent`), on every instance.
 */
import type { ErIndex } from '../er-model/er-index.ts';
import type { RelationalSchema } from '../variants/relational-schema.ts';
import type { Expr, OrderItem, Predicate, Query, SelectQuery } from '../query/conceptual-query.ts';
import { isOrdered } from '../query/conceptual-query.ts';
import { compileSql, compileTree } from '../compile/compile-query.ts';
import { printCompiledSql } from '../compile/print-sql.ts';
import type { SqlQuery } from '../compile/sql-tree.ts';
import type { CompiledSql } from '../compile/compiled-sql.ts';
import { firstUnreadable } from '../compile/readability.ts';
import { canonicalKey } from '../query/walk.ts';
import {
  compareResults,
  normalizeResult,
  type GroupComparison,
  type GuardedQuery,
  type NormalizedResult,
} from '../execute/run-query.ts';
import type { TextResult } from '../database/database.ts';
import { oneLine } from '../common/errors.ts';
import { reject, type VariantAnswer } from '../records/group-record.ts';
import type { QueryRunner } from './query-runner.ts';
import { outputNames } from './fill/fill-query.ts';

export interface CheckVariant {
  readonly name: string;
  readonly schema: RelationalSchema;
  /** The PostgreSQL schema per instance: `main` always, `edge` when the edge-case instance is built. */
  readonly pgSchemas: { readonly main: string; readonly edge?: string };
  /** The SQLite file per instance, when the run checks on SQLite and SQLite holds the variant. */
  readonly sqliteFiles?: { readonly main: string; readonly edge?: string };
}

export interface CheckContext {
  readonly index: ErIndex;
  readonly variants: readonly CheckVariant[];
  /** Name of the variant probes and labels use. */
  readonly reference: string;
  readonly runner: QueryRunner;
  /** Reject before running when the planner's cost estimate on some variant exceeds this (default 5e6). */
  readonly maxCost?: number;
}

export interface InstanceAnswer {
  readonly result_hash: string;
  readonly row_count: number;
}

export interface VerifiedGroup {
  readonly answers: Readonly<Record<string, VariantAnswer>>;
  readonly main: InstanceAnswer;
  readonly edge: InstanceAnswer | undefined;
  readonly distinctSql: number;
  /** The answer every variant gave on each instance, normalized (for the checks after these; never written). */
  readonly results: { readonly main: NormalizedResult; readonly edge: NormalizedResult | undefined };
  /** Each variant's compiled tree, by variant name (another dialect prints from it; never written). */
  readonly trees: ReadonlyMap<string, SqlQuery>;
}

/**
 * Runs every check on one conceptual query; returns the per-variant answers, or throws
 * `CandidateRejected` with the first failed check's reason.
 *
 * @example
 * const g = await verifyGroup(query, ctx);
 * g.answers['full_sti'].sql; // SELECT … FROM users AS u WHERE u.type = 'creator' …
 */
export async function verifyGroup(query: Query, ctx: CheckContext): Promise<VerifiedGroup> {
  const compiled = ctx.variants.map((v) => {
    let sql: CompiledSql;
    let tree: SqlQuery;
    try {
      // compileSql, with the tree kept: another dialect is printed from it (engine-agreement.ts).
      tree = compileTree(ctx.index, v.schema, query);
      sql = printCompiledSql(tree);
    } catch (error) {
      return reject('compile-error', `${v.name}: ${oneLine(error)}`);
    }
    // Gold SQL reads as an engineer's, or it is not emitted (the compile rules see to it).
    const unreadable = firstUnreadable(sql.text);
    if (unreadable) reject(`unreadable-sql:${unreadable.check}`, `${v.name}: ${unreadable.excerpt}`);
    return { variant: v, sql, tree };
  });
  const reference = ctx.variants.find((v) => v.name === ctx.reference) ?? (ctx.variants[0] as CheckVariant);
  const referenceSql = compiled.find((c) => c.variant === reference)?.sql as CompiledSql;
  // A cheap guard first: obvious cartesian explosions are rejected by the planner's estimate
  // on the reference variant (the most normalized, so the most joins); a plan that explodes
  // only on another variant still meets the statement timeout there.
  const maxCost = ctx.maxCost ?? 5e6;
  const cost = await ctx.runner.cost(reference.pgSchemas.main, referenceSql);
  if (cost > maxCost) reject('too-costly', `${reference.name}: planner cost ${Math.round(cost)} > ${maxCost}`);
  const ordered = isOrdered(query);
  // The checks that need one answer run on the reference variant's main answer before any
  // other variant runs: most rejected candidates fail one of them, and then cost one query
  // instead of one per variant and instance.
  const refRaw = await ctx.runner.run(reference.pgSchemas.main, referenceSql);
  const refResult = normalizeResult(refRaw, ordered);
  checkAnswer(query, refResult);
  // The order check on the main instance next. Its query is most often one whose answer is
  // already here: the reference query itself (no LIMIT: the same text), or the filler's
  // probe of the query without its LIMIT (kept by the runner). Then it is judged before
  // anything else is sent, and a candidate whose order is not determined costs no batch;
  // otherwise its query leads the batch. Either way it is judged first of the steps below.
  let mainOrder = determinedCheck(query, reference, 'main', ctx)?.[0];
  if (mainOrder) {
    const q = mainOrder.query;
    const known =
      q === undefined
        ? undefined
        : q.pgSchema === reference.pgSchemas.main && q.sql.text === referenceSql.text
          ? refRaw
          : ctx.runner.kept(q.pgSchema, q.sql);
    if (q === undefined || known !== undefined) {
      mainOrder.judge(known);
      mainOrder = undefined;
    }
  }
  // Then the filter check on the reference variant, every other variant on the main
  // instance, and every variant on the edge-case one with its order check, as one batch:
  // one round trip per connection on a server, the pool full instead of draining between
  // them. The steps are judged in this order, each up to the earliest query that failed,
  // so a candidate is rejected for the same reason whatever the timing.
  const hasEdge = ctx.variants.every((v) => v.pgSchemas.edge !== undefined);
  const others = compiled.filter(({ variant }) => variant !== reference);
  const main = new Map<string, NormalizedResult>([[reference.name, refResult]]);
  const edgeResults = new Map<string, NormalizedResult>();
  const collect = (into: Map<string, NormalizedResult>, name: string) => (r: TextResult | undefined) =>
    void into.set(name, normalizeResult(r as TextResult, ordered));
  const steps: Step[] = [
    ...(mainOrder ? [mainOrder] : []),
    ...filterChecks(query, refResult, reference, ctx),
    ...setPartCheck(query, reference, ctx),
    ...others.map(({ variant, sql }) => ({
      query: { pgSchema: variant.pgSchemas.main, sql },
      judge: collect(main, variant.name),
    })),
    // The edge-case order check has nothing to check without an ORDER BY (a LIMIT alone was
    // refused on the main instance).
    ...(hasEdge && (query.orderBy?.length ?? 0) > 0 ? (determinedCheck(query, reference, 'edge', ctx) ?? []) : []),
    ...(hasEdge
      ? compiled.map(({ variant, sql }) => ({
          query: { pgSchema: variant.pgSchemas.edge as string, sql },
          judge: collect(edgeResults, variant.name),
        }))
      : []),
  ];
  await runSteps(steps, ctx);
  // Variants that disagree on an ordered or limited query usually meet a tie: name it so.
  const explain = async (instance: 'main' | 'edge', c: GroupComparison): Promise<never> => {
    if (query.orderBy?.length || query.limit !== undefined) await checkDetermined(query, reference, instance, ctx);
    return disagreement(instance, c);
  };
  const mainComparison = compareResults(
    new Map(compiled.map(({ variant }) => [variant.name, main.get(variant.name) as NormalizedResult])),
  );
  if (!mainComparison.agree) await explain('main', mainComparison);
  let edge: InstanceAnswer | undefined;
  if (hasEdge) {
    const c = compareResults(
      new Map(compiled.map(({ variant }) => [variant.name, edgeResults.get(variant.name) as NormalizedResult])),
    );
    if (!c.agree) await explain('edge', c);
    edge = { result_hash: c.hash, row_count: c.rowCount };
  }
  const answers: Record<string, VariantAnswer> = {};
  for (const { variant, sql } of compiled) {
    const r = main.get(variant.name) as NormalizedResult;
    answers[variant.name] = { sql: sql.text, row_count: r.rows.length, result_hash: r.hash };
  }
  return {
    answers,
    main: { result_hash: mainComparison.hash, row_count: mainComparison.rowCount },
    edge,
    distinctSql: new Set(compiled.map((c) => c.sql.text)).size,
    results: { main: refResult, edge: hasEdge ? edgeResults.get(reference.name) : undefined },
    trees: new Map(compiled.map((c) => [c.variant.name, c.tree])),
  };
}

/**
 * Variants that return the same rows in another order disagree only because the order is
 * left to the database (`order-undetermined`); any other difference is `variants-disagree`.
 */
function disagreement(instance: string, c: GroupComparison): never {
  const detail = `${instance} instance: ${c.differing.map((d) => `${d.variant} ${d.sample[0] ?? ''}`).join('; ')}`;
  if (c.differing.every((d) => d.sample.length === 1 && d.sample[0] === 'same rows in another order'))
    reject('order-undetermined', detail);
  return reject('variants-disagree', detail);
}

const isAggregate = (e: Expr): boolean => e.kind === 'aggregate' || (e.kind === 'round' && isAggregate(e.arg));

/** Non-empty and not degenerate, judged on the reference variant's answer. */
export function checkAnswer(query: Query, result: NormalizedResult): void {
  const rows = result.rows;
  if (rows.length === 0) reject('empty-answer', 'no rows on the main instance');
  if (rows.length === 1 && (rows[0] as readonly (string | null)[]).every((v) => v === null))
    reject('null-answer', 'one row of NULLs');
  if (query.kind !== 'select') return;
  if (rows.length === 1) {
    const echo = echoedLiteral(query, rows[0] as readonly (string | null)[]);
    if (echo !== undefined) reject('echoes-literal', `the answer ${echo} is a value the question itself gives`);
  }
  const filters = query.where !== undefined || query.having !== undefined || (query.joins?.length ?? 0) > 0;
  if (rows.length === 1 && filters) {
    const row = rows[0] as readonly (string | null)[];
    query.select.forEach((o, i) => {
      if (o.expr.kind === 'aggregate' && o.expr.fn === 'count' && row[i] === '0')
        reject('zero-count', `${o.name} is 0`);
    });
  }
  if ((query.groupBy?.length ?? 0) > 0 && rows.length >= 2) {
    const asked = new Set<string>();
    const collect = (p: Predicate | undefined): void => {
      if (!p) return;
      if (p.kind === 'compare' && p.op === '=') asked.add(canonicalKey(p.left));
      if (p.kind === 'and' || p.kind === 'or') p.args.forEach(collect);
    };
    collect(query.having);
    query.select.forEach((o, i) => {
      if (!isAggregate(o.expr) || asked.has(canonicalKey(o.expr))) return;
      const first = (rows[0] as readonly (string | null)[])[i];
      if (rows.every((row) => row[i] === first)) reject('constant-aggregate', `${o.name} is ${first} in every group`);
    });
  }
}

/**
 * One step of a candidate's batch: a query to run (or none) and what to do with its result;
 * `judge` rejects the candidate by throwing.
 */
interface Step {
  readonly query?: GuardedQuery;
  readonly judge: (result: TextResult | undefined) => void;
}

/**
 * Runs the steps' queries in one `runMany`, then judges the steps in order; a step whose
 * query failed throws that failure, and no later step is judged. A query two steps ask (the
 * edge-case order check without a LIMIT is the reference variant's edge query) is sent once.
 */
async function runSteps(steps: readonly Step[], ctx: CheckContext): Promise<void> {
  const queries: GuardedQuery[] = [];
  const sent = new Map<string, number>();
  const at = steps.map((s) => {
    if (!s.query) return -1;
    const key = `${s.query.pgSchema}\u0000${s.query.sql.text}`;
    const i = sent.get(key) ?? queries.push(s.query) - 1;
    sent.set(key, i);
    return i;
  });
  const { results, failure } =
    queries.length > 0 ? await ctx.runner.runMany(queries) : { results: [], failure: undefined };
  steps.forEach((step, k) => {
    const i = at[k] as number;
    if (failure && i === failure.index) throw failure.error;
    step.judge(i < 0 ? undefined : results[i]);
  });
}

/**
 * A WHERE clause, a window filter and a HAVING clause must each change the answer: the same query without it
 * must answer differently ("the 3 with the highest age within each preference" over rows of
 * one age keeps them all, and the question would state a choice that decides nothing).
 */
function filterChecks(query: Query, result: NormalizedResult, reference: CheckVariant, ctx: CheckContext): Step[] {
  if (query.kind !== 'select') return [];
  const without = (rest: Query, what: string, also?: (all: NormalizedResult) => void): Step => ({
    query: { pgSchema: reference.pgSchemas.main, sql: compileSql(ctx.index, reference.schema, rest) },
    judge: (r) => {
      const all = normalizeResult(r as TextResult, isOrdered(query));
      if (all.hash === result.hash) reject('filter-keeps-everything', `the answer is the same without the ${what}`);
      also?.(all);
    },
  });
  const { where, qualify, having, ...base } = query;
  const keep = { ...(having ? { having } : {}) };
  return [
    ...(where === undefined
      ? []
      : [
          without({ ...base, ...keep, ...(qualify ? { qualify } : {}) }, 'WHERE clause', (all) => {
            // "products not in any order" keeping 1,598 of 1,600: a filter that asks nothing of the data.
            const kept = keptShare(query, result, all);
            if (kept) reject('filter-keeps-almost-everything', `the WHERE clause keeps ${kept.kept} of ${kept.of}`);
          }),
        ]),
    ...(qualify === undefined ? [] : [without({ ...base, ...keep, ...(where ? { where } : {}) }, 'window filter')]),
    // "The creation year with the fewest videos, among years with fewer than 17": the HAVING
    // clause keeps the answer as it is.
    ...(having === undefined
      ? []
      : [without({ ...base, ...(where ? { where } : {}), ...(qualify ? { qualify } : {}) }, 'HAVING clause')]),
  ];
}

/**
 * Each part of a set operation must count: "viewers, or subscribers who like anime" is every
 * viewer when subscribers are viewers, and the second part (and the question's reading of
 * it) decides nothing. A union or intersection whose one part holds the other, or a
 * difference that takes nothing away, is rejected.
 */
function setPartCheck(query: Query, reference: CheckVariant, ctx: CheckContext): Step[] {
  if (query.kind !== 'set' || query.op === 'union all') return [];
  const step = (left: Query, op: 'except' | 'intersect', right: Query, detail: string): Step => ({
    query: {
      pgSchema: reference.pgSchemas.main,
      sql: compileSql(ctx.index, reference.schema, { kind: 'set', op, left, right }),
    },
    judge: (r) => {
      if ((r as TextResult).rows.length === 0) reject('filter-keeps-everything', detail);
    },
  });
  const { left, right } = query;
  if (query.op === 'except') return [step(left, 'intersect', right, 'the difference takes nothing away')];
  const holds = `one part of the ${query.op} holds the other, which changes nothing`;
  return [step(right, 'except', left, holds), step(left, 'except', right, holds)];
}

/**
 * How much of the unfiltered answer a filter keeps, when that is at least 99% of at least 100
 * rows (a list), or of a count of at least 100 (one count): a filter that hardly filters.
 */
function keptShare(
  query: SelectQuery,
  filtered: NormalizedResult,
  all: NormalizedResult,
): { kept: number; of: number } | undefined {
  const plainList =
    query.groupBy === undefined && query.limit === undefined && !query.select.some((o) => isAggregate(o.expr));
  const oneCount =
    query.select.length === 1 &&
    query.groupBy === undefined &&
    query.select[0]?.expr.kind === 'aggregate' &&
    query.select[0].expr.fn === 'count';
  const [kept, of] = plainList
    ? [filtered.rows.length, all.rows.length]
    : oneCount
      ? [Number(filtered.rows[0]?.[0]), Number(all.rows[0]?.[0])]
      : [NaN, NaN];
  return of >= 100 && kept < of && kept >= 0.99 * of ? { kept, of } : undefined;
}

/**
 * A one-row answer that gives back a literal of the question itself: the value its filter
 * fixes, or the threshold plus one ("the youngest age over 30" is 31) is no finding.
 */
function echoedLiteral(query: SelectQuery, row: readonly (string | null)[]): string | undefined {
  const literals: string[] = [];
  const collect = (p: Predicate | undefined): void => {
    if (!p) return;
    if (p.kind === 'and' || p.kind === 'or') p.args.forEach(collect);
    if (p.kind === 'in' && !p.negated) for (const v of p.values) literals.push(String(v));
    if (p.kind === 'compare' && p.right.kind === 'literal' && p.right.value !== null) {
      const v = p.right.value;
      if (p.op === '=') literals.push(String(v));
      if (typeof v === 'number' && Number.isInteger(v) && (p.op === '>' || p.op === '<'))
        literals.push(String(p.op === '>' ? v + 1 : v - 1));
      if (typeof v === 'number' && (p.op === '>=' || p.op === '<=')) literals.push(String(v));
    }
  };
  collect(query.where);
  collect(query.having);
  return (
    row.find(
      (cell) =>
        cell !== null && literals.some((l) => l === cell || (Number.isFinite(Number(l)) && Number(l) === Number(cell))),
    ) ?? undefined
  );
}

/** Alias → entity for the top level of a select (the aliases an ORDER BY can name). */
function aliasEntities(q: SelectQuery): Map<string, string> {
  const m = new Map<string, string>([[q.from.alias, q.from.entity]]);
  for (const j of q.joins ?? []) if (j.kind === 'relationship') m.set(j.alias, j.entity);
  return m;
}

/** Whether an expression's values are text, whose order depends on the collation. */
function isTextExpr(e: Expr, q: Query, index: ErIndex): boolean {
  const select = q.kind === 'select' ? q : undefined;
  const typeOf = (alias: string, attribute: string): string | undefined => {
    if (!select) return undefined;
    const entity = aliasEntities(select).get(alias);
    if (!entity) return undefined;
    return index.allAttributes(entity).find((a) => a.attribute.name === attribute)?.attribute.type.kind;
  };
  switch (e.kind) {
    case 'attribute': {
      if (e.attribute === 'id') return false;
      const t = typeOf(e.alias, e.attribute);
      return t === undefined ? true : t === 'text' || t === 'enum';
    }
    case 'aggregate':
      return e.fn !== 'count' && e.fn !== 'sum' && e.fn !== 'avg' && e.arg !== undefined && isTextExpr(e.arg, q, index);
    case 'round':
    case 'setSize':
    case 'literal':
      return e.kind === 'literal' ? typeof e.value === 'string' : false;
    case 'arithmetic':
      return e.op === '||';
    case 'scalarSubquery':
      return true;
    default:
      // Elements, link attributes, class names and arrays: treat as text unless known otherwise.
      return true;
  }
}

const collator = new Intl.Collator('en');
const sign = (n: number): number => (n < 0 ? -1 : n > 0 ? 1 : 0);

/**
 * The answer is determined by the query: with the LIMIT removed and the ORDER BY keys
 * appended as outputs, the rows up to the cut are ordered strictly or identical when tied,
 * the cut does not fall inside a tie, and every adjacent pair decided by a text key
 * compares the same under the C collation (bytes) and ICU English.
 */
export async function checkDetermined(
  query: Query,
  reference: CheckVariant,
  instance: 'main' | 'edge',
  ctx: CheckContext,
): Promise<void> {
  const [step] = determinedCheck(query, reference, instance, ctx) ?? [];
  if (step) step.judge(step.query ? await ctx.runner.run(step.query.pgSchema, step.query.sql) : undefined);
}

/** `checkDetermined` as a step: its query and its judgement of the rows; none without ORDER BY or LIMIT. */
function determinedCheck(
  query: Query,
  reference: CheckVariant,
  instance: 'main' | 'edge',
  ctx: CheckContext,
): [Step] | undefined {
  const order = query.orderBy ?? [];
  if (order.length === 0) {
    if (query.limit === undefined) return undefined;
    return [{ judge: () => reject('order-undetermined', 'LIMIT without ORDER BY') }];
  }
  const names = outputNames(query);
  const keyExprs: Expr[] = [];
  let probe: Query;
  const keyIdx: number[] = [];
  if (query.kind === 'set') {
    for (const o of query.orderBy ?? []) keyIdx.push(names.indexOf(o.name));
    const { limit: _l, ...rest } = query;
    probe = rest;
    for (const o of query.orderBy ?? []) keyExprs.push(outputExpr(query, o.name));
  } else {
    const extra: { name: string; expr: Expr }[] = [];
    for (const [i, o] of (query.orderBy as readonly OrderItem[]).entries()) {
      if (o.expr.kind === 'output') {
        keyIdx.push(names.indexOf(o.expr.name));
        keyExprs.push(outputExpr(query, o.expr.name));
      } else {
        keyIdx.push(names.length + extra.length);
        extra.push({ name: `order_key_${i + 1}`, expr: o.expr });
        keyExprs.push(o.expr);
      }
    }
    const { limit: _l, ...rest } = query;
    probe = { ...rest, select: [...query.select, ...extra] };
  }
  const sql = compileSql(ctx.index, reference.schema, probe);
  return [
    {
      query: { pgSchema: reference.pgSchemas[instance] as string, sql },
      judge: (r) => judgeOrder(query, ctx, instance, (r as TextResult).rows, names.length, keyIdx, keyExprs),
    },
  ];
}

/** The rows of `determinedCheck`'s query, judged: strict or identical up to the cut, no cut in a tie, no collation dependence. */
function judgeOrder(
  query: Query,
  ctx: CheckContext,
  instance: 'main' | 'edge',
  rows: TextResult['rows'],
  width: number,
  keyIdx: readonly number[],
  keyExprs: readonly Expr[],
): void {
  const keyOf = (row: readonly (string | null)[]): string => JSON.stringify(keyIdx.map((i) => row[i] ?? null));
  const outOf = (row: readonly (string | null)[]): string => JSON.stringify(row.slice(0, width));
  const limit = query.limit;
  if (limit !== undefined && instance === 'main' && rows.length <= limit)
    reject('limit-cuts-nothing', `LIMIT ${limit} over ${rows.length} rows`);
  const end = limit === undefined ? rows.length : Math.min(rows.length, limit + 1);
  for (let i = 1; i < end; i++) {
    const a = rows[i - 1] as readonly (string | null)[];
    const b = rows[i] as readonly (string | null)[];
    if (keyOf(a) === keyOf(b)) {
      if (limit !== undefined && i === limit)
        reject(
          'limit-inside-tie',
          `${instance} instance: rows ${i} and ${i + 1} tie on the ORDER BY keys at the LIMIT ${limit} cut`,
        );
      if (outOf(a) !== outOf(b))
        reject(
          'order-undetermined',
          `${instance} instance: rows ${i} and ${i + 1} tie on the ORDER BY keys but differ`,
        );
      continue;
    }
    const j = keyIdx.findIndex((k) => (a[k] ?? null) !== (b[k] ?? null));
    const x = a[keyIdx[j] as number];
    const y = b[keyIdx[j] as number];
    if (x == null || y == null || !isTextExpr(keyExprs[j] as Expr, query, ctx.index)) continue;
    if (sign(Buffer.compare(Buffer.from(x), Buffer.from(y))) !== sign(collator.compare(x, y))) {
      reject(
        'collation-dependent',
        `${instance} instance: ${JSON.stringify(x)} and ${JSON.stringify(y)} order differently under C and ICU English`,
      );
    }
  }
}

function outputExpr(q: Query, name: string): Expr {
  if (q.kind === 'set') return outputExpr(q.left, name);
  return q.select.find((o) => o.name === name)?.expr ?? { kind: 'literal', value: null };
}
