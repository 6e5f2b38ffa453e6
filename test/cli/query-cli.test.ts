import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, REPO_ROOT } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/build-fixtures.ts';

const tmp = tempDir('query-cli');
const out = join(tmp.dir, 'social');
const NO_SERVER = { DATABASE_URL: undefined };
const jsonLines = (text: string) => text.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);

beforeAll(() => {
  const build = runCli(['build', '--dataset', 'social_media', '--variants', 'full_sti,full_cti,concrete_all_tables', '--scale', 'tiny', '--out', out], { env: NO_SERVER });
  expect(build.status, build.stderr).toBe(0);
});
afterAll(() => tmp.remove());

describe('equisql compile', () => {
  it('prints the SQL a conceptual query compiles to for one variant', () => {
    const query = join(REPO_ROOT, 'test/fixtures/compiled/social_media/queries/q04.json');
    for (const variant of ['full_cti', 'concrete_all_tables']) {
      const run = runCli(['compile', '--dir', out, '--variant', variant, '--query', query], { env: NO_SERVER });
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toBe(readFileSync(join(REPO_ROOT, `test/fixtures/compiled/social_media/${variant}/q04.sql`), 'utf8'));
    }
  });

  it('names the file and the place in the query that is wrong, in one line', () => {
    const bad = join(tmp.dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ kind: 'select', from: { entity: 'LiveStream', alias: 'l' }, joins: [{ kind: 'relationship', type: 'left', relationship: 'derived_frm', from: 'l', direction: 'reverse', alias: 'c', entity: 'Clip' }], select: [{ name: 'id', expr: { kind: 'attribute', alias: 'l', attribute: 'id' } }] }));
    const run = runCli(['compile', '--dir', out, '--variant', 'full_sti', '--query', bad], { env: NO_SERVER });
    // A bad query is bad input: exit 2, like a bad flag or model.
    expect(run.status).toBe(2);
    expect(run.stderr).toBe(`equisql compile: ${bad}: query.joins[0].relationship: unknown relationship "derived_frm"\n`);
  });

  it('refuses a variant that was not built', () => {
    const run = runCli(['compile', '--dir', out, '--variant', 'kitchen_sink', '--query', 'x.json'], { env: NO_SERVER });
    expect(run.stderr).toMatch(/^equisql compile: --variant: no variant "kitchen_sink" in .* \(built: full_sti, full_cti, concrete_all_tables\)\n$/);
  });
});

describe('equisql suite', () => {
  it('prints one JSON line per question and variant, and exits 0 when all agree and are non-empty', () => {
    const run = runCli(['suite', '--dir', out, '--suite', 'paper', '--json'], { env: NO_SERVER });
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

  it('exits 1 when a variant answers differently', async () => {
    const { PGlite } = await import('@electric-sql/pglite');
    const db = await PGlite.create(join(out, 'pglite'));
    await db.exec('UPDATE social_media__full_cti.clip SET source_stream_id = NULL WHERE id = (SELECT min(id) FROM social_media__full_cti.clip WHERE source_stream_id IS NOT NULL)');
    await db.close();
    const run = runCli(['suite', '--dir', out, '--suite', 'paper'], { env: NO_SERVER });
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(/^q04 DISAGREE /m);
    expect(run.stderr).toMatch(/q04 full_cti: \d+ rows; /);
  });

  it('refuses an unknown suite in one line', () => {
    const run = runCli(['suite', '--dir', out, '--suite', 'papers'], { env: NO_SERVER });
    expect(run.stderr).toBe('equisql suite: --suite: unknown suite "papers" (known: paper)\n');
  });
});
