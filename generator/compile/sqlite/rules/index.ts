/**
 * The SQLite dialect's rules, in the order they run: each rewrites the PostgreSQL tree the
 * compiler made (after all of `compile/rules/`) into the tree SQLite says with the same
 * meaning, one construct a rule, each in a file of its own with executed fixtures in
 * `test/fixtures/sqlite-rules/<name>.sql`.
 */
import type { RelationalSchema } from '../../../variants/relational-schema.ts';
import type { SqlQuery } from '../../sql-tree.ts';
import { booleansAsIntegers } from './booleans-as-integers.ts';
import { castsForSqlite } from './casts-for-sqlite.ts';
import { compoundArms } from './compound-arms.ts';
import { datesThroughStrftime } from './dates-through-strftime.ts';
import { exactRoundedAverages } from './exact-rounded-averages.ts';
import { likeAsGlob } from './like-as-glob.ts';
import { nullsAsPostgres } from './nulls-as-postgres.ts';
import { orderByColumns } from './order-by-columns.ts';
import { setsThroughJsonEach } from './sets-through-json-each.ts';
import { textFunctions } from './text-functions.ts';

export interface DialectRule {
  readonly name: string;
  readonly apply: (tree: SqlQuery, schema: RelationalSchema) => SqlQuery;
}

export const SQLITE_RULES: readonly DialectRule[] = [
  // Element casts are the sets' business before the casts rule sees them.
  { name: 'sets-through-json-each', apply: setsThroughJsonEach },
  // Date casts and intervals before the casts rule turns CAST(… AS date) into date(…).
  { name: 'dates-through-strftime', apply: datesThroughStrftime },
  { name: 'like-as-glob', apply: likeAsGlob },
  { name: 'text-functions', apply: textFunctions },
  // Before the casts rule reads an average as REAL.
  { name: 'exact-rounded-averages', apply: exactRoundedAverages },
  { name: 'casts-for-sqlite', apply: castsForSqlite },
  { name: 'booleans-as-integers', apply: booleansAsIntegers },
  { name: 'order-by-columns', apply: orderByColumns },
  { name: 'nulls-as-postgres', apply: nullsAsPostgres },
  { name: 'compound-arms', apply: compoundArms },
];
