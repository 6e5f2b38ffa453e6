import type { ErIndex } from '../er-model/er-index.ts';
import type { RelationalSchema } from '../variants/relational-schema.ts';
import type { Query, ScalarLiteral } from '../query/conceptual-query.ts';
import { scopeQuery, type QueryScope } from '../query/query-scope.ts';
import { inCanonicalOrder } from '../query/walk.ts';
import { indexVariant } from './entity-view.ts';
import type { CompiledSql } from './compiled-sql.ts';
import { lowerQuery } from './lower-query.ts';
import { printCompiledSql, printLiteral, printSql } from './print-sql.ts';
import { applyTreeRules, COMPILE_RULES, type CompileRule } from './rules/index.ts';
import type { SqlQuery } from './sql-tree.ts';

/** The SQL of a literal; strings are always quoted and escaped. */
export function literalSql(value: ScalarLiteral | null): string {
  return printLiteral(value);
}

/**
 * Compiles a conceptual query into the PostgreSQL a competent engineer would write for one
 * variant: view unfolding of every entity, relationship and set, then the simplifications
 * that schema allows. The SQL names no schema; run it with the variant's search_path.
 *
 * @example
 * compileQuery(index, schema, {
 *   kind: 'select',
 *   from: { entity: 'LiveStream', alias: 'l' },
 *   joins: [{ kind: 'relationship', type: 'left', relationship: 'derived_from', from: 'l', direction: 'reverse', alias: 'c', entity: 'Clip' }],
 *   select: [{ name: 'id', expr: { kind: 'attribute', alias: 'l', attribute: 'id' } },
 *            { name: 'clips', expr: { kind: 'aggregate', fn: 'count', arg: { kind: 'attribute', alias: 'c', attribute: 'id' } } }],
 *   groupBy: [{ kind: 'attribute', alias: 'l', attribute: 'id' }],
 * })
 * // full_cti:  SELECT l.id, count(c.id) AS clips FROM live_stream AS l LEFT JOIN clip AS c ON c.source_stream_id = l.id GROUP BY l.id
 */
export function compileQuery(index: ErIndex, schema: RelationalSchema, query: Query): string {
  return printSql(compileTree(index, schema, query));
}

/**
 * `compileQuery` as a `CompiledSql`: the form the executor runs on its fast path (several
 * statements in one message), which it takes from no string. The printer makes it, from the
 * tree, so no text from elsewhere can become one.
 *
 * @example
 * const sql = compileSql(index, schema, query);
 * await runReadOnly(db, 'retail__full_cti', sql);   // the compiler's own SQL, batched
 * sql.text;                                          // what the groups file stores
 */
export function compileSql(index: ErIndex, schema: RelationalSchema, query: Query): CompiledSql {
  return printCompiledSql(compileTree(index, schema, query));
}

/**
 * Queries in canonical order, by the query as given: one query is compiled for every
 * variant, and queries are immutable values, so its canonical copy is made once.
 */
const canonicalCopies = new WeakMap<Query, Query>();

/** The query rules' result, by query: the same for every variant of one domain. */
const ruledCopies = new WeakMap<
  Query,
  { readonly index: ErIndex; readonly rules: readonly CompileRule[]; readonly query: Query }
>();

function queryRulesApplied(query: Query, index: ErIndex, rules: readonly CompileRule[]): Query {
  const cached = ruledCopies.get(query);
  if (cached && cached.index === index && cached.rules === rules) return cached.query;
  let out = query;
  for (const rule of rules) if (rule.stage === 'query') out = rule.apply(out, index);
  ruledCopies.set(query, { index, rules, query: out });
  return out;
}

/** A query's scope, by query: it depends on the domain alone, not on the variant. */
const scopes = new WeakMap<Query, { readonly index: ErIndex; readonly scope: QueryScope }>();

function scopeOf(index: ErIndex, query: Query): QueryScope {
  const cached = scopes.get(query);
  if (cached && cached.index === index) return cached.scope;
  // A query that does not check throws here, every time it is compiled.
  const scope = scopeQuery(index, query);
  scopes.set(query, { index, scope });
  return scope;
}

function canonicalQuery(query: Query): Query {
  let copy = canonicalCopies.get(query);
  if (!copy) canonicalCopies.set(query, (copy = inCanonicalOrder(query)));
  return copy;
}

/**
 * The SQL tree of a conceptual query for one variant: the query rules, lowering, then the
 * tree rules (`rules` chooses which; all of COMPILE_RULES by default, in their order).
 */
export function compileTree(
  index: ErIndex,
  schema: RelationalSchema,
  query: Query,
  rules: readonly CompileRule[] = COMPILE_RULES,
): SqlQuery {
  const scope = scopeOf(index, query);
  // Keys in one order from here on: the SQL cannot depend on how the JSON was written, and
  // parts compare by their plain JSON.
  const conceptual = queryRulesApplied(canonicalQuery(query), index, rules);
  return applyTreeRules(lowerQuery(indexVariant(index, schema), scope, conceptual), rules);
}
