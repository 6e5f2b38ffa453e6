/**
 * The databases generation checks against: the main instance (default profile) built into
 * `out/` as `equisql build` would, and the edge-case instance built into `out/edge/` with
 * its own schema prefix, both in one database. A build already in `out` with the same
 * settings is reused.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Domain } from '../er-model/er-model.ts';
import { indexDomain } from '../er-model/er-index.ts';
import type { Database } from '../database/database.ts';
import type { ConceptualInstance, InstanceProfile, ScalePreset } from '../instance/conceptual-instance.ts';
import { generateInstance } from '../instance/generate-instance.ts';
import { instanceHash } from '../instance/canonical-instance.ts';
import { selectVariants } from '../variants/select-variants.ts';
import { buildRelationalSchema } from '../variants/build-schema.ts';
import { buildDataset, type BuildManifest } from '../assemble/build-dataset.ts';
import { interruptedBuild } from '../assemble/dir-swap.ts';
import type { CheckVariant } from './group-checks.ts';

export interface PrepareOptions {
  readonly dataset: string;
  readonly domain: Domain;
  readonly variants: string;
  readonly scale: ScalePreset;
  readonly seed: string | number;
  readonly counts?: Readonly<Record<string, number>>;
  readonly db: Database;
  readonly out: string;
  /** The caller holds `out`'s lock (not `out/edge`'s, which the edge build takes itself). */
  readonly lockHeld?: boolean;
  /**
   * The main instance read from a database (`--instance-from`): gold answers and literals
   * are then the user's; the edge-case instance is still generated from the model.
   */
  readonly instance?: { readonly instance: ConceptualInstance; readonly source: string; readonly sample?: number };
  /** Skip the edge-case instance (tests of single checks). */
  readonly edge?: boolean;
  readonly progress?: (message: string) => void;
  /** Engines to build for (default PostgreSQL alone); with `sqlite`, both instances get SQLite files. */
  readonly engines?: readonly ('postgres' | 'sqlite')[];
}

export interface PreparedBuilds {
  readonly main: BuildManifest;
  readonly edge: BuildManifest | undefined;
  readonly instance: ConceptualInstance;
  readonly variants: readonly CheckVariant[];
}

function reusable(
  dir: string,
  o: PrepareOptions,
  profile: InstanceProfile,
  names: readonly string[],
): BuildManifest | undefined {
  const path = join(dir, 'build.json');
  // A swap a killed build left halfway has the old build.json over a mix of files: rebuild.
  if (!existsSync(path) || interruptedBuild(dir) !== undefined) return undefined;
  try {
    const m = JSON.parse(readFileSync(path, 'utf8')) as BuildManifest;
    const same =
      m.dataset === o.dataset &&
      String(m.seed) === String(o.seed) &&
      m.scale === o.scale &&
      m.profile === profile &&
      JSON.stringify(m.counts ?? {}) === JSON.stringify(o.counts ?? {}) &&
      m.database.kind === o.db.kind &&
      // A build of the user's rows is reused only for those same rows, and never for a generated instance.
      (profile === 'default' && o.instance
        ? m.instance_from?.source === o.instance.source && m.instance_hash === instanceHash(o.instance.instance)
        : m.instance_from === undefined) &&
      JSON.stringify(m.variants.map((v) => v.name)) === JSON.stringify(names) &&
      // A build without its SQLite files is not one a run with SQLite can check against.
      (!o.engines?.includes('sqlite') ||
        (m.sqlite !== undefined && m.sqlite.variants.every((v) => existsSync(join(dir, 'sqlite', `${v}.sqlite`)))));
    return same ? m : undefined;
  } catch {
    return undefined;
  }
}

/** Builds (or reuses) the main and edge-case databases and describes every variant for the checks. */
export async function prepareBuilds(o: PrepareOptions): Promise<PreparedBuilds> {
  const progress = o.progress ?? (() => {});
  const index = indexDomain(o.domain);
  const names = selectVariants(index, o.variants, o.seed).map((v) => v.name);
  const build = async (
    dir: string,
    profile: InstanceProfile,
    prefix: string,
    lockHeld: boolean,
  ): Promise<BuildManifest> => {
    const existing = reusable(dir, o, profile, names);
    if (existing) {
      progress(`reusing the ${profile} build in ${dir}`);
      return existing;
    }
    const given = profile === 'default' ? o.instance : undefined;
    const result = await buildDataset({
      dataset: o.dataset,
      domain: o.domain,
      variants: o.variants,
      scale: o.scale,
      seed: o.seed,
      profile,
      counts: o.counts ?? {},
      target: o.db,
      out: dir,
      schemaPrefix: prefix,
      progress,
      lockHeld,
      ...(o.engines ? { engines: o.engines } : {}),
      ...(given ? { instance: given } : {}),
    });
    return result.manifest;
  };
  const main = await build(o.out, 'default', `${o.dataset}__`, o.lockHeld === true);
  const edge = o.edge === false ? undefined : await build(join(o.out, 'edge'), 'edge', `${o.dataset}__edge__`, false);
  const instance =
    o.instance?.instance ??
    generateInstance(o.domain, { seed: o.seed, scale: o.scale, profile: 'default', counts: o.counts ?? {} });
  const variants: CheckVariant[] = main.variants.map((v) => ({
    name: v.name,
    schema: buildRelationalSchema(index, v.spec),
    pgSchemas: {
      main: v.pg_schema,
      ...(edge ? { edge: edge.variants.find((e) => e.name === v.name)?.pg_schema as string } : {}),
    },
    ...(o.engines?.includes('sqlite') && main.sqlite?.variants.includes(v.name)
      ? {
          sqliteFiles: {
            main: join(o.out, 'sqlite', `${v.name}.sqlite`),
            ...(edge ? { edge: join(o.out, 'edge', 'sqlite', `${v.name}.sqlite`) } : {}),
          },
        }
      : {}),
  }));
  return { main, edge, instance, variants };
}
