import { existsSync, readFileSync } from 'node:fs';
import { ConfigError, EquisqlError } from '../common/errors.ts';
import { parseSql } from '../sql/parser-adapter.ts';
import type { Dialect } from '../sql/sql-ast.ts';
import { canonicalStructure } from '../structure/canonical-structure.ts';
import { computeStructureMetrics, type GenerationRow } from '../structure/structure-metrics.ts';
import type { CliIo, Command } from './command.ts';
import { parseTable, type FlagTable } from './flag-table.ts';

const DIALECTS: readonly Dialect[] = ['postgresql', 'sqlite', 'mysql'];

const FLAGS = {
  input: {
    type: 'string',
    value: 'FILE.jsonl',
    required: true,
    help: 'generated SQL, one {"input_id", "perturbation_id", "sql"} a line (perturbation_id defaults to "0", the original input)',
  },
  gold: { type: 'string', value: 'FILE.jsonl', help: 'gold SQL, one {"input_id", "sql"} a line, for gold alignment' },
  dialect: {
    type: 'string',
    value: 'D',
    default: 'sqlite',
    help: 'the SQL dialect tried first: postgresql, sqlite (default) or mysql',
  },
  details: { type: 'boolean', default: false, help: 'first print one JSON line per group and per input id' },
} as const satisfies FlagTable;

const DETAILS = `Structural measures of SQLStructEval over generated SQL. Prints one JSON object: distinct
structures, majority ratio, entropy (bits), gold alignment (means over input × perturbation
groups), cross-perturbation agreement and sensitivity (means over input ids with
perturbations), the sensitive fraction (share of input ids whose sensitivity is above zero)
and changed_perturbation_share (share of all perturbations whose majority structure left
the original's). An input id with no perturbation "0" or "original" has no sensitivity;
their count is printed and they are named on stderr.`;

function readJsonl(path: string, what: string): { line: number; value: Record<string, unknown> }[] {
  if (!existsSync(path)) throw new ConfigError(`${what} ${path} does not exist`);
  const out: { line: number; value: Record<string, unknown> }[] = [];
  readFileSync(path, 'utf8')
    .split(/\r?\n/u)
    .forEach((text, i) => {
      if (text.trim() === '') return;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        throw new ConfigError(`${path}:${i + 1}: not JSON`);
      }
      if (value === null || typeof value !== 'object' || Array.isArray(value))
        throw new ConfigError(`${path}:${i + 1}: expected a JSON object`);
      out.push({ line: i + 1, value: value as Record<string, unknown> });
    });
  return out;
}

function field(
  row: { line: number; value: Record<string, unknown> },
  path: string,
  name: string,
  fallback?: string,
): string {
  const v = row.value[name];
  if (v === undefined || v === null) {
    if (fallback !== undefined) return fallback;
    throw new ConfigError(`${path}:${row.line}: missing "${name}"`);
  }
  if (typeof v !== 'string' && typeof v !== 'number')
    throw new ConfigError(`${path}:${row.line}: "${name}" must be a string or number`);
  return String(v);
}

export const command: Command = {
  name: 'structure',
  summary: 'SQLStructEval structural consistency, diversity and robustness measures',
  flags: FLAGS,
  details: DETAILS,
  async run(args: readonly string[], io: CliIo): Promise<number> {
    const values = parseTable('structure', args, FLAGS).values;
    const inputPath = values.input;
    if (!inputPath) throw new ConfigError('--input is required');
    const dialect = values.dialect as Dialect;
    if (!DIALECTS.includes(dialect))
      throw new ConfigError(`--dialect must be one of ${DIALECTS.join(', ')}, got "${dialect}"`);
    const structureOf = (sql: string): string | null => {
      try {
        return canonicalStructure(parseSql(sql, { dialect, fallback: true })).canonical;
      } catch (error) {
        if (error instanceof EquisqlError) return null;
        throw error;
      }
    };
    const rows: GenerationRow[] = readJsonl(inputPath, 'input').map((row) => ({
      inputId: field(row, inputPath, 'input_id'),
      perturbationId: field(row, inputPath, 'perturbation_id', '0'),
      structure: structureOf(field(row, inputPath, 'sql')),
    }));
    let gold: Map<string, string | null> | undefined;
    if (values.gold) {
      const goldPath = values.gold;
      gold = new Map(
        readJsonl(goldPath, 'gold file').map((row) => [
          field(row, goldPath, 'input_id'),
          structureOf(field(row, goldPath, 'sql')),
        ]),
      );
    }
    const report = computeStructureMetrics(rows, gold ? { gold } : {});
    if (values.details) {
      for (const g of report.perGroup) {
        io.out(
          JSON.stringify({
            group: {
              input_id: g.inputId,
              perturbation_id: g.perturbationId,
              generations: g.generations,
              parsed: g.parsed,
              distinct: g.distinct,
              majority: g.majority,
              entropy: g.entropy,
              gold: g.gold,
            },
          }),
        );
      }
      for (const i of report.perInput) {
        io.out(
          JSON.stringify({
            input: {
              input_id: i.inputId,
              original: i.original,
              perturbations: i.perturbations,
              agreement: i.agreement,
              sensitivity: i.sensitivity,
            },
          }),
        );
      }
    }
    io.out(
      JSON.stringify({
        generations: report.generations,
        parsed: report.parsed,
        groups: report.groups,
        inputs: report.inputs,
        distinct: report.distinct,
        majority: report.majority,
        entropy: report.entropy,
        gold: report.gold,
        agreement: report.agreement,
        sensitivity: report.sensitivity,
        sensitive_fraction: report.sensitiveFraction,
        changed_perturbation_share: report.changedPerturbationShare,
        inputs_without_original: report.inputsWithoutOriginal.length,
      }),
    );
    if (report.inputsWithoutOriginal.length > 0) {
      const shown = report.inputsWithoutOriginal.slice(0, 5).join(', ');
      io.err(
        `equisql structure: ${report.inputsWithoutOriginal.length} input id(s) have no perturbation id "0" or "original", so no sensitivity: ${shown}${report.inputsWithoutOriginal.length > 5 ? ', …' : ''}`,
      );
    }
    return 0;
  },
};
