/**
 * The meaning report: per domain, the share of candidates accepted and, per rule of meaning,
 * how many candidates the filler could not fill meaningfully (unfilled), how many the meaning
 * check refused after filling (refused), and how many accepted groups break it (in accepted,
 * 0 when generation checked them).
 *
 *   npm run meaning-report [-- --candidates 1000 --scale tiny --dataset retail --db postgres://… --dir OUT]
 *
 * Generates `--candidates` candidates per built-in domain (or `--dataset`, a name or a .json
 * model) on PGlite, or `--db`; with `--dir`, reads a finished `equisql generate` output
 * instead (its groups and rejections), so a run made before the rules can be judged too.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BUILT_IN_DOMAINS } from '../generator/domains/index.ts';
import { indexDomain } from '../generator/er-model/er-index.ts';
import { parseDomainJson } from '../generator/er-model/domain-json.ts';
import type { Domain } from '../generator/er-model/er-model.ts';
import { parseGrammar } from '../generator/grammar/pcfg.ts';
import type { ScalePreset } from '../generator/instance/conceptual-instance.ts';
import { openDatabase, resolveTarget } from '../generator/database/database.ts';
import { prepareBuilds } from '../generator/generate/prepare-builds.ts';
import { createQueryRunner } from '../generator/generate/query-runner.ts';
import { generateGroups } from '../generator/run/generate-groups.ts';
import { groupsPath, readJsonLines, rejectionsPath } from '../generator/records/groups-file.ts';
import type { GroupRecord, Rejection } from '../generator/records/group-record.ts';
import { formatMeaningSummary, summarizeMeaning } from '../generator/meaning/meaning-summary.ts';

const { values } = parseArgs({
  options: {
    candidates: { type: 'string' },
    scale: { type: 'string' },
    dataset: { type: 'string' },
    db: { type: 'string' },
    dir: { type: 'string' },
    seed: { type: 'string' },
  },
});
const say = (s: string): void => {
  process.stdout.write(`${s}\n`);
};

function domainOf(name: string): Domain {
  if (name.endsWith('.json')) return parseDomainJson(readFileSync(name, 'utf8'), name);
  const d = BUILT_IN_DOMAINS[name];
  if (!d) throw new Error(`unknown dataset ${name}`);
  return d;
}

if (values.dir) {
  const dir = values.dir;
  const dataset = values.dataset ?? readdirSync(join(dir, 'groups'))[0]?.replace(/\.jsonl$/u, '') ?? '';
  const index = indexDomain(
    values.dataset?.endsWith('.json')
      ? domainOf(values.dataset)
      : parseDomainJson(readFileSync(join(dir, 'er.json'), 'utf8'), join(dir, 'er.json')),
  );
  const groups = readJsonLines<GroupRecord>(groupsPath(dir, dataset), false);
  const rejections = readJsonLines<Rejection>(rejectionsPath(dir), false);
  for (const line of formatMeaningSummary(dataset, summarizeMeaning(index, groups, rejections))) say(line);
} else {
  const candidates = Number(values.candidates ?? 1000);
  const scale = (values.scale ?? 'tiny') as ScalePreset;
  const seed = values.seed ?? '1';
  const grammar = parseGrammar(
    readFileSync(new URL('../grammars/spider.pcfg', import.meta.url), 'utf8'),
    'spider.pcfg',
  );
  const names = values.dataset ? [values.dataset] : Object.keys(BUILT_IN_DOMAINS);
  say(`meaning report: ${candidates} candidates per domain, scale ${scale}, seed ${seed}, all variants`);
  for (const name of names) {
    const domain = domainOf(name);
    const dataset = domain.name;
    const out = mkdtempSync(join(tmpdir(), 'equisql-meaning-report-'));
    const db = await openDatabase(resolveTarget(values.db, join(out, 'pglite')));
    try {
      const builds = await prepareBuilds({ dataset, domain, variants: 'all', scale, seed: 1, db, out });
      const index = indexDomain(domain);
      await generateGroups({
        dataset,
        out,
        index,
        instance: builds.instance,
        instanceHashes: {
          main: builds.main.instance_hash,
          ...(builds.edge ? { edge: builds.edge.instance_hash } : {}),
        },
        variants: builds.variants,
        runner: createQueryRunner([db], 30_000),
        grammar,
        seed,
        groups: candidates,
        maxCandidates: candidates,
        settings: { report: true },
      });
      const groups = readJsonLines<GroupRecord>(groupsPath(out, dataset), false);
      const rejections = readJsonLines<Rejection>(rejectionsPath(out), false);
      for (const line of formatMeaningSummary(dataset, summarizeMeaning(index, groups, rejections))) say(line);
    } finally {
      await db.close();
      rmSync(out, { recursive: true, force: true });
    }
  }
}
