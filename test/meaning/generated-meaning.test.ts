// @tier long
/**
 * The meaning check over what generation emits: the groups of 1,000 candidates of each
 * built-in domain, and 300 groups of the worked model of docs/er-model.md (which declares no
 * roles, so its roles are inferred), on PGlite. No accepted group breaks a rule, and the
 * filler proposes meaningful fillings first: few candidates reach the check only to be
 * refused by it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../generator/database/database.ts';
import { BUILT_IN_DOMAINS } from '../../generator/domains/index.ts';
import { parseDomainJson } from '../../generator/er-model/domain-json.ts';
import { indexDomain } from '../../generator/er-model/er-index.ts';
import type { Domain } from '../../generator/er-model/er-model.ts';
import { parseGrammar } from '../../generator/grammar/pcfg.ts';
import { generateGroups } from '../../generator/run/generate-groups.ts';
import type { GroupRecord, Rejection } from '../../generator/records/group-record.ts';
import { groupsPath, readJsonLines, rejectionsPath } from '../../generator/records/groups-file.ts';
import { prepareBuilds } from '../../generator/generate/prepare-builds.ts';
import { createQueryRunner } from '../../generator/generate/query-runner.ts';
import { checkMeaning } from '../../generator/meaning/check-meaning.ts';
import { summarizeMeaning } from '../../generator/meaning/meaning-summary.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import { REPO_ROOT } from '../helpers/run-cli.ts';
import { sized } from '../helpers/tiers.ts';

const grammar = parseGrammar(readFileSync(join(REPO_ROOT, 'grammars/spider.pcfg'), 'utf8'), 'spider.pcfg');
const docs = readFileSync(join(REPO_ROOT, 'docs/er-model.md'), 'utf8');
const shop = parseDomainJson(
  [...docs.matchAll(/```json\n([\s\S]*?)```/g)]
    .map((m) => m[1] as string)
    .find((b) => b.includes('"entities"')) as string,
  'docs/er-model.md',
);
// 300 candidates per built-in domain and 100 groups of the docs model by default; 1,000 and 300 in the acceptance tier.
const CANDIDATES = sized('EQUISQL_MEANING_CANDIDATES', 300, 1000);
const DOCS_GROUPS = sized('EQUISQL_MEANING_DOCS_GROUPS', 100, 300);
const tmp = tempDir('generated-meaning');
afterAll(() => tmp.remove());

async function run(
  domain: Domain,
  target: { groups: number; candidates: number },
): Promise<{ groups: GroupRecord[]; rejections: Rejection[] }> {
  const out = join(tmp.dir, domain.name);
  const db = await openDatabase({ kind: 'pglite' });
  try {
    const builds = await prepareBuilds({
      dataset: domain.name,
      domain,
      variants: 'all',
      scale: 'tiny',
      seed: 1,
      db,
      out,
      edge: false,
    });
    await generateGroups({
      dataset: domain.name,
      out,
      index: indexDomain(domain),
      instance: builds.instance,
      instanceHashes: { main: builds.main.instance_hash },
      variants: builds.variants,
      runner: createQueryRunner([db], 30_000),
      grammar,
      seed: 1,
      groups: target.groups,
      maxCandidates: target.candidates,
      settings: { test: true },
    });
    return {
      groups: readJsonLines<GroupRecord>(groupsPath(out, domain.name), false),
      rejections: readJsonLines<Rejection>(rejectionsPath(out), false),
    };
  } finally {
    await db.close();
  }
}

describe('the meaning of generated groups', () => {
  for (const [name, domain] of [...Object.entries(BUILT_IN_DOMAINS), ['docs model', shop] as const]) {
    const target =
      name === 'docs model'
        ? { groups: DOCS_GROUPS, candidates: DOCS_GROUPS * 10 }
        : { groups: CANDIDATES, candidates: CANDIDATES };
    it(`${name}: no accepted group breaks a rule of meaning, and the check refuses few candidates`, async () => {
      const { groups, rejections } = await run(domain, target);
      const index = indexDomain(domain);
      const hits = groups.flatMap((g) =>
        checkMeaning(index, g.query).map((v) => `${g.group_id.slice(0, 8)} ${v.rule}: ${v.detail}`),
      );
      expect(hits).toEqual([]);
      if (name === 'docs model') expect(groups).toHaveLength(target.groups);
      // More than 15% of the candidates become groups (150 of the acceptance tier's 1,000).
      else expect(groups.length).toBeGreaterThan(target.candidates * 0.15);
      const summary = summarizeMeaning(index, groups, rejections);
      const refused = Object.values(summary.rules).reduce((a, r) => a + r.refused, 0);
      // Steering, not rejection after the fact: at most 5% of candidates get as far as being refused.
      expect(refused / summary.candidates).toBeLessThan(0.05);
    }, 900_000);
  }
});
