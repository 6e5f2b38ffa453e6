// @tier long
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { groupId } from '../../generator/generate/canonical-query.ts';
import type { GroupRecord } from '../../generator/records/group-record.ts';
import type { Query } from '../../generator/query/conceptual-query.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import { sized } from '../helpers/tiers.ts';
import { runCli } from '../helpers/run-cli.ts';

// Duplicates by meaning: two fillings that differ only by a modifier that cannot change the
// answer are one group, and no two groups of a generated dataset share their answers and
// all their questions. 40 groups a domain by default; EQUISQL_ACCEPTANCE=1 asks 1,000.
const tmp = tempDir('duplicate-meaning');
afterAll(() => tmp.remove());
const GROUPS = sized('EQUISQL_DUPLICATE_GROUPS', 40, 1000);

const base = {
  kind: 'select',
  from: { entity: 'Streamer', alias: 's' },
  select: [
    { name: 'id', expr: { kind: 'attribute', alias: 's', attribute: 'id' } },
    { name: 'username', expr: { kind: 'attribute', alias: 's', attribute: 'username' } },
    { name: 'n', expr: { kind: 'setSize', alias: 's', attribute: 'languages' } },
  ],
} as const;
const q = (extra: Record<string, unknown>): Query => ({ ...base, ...extra }) as unknown as Query;

describe('the group id drops modifiers that cannot change the answer', () => {
  it('NULLS FIRST/LAST on a never-NULL key (an id, a count, a set size) is one group; on a nullable key it is another', () => {
    for (const expr of [
      { kind: 'attribute', alias: 's', attribute: 'id' },
      { kind: 'output', name: 'n' },
      { kind: 'aggregate', fn: 'count' },
    ]) {
      expect(groupId(q({ orderBy: [{ expr, direction: 'desc', nulls: 'last' }] })), JSON.stringify(expr)).toBe(
        groupId(q({ orderBy: [{ expr, direction: 'desc' }] })),
      );
    }
    const nullable = { kind: 'attribute', alias: 's', attribute: 'avg_viewers' };
    expect(groupId(q({ orderBy: [{ expr: nullable, direction: 'desc', nulls: 'last' }] }))).not.toBe(
      groupId(q({ orderBy: [{ expr: nullable, direction: 'desc' }] })),
    );
  });

  it('DISTINCT over one entity returning its id is one group; with a join, or without the id, it is another', () => {
    expect(groupId(q({ distinct: true }))).toBe(groupId(q({})));
    const noId = { ...base, select: base.select.slice(1) };
    expect(groupId({ ...noId, distinct: true } as unknown as Query)).not.toBe(groupId(noId as unknown as Query));
    const joined = {
      joins: [{ kind: 'relationship', relationship: 'produces', from: 's', alias: 'c', type: 'inner' }],
    };
    expect(groupId(q({ ...joined, distinct: true }))).not.toBe(groupId(q(joined)));
  });
});

describe('no two generated groups share their answers and all their questions', () => {
  for (const dataset of ['social_media', 'retail']) {
    it(
      `${dataset}: ${GROUPS} groups`,
      () => {
        const dir = join(tmp.dir, dataset);
        const run = runCli(
          [
            'generate',
            '--dataset',
            dataset,
            '--variants',
            'full_normalized,full_sti',
            '--scale',
            'tiny',
            '--groups',
            String(GROUPS),
            '--seed',
            '7',
            '--out',
            dir,
            '--quiet',
          ],
          { env: { DATABASE_URL: undefined } },
        );
        expect([0, 1], run.stderr).toContain(run.status);
        const groups = readFileSync(join(dir, `groups/${dataset}.jsonl`), 'utf8')
          .split('\n')
          .filter((l) => l !== '')
          .map((l) => JSON.parse(l) as GroupRecord);
        expect(groups.length).toBeGreaterThan(GROUPS / 2);
        const questions = new Map<string, string[]>();
        for (const l of readFileSync(join(dir, `questions/${dataset}.jsonl`), 'utf8')
          .split('\n')
          .filter((x) => x !== '')) {
          const r = JSON.parse(l) as { group_id: string; question: string };
          questions.set(r.group_id, [...(questions.get(r.group_id) ?? []), r.question]);
        }
        const seen = new Map<string, string>();
        for (const g of groups) {
          const answers = g.verified_on
            .map((v) => `${v.profile}:${v.result_hash}`)
            .sort()
            .join(',');
          const key = `${answers}\u0000${[...new Set(questions.get(g.group_id) ?? [])].sort().join('\u0001')}`;
          expect(seen.get(key), `${g.group_id} has the answers and questions of ${seen.get(key)}`).toBeUndefined();
          seen.set(key, g.group_id);
        }
      },
      GROUPS > 100 ? 3_600_000 : 600_000,
    );
  }
});
