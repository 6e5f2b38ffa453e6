/**
 * What becomes of the long-tail draws: among the first N candidates of a run (the skeleton
 * stream `equisql generate` draws, seed 1, grammar spider), how many long-tail skeletons the
 * skeleton reader takes, how many the filler fills (any of four attempts), how many pass
 * every check on all ten variants (difficulty quotas aside), and the reasons of the rest.
 * Runs on PGlite, `--scale tiny`.
 *
 *   npm run long-tail                          social_media, N = 2000
 *   npm run long-tail -- retail 10000          another dataset and N
 *   npm run long-tail -- retail 2000 --list    also each skeleton the reader took, with its fate
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUILT_IN_DOMAINS } from '../generator/domains/index.ts';
import { indexDomain } from '../generator/er-model/er-index.ts';
import { openDatabase } from '../generator/database/database.ts';
import { parseGrammar } from '../generator/grammar/pcfg.ts';
import { createRng } from '../generator/common/rng.ts';
import { prepareBuilds } from '../generator/generate/prepare-builds.ts';
import { createQueryRunner } from '../generator/generate/query-runner.ts';
import { candidateSources, type GenerateOptions } from '../generator/generate/candidate.ts';
import { readSkeleton } from '../generator/generate/skeleton-shape.ts';
import { fillQuery } from '../generator/generate/fill/fill-query.ts';
import { verifyGroup } from '../generator/generate/group-checks.ts';
import { CandidateRejected } from '../generator/records/group-record.ts';

const args = process.argv.slice(2).filter((a) => a !== '--list');
const list = process.argv.includes('--list');
const dataset = args[0] ?? 'social_media';
const n = Number(args[1] ?? 2000);
const domain = BUILT_IN_DOMAINS[dataset];
if (!domain) throw new Error(`no built-in domain ${dataset}`);
const index = indexDomain(domain);
const grammarPath = join(import.meta.dirname, '..', 'grammars', 'spider.pcfg');
const grammar = parseGrammar(readFileSync(grammarPath, 'utf8'), grammarPath);
const dir = mkdtempSync(join(tmpdir(), 'equisql-long-tail-'));
const db = await openDatabase({ kind: 'pglite' });
try {
  const builds = await prepareBuilds({ dataset, domain, variants: 'all', scale: 'tiny', seed: 1, db, out: dir });
  const runner = createQueryRunner([db], 10_000);
  const options = {
    dataset,
    out: dir,
    index,
    instance: builds.instance,
    variants: builds.variants,
    runner,
    grammar,
    seed: 1,
    groups: n,
    tail: 0.1,
  } as unknown as GenerateOptions;
  const { graph, ctx, probe, skeletonAt } = candidateSources(options);
  const tally = { tail: 0, read: 0, filled: 0, verified: 0, ordinary: 0, ordinaryRead: 0 };
  const reasons = new Map<string, number>();
  const note = (stage: string, e: CandidateRejected): void => {
    const key = `${stage}: ${e.reason}: ${e.detail.replace(/\d+/gu, 'N').slice(0, 70)}`;
    reasons.set(key, (reasons.get(key) ?? 0) + 1);
  };
  for (let candidate = 0; candidate < n; candidate++) {
    const sample = skeletonAt(candidate);
    if (!sample.tail) {
      tally.ordinary += 1;
      try {
        readSkeleton(sample.tokens);
        tally.ordinaryRead += 1;
      } catch {
        // counted as not read
      }
      continue;
    }
    tally.tail += 1;
    let shape;
    try {
      shape = readSkeleton(sample.tokens);
    } catch (e) {
      if (!(e instanceof CandidateRejected)) throw e;
      note('read', e);
      continue;
    }
    tally.read += 1;
    let filled = false;
    let verified = false;
    let last: CandidateRejected | undefined;
    for (let attempt = 0; attempt < 4 && !verified; attempt++) {
      try {
        const rng = createRng(1).fork(`candidate/${candidate}/${attempt}`);
        const query = await fillQuery(shape, { graph, instance: builds.instance, rng, probe });
        filled = true;
        await verifyGroup(query, ctx);
        verified = true;
      } catch (e) {
        if (!(e instanceof CandidateRejected)) throw e;
        last = e;
      }
    }
    if (list)
      console.log(
        `${verified ? 'verified' : `${filled ? 'check' : 'fill'}: ${last?.reason}: ${last?.detail.slice(0, 60)}`}  | ${sample.skeleton.slice(0, 200)}`,
      );
    if (filled) tally.filled += 1;
    if (verified) tally.verified += 1;
    else if (last) note(filled ? 'check' : 'fill', last);
  }
  console.log(
    `${dataset}, first ${n} candidates: ${tally.tail} long-tail draws, ${tally.read} read, ${tally.filled} filled, ${tally.verified} verified; ordinary draws read ${tally.ordinaryRead} of ${tally.ordinary}`,
  );
  for (const [k, v] of [...reasons].sort((a, b) => b[1] - a[1])) console.log(`${String(v).padStart(4)}  ${k}`);
} finally {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
}
