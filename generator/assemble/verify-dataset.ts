import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, oneLine } from '../common/errors.ts';
import { indexDomain } from '../er-model/er-index.ts';
import { parseDomainJson } from '../er-model/domain-json.ts';
import { generateInstance } from '../instance/generate-instance.ts';
import { diffInstances, instanceHash } from '../instance/canonical-instance.ts';
import { buildRelationalSchema } from '../variants/build-schema.ts';
import { readVariant, tableDifferences } from '../readback/read-instance.ts';
import { openDatabase, type Database, type DatabaseTarget } from '../database/database.ts';
import { isDatabase, type BuildManifest } from './build-dataset.ts';

export interface VariantCheck {
  readonly variant: string;
  /** Hash of the instance read back from this variant's tables. */
  readonly instance_hash: string;
  readonly ok: boolean;
  /** The first differences, when not ok. */
  readonly differences: readonly string[];
}

/** Reads `build.json` of a built directory. */
export function readManifest(dir: string): BuildManifest {
  const path = join(dir, 'build.json');
  if (!existsSync(path)) throw new ConfigError(`--dir: ${dir} has no build.json (run equisql build --out ${dir} first)`);
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as BuildManifest;
  } catch (error) {
    throw new ConfigError(`${path}: not valid JSON: ${(error as Error).message}`);
  }
}

/** Where a built directory's databases are: `--db`, else DATABASE_URL, else its PGlite. */
export function targetOf(dir: string, manifest: BuildManifest, db: string | undefined): DatabaseTarget {
  if (db) return db.startsWith('pglite:') ? { kind: 'pglite', dir: db.slice(7) } : { kind: 'postgres', url: db };
  if (manifest.database.kind === 'pglite') return { kind: 'pglite', dir: join(dir, 'pglite') };
  throw new ConfigError(`${join(dir, 'build.json')}: built into a PostgreSQL server; give --db postgres://… or DATABASE_URL`);
}

/**
 * Regenerates the conceptual instance from `er.json` and the recorded seed, reads every
 * variant back from its database, and compares the two.
 */
export async function verifyDataset(dir: string, target: DatabaseTarget | Database, onVariant?: (check: VariantCheck) => void): Promise<VariantCheck[]> {
  const manifest = readManifest(dir);
  const erPath = join(dir, 'er.json');
  if (!existsSync(erPath)) throw new ConfigError(`--dir: ${dir} has no er.json`);
  const domain = parseDomainJson(readFileSync(erPath, 'utf8'), erPath);
  const index = indexDomain(domain);
  const expected = generateInstance(domain, { seed: manifest.seed, scale: manifest.scale, profile: manifest.profile, counts: manifest.counts });
  const expectedHash = instanceHash(expected);
  const owned = !isDatabase(target);
  const db = isDatabase(target) ? target : await openDatabase(target);
  const checks: VariantCheck[] = [];
  try {
    for (const built of manifest.variants) {
      const schema = buildRelationalSchema(index, built.spec);
      let check: VariantCheck;
      try {
        const contents = await readVariant(db, built.pg_schema, schema, index);
        const hash = instanceHash(contents.instance);
        const differences = [...(hash === expectedHash ? [] : diffInstances(expected, contents.instance)), ...tableDifferences(index, schema, contents)];
        check = { variant: built.name, instance_hash: hash, ok: differences.length === 0, differences };
      } catch (error) {
        check = { variant: built.name, instance_hash: '', ok: false, differences: [`cannot read schema ${built.pg_schema}: ${oneLine(error)}`] };
      }
      checks.push(check);
      onVariant?.(check);
    }
  } finally {
    if (owned) await db.close();
  }
  return checks;
}
