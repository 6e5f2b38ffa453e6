import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Domain } from '../er-model/er-model.ts';
import { indexDomain } from '../er-model/er-index.ts';
import { domainToJson } from '../er-model/domain-json.ts';
import { sha256 } from '../common/hash.ts';
import { ConfigError, LoadError, oneLine } from '../common/errors.ts';
import { quoteIdent } from '../common/sql-text.ts';
import type { ConceptualInstance, InstanceProfile, ScalePreset } from '../instance/conceptual-instance.ts';
import { generateInstanceReport } from '../instance/generate-instance.ts';
import { instanceHash } from '../instance/canonical-instance.ts';
import { selectVariantsReport } from '../variants/select-variants.ts';
import { buildRelationalSchema } from '../variants/build-schema.ts';
import { brokenUniques, createShredContext } from '../shred/shred-rows.ts';
import { renderSchemaFile } from '../shred/ddl-writer.ts';
import { sqliteRefusal } from '../shred/sqlite-storage.ts';
import { loadVariant, renderDump, shredVariant } from '../load/load-variant.ts';
import { writeSqliteVariant } from '../load/sqlite-file.ts';
import { grantReader } from '../database/reader-role.ts';
import { isPgliteDir, openDatabase, type Database, type DatabaseTarget } from '../database/database.ts';
import { checkSeed, fileHeader, manifestText, type BuildManifest, type BuiltVariant } from './build-manifest.ts';
import { lockDir } from './dir-lock.ts';
import { createStaging, interruptedBuild, removeLeftovers, swapIn } from './dir-swap.ts';
import { pgSchemaNames, stagingSchemaName } from './schema-names.ts';

export { checkSeed, type BuildManifest, type BuiltVariant } from './build-manifest.ts';

export interface BuildOptions {
  readonly dataset: string;
  readonly domain: Domain;
  readonly variants: string;
  readonly scale: ScalePreset;
  readonly seed: string | number;
  readonly profile: InstanceProfile;
  readonly counts?: Readonly<Record<string, number>>;
  /** Where to load: a target to open (and close), or an open database (left open). */
  readonly target: DatabaseTarget | Database;
  readonly out: string;
  /** Prefix of each variant's PostgreSQL schema; default `<dataset>__`. */
  readonly schemaPrefix?: string;
  readonly progress?: (message: string) => void;
  /**
   * The caller already holds `out`'s lock (`generate`, which takes it before it opens
   * anything in the directory); the build then does not take it again.
   */
  readonly lockHeld?: boolean;
  /**
   * Engines to build for; PostgreSQL always. With `sqlite`, each variant SQLite can hold is
   * also written to `sqlite/<variant>.sqlite` from the same instance (see
   * `load/sqlite-file.ts`); build.json names the others (`sqliteRefusal`).
   */
  readonly engines?: readonly ('postgres' | 'sqlite')[];
  /**
   * The main instance read from a database (`--instance-from`, see `readSourceInstance`)
   * in place of one generated from the seed; `source` is said in build.json.
   */
  readonly instance?: { readonly instance: ConceptualInstance; readonly source: string; readonly sample?: number };
}

export interface BuildResult {
  readonly manifest: BuildManifest;
  /** Seconds spent per phase, for progress reports and benchmarks (never written to files). */
  readonly timings: { readonly generate: number; readonly shred: number; readonly load: number };
  readonly rows: number;
  /** What the user should know but that did not stop the build, one line each (the CLI prints them). */
  readonly warnings: readonly string[];
}

/** True for an open database, false for a target still to open. */
export function isDatabase(target: DatabaseTarget | Database): target is Database {
  return 'exec' in target;
}

/** What build.json records as the database's location: see `BuildManifest.database`. */
function databaseLocation(out: string, target: DatabaseTarget | Database): BuildManifest['database'] {
  if (isDatabase(target)) {
    if (target.kind === 'postgres') return { kind: 'postgres', location: 'server' };
    const dir = target.label.slice('pglite:'.length);
    return { kind: 'pglite', location: dir === 'memory' ? 'memory' : pgliteLocation(out, dir) };
  }
  if (target.kind === 'postgres') return { kind: 'postgres', location: 'server' };
  return { kind: 'pglite', location: target.dir === undefined ? 'memory' : pgliteLocation(out, target.dir) };
}

/**
 * `pglite` for the directory's own database and `../pglite` for the one of the directory
 * around it (generate's `DIR/edge` build), so build.json does not depend on where DIR is;
 * else an absolute path.
 */
function pgliteLocation(out: string, dir: string): string {
  const absolute = resolve(dir);
  if (absolute === join(resolve(out), 'pglite')) return 'pglite';
  return absolute === join(dirname(resolve(out)), 'pglite') ? join('..', 'pglite') : absolute;
}

const DROP_USER_SCHEMAS = `DO $$ DECLARE r record; BEGIN
  FOR r IN SELECT nspname FROM pg_namespace WHERE nspname !~ '^pg_' AND nspname NOT IN ('information_schema', 'public') LOOP
    EXECUTE format('DROP SCHEMA %I CASCADE', r.nspname);
  END LOOP;
END $$`;

/**
 * Opens the staged copy of the directory's own PGlite database. Copying the old one (when
 * it is whole) and emptying it is several times faster than creating a database; the copy
 * is made with the directory locked, so no other process has the old one open.
 */
async function openStagedPglite(out: string, staging: string): Promise<Database> {
  const old = join(out, 'pglite');
  const dir = join(staging, 'pglite');
  if (isPgliteDir(old) && !interruptedBuild(out)) {
    cpSync(old, dir, { recursive: true });
    try {
      const db = await openDatabase({ kind: 'pglite', dir, mustExist: true });
      await db.exec(DROP_USER_SCHEMAS);
      return db;
    } catch {
      // A damaged old database is no reason to fail the build that replaces it.
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return openDatabase({ kind: 'pglite', dir });
}

/** A file-system error (a full disk, a read-only directory) as a one-line LoadError naming the directory. */
function fileSystemFailure(out: string, error: unknown): unknown {
  const e = error as NodeJS.ErrnoException;
  if (typeof e?.code !== 'string' || typeof e.syscall !== 'string') return error;
  return new LoadError(`cannot write the build in ${out}: ${oneLine(e)}`, { cause: error });
}

/** Moves each staged schema to its final name, dropping the old one, in one transaction. */
async function renameSchemas(db: Database, pairs: readonly (readonly [string, string])[]): Promise<void> {
  const sql = pairs
    .map(
      ([staged, final]) =>
        `DROP SCHEMA IF EXISTS ${quoteIdent(final)} CASCADE; ALTER SCHEMA ${quoteIdent(staged)} RENAME TO ${quoteIdent(final)};`,
    )
    .join('\n');
  try {
    await db.exec(`BEGIN;\n${sql}\nCOMMIT;`);
  } catch (error) {
    await db.exec('ROLLBACK').catch(() => {});
    throw new LoadError(`${db.label}: renaming the staged schemas into place: ${oneLine(error)}`, { cause: error });
  }
}

/** Files of the stages after the build: groups, their rejections, a shard's candidates, questions. */
const LATER_STAGES = ['groups', 'rejections.jsonl', 'shard.json', 'questions'];

/**
 * Refuses to replace a build that later stages' files were checked against by one with
 * another instance or other variants: the groups would stand over databases they were never
 * verified on, and verify and check would pass. The same build again (same seed, scale,
 * counts and variants) is allowed: it gives the same bytes.
 */
function refuseUnderGroups(out: string, hash: string, variants: readonly string[]): void {
  const held = LATER_STAGES.filter((name) => existsSync(join(out, name)));
  const buildPath = join(out, 'build.json');
  if (held.length === 0 || !existsSync(buildPath)) return;
  let old: { instance_hash?: unknown; variants?: { name?: unknown }[]; seed?: unknown } = {};
  try {
    old = JSON.parse(readFileSync(buildPath, 'utf8')) as typeof old;
  } catch {
    // An unreadable build.json checks nothing: the groups over it are refused by every later stage.
    return;
  }
  const oldVariants = Array.isArray(old.variants) ? old.variants.map((v) => v?.name) : [];
  if (old.instance_hash === hash && JSON.stringify(oldVariants) === JSON.stringify(variants)) return;
  throw new ConfigError(
    `build: ${out} holds ${held.join(', ')} checked against its build (seed ${String(old.seed)}, variants ${oldVariants.join(',')}); another build there would leave them unchecked: choose another --out, or remove them first`,
  );
}

/**
 * Generates the instance, shreds it into every selected variant, and writes `er.json`,
 * `schemas/<v>.sql`, `dumps/<v>.sql`, `build.json` and (by default) the PGlite database
 * `pglite/` under `out`, loading each variant into its own schema.
 *
 * Everything is checked before anything is written; the directory is locked for the whole
 * build (a second build fails at once, naming the holder); everything is written into a
 * staging directory (and, on a shared database, staging schemas) and swapped in at the end,
 * so an interrupted build leaves the old complete build or a directory every command
 * refuses by name. Files of later stages are left alone.
 */
export async function buildDataset(options: BuildOptions): Promise<BuildResult> {
  const progress = options.progress ?? (() => {});
  checkSeed(options.seed);
  const out = resolve(options.out);
  const index = indexDomain(options.domain);
  const selection = selectVariantsReport(index, options.variants, options.seed);
  const warnings: string[] = [...selection.notes];
  let schemas = selection.variants.map((v) => buildRelationalSchema(index, v));
  const pgNames = pgSchemaNames(
    options.schemaPrefix ?? `${options.dataset}__`,
    schemas.map((s) => s.variant.name),
  );
  const erText = domainToJson(options.domain);
  let t = performance.now();
  // Generating the instance validates the counts: a bad one must fail before any file changes.
  const { instance, warnings: instanceWarnings } = options.instance
    ? { instance: options.instance.instance, warnings: [] }
    : generateInstanceReport(options.domain, {
        seed: options.seed,
        scale: options.scale,
        profile: options.profile,
        counts: options.counts,
      });
  warnings.push(...instanceWarnings);
  const hash = instanceHash(instance);
  const generate = (performance.now() - t) / 1000;
  schemas = schemas.map((schema) => {
    // The source's composite unique keys hold on its rows, not always on generated ones.
    if (!schema.variant.native) return schema;
    const context = createShredContext(index, instance);
    const broken = schema.tables.flatMap((table) => brokenUniques(context, schema, table));
    if (broken.length === 0) return schema;
    warnings.push(`native: ${broken.join(', ')}: unique on the source, not on this instance; left out of this build`);
    return buildRelationalSchema(index, { ...schema.variant, uniquesLeftOut: broken });
  });
  refuseUnderGroups(
    out,
    hash,
    schemas.map((s) => s.variant.name),
  );

  const requested = options.target;
  const given = isDatabase(requested) ? requested : undefined;
  // The directory's own PGlite is staged whole; any other database gets staging schemas.
  const ownPglite =
    !isDatabase(requested) &&
    requested.kind === 'pglite' &&
    requested.dir !== undefined &&
    resolve(requested.dir) === join(out, 'pglite');
  const database = databaseLocation(out, requested);
  // Reach a shared database before taking the directory, so an unreachable one changes nothing.
  let db: Database | undefined = given ?? (ownPglite ? undefined : await openDatabase(requested as DatabaseTarget));
  progress(
    options.instance
      ? `instance of ${options.domain.name} read from ${options.instance.source} (${hash.slice(0, 12)})`
      : `instance of ${options.domain.name} generated in ${generate.toFixed(2)} s (${hash.slice(0, 12)})`,
  );
  let release: (() => void) | undefined;
  const staged: [string, string][] = [];
  try {
    if (!options.lockHeld) release = lockDir(out, 'build');
    removeLeftovers(out);
    const staging = createStaging(out);
    try {
      if (ownPglite) db = await openStagedPglite(out, staging);
      const target = db as Database;
      writeFileSync(join(staging, 'er.json'), erText);
      const context = createShredContext(index, instance);
      const built: BuiltVariant[] = [];
      const withSqlite = options.engines?.includes('sqlite') === true;
      const sqliteHeld: string[] = [];
      const notHeld: Record<string, string> = {};
      let shred = 0;
      let load = 0;
      for (const [i, schema] of schemas.entries()) {
        const variant = schema.variant;
        t = performance.now();
        const data = shredVariant(context, schema);
        const schemaText = renderSchemaFile(schema, fileHeader(options, variant, 'schema'));
        const dumpText = renderDump(schema, data, fileHeader(options, variant, 'dump'));
        writeFileSync(join(staging, 'schemas', `${variant.name}.sql`), schemaText);
        writeFileSync(join(staging, 'dumps', `${variant.name}.sql`), dumpText);
        shred += (performance.now() - t) / 1000;
        t = performance.now();
        const pgSchema = pgNames[i] as string;
        const loadInto = ownPglite ? pgSchema : stagingSchemaName(pgSchema);
        if (!ownPglite) staged.push([loadInto, pgSchema]);
        await loadVariant(target, loadInto, schema, data);
        if (withSqlite) {
          const refusal = sqliteRefusal(schema);
          if (refusal === undefined) {
            writeSqliteVariant(context, schema, join(staging, 'sqlite', `${variant.name}.sqlite`));
            sqliteHeld.push(variant.name);
          } else {
            notHeld[variant.name] = refusal;
            warnings.push(`SQLite cannot hold variant ${variant.name} (${refusal}): built for PostgreSQL only`);
          }
        }
        // Granted before the swap: a schema keeps its grants when renamed, and the staged
        // PGlite directory moves whole.
        await grantReader(target, loadInto);
        const seconds = (performance.now() - t) / 1000;
        load += seconds;
        const rows = data.reduce((sum, d) => sum + d.rows, 0);
        progress(`${variant.name}: ${schema.tables.length} tables, ${rows} rows loaded in ${seconds.toFixed(2)} s`);
        built.push({
          name: variant.name,
          pg_schema: pgSchema,
          tables: schema.tables.length,
          rows,
          schema_sha256: sha256(schemaText),
          dump_sha256: sha256(dumpText),
          spec: variant,
        });
      }
      const manifest: BuildManifest = {
        dataset: options.dataset,
        domain: options.domain.name,
        seed: options.seed,
        scale: options.scale,
        profile: options.profile,
        counts: options.counts ?? {},
        instance_hash: hash,
        ...(options.instance
          ? {
              instance_from: {
                source: options.instance.source,
                ...(options.instance.sample !== undefined ? { sample: options.instance.sample } : {}),
              },
            }
          : {}),
        er_sha256: sha256(erText),
        database,
        variants: built,
        ...(withSqlite ? { sqlite: { variants: sqliteHeld, not_held: notHeld } } : {}),
      };
      if (ownPglite) {
        // PGlite must be closed before its directory moves.
        await target.close();
        db = undefined;
      }
      await swapIn(out, staging, manifestText(manifest), ownPglite ? undefined : () => renameSchemas(target, staged));
      staged.length = 0;
      return {
        manifest,
        timings: { generate, shred, load },
        rows: built.reduce((sum, v) => sum + v.rows, 0),
        warnings,
      };
    } catch (error) {
      rmSync(staging, { recursive: true, force: true });
      throw error;
    }
  } catch (error) {
    throw fileSystemFailure(out, error);
  } finally {
    if (db && staged.length > 0)
      await db.exec(staged.map(([s]) => `DROP SCHEMA IF EXISTS ${quoteIdent(s)} CASCADE;`).join('\n')).catch(() => {});
    if (db && db !== given) await db.close();
    release?.();
  }
}
