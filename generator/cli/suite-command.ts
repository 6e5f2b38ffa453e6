import { resolve } from 'node:path';
import { EXIT, type Command } from './command.ts';
import { required } from './flags.ts';
import { parseTable, type FlagTable } from './flag-table.ts';
import { openBuiltDir } from './built-dir.ts';
import { ConfigError, oneLine } from '../common/errors.ts';
import { escapeControl, ownValue } from '../common/user-text.ts';
import { targetOf } from '../assemble/verify-dataset.ts';
import { openDatabase } from '../database/database.ts';
import { SUITES } from '../suites/index.ts';
import { runQuestions } from '../suites/run-suite.ts';
import { readSuiteFile, type SuiteEntry } from '../generate/suite-file.ts';
import type { SuiteQuestion } from '../suites/suite.ts';
import type { ErIndex } from '../er-model/er-index.ts';
import type { BuildManifest } from '../assemble/build-dataset.ts';
import { compileQuery } from '../compile/compile-query.ts';
import { buildRelationalSchema } from '../variants/build-schema.ts';

const FLAGS = {
  dir: { type: 'string', value: 'DIR', required: true, help: 'a directory equisql build wrote' },
  suite: {
    type: 'string',
    value: 'NAME|FILE.jsonl',
    required: true,
    help: `a built-in suite (${Object.keys(SUITES).join(', ')}), or a file of your own, one {"id", "query", "question"?} a line (the conceptual query as JSON)`,
  },
  db: {
    type: 'string',
    value: 'URL',
    help: 'postgres://… or pglite:DIR (default DATABASE_URL, else the PGlite that build.json names)',
  },
  json: {
    type: 'boolean',
    help: 'one line per (question, variant): {"question", "variant", "sql", "row_count", "result_hash"}',
  },
} as const satisfies FlagTable;

const DETAILS = `Runs a suite's questions on every variant built in DIR: the built-in suite, or a file of your
own. A line that is not such an object, or a query that does not compile for some variant,
is refused with exit 2 naming the file, line or id, before anything runs. Exit status 1 if
any question's variants disagree or any answer is empty.`;

/**
 * A user's suite file as questions, each compiled for every variant first: a query that
 * names what the model lacks is refused before anything runs, naming the file, line id and
 * variant.
 */
function fileQuestions(
  file: string,
  entries: readonly SuiteEntry[],
  index: ErIndex,
  manifest: BuildManifest,
): SuiteQuestion[] {
  if (entries.length === 0) throw new ConfigError(`--suite: ${escapeControl(file)} holds no questions`);
  for (const e of entries) {
    for (const v of manifest.variants) {
      try {
        compileQuery(index, buildRelationalSchema(index, v.spec), e.query);
      } catch (error) {
        throw new ConfigError(
          `--suite: ${escapeControl(file)}: question ${escapeControl(e.id)} does not compile for variant ${v.name}: ${escapeControl(oneLine(error))}`,
        );
      }
    }
  }
  return entries.map((e) => ({ id: e.id, question: e.question ?? '', query: e.query }));
}

export const command: Command = {
  name: 'suite',
  summary: 'run a suite of questions on every variant and compare the answers',
  flags: FLAGS,
  details: DETAILS,
  async run(args, io) {
    const flags = parseTable('suite', args, FLAGS).values;
    const dir = resolve(process.cwd(), required('suite', 'dir', flags.dir));
    // The flags are checked before the directory is read: a bad name fails fast and alone.
    const suiteName = required('suite', 'suite', flags.suite);
    // A name ending in .jsonl (or holding a path separator) is a user's file, never a built-in name.
    const isFile = /\.jsonl$/iu.test(suiteName) || /[\\/]/u.test(suiteName);
    const suite = isFile ? undefined : ownValue(SUITES, suiteName);
    if (!isFile && !suite)
      throw new ConfigError(
        `--suite: unknown suite "${escapeControl(suiteName)}" (known: ${Object.keys(SUITES).join(', ')}; or give a FILE.jsonl)`,
      );
    const file = isFile ? resolve(process.cwd(), suiteName) : undefined;
    const entries = file ? readSuiteFile(file, '--suite') : undefined;
    const { manifest, index } = openBuiltDir(dir);
    const questions = entries
      ? fileQuestions(file as string, entries, index, manifest)
      : ownValue(suite?.domains ?? {}, manifest.domain);
    if (!questions) throw new ConfigError(`--suite: suite ${suiteName} has no questions for domain ${manifest.domain}`);
    const db = await openDatabase(
      targetOf(dir, manifest, flags.db ?? (manifest.database.kind === 'postgres' ? io.env['DATABASE_URL'] : undefined)),
    );
    try {
      const outcomes = await runQuestions(index, manifest, db, questions, (a) => {
        if (flags.json)
          io.out(
            JSON.stringify({
              question: a.question,
              variant: a.variant,
              sql: a.sql,
              row_count: a.row_count,
              result_hash: a.result_hash,
            }),
          );
      });
      for (const o of outcomes) {
        const status = !o.comparison.agree ? 'DISAGREE' : o.comparison.rowCount === 0 ? 'EMPTY' : 'ok';
        const line = `${o.question} ${status} ${o.comparison.rowCount} rows on ${o.answers.length} variants`;
        if (flags.json) io.err(line);
        else io.out(line);
        for (const d of o.comparison.differing)
          io.err(`  ${o.question} ${d.variant}: ${d.rowCount} rows; ${d.sample.join(' ')}`);
      }
      const bad = outcomes.filter((o) => !o.ok).length;
      io.err(
        bad === 0
          ? `all ${outcomes.length} questions agree on ${manifest.variants.length} variants`
          : `${bad} of ${outcomes.length} questions disagree or are empty`,
      );
      return bad === 0 ? EXIT.ok : EXIT.checkFailed;
    } finally {
      await db.close();
    }
  },
};
