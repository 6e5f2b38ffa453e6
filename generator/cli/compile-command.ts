import { resolve } from 'node:path';
import type { Command } from './command.ts';
import { required } from './flags.ts';
import { parseTable, type FlagTable } from './flag-table.ts';
import { openBuiltDir } from './built-dir.ts';
import { ConfigError } from '../common/errors.ts';
import { readInputFile } from '../common/input-file.ts';
import { buildRelationalSchema } from '../variants/build-schema.ts';
import { compileQuery } from '../compile/compile-query.ts';
import { queryOfDocument, type Query, type QueryDocument } from '../query/conceptual-query.ts';

const FLAGS = {
  dir: { type: 'string', value: 'DIR', required: true, help: 'a directory equisql build wrote' },
  variant: { type: 'string', value: 'V', required: true, help: 'the variant to compile for' },
  query: {
    type: 'string',
    value: 'FILE.json',
    required: true,
    help: 'a conceptual query as JSON (format: docs/conceptual-query.md)',
  },
} as const satisfies FlagTable;

const DETAILS = `Prints the SQL of a conceptual query for one variant built in DIR.`;

export const command: Command = {
  name: 'compile',
  summary: 'print the SQL of a conceptual query for one variant',
  flags: FLAGS,
  details: DETAILS,
  async run(args, io) {
    const flags = parseTable('compile', args, FLAGS).values;
    const dir = resolve(process.cwd(), required('compile', 'dir', flags.dir));
    const { manifest, index } = openBuiltDir(dir);
    const name = required('compile', 'variant', flags.variant);
    const built = manifest.variants.find((v) => v.name === name);
    if (!built)
      throw new ConfigError(
        `--variant: no variant "${name}" in ${dir} (built: ${manifest.variants.map((v) => v.name).join(', ')})`,
      );
    const file = required('compile', 'query', flags.query);
    // A conceptual query is a few kilobytes; the cap keeps `--query /dev/zero` from filling memory.
    const text = readInputFile(file, '--query', 16 * 1024 * 1024);
    let query: Query;
    try {
      query = queryOfDocument(JSON.parse(text) as QueryDocument);
    } catch (error) {
      throw new ConfigError(`${file}: not valid JSON: ${(error as Error).message}`);
    }
    try {
      io.out(`${compileQuery(index, buildRelationalSchema(index, built.spec), query)};`);
    } catch (error) {
      if (error instanceof Error) error.message = `${file}: ${error.message}`;
      throw error;
    }
    return 0;
  },
};
