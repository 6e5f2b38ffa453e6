import { writeFileAtomic } from '../common/atomic-write.ts';
import { ConfigError } from '../common/errors.ts';
import { domainToJson } from '../er-model/domain-json.ts';
import { draftModel } from '../import/draft-model.ts';
import { importReport } from '../import/import-report.ts';
import { READ_ONLY_NOTE, readSource } from '../import/read-source.ts';
import type { CliIo, Command } from './command.ts';
import { parseTable, type FlagTable } from './flag-table.ts';

const FLAGS = {
  out: {
    type: 'string',
    value: 'MODEL.er.json',
    help: 'where to write the draft E/R model (the report goes beside it, as MODEL.import.md)',
  },
  schema: { type: 'string', value: 'S', default: 'public', help: 'the PostgreSQL schema to read (default public)' },
  tables: { type: 'string', value: 'T,…', help: 'read only these tables (comma-separated)' },
  name: { type: 'string', value: 'N', help: "the model's name (default: from the database or file name)" },
} as const satisfies FlagTable;

const DETAILS = `SOURCE is a postgres:// URL, read in one READ ONLY transaction (nothing is created or
changed in it), or the path of a SQLite file, opened read-only. The draft is a model in the
E/R JSON format, checked by the model validator; the report (stdout and MODEL.import.md)
gives every inference and everything left out, one line each.`;

export const command: Command = {
  name: 'import',
  summary: 'draft an E/R model from an existing PostgreSQL database or SQLite file',
  flags: FLAGS,
  operands: 'SOURCE',
  details: DETAILS,
  async run(args: readonly string[], io: CliIo): Promise<number> {
    const { values, positionals } = parseTable('import', args, FLAGS, { positionals: true });
    const [source, ...extra] = positionals;
    if (source === undefined || extra.length > 0)
      throw new ConfigError('import: give one SOURCE (a postgres:// URL or a SQLite file)');
    const out = values.out;
    if (out === undefined) throw new ConfigError('import: --out MODEL.er.json is required');
    const sqlite = !/^postgres(ql)?:\/\//u.test(source);
    const tables = values.tables
      ?.split(',')
      .map((t) => t.trim())
      .filter((t) => t !== '');
    const read = await readSource(source, { schema: values.schema, ...(tables ? { tables } : {}) });
    const draft = draftModel(read, values.name !== undefined ? { name: values.name } : {});
    const safety = sqlite ? 'opened read-only; the file was not changed' : READ_ONLY_NOTE;
    const report = importReport(draft, read.catalog, safety);
    writeFileAtomic(out, domainToJson(draft.domain));
    writeFileAtomic(`${out.replace(/\.er\.json$|\.json$/u, '')}.import.md`, report);
    io.out(report);
    return 0;
  },
};
