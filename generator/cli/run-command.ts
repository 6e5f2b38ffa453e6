import { resolve } from 'node:path';
import type { Command } from './command.ts';
import { required } from './flags.ts';
import { parseTable, type FlagTable } from './flag-table.ts';
import { openBuiltDir } from './built-dir.ts';
import { ConfigError } from '../common/errors.ts';
import { escapeControl, jsonForTerminal } from '../common/user-text.ts';
import { targetOf } from '../assemble/verify-dataset.ts';
import { openDatabase, type TextResult } from '../database/database.ts';
import { DEFAULT_CAPS, streamUntrusted } from '../execute/untrusted-query.ts';

const FLAGS = {
  dir: { type: 'string', value: 'DIR', required: true, help: 'a directory equisql build wrote' },
  variant: { type: 'string', value: 'V', required: true, help: 'the variant to run on' },
  db: {
    type: 'string',
    value: 'URL',
    help: 'postgres://… or pglite:DIR (default DATABASE_URL, else the PGlite that build.json names)',
  },
  timeout: { type: 'string', value: 'S', help: 'seconds before the query is stopped (default 30)' },
  'max-rows': {
    type: 'string',
    value: 'N',
    help: `refuse a result of more than N rows (default ${DEFAULT_CAPS.maxRows.toLocaleString('en-US')})`,
  },
  'max-bytes': {
    type: 'string',
    value: 'N',
    help: `refuse a result of more than N bytes of rows, as the database sends them (default ${DEFAULT_CAPS.maxBytes.toLocaleString('en-US')})`,
  },
  format: {
    type: 'string',
    value: 'table|csv|json',
    help: 'table (default; aligned columns, NULL as an empty cell), csv (RFC 4180) or json (JSON Lines, one object per row)',
  },
} as const satisfies FlagTable;

const DETAILS = `Runs one read-only query on one variant built in DIR and prints its result. The query is
the argument, or standard input when there is none. It is untrusted text and goes through
the guarded executor (docs/running-queries.md): one SELECT, calling only read-only
functions, over the variant's own tables, sent alone by the extended protocol, as a role
that can only read the variant's tables, stopped after --timeout seconds. Its rows are read
in pages; a result past --max-rows or --max-bytes is refused. A refused, failing, timed-out
or too large query exits 2 with one line saying why (csv and json print rows as they come,
so the rows before a cap are printed; the table prints nothing then).

Formats: table (aligned columns, NULL as an empty cell, control characters as \\n \\t \\r),
csv (RFC 4180: a header line, CRLF line ends, NULL as an empty field and an empty string as
""), json (JSON Lines: one object per row, column name to value as PostgreSQL prints it or
null; a repeated column name gets _2, _3, …).`;

const FORMATS = ['table', 'csv', 'json'] as const;
type Format = (typeof FORMATS)[number];

/** A value as a table cell: every control character escaped (\n, \t, \u001b, …), so data cannot drive the terminal. */
function tableCell(value: string | null): string {
  return value === null ? '' : escapeControl(value);
}

/** The width of a cell as the table counts it: code points, not UTF-16 units. */
function cellWidth(cell: string): number {
  let n = 0;
  for (const _ of cell) n++;
  return n;
}

/**
 * A table being read: each row kept as one string (its cells escaped, joined by NUL, which
 * PostgreSQL's text never holds: a row costs one string, not an array of them), the widths
 * measured as rows come in, by a loop (never by spreading the rows into a call's arguments,
 * which overflows the stack past ~100k rows).
 */
export class TableBuffer {
  private header: string[] = [];
  private widths: number[] = [];
  private readonly rows: string[] = [];

  setColumns(columns: readonly string[]): void {
    if (this.header.length > 0 || columns.length === 0) return;
    this.header = columns.map((c) => tableCell(c));
    this.widths = this.header.map(cellWidth);
  }

  add(row: readonly (string | null)[]): void {
    const cells = this.header.map((_, i) => tableCell(row[i] ?? null));
    cells.forEach((c, i) => {
      const w = cellWidth(c);
      if (w > (this.widths[i] as number)) this.widths[i] = w;
    });
    this.rows.push(cells.join('\u0000'));
  }

  /** Aligned text columns under a header and a rule, then the row count, as psql prints; one line at a time. */
  *lines(): Generator<string> {
    const line = (cells: readonly string[]): string =>
      cells
        .map((c, i) => c + ' '.repeat(Math.max(0, (this.widths[i] ?? 0) - cellWidth(c))))
        .join(' | ')
        .trimEnd();
    yield line(this.header);
    yield this.widths.map((w) => '-'.repeat(w)).join('-+-');
    for (const row of this.rows) yield line(this.header.length === 1 ? [row] : row.split('\u0000'));
    yield `(${this.rows.length} ${this.rows.length === 1 ? 'row' : 'rows'})`;
  }
}

/** A whole result's table, line by line (`TableBuffer`). */
export function* tableLines(result: TextResult): Generator<string> {
  const table = new TableBuffer();
  table.setColumns(result.columns);
  for (const row of result.rows) table.add(row);
  yield* table.lines();
}

/** `tableLines` as one text. */
export function formatTable(result: TextResult): string {
  return [...tableLines(result)].join('\n');
}

function csvField(value: string | null): string {
  if (value === null) return '';
  return value === '' || /[",\r\n]/u.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** One CSV record (RFC 4180), CRLF-ended; NULL empty, an empty string "". */
const csvRecord = (row: readonly (string | null)[]): string => `${row.map(csvField).join(',')}\r\n`;

/** RFC 4180: a header record, CRLF after every record; NULL empty, an empty string "". */
export function formatCsv(result: TextResult): string {
  return [result.columns, ...result.rows].map(csvRecord).join('');
}

/** The keys of JSON Lines objects: a repeated column name gets a suffix so no value is lost. */
function jsonKeys(columns: readonly string[]): string[] {
  const seen = new Map<string, number>();
  return columns.map((c) => {
    const n = (seen.get(c) ?? 0) + 1;
    seen.set(c, n);
    return n === 1 ? c : `${c}_${n}`;
  });
}

// C1 controls and bidi overrides, which JSON.stringify leaves raw, are escaped too: the same JSON value, safe on a terminal.
const jsonLine = (keys: readonly string[], row: readonly (string | null)[]): string =>
  jsonForTerminal(JSON.stringify(Object.fromEntries(keys.map((k, i) => [k, row[i] ?? null]))));

/** JSON Lines, one object per row; a repeated column name gets a suffix so no value is lost. */
export function formatJson(result: TextResult): string {
  const keys = jsonKeys(result.columns);
  return result.rows.map((row) => jsonLine(keys, row)).join('\n');
}

/** A positive whole number of a flag, or the default. */
function count(flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^[0-9]+$/u.test(value) || !Number.isSafeInteger(n) || n < 1)
    throw new ConfigError(`--${flag}: expected a whole number above 0, got "${value}"`);
  return n;
}

export const command: Command = {
  name: 'run',
  summary: 'run one read-only query on a built variant and print the result',
  flags: FLAGS,
  operands: '[QUERY]',
  details: DETAILS,
  async run(args, io) {
    const { values: flags, positionals } = parseTable('run', args, FLAGS, { positionals: true });
    if (positionals.length > 1)
      throw new ConfigError(`run: expected one query argument, got ${positionals.length} (quote the query)`);
    const dir = resolve(process.cwd(), required('run', 'dir', flags.dir));
    // Flags first: a mistyped flag is named before the directory is read.
    const format = (flags.format ?? 'table') as Format;
    if (!FORMATS.includes(format))
      throw new ConfigError(`--format: expected ${FORMATS.join(', ')}, got "${flags.format}"`);
    const seconds = flags.timeout === undefined ? 30 : Number(flags.timeout);
    if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 86_400)
      throw new ConfigError(`--timeout: expected seconds above 0 and at most 86400, got "${flags.timeout}"`);
    const maxRows = count('max-rows', flags['max-rows'], DEFAULT_CAPS.maxRows);
    const maxBytes = count('max-bytes', flags['max-bytes'], DEFAULT_CAPS.maxBytes);
    const { manifest } = openBuiltDir(dir);
    const name = required('run', 'variant', flags.variant);
    const built = manifest.variants.find((v) => v.name === name);
    if (!built)
      throw new ConfigError(
        `--variant: no variant "${name}" in ${dir} (built: ${manifest.variants.map((v) => v.name).join(', ')})`,
      );
    const sql = positionals[0] ?? (await io.readStdin());
    if (sql.trim() === '') throw new ConfigError('run: no query (give it as an argument or on standard input)');
    const db = await openDatabase(
      targetOf(dir, manifest, flags.db ?? (manifest.database.kind === 'postgres' ? io.env['DATABASE_URL'] : undefined)),
    );
    try {
      const options = { timeoutMs: Math.ceil(seconds * 1000), maxRows, maxBytes };
      // Rows go out page by page; a page waits for stdout to take the one before, so a slow
      // reader slows the query instead of filling memory. The table, whose widths depend on
      // every row, keeps the rows (within the caps) and prints them at the end.
      const table = new TableBuffer();
      let columns: readonly string[] = [];
      let keys: string[] | undefined;
      let written = false;
      const onPage = async (page: TextResult): Promise<void> => {
        columns = page.columns;
        if (format === 'table') {
          table.setColumns(page.columns);
          for (const row of page.rows) table.add(row);
          return;
        }
        const lines: string[] = [];
        if (!written && format === 'csv')
          lines.push(csvRecord(io.terminal ? page.columns.map(escapeControl) : page.columns));
        keys ??= jsonKeys(page.columns);
        // CSV holds the values as they are, for a file or a pipe; on a terminal, controls are escaped.
        for (const row of page.rows)
          lines.push(
            format === 'csv'
              ? csvRecord(io.terminal ? row.map((v) => (v === null ? null : escapeControl(v))) : row)
              : `${jsonLine(keys, row)}\n`,
          );
        written = true;
        if (lines.length > 0) {
          const text = lines.join('');
          io.out(text);
          await io.drain?.();
        }
      };
      const outcome = await streamUntrusted(db, built.pg_schema, sql, onPage, options);
      // A query is the user's input: refused, failing, too slow or too big, it is bad input.
      if (outcome.kind !== 'rows')
        throw new ConfigError(
          outcome.kind === 'over-cap'
            ? `${outcome.message.replace('(the cap; raise it to read more)', `(--max-${outcome.cap} ${outcome.limit})`)}`
            : outcome.message,
        );
      if (format === 'table') {
        // In chunks, each waiting for stdout to take the one before: the lines are not all queued at once.
        let chunk: string[] = [];
        table.setColumns(columns);
        for (const l of table.lines()) {
          chunk.push(l);
          if (chunk.length < 2000) continue;
          io.out(chunk.join('\n'));
          chunk = [];
          await io.drain?.();
        }
        if (chunk.length > 0) io.out(chunk.join('\n'));
      }
      return 0;
    } finally {
      await db.close();
    }
  },
};
