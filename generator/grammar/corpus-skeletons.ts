/**
 * Skeletons of a corpus of real SQL (one query per line), with the queries that could not
 * be read and why: the input of grammar estimation.
 */
import { EquisqlError, isStackOverflow } from '../common/errors.ts';
import type { Dialect } from '../sql/sql-ast.ts';
import { parseSqlWithDialect } from '../sql/parser-adapter.ts';
import type { Derivation } from './derivation.ts';
import { deriveStatement } from './skeleton-extractor.ts';

export interface CorpusQuery {
  /** 1-based line in the corpus file. */
  readonly line: number;
  readonly sql: string;
}

export interface UnparsedQuery extends CorpusQuery {
  readonly reason: string;
}

export interface CorpusSkeletons {
  readonly total: number;
  readonly parsed: number;
  readonly derivations: readonly Derivation[];
  readonly unparsed: readonly UnparsedQuery[];
  /** How many queries each dialect accepted. */
  readonly dialects: Readonly<Record<Dialect, number>>;
}

/** One query per non-blank line; lines starting with `--` are comments. */
export function readCorpus(text: string): CorpusQuery[] {
  const out: CorpusQuery[] = [];
  text.split(/\r?\n/u).forEach((raw, i) => {
    const sql = raw.trim();
    if (sql !== '' && !sql.startsWith('--')) out.push({ line: i + 1, sql });
  });
  return out;
}

/**
 * Parses each query (trying the other dialects after `dialect` unless `fallback` is false)
 * and derives its skeleton. A query counts as parsed when both steps succeed.
 */
export function corpusSkeletons(
  queries: readonly CorpusQuery[],
  options: { dialect?: Dialect; fallback?: boolean; onProgress?: (done: number) => void } = {},
): CorpusSkeletons {
  const derivations: Derivation[] = [];
  const unparsed: UnparsedQuery[] = [];
  const dialects: Record<Dialect, number> = { sqlite: 0, postgresql: 0, mysql: 0 };
  queries.forEach((query, i) => {
    try {
      const parsed = parseSqlWithDialect(query.sql, {
        dialect: options.dialect ?? 'sqlite',
        fallback: options.fallback ?? true,
      });
      derivations.push(deriveStatement(parsed.query));
      dialects[parsed.dialect]++;
    } catch (error) {
      // A query too deep for a tree walk is skipped like one that does not parse.
      if (isStackOverflow(error)) unparsed.push({ ...query, reason: 'query nested too deeply to derive' });
      else if (!(error instanceof EquisqlError)) throw error;
      else unparsed.push({ ...query, reason: error.message });
    }
    if (options.onProgress && (i + 1) % 1000 === 0) options.onProgress(i + 1);
  });
  return { total: queries.length, parsed: derivations.length, derivations, unparsed, dialects };
}

/** What the project knows about a corpus it may be pointed at: its source and licence. */
const KNOWN_CORPORA: readonly { readonly file: RegExp; readonly source: string; readonly licence: string }[] = [
  {
    file: /spider_train\.sql$/u,
    source: 'Spider text-to-SQL benchmark (Yu et al., EMNLP 2018), training split gold SQL',
    licence: 'CC BY-SA 4.0',
  },
  {
    file: /minidev_postgresql\.sql$/u,
    source: 'BIRD benchmark mini-dev set (Li et al., NeurIPS 2023), PostgreSQL gold SQL',
    licence: 'CC BY-SA 4.0',
  },
];

/** Source and licence of a known corpus file, if it is one. */
export function knownCorpus(path: string): { source: string; licence: string } | undefined {
  return KNOWN_CORPORA.find((c) => c.file.test(path));
}
