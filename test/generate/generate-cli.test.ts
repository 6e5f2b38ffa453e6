// @tier long
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/build-fixtures.ts';

const tmp = tempDir('generate-cli');
afterAll(() => tmp.remove());
const noServer = { DATABASE_URL: undefined };

describe('equisql generate', () => {
  it('builds both instances, writes groups, rejections and a manifest, and a rerun with --resume reuses the builds and adds nothing', () => {
    const out = join(tmp.dir, 'retail');
    const args = [
      'generate',
      '--dataset',
      'retail',
      '--variants',
      'full_sti,full_cti,full_normalized',
      '--scale',
      'tiny',
      '--groups',
      '6',
      '--out',
      out,
    ];
    const first = runCli(args, { env: noServer });
    expect(first.stderr).toMatch(/6 groups from \d+ candidates/);
    expect(first.status).toBe(0);
    for (const f of ['build.json', 'edge/build.json', 'groups/retail.jsonl', 'rejections.jsonl', 'manifest.json'])
      expect(existsSync(join(out, f))).toBe(true);
    const groups = readFileSync(join(out, 'groups/retail.jsonl'), 'utf8');
    expect(groups.trim().split('\n')).toHaveLength(6);
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
    expect(manifest.settings).toMatchObject({ dataset: 'retail', groups: 6, scale: 'tiny', database: 'pglite' });
    expect(manifest.counts.accepted).toBe(6);

    const again = runCli([...args, '--resume'], { env: noServer });
    expect(again.status).toBe(0);
    expect(again.stderr).toMatch(/reusing the default build/);
    expect(again.stderr).toMatch(/reusing the edge build/);
    expect(readFileSync(join(out, 'groups/retail.jsonl'), 'utf8')).toBe(groups);
  }, 300_000);

  it('answers bad flags with one line naming the flag, and exit status 2', () => {
    for (const [flag, value] of [
      ['--groups', 'many'],
      ['--difficulty', 'easy=lots'],
    ] as const) {
      const r = runCli(['generate', '--dataset', 'retail', flag, value, '--out', join(tmp.dir, 'bad')], {
        env: noServer,
      });
      expect(r.status).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain(flag);
    }
    expect(existsSync(join(tmp.dir, 'bad'))).toBe(false);
  });
});
