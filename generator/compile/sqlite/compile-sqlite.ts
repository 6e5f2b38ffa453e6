/**
 * The SQLite dialect of the compiler: the same conceptual query, lowered and simplified as
 * for PostgreSQL (`compileTree`), then rewritten by the dialect's rules (`rules/`) and
 * printed by the one printer. A construct SQLite cannot say with PostgreSQL's meaning is
 * refused with a `DialectError` naming it; nothing is approximated.
 *
 * @example
 * compileSqlite(index, schema, query)
 * // SELECT CAST(strftime('%Y', o.placed_at) AS INTEGER) AS year, count(*) AS order_count
 * // FROM orders AS o
 * // GROUP BY 1
 */
import type { ErIndex } from '../../er-model/er-index.ts';
import type { Query } from '../../query/conceptual-query.ts';
import type { RelationalSchema } from '../../variants/relational-schema.ts';
import { DialectError } from '../../common/errors.ts';
import { compileTree } from '../compile-query.ts';
import { mintCompiledSql, type CompiledSql } from '../compiled-sql.ts';
import { printSql } from '../print-sql.ts';
import { COMPILE_RULES, type CompileRule } from '../rules/index.ts';
import type { SqlExpr, SqlQuery } from '../sql-tree.ts';
import { someInQuery } from '../sql-tree-walk.ts';
import { isExactQuotient } from './rules/exact-rounded-averages.ts';
import { SQLITE_RULES, type DialectRule } from './rules/index.ts';

export type SqlDialect = 'postgres' | 'sqlite';
export const SQL_DIALECTS: readonly SqlDialect[] = ['postgres', 'sqlite'];

/** The rule a refusal names when what is left after every rule is a construct none says. */
export const NO_RULE = 'no-rule';

/** Functions only PostgreSQL has; one left after the rules is a construct they missed. */
const POSTGRES_ONLY = new Set([
  'date_trunc',
  'age',
  'unnest',
  'jsonb_array_elements_text',
  'jsonb_array_length',
  'cardinality',
  'strpos',
  'to_char',
  'num_nonnulls',
]);

/** What in a tree SQLite cannot say, by name; undefined when nothing. */
export function unsayableInSqlite(tree: SqlQuery): string | undefined {
  let found: string | undefined;
  const test = (e: SqlExpr): boolean => {
    found = unsayable(e);
    return found !== undefined;
  };
  someInQuery(tree, test);
  return found;
}

function unsayable(e: SqlExpr): string | undefined {
  switch (e.kind) {
    case 'extract':
      return `EXTRACT(${e.field.toUpperCase()})`;
    case 'interval':
      return 'INTERVAL';
    case 'any':
      return '= ANY (array)';
    case 'array':
      return 'ARRAY(…)';
    case 'binary':
      return e.op === '@>' ? 'jsonb @>' : undefined;
    case 'like':
      return e.caseInsensitive ? 'ILIKE' : undefined;
    case 'cast':
      return e.colons || e.type !== e.type.toUpperCase() ? `::${e.type}` : undefined;
    case 'call':
      // A quotient is exact in PostgreSQL's numeric and a binary fraction in SQLite's REAL:
      // rounded, 3/20 is 0.2 in one and 0.1 in the other.
      if (e.name === 'round' && e.args[0]?.kind === 'binary' && e.args[0].op === '/' && !isExactQuotient(e.args[0]))
        return 'round() of a quotient';
      return POSTGRES_ONLY.has(e.name) ? `${e.name}()` : undefined;
    default:
      return undefined;
  }
}

/** The dialect rules (all by default) over a PostgreSQL tree, then the refusal of anything left. */
export function sqliteTree(
  tree: SqlQuery,
  schema: RelationalSchema,
  rules: readonly DialectRule[] = SQLITE_RULES,
): SqlQuery {
  let out = tree;
  for (const rule of rules) {
    try {
      out = rule.apply(out, schema);
    } catch (error) {
      // The refusal names the rule it came from, so generation can count refusals by rule.
      if (error instanceof DialectError && error.rule === undefined)
        throw new DialectError(error.dialect, error.construct, error.why, rule.name);
      throw error;
    }
  }
  if (rules === SQLITE_RULES) {
    const left = unsayableInSqlite(out);
    if (left !== undefined)
      throw new DialectError('sqlite', left, `variant ${schema.variant.name}: no rule says it in SQLite`, NO_RULE);
  }
  return out;
}

/** The SQLite a conceptual query compiles to for one variant's SQLite database. */
export function compileSqlite(
  index: ErIndex,
  schema: RelationalSchema,
  query: Query,
  rules: readonly CompileRule[] = COMPILE_RULES,
): string {
  return printSql(sqliteTree(compileTree(index, schema, query, rules), schema));
}

/** `compileSqlite` as the compiler's trusted value (see compiled-sql.ts). */
export function compileSqliteSql(index: ErIndex, schema: RelationalSchema, query: Query): CompiledSql {
  return mintCompiledSql(compileSqlite(index, schema, query));
}

/** The SQLite of a tree the compiler already made for PostgreSQL (`compileTree`), as the compiler's trusted value. */
export function sqliteFromTree(tree: SqlQuery, schema: RelationalSchema): CompiledSql {
  return mintCompiledSql(printSql(sqliteTree(tree, schema)));
}

/** The SQL of a query in one dialect. */
export function compileFor(dialect: SqlDialect, index: ErIndex, schema: RelationalSchema, query: Query): string {
  return dialect === 'sqlite' ? compileSqlite(index, schema, query) : printSql(compileTree(index, schema, query));
}
