import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { ConfigError, oneLine } from '../common/errors.ts';
import { sha256 } from '../common/hash.ts';
import { indexDomain } from '../er-model/er-index.ts';
import { parseDomainJson } from '../er-model/domain-json.ts';
import { generateInstance } from '../instance/generate-instance.ts';
import { diffInstances, instanceHash } from '../instance/canonical-instance.ts';
import { buildRelationalSchema } from '../variants/build-schema.ts';
import type { RelationalSchema } from '../variants/relational-schema.ts';
import { renderSchemaFile } from '../shred/ddl-writer.ts';
import { readVariant, tableDifferences } from '../readback/read-instance.ts';
import { openDatabase, resolveTarget, type Database, type DatabaseTarget } from '../database/database.ts';
import { isDatabase } from './build-dataset.ts';
import { fileHeader, fileSha256, readManifest, type BuildManifest } from './build-manifest.ts';
import { lockDir, refuseIfLocked } from './dir-lock.ts';

export { readManifest } from './build-manifest.ts';

export interface VariantCheck {
  readonly variant: string;
  /** Hash of the instance read back from this variant's tables. */
  readonly instance_hash: string;
  readonly ok: boolean;
  /** The first differences, when not ok. */
  readonly differences: readonly string[];
}

/**
 * Where a built directory's databases are: `--db`, else DATABASE_URL, else the PGlite that
 * build.json names. A PGlite target must already hold a database: verify never creates one.
 */
export function targetOf(dir: string, manifest: BuildManifest, db: string | undefined): DatabaseTarget {
  if (db) {
    const target = resolveTarget(db, undefined);
    return target.kind === 'pglite' ? { ...target, mustExist: true } : target;
  }
  const path = join(dir, 'build.json');
  if (manifest.database.kind === 'postgres')
    throw new ConfigError(`${path}: built into a PostgreSQL server; give --db postgres://… or DATABASE_URL`);
  const location = manifest.database.location;
  if (location === 'memory')
    throw new ConfigError(`${path}: built into an in-memory PGlite, which is gone; rebuild into a directory`);
  return { kind: 'pglite', dir: isAbsolute(location) ? location : join(dir, location), mustExist: true };
}

/**
 * Checks every file build.json lists against its recorded SHA-256, and that nothing else is
 * in `schemas/` and `dumps/`. Problems of the directory as a whole are thrown as one line;
 * problems of one variant's files are returned under its name.
 */
export function checkBuildFiles(dir: string, manifest: BuildManifest): Map<string, string[]> {
  const erSha = fileSha256(join(dir, 'er.json'));
  const problems: string[] = [];
  if (erSha === undefined) problems.push('er.json is missing');
  else if (erSha !== manifest.er_sha256) problems.push('er.json differs from the one build.json records');
  for (const sub of ['schemas', 'dumps']) {
    const path = join(dir, sub);
    if (!existsSync(path)) continue;
    const listed = new Set(manifest.variants.map((v) => `${v.name}.sql`));
    const extra = readdirSync(path)
      .filter((name) => !listed.has(name))
      .sort();
    if (extra.length > 0)
      problems.push(`${sub}/ holds ${extra.map((n) => JSON.stringify(n)).join(', ')}, which build.json does not list`);
  }
  if (problems.length > 0)
    throw new ConfigError(`--dir: ${dir}: ${problems.join('; ')}; rebuild with equisql build --out ${dir}`);
  const byVariant = new Map<string, string[]>();
  for (const built of manifest.variants) {
    const found: string[] = [];
    for (const [sub, recorded] of [
      ['schemas', built.schema_sha256],
      ['dumps', built.dump_sha256],
    ] as const) {
      const actual = fileSha256(join(dir, sub, `${built.name}.sql`));
      if (actual === undefined) found.push(`${sub}/${built.name}.sql is missing`);
      else if (actual !== recorded)
        found.push(
          `${sub}/${built.name}.sql differs from build.json (sha256 ${actual.slice(0, 12)}…, recorded ${recorded.slice(0, 12)}…)`,
        );
    }
    byVariant.set(built.name, found);
  }
  return byVariant;
}

/** The lock for verify; a directory verify may not write (read-only media) is only checked for a live writer. */
function lockForReading(dir: string): () => void {
  // Taking the lock must not create the directory it checks.
  if (!existsSync(dir)) throw new ConfigError(`--dir: no such directory ${dir}`);
  try {
    return lockDir(dir, 'verify');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EROFS' && code !== 'EACCES' && code !== 'EPERM') throw error;
    refuseIfLocked(dir);
    return () => {};
  }
}

/**
 * Checks a built directory: every file against build.json, then every variant read back
 * from its database against the conceptual instance regenerated from `er.json` and the
 * recorded seed. The directory is locked meanwhile, so a build cannot swap files under it.
 */
export async function verifyDataset(
  dir: string,
  target: DatabaseTarget | Database,
  onVariant?: (check: VariantCheck) => void,
): Promise<VariantCheck[]> {
  const release = lockForReading(dir);
  try {
    const manifest = readManifest(dir);
    const fileProblems = checkBuildFiles(dir, manifest);
    const erPath = join(dir, 'er.json');
    const domain = parseDomainJson(readFileSync(erPath, 'utf8'), erPath);
    const index = indexDomain(domain);
    // An instance read from a database cannot be made again from the seed: its hash is the check.
    const expected = manifest.instance_from
      ? undefined
      : generateInstance(domain, {
          seed: manifest.seed,
          scale: manifest.scale,
          profile: manifest.profile,
          counts: manifest.counts,
        });
    const expectedHash = expected ? instanceHash(expected) : manifest.instance_hash;
    const owned = !isDatabase(target);
    const db = isDatabase(target) ? target : await openDatabase(target);
    const checks: VariantCheck[] = [];
    try {
      for (const [i, built] of manifest.variants.entries()) {
        const differences = [...(fileProblems.get(built.name) ?? [])];
        let schema: RelationalSchema | undefined;
        try {
          schema = buildRelationalSchema(index, built.spec);
          if (sha256(renderSchemaFile(schema, fileHeader(manifest, built.spec, 'schema'))) !== built.schema_sha256) {
            differences.push(`build.json variants[${i}].spec does not give the schema file build.json records`);
          }
        } catch (error) {
          differences.push(`build.json variants[${i}].spec: ${oneLine(error)}`);
        }
        let hash = '';
        if (schema) {
          try {
            const contents = await readVariant(db, built.pg_schema, schema, index);
            hash = instanceHash(contents.instance);
            const instanceDifferences =
              hash === expectedHash
                ? []
                : expected
                  ? diffInstances(expected, contents.instance)
                  : [
                      `instance hash ${hash.slice(0, 12)}, where build.json records ${expectedHash.slice(0, 12)} (the rows of ${manifest.instance_from?.source})`,
                    ];
            differences.push(...instanceDifferences, ...tableDifferences(index, schema, contents));
          } catch (error) {
            differences.push(`cannot read schema ${built.pg_schema}: ${oneLine(error)}`);
          }
        }
        const check = { variant: built.name, instance_hash: hash, ok: differences.length === 0, differences };
        checks.push(check);
        onVariant?.(check);
      }
    } finally {
      if (owned) await db.close();
    }
    return checks;
  } finally {
    release();
  }
}
