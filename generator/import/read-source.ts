import { existsSync } from 'node:fs';
import { LoadError } from '../common/errors.ts';
import type { Database } from '../database/database.ts';
import { openPostgres } from '../database/postgres-database.ts';
import type { Catalog, CatalogProfile, DiscriminatorProfile } from './catalog.ts';
import {
  type ConcreteProfile,
  profileConcreteTables,
  profileDiscriminators,
  profileReferencedFlags,
  profileReferencedValues,
  profileTables,
  type ReferencedFlags,
  type ReferencedValues,
} from './column-profile.ts';
import { qualified, readPgCatalog } from './pg-catalog-reader.ts';
import { readSqliteSource } from './sqlite-catalog-reader.ts';

export interface SourceOptions {
  /** PostgreSQL schema (default `public`). */
  readonly schema?: string;
  readonly tables?: readonly string[];
}

/** A source's catalog and the profile of its rows. */
export interface SourceRead {
  readonly catalog: Catalog;
  readonly profile: CatalogProfile;
  /** Per table, the columns that may tell a row's subtype, profiled by value. */
  readonly discriminators: ReadonlyMap<string, readonly DiscriminatorProfile[]>;
  /** Per foreign key into a table with a possible discriminator, the discriminator values of the rows it references (`referencesKey`). */
  readonly referenced?: ReadonlyMap<string, readonly ReferencedValues[]>;
  /** Per foreign key into a table with required booleans, how many referenced rows have each set (`referencesKey`). */
  readonly referencedFlags?: ReadonlyMap<string, ReferencedFlags>;
  /** Tables that may be concrete tables of one hierarchy, and the references into them no foreign key states. */
  readonly concrete?: ConcreteProfile;
}

/** What `readSource` promises about the source, for the command to say. */
export const READ_ONLY_NOTE = 'read in one READ ONLY transaction; nothing was created or changed in the source';

/**
 * Reads a PostgreSQL database already open (a server or PGlite) in one REPEATABLE READ,
 * READ ONLY transaction: the catalog and the profiles see the same snapshot, and the
 * server itself refuses any write. The transaction is rolled back whatever happens.
 */
export async function readDatabaseSource(db: Database, options: SourceOptions = {}): Promise<SourceRead> {
  await db.exec('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  try {
    const catalog = await readPgCatalog(db, options);
    const run = (sql: string) => db.query(sql);
    const from = (t: string): string => qualified(catalog.schema, t);
    const profile = await profileTables(run, catalog.tables, from, 'postgres');
    const discriminators = await profileDiscriminators(run, catalog.tables, profile, from);
    const referenced = await profileReferencedValues(run, catalog.tables, discriminators, from);
    const referencedFlags = await profileReferencedFlags(run, catalog.tables, from);
    const concrete = await profileConcreteTables(run, catalog.tables, from);
    return { catalog, profile, discriminators, referenced, referencedFlags, concrete };
  } finally {
    await db.exec('ROLLBACK').catch(() => {});
  }
}

/**
 * Reads SOURCE: a `postgres://` (or `postgresql://`) URL, or the path of a SQLite file.
 *
 * @example await readSource('postgres://me@localhost/pagila', { schema: 'public' })
 */
export async function readSource(source: string, options: SourceOptions = {}): Promise<SourceRead> {
  if (/^postgres(ql)?:\/\//u.test(source)) {
    const db = await openPostgres(source);
    try {
      return await readDatabaseSource(db, options);
    } catch (error) {
      if (error instanceof LoadError) throw error;
      throw new LoadError(`${db.label}: ${(error as Error).message.split('\n')[0]}`, { cause: error });
    } finally {
      await db.close().catch(() => {});
    }
  }
  if (!existsSync(source))
    throw new LoadError(`${source}: no such file (give a postgres:// URL or the path of a SQLite file)`);
  return readSqliteSource(source, options);
}
