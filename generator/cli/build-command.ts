import { join, resolve } from 'node:path';
import type { Command } from './command.ts';
import { parseFlags, required } from './flags.ts';
import { ConfigError } from '../common/errors.ts';
import { DEFAULTS } from '../config/define-config.ts';
import { loadConfig, resolveDataset } from '../config/load-config.ts';
import { SCALE_PRESETS, type InstanceProfile, type ScalePreset } from '../instance/conceptual-instance.ts';
import { resolveTarget } from '../database/database.ts';
import { buildDataset } from '../assemble/build-dataset.ts';
import { seedFromText } from '../assemble/build-manifest.ts';
import { MODEL_LIMITS } from '../er-model/validate-domain.ts';
import { attributeRoles, describeRole } from '../er-model/attribute-roles.ts';

const USAGE = `usage: equisql build --dataset NAME [--variants all|a,b,…|random:K] [--scale S] [--seed N]
                     [--profile default|edge] [--count Entity=N …] [--db URL] [--config FILE] --out DIR

Generates the dataset's conceptual instance, shreds it into every selected variant, and writes
  DIR/er.json, DIR/schemas/<variant>.sql, DIR/dumps/<variant>.sql, DIR/build.json
then loads each variant into its own schema (<dataset>__<variant>) of the database:
--db postgres://… or pglite:DIR, else DATABASE_URL, else PGlite stored in DIR/pglite.
Scales: ${SCALE_PRESETS.join(', ')}. NAME is a dataset of datasets.config.ts or a .json model.`;

export const command: Command = {
  name: 'build',
  summary: 'generate, shred and load a dataset into every variant',
  usage: USAGE,
  async run(args, io) {
    const flags = parseFlags('build', args, {
      dataset: { type: 'string' },
      variants: { type: 'string' },
      scale: { type: 'string' },
      seed: { type: 'string' },
      profile: { type: 'string' },
      count: { type: 'string', multiple: true },
      db: { type: 'string' },
      config: { type: 'string' },
      out: { type: 'string' },
      'schema-prefix': { type: 'string' },
    });
    const cwd = process.cwd();
    const out = resolve(cwd, required('build', 'out', flags.out));
    const { config, path } = await loadConfig(flags.config, cwd);
    const dataset = resolveDataset(required('build', 'dataset', flags.dataset), config, path, cwd);
    const def = dataset.definition;
    const scale = (flags.scale ?? def.scale ?? DEFAULTS.scale) as ScalePreset;
    if (!SCALE_PRESETS.includes(scale)) throw new ConfigError(`build: --scale must be one of ${SCALE_PRESETS.join(', ')}, got "${scale}"`);
    const profile = (flags.profile ?? def.profile ?? DEFAULTS.profile) as InstanceProfile;
    if (profile !== 'default' && profile !== 'edge') throw new ConfigError(`build: --profile must be default or edge, got "${profile}"`);
    const seed = flags.seed !== undefined ? seedFromText(flags.seed) : (def.seed ?? DEFAULTS.seed);
    if (typeof seed === 'number' && Number.isInteger(seed) && !Number.isSafeInteger(seed)) {
      throw new ConfigError(`${path}: datasets.${dataset.name}.seed: ${seed} is above 2^53-1 and was already rounded when the config was read; write the seed as a string`);
    }
    const counts: Record<string, number> = { ...(def.counts ?? {}) };
    for (const item of flags.count ?? []) {
      const m = /^([A-Za-z_]\w*)=(\d+)$/.exec(item);
      if (!m) throw new ConfigError(`build: --count expects Entity=N, got "${item}"`);
      const n = Number(m[2]);
      if (n > MODEL_LIMITS.countPerEntity) throw new ConfigError(`build: --count ${m[1] as string}: at most ${MODEL_LIMITS.countPerEntity} objects per entity, got ${m[2] as string}`);
      counts[m[1] as string] = n;
    }
    // Roles decide what the filler asks; one read off a type may not be what the model means.
    const inferred = attributeRoles(dataset.domain).filter((r) => r.inferred);
    if (inferred.length > 0) {
      io.err(`roles inferred for ${inferred.length} attributes of ${dataset.name} (declare a "role" on an attribute to change one):`);
      for (const r of inferred) io.err(`  ${r.owner}.${r.attribute}: ${describeRole(r.role)}, from ${r.because}`);
    }
    const target = resolveTarget(flags.db ?? io.env['DATABASE_URL'], join(out, 'pglite'));
    const started = performance.now();
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
      progress: io.err,
    });
    for (const warning of result.warnings) io.err(`warning: ${warning}`);
    const seconds = (performance.now() - started) / 1000;
    io.err(`built ${result.manifest.variants.length} variants of ${dataset.name} (${result.rows} rows) in ${seconds.toFixed(1)} s into ${out}`);
    return 0;
  },
};
