/**
 * Grammar and canonicalization benchmark: skeleton sampling from grammars/spider.pcfg, and
 * canonicalization of the Spider training queries (parse alone, canonical structure of
 * parsed queries, both together), plus skeleton extraction and a full estimate; then the
 * analytic grammar: sampling from grammars/analytic-mix.pcfg, the round trip of 10,000 of
 * its skeletons (print, parse, extract), and the BIRD mini-dev estimate.
 *
 *   npm run bench:grammar
 *
 * Reads ../shared/corpora/spider/spider_train.sql beside the checkout.
 */
import { existsSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SqlParseError } from '../generator/common/errors.ts';
import { createRng } from '../generator/common/rng.ts';
import { corpusSkeletons, readCorpus } from '../generator/grammar/corpus-skeletons.ts';
import { countRules, estimateGrammar } from '../generator/grammar/pcfg-estimator.ts';
import { drawOne, sampleSkeletons } from '../generator/grammar/pcfg-sampler.ts';
import { parseGrammar } from '../generator/grammar/pcfg.ts';
import { deriveQuery, extractSkeleton } from '../generator/grammar/skeleton-extractor.ts';
import { instantiateSkeleton } from '../generator/grammar/skeleton-instantiator.ts';
import { parseSql } from '../generator/sql/parser-adapter.ts';
import type { Query } from '../generator/sql/sql-ast.ts';
import { canonicalizeSql, canonicalStructure } from '../generator/structure/canonical-structure.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const corpusFile = resolve(root, '..', 'shared', 'corpora', 'spider', 'spider_train.sql');
if (!existsSync(corpusFile)) {
  process.stderr.write(
    `bench:grammar needs the Spider corpus at ${corpusFile} (../shared/corpora beside the checkout)\n`,
  );
  process.exit(2);
}
const say = (s: string): void => void process.stdout.write(`${s}\n`);

/**
 * Items per second of `work` (which reports how many items it did): after a warm-up, the
 * best of three rounds of at least `roundMs` each, since the machine is shared and other
 * processes only ever slow a round down.
 */
function rate(work: () => number, roundMs = 1000): { perSecond: number } {
  work();
  let best = 0;
  for (let round = 0; round < 3; round++) {
    let items = 0;
    const start = performance.now();
    while (performance.now() - start < roundMs) items += work();
    best = Math.max(best, (items * 1000) / (performance.now() - start));
  }
  return { perSecond: best };
}

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');

say(`machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, node ${process.version}`);
const grammar = parseGrammar(readFileSync(resolve(root, 'grammars/spider.pcfg'), 'utf8'), 'grammars/spider.pcfg');
const queries = readCorpus(readFileSync(corpusFile, 'utf8'));
say(`grammar: grammars/spider.pcfg (${grammar.rules.length} rules); corpus: ${queries.length} Spider training queries`);
say('');

const rows: [string, string][] = [];
let seed = 0;
const draws = rate(() => {
  const rng = createRng(`draws-${seed++}`);
  for (let i = 0; i < 5000; i++) drawOne(grammar, rng);
  return 5000;
});
rows.push(['raw draws (with derivation and log-probability)', `${fmt(draws.perSecond)} /s`]);
let drawn = 0;
let kept = 0;
const samples = rate(() => {
  const report = sampleSkeletons(grammar, { n: 5000, seed: `distinct-${seed++}` });
  drawn += report.samples.length + report.duplicates + report.rejectedByBounds;
  kept += report.samples.length;
  return report.samples.length;
});
rows.push([
  `distinct samples (\`grammar sample\`, dedupe on; ${(drawn / kept).toFixed(1)} draws each)`,
  `${fmt(samples.perSecond)} /s`,
]);
const tail = rate(() => sampleSkeletons(grammar, { n: 5000, seed: `tail-${seed++}`, tail: 0.1 }).samples.length);
rows.push(['distinct samples with a 10% long tail', `${fmt(tail.perSecond)} /s`]);

const parse = (sql: string): Query => parseSql(sql, { dialect: 'sqlite', fallback: true });
// The rates are over the queries the adapter reads (it refuses two Spider queries that put
// LIMIT before INTERSECT, which SQLite itself rejects).
const readable = queries.filter((q) => {
  try {
    parse(q.sql);
    return true;
  } catch (error) {
    if (error instanceof SqlParseError) return false;
    throw error;
  }
});
say(`${readable.length} of ${queries.length} queries parse; parse and canonicalization rates are over those`);
say('');
const parsed = readable.map((q) => parse(q.sql));
const parseOnly = rate(() => {
  for (const q of readable) parse(q.sql);
  return readable.length;
});
rows.push(['parse only (adapter, sqlite first with fallback)', `${fmt(parseOnly.perSecond)} /s`]);
const canonOnly = rate(() => {
  for (const q of parsed) canonicalStructure(q);
  return parsed.length;
});
rows.push(['canonical structure + hash of parsed queries', `${fmt(canonOnly.perSecond)} /s`]);
const canonFull = rate(() => {
  for (const q of readable) canonicalizeSql(q.sql, { dialect: 'sqlite', fallback: true });
  return readable.length;
});
rows.push(['**canonicalizations (parse + canonical + hash)**', `**${fmt(canonFull.perSecond)} /s**`]);
const skeletons = rate(() => {
  let n = 0;
  for (const q of parsed) {
    try {
      deriveQuery(q);
      n++;
    } catch {
      n++;
    }
  }
  return n;
});
rows.push(['skeleton extraction of parsed queries', `${fmt(skeletons.perSecond)} /s`]);

const t = performance.now();
const corpus = corpusSkeletons(queries, { dialect: 'sqlite' });
estimateGrammar(countRules(corpus.derivations), { smoothing: 0 });
rows.push([
  'estimate from the whole corpus (parse, derive, count, normalize)',
  `${((performance.now() - t) / 1000).toFixed(2)} s`,
]);

// The analytic grammar: BIRD mini-dev mixed with Spider.
const mix = parseGrammar(
  readFileSync(resolve(root, 'grammars/analytic-mix.pcfg'), 'utf8'),
  'grammars/analytic-mix.pcfg',
);
const mixSamples = rate(() => sampleSkeletons(mix, { n: 5000, seed: `mix-${seed++}` }).samples.length);
rows.push([
  `distinct samples from grammars/analytic-mix.pcfg (${mix.rules.length} rules)`,
  `${fmt(mixSamples.perSecond)} /s`,
]);
const roundTripStart = performance.now();
const drawnMix = sampleSkeletons(mix, { n: 10_000, seed: 'round-trip/mix', tail: 0.1 }).samples;
let mismatched = 0;
for (const sample of drawnMix) {
  try {
    if (
      extractSkeleton(parseSql(instantiateSkeleton(sample.tokens), { dialect: 'postgresql' })).text !== sample.skeleton
    )
      mismatched++;
  } catch {
    mismatched++;
  }
}
rows.push([
  `round trip of ${fmt(drawnMix.length)} analytic-mix skeletons (sample, print, parse, extract): ${mismatched} not read back the same`,
  `${((performance.now() - roundTripStart) / 1000).toFixed(1)} s`,
]);
const birdFile = resolve(root, '..', 'shared', 'corpora', 'bird_minidev', 'minidev_postgresql.sql');
if (existsSync(birdFile)) {
  const birdStart = performance.now();
  const bird = corpusSkeletons(readCorpus(readFileSync(birdFile, 'utf8')), { dialect: 'postgresql' });
  estimateGrammar(countRules(bird.derivations), { smoothing: 0 });
  rows.push([
    `BIRD mini-dev estimate: ${bird.parsed} of ${bird.total} queries derived`,
    `${((performance.now() - birdStart) / 1000).toFixed(2)} s`,
  ]);
}

say('| figure | value |');
say('|---|---|');
for (const [name, value] of rows) say(`| ${name} | ${value} |`);
say('');
say(
  `parse share of a canonicalization: ${((100 * canonFull.perSecond) / parseOnly.perSecond).toFixed(0)}% of the parse-only rate is kept`,
);
say(
  JSON.stringify({
    samples_per_s: Math.round(samples.perSecond),
    raw_draws_per_s: Math.round(draws.perSecond),
    canonicalizations_per_s: Math.round(canonFull.perSecond),
    canonical_of_parsed_per_s: Math.round(canonOnly.perSecond),
    parses_per_s: Math.round(parseOnly.perSecond),
  }),
);
