import { ConfigError, EquisqlError, isStackOverflow } from '../common/errors.ts';
import { extractSkeleton } from '../grammar/skeleton-extractor.ts';
import { parseSql } from '../sql/parser-adapter.ts';
import type { Dialect } from '../sql/sql-ast.ts';
import { canonicalStructure } from '../structure/canonical-structure.ts';
import type { CliIo, Command } from './command.ts';
import { parseTable, type FlagTable } from './flag-table.ts';

const DIALECTS: readonly Dialect[] = ['postgresql', 'sqlite', 'mysql'];

const FLAGS = {
  dialect: {
    type: 'string',
    value: 'D',
    default: 'sqlite',
    help: 'the SQL dialect tried first: postgresql, sqlite (default) or mysql',
  },
  'no-fallback': {
    type: 'boolean',
    default: false,
    help: 'do not try the other dialects when the first does not parse a query',
  },
} as const satisfies FlagTable;

const DETAILS = `Reads one SQL query per line on stdin and prints one JSON line per query:
  {"canonical": …, "structure_hash": …, "skeleton": …}
or {"error": …} for a query that does not parse. The canonical string follows SQLStructEval
(table aliases renamed by first appearance, AND-conjuncts flattened and sorted, column
aliases dropped, lower case, no trailing semicolon), and also drops an explicit ASC and
folds NOT into LIKE/IN/BETWEEN/EXISTS/IS NULL; "structure_hash" is its SHA-256. "skeleton"
is null when the grammar has no rule for the query. A line over 100,000 characters, 10,000
tokens or 100 nested parentheses gets {"error": …} and the next lines are read.`;

/** One query's canonical record, as `equisql canon` prints it. */
export function canonRecord(sql: string, dialect: Dialect, fallback: boolean): Record<string, string | null> {
  try {
    const query = parseSql(sql, { dialect, fallback });
    const { canonical, structureHash } = canonicalStructure(query);
    let skeleton: string | null = null;
    try {
      skeleton = extractSkeleton(query).text;
    } catch (error) {
      if (!(error instanceof EquisqlError) && !isStackOverflow(error)) throw error;
    }
    return { canonical, structure_hash: structureHash, skeleton };
  } catch (error) {
    // One query too deep for a tree walk is that line's error; the next lines still run.
    if (isStackOverflow(error)) return { error: 'query nested too deeply to canonicalize' };
    if (!(error instanceof EquisqlError)) throw error;
    return { error: error.message };
  }
}

export const command: Command = {
  name: 'canon',
  summary: 'canonical structure, structure hash and skeleton of SQL queries on stdin',
  flags: FLAGS,
  operands: '< queries.sql',
  details: DETAILS,
  async run(args: readonly string[], io: CliIo): Promise<number> {
    const values = parseTable('canon', args, FLAGS).values;
    const dialect = values.dialect as Dialect;
    if (!DIALECTS.includes(dialect))
      throw new ConfigError(`--dialect must be one of ${DIALECTS.join(', ')}, got "${dialect}"`);
    const input = await io.readStdin();
    for (const line of input.split(/\r?\n/u)) {
      if (line.trim() === '') continue;
      io.out(JSON.stringify(canonRecord(line, dialect, !values['no-fallback'])));
    }
    return 0;
  },
};
