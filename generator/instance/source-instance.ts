import { existsSync } from 'node:fs';
import { LoadError } from '../common/errors.ts';
import type { Database } from '../database/database.ts';
import { openPostgres } from '../database/postgres-database.ts';
import type { ErIndex } from '../er-model/er-index.ts';
import { readVariant } from '../readback/read-instance.ts';
import { readSqliteVariant } from '../readback/read-sqlite.ts';
import { buildRelationalSchema } from '../variants/build-schema.ts';
import { nativeVariant } from '../variants/native-names.ts';
import type { ConceptualInstance } from './conceptual-instance.ts';

export interface SourceInstanceOptions {
  /** PostgreSQL schema the tables are in (default `public`). */
  readonly schema?: string;
}

/**
 * The conceptual instance a user's database holds: its rows read through the model's
 * physical names (the `native` variant), as a build reads its own variants back. SOURCE is a
 * `postgres://` URL, read in one REPEATABLE READ, READ ONLY transaction (nothing is created
 * or changed in it), or a SQLite file opened read-only. A model without physical names is
 * refused in one line, as is a row the model cannot hold (naming its table).
 *
 * @example await readSourceInstance(indexDomain(pagila), 'postgres://me@localhost/pagila')
 */
export async function readSourceInstance(
  index: ErIndex,
  source: string,
  options: SourceInstanceOptions = {},
): Promise<ConceptualInstance> {
  const postgres = /^postgres(ql)?:\/\//u.test(source);
  if (!postgres && !existsSync(source))
    throw new LoadError(
      `--instance-from ${source}: no such file (give a postgres:// URL or the path of a SQLite file)`,
    );
  const schema = buildRelationalSchema(index, nativeVariant(index));
  if (postgres) {
    const db = await openPostgres(source);
    try {
      return await readDatabaseInstance(db, index, options);
    } catch (error) {
      if (error instanceof LoadError) throw error;
      throw new LoadError(`--instance-from ${db.label}: ${(error as Error).message.split('\n')[0]}`, { cause: error });
    } finally {
      await db.close().catch(() => {});
    }
  }
  try {
    return (await readSqliteVariant(source, schema, index)).instance;
  } catch (error) {
    throw new LoadError(`--instance-from ${source}: ${(error as Error).message.split('\n')[0]}`, { cause: error });
  }
}

/** `readSourceInstance` over a PostgreSQL database already open (a server or PGlite). */
export async function readDatabaseInstance(
  db: Database,
  index: ErIndex,
  options: SourceInstanceOptions = {},
): Promise<ConceptualInstance> {
  const schema = buildRelationalSchema(index, nativeVariant(index));
  await db.exec('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  try {
    return (await readVariant(db, options.schema ?? 'public', schema, index)).instance;
  } finally {
    await db.exec('ROLLBACK').catch(() => {});
  }
}
