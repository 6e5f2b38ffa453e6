import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Domain } from '../er-model/er-model.ts';
import { indexDomain } from '../er-model/er-index.ts';
import { domainToJson } from '../er-model/domain-json.ts';
import { sha256, stableStringify } from '../common/hash.ts';
import { ConfigError } from '../common/errors.ts';
import type { InstanceProfile, ScalePreset } from '../instance/conceptual-instance.ts';
import { generateInstance } from '../instance/generate-instance.ts';
import { instanceHash } from '../instance/canonical-instance.ts';
import type { VariantSpec } from '../variants/variant-spec.ts';
import { selectVariants } from '../variants/select-variants.ts';
import { buildRelationalSchema } from '../variants/build-schema.ts';
import { createShredContext } from '../shred/shred-rows.ts';
import { renderSchemaFile } from '../shred/ddl-writer.ts';
import { loadVariant, renderDump, shredVariant } from '../load/load-variant.ts';
import { openDatabase, type Database, type DatabaseTarget } from '../database/database.ts';
import { grantReader } from '../database/reader-role.ts';

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
}

export interface BuiltVariant {
  readonly name: string;
  readonly pg_schema: string;
  readonly tables: number;
  readonly rows: number;
  readonly schema_sha256: string;
  readonly dump_sha256: string;
  readonly spec: VariantSpec;
}

/** `build.json`: what was built, enough to regenerate the instance and find each variant. */
export interface BuildManifest {
  readonly dataset: string;
  readonly domain: string;
  readonly seed: string | number;
  readonly scale: ScalePreset;
  readonly profile: InstanceProfile;
  readonly counts: Readonly<Record<string, number>>;
  readonly instance_hash: string;
  readonly database: { readonly kind: 'pglite' | 'postgres'; readonly location: string };
  readonly variants: readonly BuiltVariant[];
}

export interface BuildResult {
  readonly manifest: BuildManifest;
  /** Seconds spent per phase, for progress reports and benchmarks (never written to files). */
  readonly timings: { readonly generate: number; readonly shred: number; readonly load: number };
  readonly rows: number;
}

export function isDatabase(target: DatabaseTarget | Database): target is Database {
  return 'exec' in target;
}

/** Writes a file through a temporary name, so an interrupted run never leaves half a file. */
export function writeFileAtomic(path: string, text: string): void {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

/** The one-line comment that opens every schema and dump file. */
function fileHeader(options: BuildOptions, variant: VariantSpec, kind: string): string {
  return `-- equisql ${kind}: dataset ${options.dataset}, variant ${variant.name} (${variant.description}); seed ${options.seed}, scale ${options.scale}, profile ${options.profile}`;
}

/**
 * Generates the instance, shreds it into every selected variant, writes `er.json`,
 * `schemas/<v>.sql`, `dumps/<v>.sql` and `build.json` under `out`, and loads each variant
 * into its own schema of the target database.
 */
/** Seeds end up in file headers and manifests: keep them to plain, printable words. */
export function checkSeed(seed: string | number): void {
  if (!/^[A-Za-z0-9_.:-]{1,64}$/.test(String(seed))) {
    throw new ConfigError(`--seed: expected 1 to 64 letters, digits or . _ : -, got ${JSON.stringify(String(seed))}`);
  }
}

export async function buildDataset(options: BuildOptions): Promise<BuildResult> {
  const progress = options.progress ?? (() => {});
  checkSeed(options.seed);
  const index = indexDomain(options.domain);
  const schemas = selectVariants(index, options.variants, options.seed).map((v) => buildRelationalSchema(index, v));
  // Reach the database before writing anything, so an unreachable one changes no file.
  const owned = !isDatabase(options.target);
  const db = isDatabase(options.target) ? options.target : await openDatabase(options.target);
  try {
    mkdirSync(join(options.out, 'schemas'), { recursive: true });
    mkdirSync(join(options.out, 'dumps'), { recursive: true });
    writeFileAtomic(join(options.out, 'er.json'), domainToJson(options.domain));

    let t = performance.now();
    const instance = generateInstance(options.domain, { seed: options.seed, scale: options.scale, profile: options.profile, counts: options.counts });
    const hash = instanceHash(instance);
    const generate = (performance.now() - t) / 1000;
    progress(`instance of ${options.domain.name} generated in ${generate.toFixed(2)} s (${hash.slice(0, 12)})`);

    const context = createShredContext(index, instance);
    const prefix = options.schemaPrefix ?? `${options.dataset}__`;
    const built: BuiltVariant[] = [];
    let shred = 0;
    let load = 0;
    for (const schema of schemas) {
      const variant = schema.variant;
      t = performance.now();
      const data = shredVariant(context, schema);
      const schemaText = renderSchemaFile(schema, fileHeader(options, variant, 'schema'));
      const dumpText = renderDump(schema, data, fileHeader(options, variant, 'dump'));
      writeFileAtomic(join(options.out, 'schemas', `${variant.name}.sql`), schemaText);
      writeFileAtomic(join(options.out, 'dumps', `${variant.name}.sql`), dumpText);
      shred += (performance.now() - t) / 1000;
      t = performance.now();
      const pgSchema = `${prefix}${variant.name}`;
      await loadVariant(db, pgSchema, schema, data);
      await grantReader(db, pgSchema);
      const seconds = (performance.now() - t) / 1000;
      load += seconds;
      const rows = data.reduce((sum, d) => sum + d.rows, 0);
      progress(`${variant.name}: ${schema.tables.length} tables, ${rows} rows loaded in ${seconds.toFixed(2)} s`);
      built.push({ name: variant.name, pg_schema: pgSchema, tables: schema.tables.length, rows, schema_sha256: sha256(schemaText), dump_sha256: sha256(dumpText), spec: variant });
    }
    const manifest: BuildManifest = {
      dataset: options.dataset,
      domain: options.domain.name,
      seed: options.seed,
      scale: options.scale,
      profile: options.profile,
      counts: options.counts ?? {},
      instance_hash: hash,
      database: { kind: db.kind, location: db.kind === 'pglite' ? 'pglite' : 'server' },
      variants: built,
    };
    writeFileAtomic(join(options.out, 'build.json'), `${JSON.stringify(JSON.parse(stableStringify(manifest)), null, 2)}\n`);
    return { manifest, timings: { generate, shred, load }, rows: built.reduce((sum, v) => sum + v.rows, 0) };
  } finally {
    if (owned) await db.close();
  }
}
