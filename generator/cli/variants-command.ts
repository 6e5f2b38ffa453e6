import type { Command } from './command.ts';
import { required } from './flags.ts';
import { parseTable, type FlagTable } from './flag-table.ts';
import { loadConfig, resolveDataset } from '../config/load-config.ts';
import { indexDomain } from '../er-model/er-index.ts';
import { selectVariantsReport } from '../variants/select-variants.ts';
import { buildRelationalSchema } from '../variants/build-schema.ts';

const FLAGS = {
  dataset: {
    type: 'string',
    value: 'NAME',
    required: true,
    help: 'a dataset of datasets.config.ts, or an E/R model as a .json file',
  },
  variants: { type: 'string', value: 'all|a,b,…|random:K', help: 'which variants to list (default all)' },
  seed: { type: 'string', value: 'N', help: "seed of random:K (default: the dataset's, else 1)" },
  config: {
    type: 'string',
    value: 'FILE',
    help: 'the configuration file (default datasets.config.ts in the working directory)',
  },
  json: { type: 'boolean', help: 'one JSON line per variant, with its choices and its tables' },
} as const satisfies FlagTable;

const DETAILS = `Lists the variants and their shredding choices.`;

export const command: Command = {
  name: 'variants',
  summary: 'list the variants of a dataset and their choices',
  flags: FLAGS,
  details: DETAILS,
  async run(args, io) {
    const flags = parseTable('variants', args, FLAGS).values;
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
      const mv = Object.entries(variant.multiValued)
        .map(([k, v]) => `${k}=${v}`)
        .join(', ');
      if (mv) io.out(`  multi-valued: ${mv}`);
      const rel = Object.entries(variant.relationships)
        .map(([k, v]) => `${k}=${v}`)
        .join(', ');
      if (rel) io.out(`  relationships: ${rel}`);
      io.out(
        `  tables (${schema.tables.length}, ${variant.naming.tables}): ${schema.tables.map((t) => t.name).join(', ')}`,
      );
    }
    return 0;
  },
};
