import type { Command } from './command.ts';
import { parseFlags, required } from './flags.ts';
import { loadConfig, resolveDataset } from '../config/load-config.ts';
import { indexDomain } from '../er-model/er-index.ts';
import { selectVariantsReport } from '../variants/select-variants.ts';
import { buildRelationalSchema } from '../variants/build-schema.ts';

const USAGE = `usage: equisql variants --dataset NAME [--variants all|a,b,…|random:K] [--seed N] [--json]

Lists the variants and their shredding choices; with --json, one JSON line per variant with
its choices and its tables.`;

export const command: Command = {
  name: 'variants',
  summary: 'list the variants of a dataset and their choices',
  usage: USAGE,
  async run(args, io) {
    const flags = parseFlags('variants', args, {
      dataset: { type: 'string' },
      variants: { type: 'string' },
      seed: { type: 'string' },
      config: { type: 'string' },
      json: { type: 'boolean' },
    });
    const cwd = process.cwd();
    const { config, path } = await loadConfig(flags.config, cwd);
    const dataset = resolveDataset(required('variants', 'dataset', flags.dataset), config, path, cwd);
    const index = indexDomain(dataset.domain);
    const seed = flags.seed ?? String(dataset.definition.seed ?? 1);
    const selection = selectVariantsReport(index, flags.variants ?? 'all', /^-?\d+$/.test(seed) ? Number(seed) : seed);
    // Notes go to stderr so a --json listing stays one variant a line.
    for (const note of selection.notes) io.err(`note: ${note}`);
    for (const variant of selection.variants) {
      const schema = buildRelationalSchema(index, variant);
      if (flags.json) {
        io.out(JSON.stringify({ ...variant, tables: schema.tables.map((t) => t.name) }));
        continue;
      }
      io.out(`${variant.name}: ${variant.description}`);
      for (const [root, choice] of Object.entries(variant.hierarchies)) {
        const groups = choice.groups.map((g) => `[${g.join(', ')}]`).join(' ');
        io.out(`  ${root}: ${choice.mode}${choice.registry ? ' with registry' : ''} ${groups}`);
      }
      const mv = Object.entries(variant.multiValued).map(([k, v]) => `${k}=${v}`).join(', ');
      if (mv) io.out(`  multi-valued: ${mv}`);
      const rel = Object.entries(variant.relationships).map(([k, v]) => `${k}=${v}`).join(', ');
      if (rel) io.out(`  relationships: ${rel}`);
      io.out(`  tables (${schema.tables.length}, ${variant.naming.tables}): ${schema.tables.map((t) => t.name).join(', ')}`);
    }
    return 0;
  },
};
