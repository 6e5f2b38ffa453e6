import { resolve } from 'node:path';
import type { Command } from './command.ts';
import { required } from './flags.ts';
import { parseTable, type FlagTable } from './flag-table.ts';
import { openBuiltDir } from './built-dir.ts';
import { ConfigError, EquisqlError } from '../common/errors.ts';
import { targetOf } from '../assemble/verify-dataset.ts';
import { openDatabase, type TextResult } from '../database/database.ts';
import { runReadOnly } from '../execute/run-query.ts';

const FLAGS = {
  dir: { type: 'string', value: 'DIR', required: true, help: 'a directory equisql build wrote' },
  variant: { type: 'string', value: 'V', required: true, help: 'the variant to run on' },
  db: { type: 'string', value: 'URL', help: 'postgres://… or pglite:DIR (default DATABASE_URL, else the PGlite that build.json names)' },
  timeout: { type: 'string', value: 'S', help: 'seconds before the query is stopped (default 30)' },
  format: { type: 'string', value: 'table|csv|json', help: 'table (default; aligned columns, NULL as an empty cell), csv (RFC 4180) or json (JSON Lines, one object per row)' },
} as const satisfies FlagTable;

const DETAILS = `Runs one read-only query on one variant built in DIR and prints its result. The query is
the argument, or standard input when there is none. It goes through the guarded executor:
one SELECT, calling only read-only functions, as a role that can only read the variant's
tables, stopped after --timeout seconds. A refused, failing or timed-out query exits 2 with
one line saying why.

Formats: table (aligned columns, NULL as an empty cell, control characters as \\n \\t \\r),
csv (RFC 4180: a header line, CRLF line ends, NULL as an empty field and an empty string as
""), json (JSON Lines: one object per row, column name to value as PostgreSQL prints it or
null; a repeated column name gets _2, _3, …).`;

const FORMATS = ['table', 'csv', 'json'] as const;
type Format = (typeof FORMATS)[number];

function tableCell(value: string | null): string {
  return value === null ? '' : value.replace(/[\n\t\r]/gu, (c) => (c === '\n' ? '\\n' : c === '\t' ? '\\t' : '\\r'));
}

/** Aligned text columns under a header and a rule, then the row count, as psql prints. */
export function formatTable(result: TextResult): string {
  const header = result.columns.map((c) => tableCell(c));
  const rows = result.rows.map((row) => row.map(tableCell));
  const widths = header.map((h, i) => Math.max([...h].length, ...rows.map((r) => [...(r[i] ?? '')].length)));
  const line = (cells: readonly string[]): string => cells.map((c, i) => c + ' '.repeat((widths[i] ?? 0) - [...c].length)).join(' | ').trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('-+-');
  const count = `(${rows.length} ${rows.length === 1 ? 'row' : 'rows'})`;
  return [line(header), rule, ...rows.map(line), count].join('\n');
}

function csvField(value: string | null): string {
  if (value === null) return '';
  return value === '' || /[",\r\n]/u.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** RFC 4180: a header record, CRLF after every record; NULL empty, an empty string "". */
export function formatCsv(result: TextResult): string {
  return [result.columns, ...result.rows].map((row) => `${row.map(csvField).join(',')}\r\n`).join('');
}

/** JSON Lines, one object per row; a repeated column name gets a suffix so no value is lost. */
export function formatJson(result: TextResult): string {
  const seen = new Map<string, number>();
  const keys = result.columns.map((c) => {
    const n = (seen.get(c) ?? 0) + 1;
    seen.set(c, n);
    return n === 1 ? c : `${c}_${n}`;
  });
  return result.rows.map((row) => JSON.stringify(Object.fromEntries(keys.map((k, i) => [k, row[i] ?? null])))).join('\n');
}

export const command: Command = {
  name: 'run',
  summary: 'run one read-only query on a built variant and print the result',
  flags: FLAGS,
  operands: '[QUERY]',
  details: DETAILS,
  async run(args, io) {
    const { values: flags, positionals } = parseTable('run', args, FLAGS, { positionals: true });
    if (positionals.length > 1) throw new ConfigError(`run: expected one query argument, got ${positionals.length} (quote the query)`);
    const dir = resolve(process.cwd(), required('run', 'dir', flags.dir));
    // Flags first: a mistyped flag is named before the directory is read.
    const format = (flags.format ?? 'table') as Format;
    if (!FORMATS.includes(format)) throw new ConfigError(`--format: expected ${FORMATS.join(', ')}, got "${flags.format}"`);
    const seconds = flags.timeout === undefined ? 30 : Number(flags.timeout);
    if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 86_400) throw new ConfigError(`--timeout: expected seconds above 0 and at most 86400, got "${flags.timeout}"`);
    const { manifest } = openBuiltDir(dir);
    const name = required('run', 'variant', flags.variant);
    const built = manifest.variants.find((v) => v.name === name);
    if (!built) throw new ConfigError(`--variant: no variant "${name}" in ${dir} (built: ${manifest.variants.map((v) => v.name).join(', ')})`);
    const sql = positionals[0] ?? (await io.readStdin());
    if (sql.trim() === '') throw new ConfigError('run: no query (give it as an argument or on standard input)');
    const db = await openDatabase(targetOf(dir, manifest, flags.db ?? (manifest.database.kind === 'postgres' ? io.env['DATABASE_URL'] : undefined)));
    try {
      let result: TextResult;
      try {
        result = await runReadOnly(db, built.pg_schema, sql, { timeoutMs: Math.ceil(seconds * 1000) });
      } catch (error) {
        // A query is the user's input: refused, failing or too slow, it is bad input.
        if (error instanceof EquisqlError && error.code === 'execution') throw new ConfigError(error.message, { cause: error });
        throw error;
      }
      const text = format === 'csv' ? formatCsv(result) : format === 'json' ? formatJson(result) : formatTable(result);
      if (text !== '') io.out(text);
      return 0;
    } finally {
      await db.close();
    }
  },
};
