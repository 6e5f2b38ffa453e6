/**
 * The content filler (TACO §3.2.2, over the E/R graph instead of SQL tables): a skeleton's
 * shape + the schema graph + the instance → a conceptual query.
 *
 * The steps, each in its own file: FROM and joins (join-paths.ts), WHERE (predicates.ts,
 * subqueries.ts), the select list, grouped or not (select-list.ts, aggregates.ts,
 * analytic.ts), HAVING (having.ts), ORDER BY and LIMIT (order-limit.ts), set operations
 * (set-query.ts), windows (windows.ts). Each `<table>` becomes an entity (any level of a
 * hierarchy) and each JOIN an edge of the graph from an alias already in the query; typed
 * column slots get attributes of a fitting kind; values come from the data (instance-values.ts);
 * HAVING thresholds and LIMITs are read by probe queries on one variant. Every probability
 * the steps draw with is in fill-rates.ts.
 *
 * A slot nothing fits throws `CandidateRejected` with its reason; the caller repairs by
 * filling again from another random stream, a bounded number of times.
 */
import type { Query, SelectQuery } from '../../query/conceptual-query.ts';
import type { SelectShape, QueryShape } from '../skeleton-shape.ts';
import { type Fill, type FillContext, startFill } from './fill-context.ts';
import { orderAndLimit } from './order-limit.ts';
import { fillSelect } from './select-list.ts';
import { fillSetQuery } from './set-query.ts';
import { TOP_PER_GROUP_SHARE, topPerGroup, WINDOW_OUTPUT_SHARE, windowOutput } from './windows.ts';

export type { FillContext, Probe } from './fill-context.ts';
export { outputNames } from './outputs.ts';

/**
 * Fills a skeleton shape into a conceptual query.
 *
 * @example
 * await fillQuery(readSkeleton(tokens), { graph, instance, rng, probe });
 * // { kind: 'select', from: { entity: 'Clip', alias: 'c' }, joins: [...], where: {...}, … }
 */
export async function fillQuery(shape: QueryShape, ctx: FillContext): Promise<Query> {
  const f = startFill(ctx);
  if (shape.kind === 'select') return topSelect(f, shape);
  return fillSetQuery(f, shape);
}

async function topSelect(f: Fill, shape: SelectShape): Promise<SelectQuery> {
  const { query, outputs } = await fillSelect(f, shape);
  const done = await orderAndLimit(f, query, outputs, shape);
  // A share of plain queries becomes top-N per group, from a stream of its own so the
  // rest of the fill draws what it drew before.
  const own = f.rng.fork('top-per-group');
  const roll = own.next();
  if (roll < TOP_PER_GROUP_SHARE) return topPerGroup(f.graph.index, own, done) ?? done;
  if (roll < TOP_PER_GROUP_SHARE + WINDOW_OUTPUT_SHARE) return windowOutput(f.graph.index, own, done) ?? done;
  return done;
}
