import { resolve } from 'node:path';
import { EXIT, type Command } from './command.ts';
import { required } from './flags.ts';
import { parseTable, type FlagTable } from './flag-table.ts';
import { checkExport } from '../export/check-export.ts';

const FLAGS = {
  dir: {
    type: 'string',
    value: 'DIR',
    required: true,
    help: 'an exported directory (one with a manifest.json holding an "export" section)',
  },
} as const satisfies FlagTable;

const DETAILS = `Proves an export clean: some rows, no group, question text or SQL text in two splits (under
--split database, no db_id and no schema_id either), no row id twice, every row valid against output/record.schema.json, every file's row count and sha256
as DIR/manifest.json says, every file in data/ and finetune/ one the manifest records, every
sealed stage file (groups, rejections, questions, the card) as its stage closed it, and the
build the one the groups were verified on. Prints each problem on stdout; exit 1 when there
is one. A directory where the manifest names a file, or a manifest field of the wrong type:
one line, exit 2.`;

export const command: Command = {
  name: 'check',
  summary: 'check an export for leaks across splits, schema violations and count mismatches',
  flags: FLAGS,
  details: DETAILS,
  async run(args, io) {
    const flags = parseTable('check', args, FLAGS).values;
    const dir = resolve(process.cwd(), required('check', 'dir', flags.dir));
    const report = checkExport(dir);
    for (const f of report.findings) io.out(`${f.kind}: ${f.detail}`);
    io.err(`check: ${report.rows} rows in ${report.files} files, ${report.findings.length} problems`);
    return report.findings.length === 0 ? EXIT.ok : EXIT.checkFailed;
  },
};
