// @tier long
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runMain, REPO_ROOT } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/build-fixtures.ts';

const tmp = tempDir('query-cli');
const out = join(tmp.dir, 'social');
const NO_SERVER = { DATABASE_URL: undefined };
const jsonLines = (text: string) =>
  text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

beforeAll(async () => {
  const build = await runMain(
    [
      'build',
      '--dataset',
      'social_media',
      '--variants',
      'full_sti,full_cti,concrete_all_tables',
      '--scale',
      'tiny',
      '--out',
      out,
    ],
    { env: NO_SERVER },
  );
  expect(build.status, build.stderr).toBe(0);
});
afterAll(() => tmp.remove());

describe('equisql compile', () => {
  it('prints the SQL a conceptual query compiles to for one variant', async () => {
    const query = join(REPO_ROOT, 'test/fixtures/compiled/social_media/queries/q04.json');
    for (const variant of ['full_cti', 'concrete_all_tables']) {
      const run = await runMain(['compile', '--dir', out, '--variant', variant, '--query', query], { env: NO_SERVER });
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toBe(
        readFileSync(join(REPO_ROOT, `test/fixtures/compiled/social_media/${variant}/q04.sql`), 'utf8'),
      );
    }
  });

  it('names the file and the place in the query that is wrong, in one line', async () => {
    const bad = join(tmp.dir, 'bad.json');
    writeFileSync(
      bad,
      JSON.stringify({
        kind: 'select',
        from: { entity: 'LiveStream', alias: 'l' },
        joins: [
          {
            kind: 'relationship',
            type: 'left',
            relationship: 'derived_frm',
            from: 'l',
            direction: 'reverse',
            alias: 'c',
            entity: 'Clip',
          },
        ],
        select: [{ name: 'id', expr: { kind: 'attribute', alias: 'l', attribute: 'id' } }],
      }),
    );
    const run = await runMain(['compile', '--dir', out, '--variant', 'full_sti', '--query', bad], { env: NO_SERVER });
    // A bad query is bad input: exit 2, like a bad flag or model.
    expect(run.status).toBe(2);
    expect(run.stderr).toBe(
      `equisql compile: ${bad}: query.joins[0].relationship: unknown relationship "derived_frm"\n`,
    );
  });

  it('refuses a variant that was not built', async () => {
    const run = await runMain(['compile', '--dir', out, '--variant', 'kitchen_sink', '--query', 'x.json'], {
      env: NO_SERVER,
    });
    expect(run.stderr).toMatch(
      /^equisql compile: --variant: no variant "kitchen_sink" in .* \(built: full_sti, full_cti, concrete_all_tables\)\n$/,
    );
  });
});

describe('equisql suite', () => {
  it('prints one JSON line per question and variant, and exits 0 when all agree and are non-empty', async () => {
    const run = await runMain(['suite', '--dir', out, '--suite', 'paper', '--json'], { env: NO_SERVER });
    expect(run.stderr).toMatch(/all 15 questions agree on 3 variants/);
    expect(run.status).toBe(0);
    const lines = jsonLines(run.stdout);
    expect(lines).toHaveLength(45);
    expect(Object.keys(lines[0] ?? {})).toEqual(['question', 'variant', 'sql', 'row_count', 'result_hash']);
    for (let i = 0; i < 45; i += 3) {
      const group = lines.slice(i, i + 3);
      expect(new Set(group.map((l) => l['question'])).size).toBe(1);
      expect(new Set(group.map((l) => l['result_hash'])).size, String(group[0]?.['question'])).toBe(1);
      expect(group[0]?.['row_count']).toBeGreaterThan(0);
    }
  });

  it("runs a user's own suite file like the built-in suite: same SQL and answers for the same queries", async () => {
    const { SUITES } = await import('../../generator/suites/index.ts');
    const paper = SUITES['paper']?.domains['social_media'] ?? [];
    const file = join(out, 'mine.jsonl');
    writeFileSync(
      file,
      `${paper
        .slice(0, 3)
        .map((q, i) =>
          JSON.stringify({ id: `mine-${i + 1}`, query: q.query, ...(i === 0 ? { question: q.question } : {}) }),
        )
        .join('\n')}\n`,
    );
    const mine = await runMain(['suite', '--dir', out, '--suite', file, '--json'], { env: NO_SERVER });
    expect(mine.stderr).toMatch(/all 3 questions agree on 3 variants/);
    expect(mine.status).toBe(0);
    const builtIn = jsonLines(
      (await runMain(['suite', '--dir', out, '--suite', 'paper', '--json'], { env: NO_SERVER })).stdout,
    ).slice(0, 9);
    const lines = jsonLines(mine.stdout);
    expect(lines.map((l) => l['question'])).toEqual([
      'mine-1',
      'mine-1',
      'mine-1',
      'mine-2',
      'mine-2',
      'mine-2',
      'mine-3',
      'mine-3',
      'mine-3',
    ]);
    expect(lines.map((l) => [l['variant'], l['sql'], l['row_count'], l['result_hash']])).toEqual(
      builtIn.map((l) => [l['variant'], l['sql'], l['row_count'], l['result_hash']]),
    );
  });

  it('refuses a suite file with a bad line or a query the model cannot answer, in one line, exit 2', async () => {
    const bad = join(out, 'bad.jsonl');
    writeFileSync(
      bad,
      '{"id": "a", "query": {"kind": "select", "select": [], "from": {"entity": "Account", "alias": "a"}}}\nnot json\n',
    );
    const run = await runMain(['suite', '--dir', out, '--suite', bad], { env: NO_SERVER });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^equisql suite: .*bad\.jsonl:2: not JSON/u);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    const unknown = join(out, 'unknown.jsonl');
    writeFileSync(
      unknown,
      '{"id": "u1", "query": {"kind": "select", "select": [{"name": "x", "expr": {"kind": "attribute", "alias": "w", "attribute": "name"}}], "from": {"entity": "Warehouse", "alias": "w"}}}\n',
    );
    const run2 = await runMain(['suite', '--dir', out, '--suite', unknown], { env: NO_SERVER });
    expect(run2.status).toBe(2);
    expect(run2.stderr).toMatch(
      /^equisql suite: --suite: .*unknown\.jsonl: question u1 does not compile for variant full_sti: /u,
    );
    expect(run2.stdout).toBe('');
  });

  it('exits 1 when a variant answers differently', async () => {
    const { PGlite } = await import('@electric-sql/pglite');
    const db = await PGlite.create(join(out, 'pglite'));
    await db.exec(
      'UPDATE social_media__full_cti.clip SET source_stream_id = NULL WHERE id = (SELECT min(id) FROM social_media__full_cti.clip WHERE source_stream_id IS NOT NULL)',
    );
    await db.close();
    const run = await runMain(['suite', '--dir', out, '--suite', 'paper'], { env: NO_SERVER });
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(/^q04 DISAGREE /m);
    expect(run.stderr).toMatch(/q04 full_cti: \d+ rows; /);
  });

  it('refuses an unknown suite in one line', async () => {
    const run = await runMain(['suite', '--dir', out, '--suite', 'papers'], { env: NO_SERVER });
    expect(run.stderr).toBe('equisql suite: --suite: unknown suite "papers" (known: paper; or give a FILE.jsonl)\n');
  });
});
