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
import { flagName, parseCommandLine } from './flags.ts';

const DEFAULT_GRAMMAR = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'grammars', 'default.pcfg');
const DIALECTS: readonly Dialect[] = ['postgresql', 'sqlite', 'mysql'];

const USAGE = `usage:
  equisql grammar estimate --corpus FILE --out G [--dialect D] [--mix G:W …] [--smoothing K]
                           [--base G|none] [--source TEXT] [--licence TEXT] [--json]
  equisql grammar sample --grammar G -n N [--seed S] [--tail R] [--max-depth D] [--max-tokens T]
                         [--no-dedupe] [--json]
  equisql grammar check G

estimate  derives each corpus query's grammar rules (one SQL query per line), counts them,
          smooths with add-k over the rules of --base (default grammars/default.pcfg;
          --smoothing, default 0.1), mixes in other grammars by weight (--mix other.pcfg:0.3)
          and writes the grammar to --out. Unparsed queries are listed with their reasons
          (stderr, or JSON lines with --json); with --json the last line is
          {"total":…,"parsed":…,"rules":…}. --dialect (default sqlite) is tried first, then
          the others. --out may not be the corpus; it is replaced whole (temp + rename).
          Lines over 100,000 characters, 10,000 tokens or 100 nested parentheses are skipped.
sample    draws N distinct skeletons (seed 0 by default), written as they are drawn (N above
          1,000,000 needs --no-dedupe); --tail R makes a share R of them long-tail skeletons. With --json, one line per sample:
          {"skeleton","logprob","tail","derivation"}. Exits with 1 when fewer than N distinct
          skeletons turn up within the bounds (--max-depth 40, --max-tokens 120).
check     loads a grammar and reports its size, or the first error with its line.`;


/**
 * Refuses an --out that would destroy the corpus or cannot be written, before any work:
 * the same file under another name (relative path, symbolic or hard link) included.
 */
function checkOutput(outPath: string, corpusPath: string): void {
  const out = escapeControl(outPath);
  if (sameFile(outPath, corpusPath) || resolve(outPath) === resolve(corpusPath)) {
    throw new ConfigError(`estimate: --out ${out} is the corpus ${escapeControl(corpusPath)}; writing the grammar there would destroy it`);
  }
  if (existsSync(outPath) && statSync(outPath).isDirectory()) throw new ConfigError(`estimate: --out ${out} is a directory`);
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
  if (!Number.isFinite(value)) throw new ConfigError(`${flagName(flag)} must be a number, got "${escapeControl(text)}"`);
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
  const { values } = parseCommandLine('estimate', args, {
    corpus: { type: 'string' },
    out: { type: 'string' },
    dialect: { type: 'string', default: 'sqlite' },
    mix: { type: 'string', multiple: true },
    smoothing: { type: 'string' },
    base: { type: 'string' },
    source: { type: 'string' },
    licence: { type: 'string' },
    json: { type: 'boolean', default: false },
  });
  const corpusPath = values.corpus as string | undefined;
  const outPath = values.out as string | undefined;
  if (!corpusPath) throw new ConfigError('estimate: --corpus is required');
  if (!outPath) throw new ConfigError('estimate: --out is required');
  checkOutput(outPath, corpusPath);
  const dialect = values.dialect as Dialect;
  if (!DIALECTS.includes(dialect)) throw new ConfigError(`estimate: --dialect must be one of ${DIALECTS.join(', ')}, got "${escapeControl(dialect)}"`);
  const smoothing = number('smoothing', values.smoothing as string | undefined, 0.1);
  if (smoothing < 0) throw new ConfigError('estimate: --smoothing must be non-negative');
  const basePath = (values.base as string | undefined) ?? DEFAULT_GRAMMAR;
  const base = basePath === 'none' ? undefined : loadGrammarFile(basePath);
  const mixes = ((values.mix as string[] | undefined) ?? []).map((spec) => {
    const match = /^(.*):([0-9.eE+-]+)$/u.exec(spec);
    const weight = match ? Number(match[2]) : NaN;
    if (!match || !(weight > 0 && weight < 1)) throw new ConfigError(`estimate: --mix expects GRAMMAR:WEIGHT with 0 < WEIGHT < 1, got "${escapeControl(spec)}"`);
    return { path: match[1] as string, grammar: loadGrammarFile(match[1] as string), weight };
  });
  const mixTotal = mixes.reduce((sum, m) => sum + m.weight, 0);
  if (mixTotal >= 1) throw new ConfigError(`estimate: --mix weights sum to ${mixTotal}, leaving nothing for the corpus`);

  const queries = readCorpus(readText(corpusPath, 'corpus'));
  if (queries.length === 0) throw new ConfigError(`estimate: corpus ${escapeControl(corpusPath)} has no queries`);
  io.err(`reading ${queries.length} queries from ${escapeControl(corpusPath)}`);
  const result = corpusSkeletons(queries, { dialect, onProgress: (done) => io.err(`  ${done}/${queries.length}`) });
  const rate = result.parsed / result.total;

  const known = knownCorpus(corpusPath);
  const source = escapeControl((values.source as string | undefined) ?? known?.source ?? basename(corpusPath));
  const licence = escapeControl((values.licence as string | undefined) ?? known?.licence ?? 'not stated (pass --licence)');
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
      : mixGrammars([{ grammar: estimated, weight: 1 - mixTotal }, ...mixes.map((m) => ({ grammar: m.grammar, weight: m.weight }))], { header });
  writeFileAtomic(outPath, formatGrammar(grammar));

  const observed = new Set(result.derivations.flatMap(rulesOf)).size;
  io.err(`parsed ${result.parsed} of ${result.total} (${(100 * rate).toFixed(2)}%); dialects: ${JSON.stringify(result.dialects)}`);
  io.err(`${grammar.rules.length} rules (${observed} observed) over ${grammar.byLhs.size} nonterminals written to ${escapeControl(outPath)}`);
  for (const u of result.unparsed) {
    if (values.json) io.out(JSON.stringify({ unparsed: { line: u.line, reason: u.reason, sql: u.sql } }));
    else io.err(`unparsed line ${u.line}: ${quoteInput(u.reason)}: ${quoteInput(u.sql)}`);
  }
  if (values.json) io.out(JSON.stringify({ total: result.total, parsed: result.parsed, rules: grammar.rules.length }));
  return 0;
}

async function sample(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandLine('sample', args, {
    grammar: { type: 'string' },
    n: { type: 'string', short: 'n' },
    seed: { type: 'string', default: '0' },
    tail: { type: 'string' },
    'max-depth': { type: 'string' },
    'max-tokens': { type: 'string' },
    'no-dedupe': { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  });
  const path = values.grammar as string | undefined;
  if (!path) throw new ConfigError('sample: --grammar is required');
  if (values.n === undefined) throw new ConfigError('sample: -n is required');
  const n = integer('n', values.n as string, 0, 1);
  const dedupe = !values['no-dedupe'];
  if (dedupe && n > MAX_DEDUPED_SAMPLES) {
    throw new ConfigError(`sample: -n ${n} is above ${MAX_DEDUPED_SAMPLES}, the most distinct skeletons deduplication keeps track of; add --no-dedupe for more`);
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
    io.out(values.json ? JSON.stringify({ skeleton: s.skeleton, logprob: Number(s.logprob.toFixed(6)), tail: s.tail, derivation: rulesOf(s.derivation) }) : s.skeleton);
    if (++written % 256 === 0) await io.drain?.();
    next = stream.next();
  }
  const totals = next.value;
  if (written < n) io.err(`only ${written} distinct skeletons found (asked for ${n})`);
  io.err(`${written} samples; ${totals.duplicates} duplicates and ${totals.rejectedByBounds} out-of-bounds draws rejected`);
  return written < n ? EXIT.checkFailed : EXIT.ok;
}

async function check(args: readonly string[], io: CliIo): Promise<number> {
  const { positionals } = parseCommandLine('check', args, {}, { positionals: true });
  const [path] = positionals;
  if (!path || positionals.length > 1) throw new ConfigError('check: give one grammar file');
  const grammar = loadGrammarFile(path);
  io.out(`${escapeControl(path)}: ${grammar.rules.length} rules over ${grammar.byLhs.size} nonterminals, start symbol ${grammar.start}`);
  return 0;
}

export const command: Command = {
  name: 'grammar',
  summary: 'estimate, sample and check grammars of SQL skeletons',
  usage: USAGE,
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
