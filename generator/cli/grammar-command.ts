import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sameFile, writeFileAtomic } from '../common/atomic-write.ts';
import { ConfigError } from '../common/errors.ts';
import { escapeControl, quoteInput } from '../common/user-text.ts';
import { corpusSkeletons, knownCorpus, readCorpus } from '../grammar/corpus-skeletons.ts';
import { rulesOf } from '../grammar/derivation.ts';
import { countRules, estimateGrammar, mixGrammars } from '../grammar/pcfg-estimator.ts';
import { MAX_DEDUPED_SAMPLES, streamSkeletons } from '../grammar/pcfg-sampler.ts';
import { formatGrammar, parseGrammar, type Grammar } from '../grammar/pcfg.ts';
import type { Dialect } from '../sql/sql-ast.ts';
import { EXIT, type CliIo, type Command } from './command.ts';
import { flagName } from './flags.ts';
import { parseTable, type CommandHelp } from './flag-table.ts';

const DEFAULT_GRAMMAR = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'grammars', 'default.pcfg');
const DIALECTS: readonly Dialect[] = ['postgresql', 'sqlite', 'mysql'];

const ESTIMATE = {
  name: 'grammar estimate',
  summary: "estimate a grammar's rule probabilities from a corpus of SQL queries",
  flags: {
    corpus: { type: 'string', value: 'FILE', required: true, help: 'one SQL query per line' },
    out: {
      type: 'string',
      value: 'G',
      required: true,
      help: 'the grammar file to write (replaced whole, temp + rename; may not be the corpus)',
    },
    dialect: {
      type: 'string',
      value: 'D',
      default: 'sqlite',
      help: 'the SQL dialect tried first: postgresql, sqlite (default) or mysql; the others are tried after it',
    },
    mix: { type: 'string', value: 'G:W', multiple: true, help: 'mix in another grammar by weight (other.pcfg:0.3)' },
    smoothing: { type: 'string', value: 'K', help: 'add-k smoothing over the rules of --base (default 0.1)' },
    base: {
      type: 'string',
      value: 'G|none',
      help: 'the grammar whose rules are smoothed over (default grammars/default.pcfg)',
    },
    source: { type: 'string', value: 'TEXT', help: "where the corpus comes from, recorded in the grammar's header" },
    licence: { type: 'string', value: 'TEXT', help: "the corpus's licence, recorded in the grammar's header" },
    json: {
      type: 'boolean',
      default: false,
      help: 'unparsed queries as JSON lines on stdout, then {"total", "parsed", "rules"}',
    },
  },
  details: `Derives each corpus query's grammar rules, counts them, smooths them and writes the grammar.
Unparsed queries are listed with their reasons. Lines over 100,000 characters, 10,000 tokens
or 100 nested parentheses are skipped.`,
} as const satisfies CommandHelp;

const SAMPLE = {
  name: 'grammar sample',
  summary: 'draw distinct skeletons from a grammar',
  flags: {
    grammar: { type: 'string', value: 'G', required: true, help: 'the grammar file' },
    n: {
      type: 'string',
      value: 'N',
      short: 'n',
      required: true,
      help: 'how many distinct skeletons (above 1,000,000 needs --no-dedupe)',
    },
    seed: { type: 'string', value: 'S', default: '0', help: 'seed of the draw (default 0)' },
    tail: { type: 'string', value: 'R', help: 'share of long-tail skeletons (default 0)' },
    'max-depth': { type: 'string', value: 'D', help: 'deepest derivation (default 40)' },
    'max-tokens': { type: 'string', value: 'T', help: 'longest skeleton in tokens (default 120)' },
    'no-dedupe': { type: 'boolean', default: false, help: 'keep duplicates (no memory kept of the skeletons drawn)' },
    json: {
      type: 'boolean',
      default: false,
      help: 'one line per sample: {"skeleton", "logprob", "tail", "derivation"}',
    },
  },
  details: `Skeletons are written as they are drawn. Exits with 1 when fewer than N distinct skeletons
turn up within the bounds.`,
} as const satisfies CommandHelp;

const CHECK = {
  name: 'grammar check',
  summary: 'load a grammar and report its size, or the first error with its line',
  flags: {},
  operands: 'G',
} as const satisfies CommandHelp;

/**
 * Refuses an --out that would destroy the corpus or cannot be written, before any work:
 * the same file under another name (relative path, symbolic or hard link) included.
 */
function checkOutput(outPath: string, corpusPath: string): void {
  const out = escapeControl(outPath);
  if (sameFile(outPath, corpusPath) || resolve(outPath) === resolve(corpusPath)) {
    throw new ConfigError(
      `estimate: --out ${out} is the corpus ${escapeControl(corpusPath)}; writing the grammar there would destroy it`,
    );
  }
  if (existsSync(outPath) && statSync(outPath).isDirectory())
    throw new ConfigError(`estimate: --out ${out} is a directory`);
  const dir = dirname(resolve(outPath));
  if (!existsSync(dir)) throw new ConfigError(`estimate: --out ${out}: directory ${escapeControl(dir)} does not exist`);
}

function readText(path: string, what: string): string {
  if (!existsSync(path)) throw new ConfigError(`${what} ${escapeControl(path)} does not exist`);
  return readFileSync(path, 'utf8');
}

/** Reads and checks a grammar file; errors name the file and line. */
export function loadGrammarFile(path: string): Grammar {
  return parseGrammar(readText(path, 'grammar file'), path);
}

function number(flag: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const value = text.trim() === '' ? Number.NaN : Number(text);
  if (!Number.isFinite(value))
    throw new ConfigError(`${flagName(flag)} must be a number, got "${escapeControl(text)}"`);
  return value;
}

function integer(flag: string, text: string | undefined, fallback: number, min: number): number {
  if (text === undefined) return fallback;
  if (!/^\d+$/u.test(text.trim()) || Number(text) < min || !Number.isSafeInteger(Number(text))) {
    throw new ConfigError(`${flagName(flag)} must be a whole number of at least ${min}, got "${escapeControl(text)}"`);
  }
  return Number(text);
}

async function estimate(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseTable('estimate', args, ESTIMATE.flags);
  const corpusPath = values.corpus as string | undefined;
  const outPath = values.out as string | undefined;
  if (!corpusPath) throw new ConfigError('estimate: --corpus is required');
  if (!outPath) throw new ConfigError('estimate: --out is required');
  checkOutput(outPath, corpusPath);
  const dialect = values.dialect as Dialect;
  if (!DIALECTS.includes(dialect))
    throw new ConfigError(`estimate: --dialect must be one of ${DIALECTS.join(', ')}, got "${escapeControl(dialect)}"`);
  const smoothing = number('smoothing', values.smoothing as string | undefined, 0.1);
  if (smoothing < 0) throw new ConfigError('estimate: --smoothing must be non-negative');
  const basePath = (values.base as string | undefined) ?? DEFAULT_GRAMMAR;
  const base = basePath === 'none' ? undefined : loadGrammarFile(basePath);
  const mixes = ((values.mix as string[] | undefined) ?? []).map((spec) => {
    const match = /^(.*):([0-9.eE+-]+)$/u.exec(spec);
    const weight = match ? Number(match[2]) : NaN;
    if (!match || !(weight > 0 && weight < 1))
      throw new ConfigError(`estimate: --mix expects GRAMMAR:WEIGHT with 0 < WEIGHT < 1, got "${escapeControl(spec)}"`);
    return { path: match[1] as string, grammar: loadGrammarFile(match[1] as string), weight };
  });
  const mixTotal = mixes.reduce((sum, m) => sum + m.weight, 0);
  if (mixTotal >= 1)
    throw new ConfigError(`estimate: --mix weights sum to ${mixTotal}, leaving nothing for the corpus`);

  const queries = readCorpus(readText(corpusPath, 'corpus'));
  if (queries.length === 0) throw new ConfigError(`estimate: corpus ${escapeControl(corpusPath)} has no queries`);
  io.err(`reading ${queries.length} queries from ${escapeControl(corpusPath)}`);
  const result = corpusSkeletons(queries, { dialect, onProgress: (done) => io.err(`  ${done}/${queries.length}`) });
  const rate = result.parsed / result.total;

  const known = knownCorpus(corpusPath);
  const source = escapeControl((values.source as string | undefined) ?? known?.source ?? basename(corpusPath));
  const licence = escapeControl(
    (values.licence as string | undefined) ?? known?.licence ?? 'not stated (pass --licence)',
  );
  // Header values are written as comments: a newline in one would start a rule.
  const header = [
    `equisql grammar of SQL structure, estimated by \`equisql grammar estimate\`.`,
    `source: ${source} (${escapeControl(basename(corpusPath))})`,
    `licence of the source: ${licence}; this file holds only rule counts and probabilities derived from it.`,
    `queries: ${result.total}, parsed: ${result.parsed} (${(100 * rate).toFixed(2)}%), dialect tried first: ${dialect}`,
    `smoothing: add-k, k = ${smoothing}${base ? `, over the rules of ${basePath === DEFAULT_GRAMMAR ? 'grammars/default.pcfg' : escapeControl(basePath)}` : ''}`,
    ...mixes.map((m) => `mixed with ${escapeControl(m.path)} at weight ${m.weight}`),
    mixes.length === 0
      ? `Comments after a rule give its observed count. Format: grammars/README.md.`
      : `A mixture carries no counts: its probabilities follow from no single count. Format: grammars/README.md.`,
  ];
  const estimated = estimateGrammar(countRules(result.derivations), { base, smoothing, header });
  const grammar =
    mixes.length === 0
      ? estimated
      : mixGrammars(
          [
            { grammar: estimated, weight: 1 - mixTotal },
            ...mixes.map((m) => ({ grammar: m.grammar, weight: m.weight })),
          ],
          { header },
        );
  writeFileAtomic(outPath, formatGrammar(grammar));

  const observed = new Set(result.derivations.flatMap(rulesOf)).size;
  io.err(
    `parsed ${result.parsed} of ${result.total} (${(100 * rate).toFixed(2)}%); dialects: ${JSON.stringify(result.dialects)}`,
  );
  io.err(
    `${grammar.rules.length} rules (${observed} observed) over ${grammar.byLhs.size} nonterminals written to ${escapeControl(outPath)}`,
  );
  for (const u of result.unparsed) {
    if (values.json) io.out(JSON.stringify({ unparsed: { line: u.line, reason: u.reason, sql: u.sql } }));
    else io.err(`unparsed line ${u.line}: ${quoteInput(u.reason)}: ${quoteInput(u.sql)}`);
  }
  if (values.json) io.out(JSON.stringify({ total: result.total, parsed: result.parsed, rules: grammar.rules.length }));
  return 0;
}

async function sample(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseTable('sample', args, SAMPLE.flags);
  const path = values.grammar as string | undefined;
  if (!path) throw new ConfigError('sample: --grammar is required');
  if (values.n === undefined) throw new ConfigError('sample: -n is required');
  const n = integer('n', values.n as string, 0, 1);
  const dedupe = !values['no-dedupe'];
  if (dedupe && n > MAX_DEDUPED_SAMPLES) {
    throw new ConfigError(
      `sample: -n ${n} is above ${MAX_DEDUPED_SAMPLES}, the most distinct skeletons deduplication keeps track of; add --no-dedupe for more`,
    );
  }
  const grammar = loadGrammarFile(path);
  const stream = streamSkeletons(grammar, {
    n,
    seed: values.seed as string,
    tail: number('tail', values.tail as string | undefined, 0),
    maxDepth: integer('max-depth', values['max-depth'] as string | undefined, 40, 1),
    maxTokens: integer('max-tokens', values['max-tokens'] as string | undefined, 120, 1),
    dedupe,
  });
  // Each sample is written as it is drawn; every few lines the command waits for stdout to
  // drain (and lets a closed pipe be noticed), so memory stays flat whatever N is.
  let written = 0;
  let next = stream.next();
  while (!next.done) {
    const s = next.value;
    io.out(
      values.json
        ? JSON.stringify({
            skeleton: s.skeleton,
            logprob: Number(s.logprob.toFixed(6)),
            tail: s.tail,
            derivation: rulesOf(s.derivation),
          })
        : s.skeleton,
    );
    if (++written % 256 === 0) await io.drain?.();
    next = stream.next();
  }
  const totals = next.value;
  if (written < n) io.err(`only ${written} distinct skeletons found (asked for ${n})`);
  io.err(
    `${written} samples; ${totals.duplicates} duplicates and ${totals.rejectedByBounds} out-of-bounds draws rejected`,
  );
  return written < n ? EXIT.checkFailed : EXIT.ok;
}

async function check(args: readonly string[], io: CliIo): Promise<number> {
  const { positionals } = parseTable('check', args, CHECK.flags, { positionals: true });
  const [path] = positionals;
  if (!path || positionals.length > 1) throw new ConfigError('check: give one grammar file');
  const grammar = loadGrammarFile(path);
  io.out(
    `${escapeControl(path)}: ${grammar.rules.length} rules over ${grammar.byLhs.size} nonterminals, start symbol ${grammar.start}`,
  );
  return 0;
}

export const command: Command = {
  name: 'grammar',
  summary: 'estimate, sample and check grammars of SQL skeletons',
  flags: {},
  operands: 'estimate|sample|check …',
  subcommands: [ESTIMATE, SAMPLE, CHECK],
  async run(args, io) {
    const [sub, ...rest] = args;
    switch (sub) {
      case 'estimate':
        return estimate(rest, io);
      case 'sample':
        return sample(rest, io);
      case 'check':
        return check(rest, io);
      default:
        throw new ConfigError(`expected a subcommand (estimate, sample, check), got "${escapeControl(sub ?? '')}"`);
    }
  },
};
