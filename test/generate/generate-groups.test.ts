import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../generator/database/database.ts';
import { BUILT_IN_DOMAINS } from '../../generator/domains/index.ts';
import { indexDomain } from '../../generator/er-model/er-index.ts';
import { parseGrammar } from '../../generator/grammar/pcfg.ts';
import { compileQuery } from '../../generator/compile/compile-query.ts';
import { normalizeResult, runReadOnly } from '../../generator/execute/run-query.ts';
import { prepareBuilds, type PreparedBuilds } from '../../generator/generate/prepare-builds.ts';
import { createQueryRunner } from '../../generator/generate/query-runner.ts';
import { difficultyQuotas } from '../../generator/generate/candidate.ts';
import { generateGroups, type GenerateReport } from '../../generator/run/generate-groups.ts';
import { groupId } from '../../generator/generate/canonical-query.ts';
import { readabilityFindings } from '../../generator/compile/readability.ts';
import { REJECTION_REASONS, type GroupRecord, type Rejection } from '../../generator/records/group-record.ts';
import { groupsPath, readJsonLines, rejectionsPath } from '../../generator/records/groups-file.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import { SUITES } from '../../generator/suites/index.ts';
import { attr, cmp, entity, lit, out, select } from '../../generator/query/query-builder.ts';
import { createDatabase, describeServer } from '../helpers/postgres.ts';

const DATASET = 'social_media';
const domain = BUILT_IN_DOMAINS[DATASET]!;
const index = indexDomain(domain);
const grammar = parseGrammar(
  readFileSync(new URL('../../grammars/spider.pcfg', import.meta.url), 'utf8'),
  'spider.pcfg',
);
const VARIANTS = 'full_sti,full_cti,full_concrete,full_normalized';
const GROUPS = 20;
const tmp = tempDir('generate');

async function generate(
  db: Database,
  builds: PreparedBuilds,
  out: string,
  extra: Partial<Parameters<typeof generateGroups>[0]> = {},
): Promise<GenerateReport> {
  return generateGroups({
    dataset: DATASET,
    out,
    index,
    instance: builds.instance,
    instanceHashes: { main: builds.main.instance_hash, ...(builds.edge ? { edge: builds.edge.instance_hash } : {}) },
    variants: builds.variants,
    runner: createQueryRunner([db], 20_000),
    grammar,
    seed: 7,
    groups: GROUPS,
    settings: { test: true },
    ...extra,
  });
}

let db: Database;
let builds: PreparedBuilds;
let report: GenerateReport;
const outA = join(tmp.dir, 'a');

beforeAll(async () => {
  db = await openDatabase({ kind: 'pglite' });
  builds = await prepareBuilds({
    dataset: DATASET,
    domain,
    variants: VARIANTS,
    scale: 'tiny',
    seed: 1,
    db,
    out: join(tmp.dir, 'build'),
  });
  report = await generate(db, builds, outA);
}, 300_000);

afterAll(async () => {
  await db?.close();
  tmp.remove();
});

describe('generateGroups on PGlite', () => {
  it('writes the groups asked for, with distinct canonical queries, and records every rejection with a known reason', () => {
    const groups = readJsonLines<GroupRecord>(groupsPath(outA, DATASET), false);
    const rejections = readJsonLines<Rejection>(rejectionsPath(outA), false);
    expect(groups).toHaveLength(GROUPS);
    expect(report.accepted).toBe(GROUPS);
    expect(new Set(groups.map((g) => g.group_id)).size).toBe(GROUPS);
    for (const g of groups) expect(g.group_id).toBe(groupId(g.query));
    for (const r of rejections) expect(REJECTION_REASONS).toContain(r.reason);
    // Every candidate is decided exactly once, in one file or the other.
    const candidates = [...groups.map((g) => g.candidate), ...rejections.map((r) => r.candidate)].sort((a, b) => a - b);
    expect(candidates).toEqual(candidates.map((_, i) => i));
    const manifest = JSON.parse(readFileSync(join(outA, 'manifest.json'), 'utf8'));
    expect(manifest.counts.accepted).toBe(GROUPS);
    expect(Object.values(manifest.counts.rejected as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(
      rejections.length,
    );
    expect(manifest.timings.database_seconds).toBeGreaterThan(0);
    // The long-tail share is the accepted groups' own, whatever was asked for.
    expect(manifest.long_tail.requested).toBe(0.1);
    expect(manifest.long_tail.accepted_share).toBeCloseTo(groups.filter((g) => g.long_tail).length / groups.length, 4);
  });

  it('the SQL of every group, on every variant, reads as an engineer writes it: no readability check fires, and none rejected a candidate', () => {
    const groups = readJsonLines<GroupRecord>(groupsPath(outA, DATASET), false);
    for (const g of groups)
      for (const [variant, { sql }] of Object.entries(g.variants))
        expect(readabilityFindings(sql), `${variant}\n${sql}`).toEqual([]);
    const rejections = readJsonLines<Rejection>(rejectionsPath(outA), false);
    expect(rejections.filter((r) => r.reason.startsWith('unreadable-sql:'))).toEqual([]);
  });

  it('every group agrees across all variants when re-compiled and re-executed independently', async () => {
    const groups = readJsonLines<GroupRecord>(groupsPath(outA, DATASET), false);
    for (const g of groups) {
      const hashes = new Set<string>();
      for (const v of builds.variants) {
        const sql = compileQuery(index, v.schema, g.query);
        expect(sql).toBe(g.variants[v.name]?.sql);
        const main = normalizeResult(await runReadOnly(db, v.pgSchemas.main, sql), g.ordered);
        expect(main.hash).toBe(g.variants[v.name]?.result_hash);
        expect(main.rows.length).toBeGreaterThan(0);
        hashes.add(main.hash);
        const edge = normalizeResult(await runReadOnly(db, v.pgSchemas.edge as string, sql), g.ordered);
        expect(edge.hash).toBe(g.verified_on.find((x) => x.profile === 'edge')?.result_hash);
      }
      expect(hashes.size).toBe(1);
    }
  });

  it('labels each group from its skeleton and reference SQL', () => {
    const groups = readJsonLines<GroupRecord>(groupsPath(outA, DATASET), false);
    for (const g of groups) {
      expect(g.skeleton).toMatch(/^SELECT /);
      expect(g.reference_variant).toBe('full_normalized');
      expect(g.structure_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(['easy', 'medium', 'hard', 'extra']).toContain(g.difficulty);
      expect(g.distinct_sql).toBe(new Set(Object.values(g.variants).map((v) => v.sql)).size);
    }
  });

  it('gives the same bytes on a second run, and a run resumed after a crash mid-line completes the same files', async () => {
    const outB = join(tmp.dir, 'b');
    await generate(db, builds, outB);
    const bytes = readFileSync(groupsPath(outA, DATASET), 'utf8');
    expect(readFileSync(groupsPath(outB, DATASET), 'utf8')).toBe(bytes);
    expect(readFileSync(rejectionsPath(outB), 'utf8')).toBe(readFileSync(rejectionsPath(outA), 'utf8'));

    // A crash while line 9 was being written: 8 whole lines, half of the 9th.
    const outC = join(tmp.dir, 'c');
    mkdirSync(join(outC, 'groups'), { recursive: true });
    const lines = bytes.split('\n');
    const cut = (JSON.parse(lines[8] as string) as GroupRecord).candidate;
    writeFileSync(groupsPath(outC, DATASET), `${lines.slice(0, 8).join('\n')}\n${(lines[8] as string).slice(0, 40)}`);
    const rejections = readFileSync(rejectionsPath(outA), 'utf8')
      .split('\n')
      .filter((l) => l !== '' && (JSON.parse(l) as Rejection).candidate < cut);
    writeFileSync(rejectionsPath(outC), rejections.map((l) => `${l}\n`).join(''));
    await generate(db, builds, outC);
    expect(readFileSync(groupsPath(outC, DATASET), 'utf8')).toBe(bytes);
    expect(readFileSync(rejectionsPath(outC), 'utf8')).toBe(readFileSync(rejectionsPath(outA), 'utf8'));
  }, 300_000);
});

describe('groups from a user suite', () => {
  it('turns hand-written queries into groups through the same checks, rejecting a bad one with its reason', async () => {
    const paper = SUITES['paper']!.domains[DATASET]!.slice(0, 3);
    const empty = select({
      from: entity('Channel', 'ch'),
      select: [out('name', attr('ch', 'name'))],
      where: cmp(attr('ch', 'name'), '=', lit('no such channel')),
    });
    const suite = [
      ...paper.map((q) => ({ id: q.id, query: q.query, question: 'hand-written' })),
      { id: 'empty', query: empty },
    ];
    const outE = join(tmp.dir, 'e');
    const r = await generate(db, builds, outE, { suite, groups: suite.length });
    const groups = readJsonLines<GroupRecord>(groupsPath(outE, DATASET), false);
    const rejections = readJsonLines<Rejection>(rejectionsPath(outE), false);
    expect(rejections.map((x) => [x.candidate, x.reason])).toContainEqual([3, 'empty-answer']);
    expect(groups.length + rejections.length).toBe(4);
    expect(groups.length).toBeGreaterThan(0);
    expect(r.accepted).toBe(groups.length);
    for (const g of groups) {
      expect(g.source?.suite_id).toBe(suite[g.candidate]?.id);
      expect(g.query).toEqual(suite[g.candidate]?.query);
      expect(g.skeleton).toMatch(/^SELECT /);
    }
  }, 300_000);
});

describe('difficulty mix', () => {
  it('splits a mix into whole quotas that sum to the groups asked for', () => {
    expect(difficultyQuotas({ easy: 0.24, medium: 0.43, hard: 0.17, extra: 0.16 }, 1000)).toEqual({
      easy: 240,
      medium: 430,
      hard: 170,
      extra: 160,
    });
    expect(difficultyQuotas({ easy: 1, medium: 1, hard: 1, extra: 0 }, 10)).toEqual({
      easy: 4,
      medium: 3,
      hard: 3,
      extra: 0,
    });
  });

  it('meets the requested mix exactly when generation completes, rejecting the surplus with its reason', async () => {
    const outD = join(tmp.dir, 'd');
    const r = await generate(db, builds, outD, {
      groups: 12,
      difficultyMix: { easy: 0.25, medium: 0.25, hard: 0.25, extra: 0.25 },
    });
    expect(r.accepted).toBe(12);
    expect(r.difficulty).toEqual({ easy: 3, medium: 3, hard: 3, extra: 3 });
    const rejections = readJsonLines<Rejection>(rejectionsPath(outD), false);
    expect(rejections.some((x) => x.reason === 'difficulty-quota')).toBe(true);
  }, 300_000);
});

describe('deciding candidates ahead', () => {
  it('changes no byte of the files, also when quotas and duplicates make early decisions stale', async () => {
    const mix = { easy: 0.25, medium: 0.25, hard: 0.25, extra: 0.25 };
    const outStep = join(tmp.dir, 'one-at-a-time');
    const outAhead = join(tmp.dir, 'ahead');
    const one = await generate(db, builds, outStep, { groups: 12, difficultyMix: mix, lookahead: 0 });
    const ahead = await generate(db, builds, outAhead, { groups: 12, difficultyMix: mix, lookahead: 8 });
    expect(one.redecided).toBe(0);
    // Quotas filled while later candidates were already decided: those were decided again.
    expect(ahead.redecided).toBeGreaterThan(0);
    expect(ahead.unused).toBeGreaterThan(0);
    expect(readFileSync(groupsPath(outAhead, DATASET), 'utf8')).toBe(
      readFileSync(groupsPath(outStep, DATASET), 'utf8'),
    );
    expect(readFileSync(rejectionsPath(outAhead), 'utf8')).toBe(readFileSync(rejectionsPath(outStep), 'utf8'));
  }, 300_000);
});

describeServer('generateGroups on a PostgreSQL server', (serverUrl) => {
  it('writes the same groups bytes as on PGlite for the same seed', async () => {
    const server = await createDatabase(serverUrl, 'generate');
    // Two connections: a group's queries run concurrently, which must not change a byte.
    const conns = [
      await openDatabase({ kind: 'postgres', url: server.url }),
      await openDatabase({ kind: 'postgres', url: server.url }),
    ];
    try {
      const onServer = await prepareBuilds({
        dataset: DATASET,
        domain,
        variants: VARIANTS,
        scale: 'tiny',
        seed: 1,
        db: conns[0] as Database,
        out: join(tmp.dir, 'server-build'),
      });
      const outS = join(tmp.dir, 'server');
      await generate(conns[0] as Database, onServer, outS, { runner: createQueryRunner(conns, 20_000) });
      expect(readFileSync(groupsPath(outS, DATASET), 'utf8')).toBe(readFileSync(groupsPath(outA, DATASET), 'utf8'));
    } finally {
      for (const c of conns) await c.close();
      await server.drop();
    }
  }, 300_000);
});
