/**
 * Agreement across engines: in a run checked on SQLite (`--engines postgres,sqlite`), a
 * candidate that passed every PostgreSQL check is compiled for SQLite on every variant SQLite
 * holds, run on that variant's SQLite file of each instance, and kept only when every answer,
 * brought to the form both engines are compared in (`execute/engine-neutral.ts`), is
 * PostgreSQL's. Otherwise it is rejected: `dialect-refused:<rule>` when the SQLite dialect
 * refuses the query, `engine-disagreement:<variant>` when a variant's SQLite answer differs
 * (or SQLite fails on it).
 */
import { DialectError, oneLine } from '../common/errors.ts';
import { NO_RULE, sqliteFromTree } from '../compile/sqlite/compile-sqlite.ts';
import { SqliteFile } from '../database/sqlite-database.ts';
import { neutralResult, sameAnswer } from '../execute/engine-neutral.ts';
import type { NormalizedResult } from '../execute/run-query.ts';
import type { SqlQuery } from '../compile/sql-tree.ts';
import { isOrdered, type Query } from '../query/conceptual-query.ts';
import type { CheckVariant, VerifiedGroup } from './group-checks.ts';
import { reject, type VariantAnswer } from '../records/group-record.ts';

/** The SQLite files of a run, each opened read-only once, on first use. */
export interface SqliteFiles {
  file(path: string): SqliteFile;
  close(): void;
}

export function openSqliteFiles(): SqliteFiles {
  const open = new Map<string, SqliteFile>();
  return {
    file(path) {
      let f = open.get(path);
      if (!f) {
        f = new SqliteFile(path);
        open.set(path, f);
      }
      return f;
    },
    close() {
      for (const f of open.values()) f.close();
      open.clear();
    },
  };
}

/** Whether a run checks its candidates on SQLite: some variant has SQLite files. */
export function checksSqlite(variants: readonly CheckVariant[]): boolean {
  return variants.some((v) => v.sqliteFiles !== undefined);
}

/**
 * The SQLite check of a verified group: returns its answers with each SQLite variant's
 * `sqlite_sql` beside the PostgreSQL fields (unchanged), or rejects the candidate.
 *
 * @example
 * const answers = agreeOnSqlite(query, verified, variants, files);
 * answers['full_cti'].sqlite_sql; // SELECT CAST(strftime('%Y', o.placed_at) AS INTEGER) AS year, …
 */
export function agreeOnSqlite(
  query: Query,
  verified: VerifiedGroup,
  variants: readonly CheckVariant[],
  files: SqliteFiles,
): Readonly<Record<string, VariantAnswer>> {
  const ordered = isOrdered(query);
  // Every PostgreSQL variant gave the same answer on an instance; one neutral form stands for them.
  const expected: Record<'main' | 'edge', NormalizedResult | undefined> = {
    main: neutralResult({ columns: [], rows: verified.results.main.rows as (string | null)[][] }, ordered),
    edge:
      verified.results.edge &&
      neutralResult({ columns: [], rows: verified.results.edge.rows as (string | null)[][] }, ordered),
  };
  const sqlite = variants.filter((v) => v.sqliteFiles !== undefined);
  // Compiled for every variant before any runs (a refusal costs no query), from the tree
  // PostgreSQL's SQL was printed from: the same compilation, in the other dialect.
  const compiled = sqlite.map((v) => {
    try {
      return { variant: v, sql: sqliteFromTree(verified.trees.get(v.name) as SqlQuery, v.schema) };
    } catch (error) {
      if (!(error instanceof DialectError)) throw error;
      return reject(`dialect-refused:${error.rule ?? NO_RULE}`, `${v.name}: ${oneLine(error)}`);
    }
  });
  for (const { variant, sql } of compiled) {
    const paths = variant.sqliteFiles as NonNullable<CheckVariant['sqliteFiles']>;
    for (const instance of ['main', 'edge'] as const) {
      const path = paths[instance];
      const want = expected[instance];
      if (path === undefined || want === undefined) continue;
      let got: NormalizedResult;
      try {
        got = neutralResult(files.file(path).run(sql, { keep: false }), ordered);
      } catch (error) {
        return reject(`engine-disagreement:${variant.name}`, `${instance} instance: SQLite fails: ${oneLine(error)}`);
      }
      if (!sameAnswer(got, want))
        reject(`engine-disagreement:${variant.name}`, `${instance} instance: ${difference(got, want)}`);
    }
  }
  const answers: Record<string, VariantAnswer> = { ...verified.answers };
  for (const { variant, sql } of compiled)
    answers[variant.name] = { ...(verified.answers[variant.name] as VariantAnswer), sqlite_sql: sql.text };
  return answers;
}

/** A few rows only one engine has, or the order, in one line. */
function difference(sqlite: NormalizedResult, postgres: NormalizedResult): string {
  const key = (row: readonly (string | null)[]): string => JSON.stringify(row);
  const mine = new Set(sqlite.rows.map(key));
  const theirs = new Set(postgres.rows.map(key));
  const only = [
    ...[...mine]
      .filter((k) => !theirs.has(k))
      .slice(0, 2)
      .map((k) => `SQLite + ${k}`),
    ...[...theirs]
      .filter((k) => !mine.has(k))
      .slice(0, 2)
      .map((k) => `PostgreSQL + ${k}`),
  ];
  const counts = `SQLite ${sqlite.rows.length} rows, PostgreSQL ${postgres.rows.length}`;
  return `${counts}; ${only.length > 0 ? only.join('; ') : 'same rows in another order'}`.slice(0, 400);
}

/** Candidates a run lost to one kind of SQLite rejection, and their share of its candidates. */
export interface EngineLoss {
  readonly candidates: number;
  readonly share: number;
}

/**
 * What the SQLite checks cost a run: the candidates whose final rejection was an engine
 * disagreement, and a dialect refusal, each as a count and a share of all its candidates.
 */
export function engineLosses(
  rejected: Readonly<Record<string, number>>,
  candidates: number,
): { readonly engine_disagreement: EngineLoss; readonly dialect_refused: EngineLoss } {
  const lost = (prefix: string): EngineLoss => {
    const n = Object.entries(rejected).reduce(
      (sum, [reason, count]) => (reason.startsWith(prefix) ? sum + count : sum),
      0,
    );
    return { candidates: n, share: candidates > 0 ? Number((n / candidates).toFixed(4)) : 0 };
  };
  return { engine_disagreement: lost('engine-disagreement:'), dialect_refused: lost('dialect-refused:') };
}
