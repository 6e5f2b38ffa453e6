import { join, resolve } from 'node:path';
import type { Command } from './command.ts';
import { required } from './flags.ts';
import { parseTable, type FlagTable } from './flag-table.ts';
import { ConfigError } from '../common/errors.ts';
import { parseEngines } from './engines-flag.ts';
import { DEFAULTS } from '../config/define-config.ts';
import { loadConfig, resolveDataset } from '../config/load-config.ts';
import { SCALE_PRESETS, type InstanceProfile, type ScalePreset } from '../instance/conceptual-instance.ts';
import { resolveTarget } from '../database/database.ts';
import { buildDataset } from '../assemble/build-dataset.ts';
import { seedFromText } from '../assemble/build-manifest.ts';
import { MODEL_LIMITS } from '../er-model/validate-domain.ts';
import { attributeRoles, describeRole } from '../er-model/attribute-roles.ts';
import { indexDomain } from '../er-model/er-index.ts';
import { INSTANCE_FROM_FLAGS, instanceFromFlags } from './instance-from-flags.ts';

const FLAGS = {
  dataset: {
    type: 'string',
    value: 'NAME',
    required: true,
    help: 'a dataset of datasets.config.ts, or an E/R model as a .json file',
  },
  variants: {
    type: 'string',
    value: 'all|a,b,…|random:K',
    help: 'the schema variants to build: all presets (default; with native for an imported model), a list of names (native: the imported database itself), or K drawn at random from the seed',
  },
  scale: {
    type: 'string',
    value: 'S',
    help: `instance size, one of ${SCALE_PRESETS.join(', ')} (default: the dataset's, else small)`,
  },
  seed: { type: 'string', value: 'N', help: "seed of the instance (default: the dataset's, else 1)" },
  profile: {
    type: 'string',
    value: 'default|edge',
    help: 'an ordinary instance, or one rich in edge cases (NULLs, ties, empty sets)',
  },
  count: {
    type: 'string',
    value: 'Entity=N',
    multiple: true,
    help: "exact number of objects of an entity, over the scale's",
  },
  db: {
    type: 'string',
    value: 'URL',
    help: 'postgres://… or pglite:DIR (default DATABASE_URL, else PGlite stored in DIR/pglite)',
  },
  config: {
    type: 'string',
    value: 'FILE',
    help: 'the configuration file (default datasets.config.ts in the working directory)',
  },
  out: { type: 'string', value: 'DIR', required: true, help: 'where the build goes' },
  'schema-prefix': {
    type: 'string',
    value: 'P',
    help: 'prefix of the database schemas, one per variant (default <dataset>__)',
  },
  engines: {
    type: 'string',
    value: 'postgres[,sqlite]',
    help: 'engines to build for: with sqlite, also DIR/sqlite/<variant>.sqlite from the same instance, for every variant SQLite can hold (default postgres)',
  },
  ...INSTANCE_FROM_FLAGS,
} as const satisfies FlagTable;

const DETAILS = `Generates the dataset's conceptual instance, shreds it into every selected variant, and writes
  DIR/er.json, DIR/schemas/<variant>.sql, DIR/dumps/<variant>.sql, DIR/build.json
(with --engines postgres,sqlite also DIR/sqlite/<variant>.sqlite), then loads each variant into its own schema (<dataset>__<variant>) of the database.`;

export const command: Command = {
  name: 'build',
  summary: 'generate, shred and load a dataset into every variant',
  flags: FLAGS,
  details: DETAILS,
  async run(args, io) {
    const flags = parseTable('build', args, FLAGS).values;
    const cwd = process.cwd();
    const out = resolve(cwd, required('build', 'out', flags.out));
    const { config, path } = await loadConfig(flags.config, cwd);
    const dataset = resolveDataset(required('build', 'dataset', flags.dataset), config, path, cwd);
    const def = dataset.definition;
    const scale = (flags.scale ?? def.scale ?? DEFAULTS.scale) as ScalePreset;
    if (!SCALE_PRESETS.includes(scale))
      throw new ConfigError(`build: --scale must be one of ${SCALE_PRESETS.join(', ')}, got "${scale}"`);
    const profile = (flags.profile ?? def.profile ?? DEFAULTS.profile) as InstanceProfile;
    if (profile !== 'default' && profile !== 'edge')
      throw new ConfigError(`build: --profile must be default or edge, got "${profile}"`);
    const seed = flags.seed !== undefined ? seedFromText(flags.seed) : (def.seed ?? DEFAULTS.seed);
    if (typeof seed === 'number' && Number.isInteger(seed) && !Number.isSafeInteger(seed)) {
      throw new ConfigError(
        `${path}: datasets.${dataset.name}.seed: ${seed} is above 2^53-1 and was already rounded when the config was read; write the seed as a string`,
      );
    }
    const counts: Record<string, number> = { ...(def.counts ?? {}) };
    for (const item of flags.count ?? []) {
      const m = /^([A-Za-z_]\w*)=(\d+)$/.exec(item);
      if (!m) throw new ConfigError(`build: --count expects Entity=N, got "${item}"`);
      const n = Number(m[2]);
      if (n > MODEL_LIMITS.countPerEntity)
        throw new ConfigError(
          `build: --count ${m[1] as string}: at most ${MODEL_LIMITS.countPerEntity} objects per entity, got ${m[2] as string}`,
        );
      counts[m[1] as string] = n;
    }
    const engines = parseEngines('build', flags.engines);
    const target = resolveTarget(flags.db ?? io.env['DATABASE_URL'], join(out, 'pglite'));
    const started = performance.now();
    const given = await instanceFromFlags('build', flags, indexDomain(dataset.domain), seed);
    const result = await buildDataset({
      dataset: dataset.name,
      domain: dataset.domain,
      variants: flags.variants ?? def.variants ?? DEFAULTS.variants,
      scale,
      seed,
      profile,
      counts,
      target,
      out,
      schemaPrefix: flags['schema-prefix'],
      engines,
      progress: io.err,
      ...(given ? { instance: given } : {}),
    });
    for (const warning of result.warnings) io.err(`warning: ${warning}`);
    // Roles decide what the filler asks; one read off a type may not be what the model means.
    // They are said once the build stands, so bad input still answers in one line.
    const inferred = attributeRoles(dataset.domain).filter((r) => r.inferred);
    if (inferred.length > 0) {
      io.err(
        `roles inferred for ${inferred.length} attributes of ${dataset.name} (declare a "role" on an attribute to change one):`,
      );
      for (const r of inferred) io.err(`  ${r.owner}.${r.attribute}: ${describeRole(r.role)}, from ${r.because}`);
    }
    const seconds = (performance.now() - started) / 1000;
    io.err(
      `built ${result.manifest.variants.length} variants of ${dataset.name} (${result.rows} rows) in ${seconds.toFixed(1)} s into ${out}`,
    );
    return 0;
  },
};
