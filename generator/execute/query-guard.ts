/**
 * What the executor lets through before untrusted SQL reaches a database: one SELECT,
 * calling only functions that read, over the variant's own tables.
 *
 * Two readers, independent on purpose, and both must pass the text:
 * - PostgreSQL's own parser (`guard-tree.ts`, libpg-query: the server's grammar) decides the
 *   statement's shape and checks every table, call, cast and value function in its tree;
 * - our lexer (`guard-lexer.ts`) splits the text as PostgreSQL's scanner does and checks
 *   every call again.
 * They must agree that the text is one statement. Under both, the executor sends the text
 * alone by the extended protocol (Parse/Bind/Execute), which the server refuses to hold more
 * than one statement (`untrusted-query.ts`), in a read-only transaction, as the reader role
 * (`reader-role.ts`), which can only read the variant schemas. No layer is trusted alone.
 *
 * node-sql-parser, which reads many dialects and PostgreSQL's not exactly (where a `--`
 * comment ends, what `ONLY` means), has no part here; it reads the corpora.
 */
import { pgParserReady } from '../sql/pg-parser.ts';
import { isStackOverflow } from '../common/errors.ts';
import { refuse, READ_ONLY_FUNCTIONS } from './allowed-sql.ts';
import { readByLexer } from './guard-lexer.ts';
import { readByPostgres, type GuardScope } from './guard-tree.ts';

export { READ_ONLY_FUNCTIONS };
export type { GuardScope };

/**
 * Throws an ExecutionError naming what is refused unless both readers find `sql` to be one
 * SELECT (possibly after a WITH of plain SELECTs) that calls only READ_ONLY_FUNCTIONS and
 * reads only the tables of `scope.pgSchema` (or the statement's own CTEs). The parser must
 * be loaded first (`await loadPgParser()`; the executor does it).
 *
 * @example
 * const scope = { pgSchema: 'social__full_sti', tables: new Set(['users', 'post']) };
 * guardQuery('SELECT lower(name) FROM users', scope);   // passes
 * guardQuery('SELECT pg_reload_conf()', scope);
 * // ExecutionError: schema social__full_sti: refused: function pg_reload_conf at character 8 is not on the list …
 * guardQuery("SELECT --\r'a\\' AS x; COMMIT; COPY (SELECT 1) TO PROGRAM 'id'; --'", scope);
 * // ExecutionError: schema social__full_sti: refused: several statements (a ";" at character 19); only one SELECT is run
 */
export function guardQuery(sql: string, scope: GuardScope): void {
  if (!pgParserReady()) throw new Error('guardQuery called before loadPgParser() finished');
  const lexer = readByLexer(sql, scope.pgSchema);
  if (lexer.statements !== 1)
    throw refuse(
      scope.pgSchema,
      `several statements (a ";" at character ${lexer.separatorAt ?? '?'}); only one SELECT is run`,
    );
  let tree;
  try {
    tree = readByPostgres(sql, scope);
  } catch (error) {
    // A tree too deep for the walk, within the lexer's bound on parentheses (keywords nest too).
    if (isStackOverflow(error)) throw refuse(scope.pgSchema, 'query nested too deeply for the guard to read');
    throw error;
  }
  if (tree.statements !== lexer.statements) {
    throw refuse(
      scope.pgSchema,
      `PostgreSQL's parser reads ${tree.statements} statements where the lexer reads ${lexer.statements}; only one SELECT is run`,
    );
  }
}

/**
 * The check of the compiler's own SQL (`CompiledSql`) before its batched run: our lexer's
 * reading alone (one statement, calls on the list). The compiler made the text from its own
 * types, so its shape and tables are known; the lexer is the cheap proof that no bug of the
 * compiler's quoting lets a text reach past its statement in the batch.
 */
export function guardCompiled(sql: string, pgSchema: string): void {
  const lexer = readByLexer(sql, pgSchema);
  if (lexer.statements !== 1)
    throw refuse(
      pgSchema,
      `several statements (a ";" at character ${lexer.separatorAt ?? '?'}); only one SELECT is run`,
    );
}
