// @tier long
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { domainToJson } from '../../generator/er-model/domain-json.ts';
import { draftModel } from '../../generator/import/draft-model.ts';
import { readSource } from '../../generator/import/read-source.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import { runMain } from '../helpers/run-cli.ts';

const CHINOOK = resolve(import.meta.dirname, '../../../shared/databases/chinook/Chinook_Sqlite.sqlite');
const LIBRARY = resolve(import.meta.dirname, '../fixtures/er-model/valid/library.json');

describe('build --instance-from', () => {
  const tmp = tempDir('instance-from-cli');
  afterAll(() => tmp.remove());

  it('refuses a bad source, a sample without a source and a model without physical names in one line, with nothing written', async () => {
    const out = join(tmp.dir, 'refused');
    const cases: [string[], RegExp][] = [
      [
        ['--instance-from', join(tmp.dir, 'nowhere.sqlite')],
        /^equisql build: --instance-from .*nowhere\.sqlite: no such file/u,
      ],
      [['--sample', '5'], /^equisql build: --sample goes with --instance-from/u],
      [['--instance-from', CHINOOK, '--sample', 'x'], /--sample must be a whole positive number, got "x"/u],
      [
        ['--instance-from', CHINOOK],
        /variant native: model library has no physical names \(entity \w+ has no "storage"\)/u,
      ],
    ];
    for (const [extra, message] of cases) {
      const run = await runMain([
        'build',
        '--dataset',
        LIBRARY,
        '--out',
        out,
        '--scale',
        'tiny',
        '--db',
        `pglite:${join(tmp.dir, 'db')}`,
        ...extra,
      ]);
      expect(run.status, run.stderr).toBe(2);
      expect(run.stderr.trim().split('\n'), run.stderr).toHaveLength(1);
      expect(run.stderr).toMatch(message);
      expect(existsSync(out) ? readdirSync(out) : []).toEqual([]);
    }
  }, 60_000);

  it.skipIf(!existsSync(CHINOOK))(
    "builds a sample of Chinook's own rows into every variant, says where they came from, and verifies",
    async () => {
      const model = join(tmp.dir, 'chinook.er.json');
      writeFileSync(model, domainToJson(draftModel(await readSource(CHINOOK), { name: 'chinook' }).domain));
      const out = join(tmp.dir, 'chinook');
      const db = `pglite:${join(tmp.dir, 'chinook-db')}`;
      const built = await runMain([
        'build',
        '--dataset',
        model,
        '--out',
        out,
        '--scale',
        'tiny',
        '--seed',
        '4',
        '--variants',
        'native,full_sti',
        '--instance-from',
        CHINOOK,
        '--sample',
        '25',
        '--db',
        db,
      ]);
      expect(built.status, built.stderr).toBe(0);
      expect(built.stderr).toContain(`instance of chinook read from ${CHINOOK}`);
      const manifest = JSON.parse(readFileSync(join(out, 'build.json'), 'utf8')) as {
        instance_from: unknown;
        variants: { rows: number }[];
      };
      expect(manifest.instance_from).toEqual({ source: CHINOOK, sample: 25 });
      // 25 invoice lines bring their tracks, invoices, customers, albums, artists, … along.
      expect(manifest.variants[0]?.rows).toBeGreaterThan(25 * 10);
      expect(manifest.variants[0]?.rows).toBeLessThan(15_000);
      const verified = await runMain(['verify', '--dir', out, '--db', db]);
      expect(verified.status, verified.stdout + verified.stderr).toBe(0);
      expect(verified.stdout + verified.stderr).toContain('all 2 variants match the instance');
    },
    120_000,
  );
});
