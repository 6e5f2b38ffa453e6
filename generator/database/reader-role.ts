import { LoadError, oneLine } from '../common/errors.ts';
import { quoteIdent, quoteLiteral } from '../common/sql-text.ts';
import type { Database } from './database.ts';

/**
 * The role queries run as (`SET LOCAL ROLE`): it can log in nowhere and only read the
 * tables of the variant schemas it was granted, so the connecting user's own privileges
 * (a superuser's, often) are not what a query runs with. It is a second layer, not a
 * boundary: `SET LOCAL ROLE` can be undone from inside a statement
 * (`set_config('role', 'none', true)` returns to the session user), so the guard's
 * allow-list, which refuses `set_config`, is what keeps a query in this role.
 * Roles belong to the whole server, so every build on one server shares it, and it can
 * read every variant schema there, of any dataset.
 */
export const READER_ROLE = 'equisql_reader';

/**
 * Creates the reader role when it is missing, lets the current user switch to it, and
 * grants it USAGE on `pgSchema` and SELECT on the tables there now. Build calls it after
 * loading each variant; the executor calls it for a schema whose grants are missing (a
 * build made before the role existed). Fails with a LoadError naming the role and schema
 * when the current user may not create roles or grant.
 *
 * @example
 * await grantReader(db, 'social_media__full_sti');
 * // CREATE ROLE equisql_reader NOLOGIN (once); GRANT USAGE ON SCHEMA … ; GRANT SELECT ON ALL TABLES IN SCHEMA …
 */
export async function grantReader(db: Database, pgSchema: string): Promise<void> {
  const role = quoteIdent(READER_ROLE);
  const schema = quoteIdent(pgSchema);
  try {
    // Two builds on one server may both find the role missing: the loser of the race sees
    // a duplicate and carries on.
    await db.exec(`DO $equisql$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = ${quoteLiteral(READER_ROLE)}) THEN
    BEGIN
      CREATE ROLE ${role} NOLOGIN;
    EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
    END;
  END IF;
  IF NOT pg_has_role(current_user, ${quoteLiteral(READER_ROLE)}, 'MEMBER') THEN
    EXECUTE format('GRANT %I TO %I', ${quoteLiteral(READER_ROLE)}, current_user);
  END IF;
END
$equisql$;
GRANT USAGE ON SCHEMA ${schema} TO ${role};
GRANT SELECT ON ALL TABLES IN SCHEMA ${schema} TO ${role};`);
  } catch (error) {
    throw new LoadError(
      `cannot grant role ${READER_ROLE} read access to schema ${pgSchema} on ${db.label}: ${oneLine(error)}`,
      { cause: error },
    );
  }
}

/**
 * True when the reader role exists, the current user may switch to it, and it can read
 * every table of `pgSchema`: a read, so a query never writes the catalog when nothing is
 * missing.
 */
export async function readerCanRead(db: Database, pgSchema: string): Promise<boolean> {
  const rows = await db.query(
    // CASE, not AND: the privilege functions fail on a role that does not exist.
    `SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1) THEN false
                 ELSE pg_has_role(current_user, $1, 'MEMBER')
                      AND has_schema_privilege($1, $2, 'USAGE')
                      AND NOT EXISTS (
                        SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                        WHERE n.nspname = $2 AND c.relkind IN ('r', 'p', 'v', 'm') AND NOT has_table_privilege($1, c.oid, 'SELECT'))
            END AS ok`,
    [READER_ROLE, pgSchema],
  );
  const ok = rows[0]?.['ok'];
  return ok === true || ok === 't';
}
