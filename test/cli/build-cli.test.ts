// @tier long
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { runCli, REPO_ROOT } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import { createDatabase, describeServer } from '../helpers/postgres.ts';

const tmp = tempDir('cli');
afterAll(() => tmp.remove());
// The CLI falls back to DATABASE_URL; these runs are about PGlite unless they say --db.
const NO_SERVER = { DATABASE_URL: undefined };

const jsonLines = (text: string) =>
  text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('equisql build and verify on PGlite', () => {
  const out = join(tmp.dir, 'social');

  it('writes er.json, schemas, dumps and build.json, and verify --json prints one ok line per variant', () => {
    const build = runCli(
      [
        'build',
        '--dataset',
        'social_media',
        '--variants',
        'full_sti,kitchen_sink',
        '--scale',
        'tiny',
        '--seed',
        '4',
        '--out',
        out,
      ],
      { env: NO_SERVER },
    );
    expect(build.stderr).toMatch(/built 2 variants of social_media/);
    expect(build.status).toBe(0);
    expect(readdirSync(join(out, 'schemas')).sort()).toEqual(['full_sti.sql', 'kitchen_sink.sql']);
    expect(readdirSync(join(out, 'dumps')).sort()).toEqual(['full_sti.sql', 'kitchen_sink.sql']);
    expect(JSON.parse(readFileSync(join(out, 'er.json'), 'utf8')).name).toBe('social_media');
    expect(existsSync(join(out, 'pglite'))).toBe(true);

    const verify = runCli(['verify', '--dir', out, '--json'], { env: NO_SERVER });
    expect(verify.status).toBe(0);
    const lines = jsonLines(verify.stdout);
    expect(lines.map((l) => Object.keys(l))).toEqual([
      ['variant', 'instance_hash', 'ok'],
      ['variant', 'instance_hash', 'ok'],
    ]);
    expect(lines.map((l) => [l['variant'], l['ok']])).toEqual([
      ['full_sti', true],
      ['kitchen_sink', true],
    ]);
    const manifest = JSON.parse(readFileSync(join(out, 'build.json'), 'utf8'));
    expect(lines[0]?.['instance_hash']).toBe(manifest.instance_hash);
  });

  it('exits 1 and says which variant differs when a table was changed', async () => {
    const db = await PGlite.create(join(out, 'pglite'));
    await db.exec(`UPDATE social_media__kitchen_sink.tag SET name = name || '!' WHERE id = 1`);
    await db.close();
    const verify = runCli(['verify', '--dir', out, '--json'], { env: NO_SERVER });
    expect(verify.status).toBe(1);
    expect(jsonLines(verify.stdout).map((l) => [l['variant'], l['ok']])).toEqual([
      ['full_sti', true],
      ['kitchen_sink', false],
    ]);
    expect(verify.stderr).toMatch(/kitchen_sink: missing: 1 Tag /);
  });
});

describe('bad input gets one line, no stack trace', () => {
  const cases: [string, string[], RegExp][] = [
    [
      'a malformed model',
      ['build', '--dataset', 'test/fixtures/er-model/malformed/unknown-relationship-end.json', '--out', 'OUT'],
      /^equisql build: test\/fixtures\/er-model\/malformed\/unknown-relationship-end\.json: domains\.\w+\.relationships\.\w+\.to: unknown entity "\w+" \(did you mean "\w+"\?\)\n$/,
    ],
    [
      'an unknown variant',
      ['build', '--dataset', 'retail', '--variants', 'full_sti,fully_cti', '--out', 'OUT'],
      /^equisql build: --variants: unknown variant "fully_cti" \(presets: full_sti, .*\)\n$/,
    ],
    [
      'an unknown dataset',
      ['build', '--dataset', 'retial', '--out', 'OUT'],
      /^equisql build: --dataset: unknown dataset "retial" \(known: social_media, retail, .*\)\n$/,
    ],
    [
      'an unknown flag',
      ['build', '--dataset', 'retail', '--out', 'OUT', '--sale', 'tiny'],
      /^equisql build: unknown flag --sale \(flags: --dataset, .*\)\n$/,
    ],
    [
      'a bad scale',
      ['build', '--dataset', 'retail', '--out', 'OUT', '--scale', 'huge'],
      /^equisql build: --scale must be one of tiny, small, paper, large, got "huge"\n$/,
    ],
    [
      'an unreachable server',
      [
        'build',
        '--dataset',
        'retail',
        '--scale',
        'tiny',
        '--out',
        'OUT',
        '--db',
        'postgres://someone:secret@127.0.0.1:1/none',
      ],
      /^equisql build: cannot connect to postgres:\/\/someone:\*\*\*@127\.0\.0\.1:1\/none: .*\n$/,
    ],
    [
      'a seed with a line break',
      ['build', '--dataset', 'retail', '--seed', '1\nDROP TABLE x;', '--out', 'OUT'],
      /^equisql build: --seed: expected 1 to 64 letters, digits or \. _ : -, got "1\\nDROP TABLE x;"\n$/,
    ],
    [
      'a --db that is not a database URL',
      ['build', '--dataset', 'retail', '--out', 'OUT', '--db', 'pgsql://bob:secret@host/db'],
      /^equisql build: --db: expected postgres:\/\/… or pglite:DIR, got "pgsql:\/\/bob:\*\*\*@host\/db"\n$/,
    ],
    [
      'a server URL that does not parse',
      ['build', '--dataset', 'retail', '--out', 'OUT', '--db', 'postgres://bob:secret@127.0.0.1:notaport/db'],
      /^equisql build: cannot connect to postgres:\/\/\*\*\*@127\.0\.0\.1:notaport\/db: .*\n$/,
    ],
    [
      'a directory with no build',
      ['verify', '--dir', 'OUT'],
      /^equisql verify: --dir: .* has no build\.json \(run equisql build --out .* first\)\n$/,
    ],
  ];
  it.each(cases)('%s', (_what, args, expected) => {
    const out = join(tmp.dir, `bad-${Math.random().toString(36).slice(2)}`);
    const run = runCli(
      args.map((a) => (a === 'OUT' ? out : a)),
      { env: NO_SERVER },
    );
    expect(run.stderr).toMatch(expected);
    expect(run.stderr).not.toMatch(/secret/);
    expect(run.status).not.toBe(0);
    // Nothing was written for a build that could not start.
    expect(existsSync(join(out, 'er.json'))).toBe(false);
  });

  it("prints a malformed model's fixture message exactly, prefixed by the command", () => {
    const expected = readFileSync(
      join(REPO_ROOT, 'test/fixtures/er-model/malformed/unknown-relationship-end.expected'),
      'utf8',
    ).trim();
    const run = runCli(['build', '--dataset', 'unknown-relationship-end.json', '--out', join(tmp.dir, 'x')], {
      env: NO_SERVER,
      cwd: join(REPO_ROOT, 'test/fixtures/er-model/malformed'),
    });
    expect(run.stderr.trim()).toBe(`equisql build: ${expected}`);
  });
});

describe('equisql variants', () => {
  it('lists the ten presets with their choices as JSON lines', () => {
    const run = runCli(['variants', '--dataset', 'retail', '--json']);
    expect(run.status).toBe(0);
    const lines = jsonLines(run.stdout);
    expect(lines).toHaveLength(10);
    expect(lines[1]?.['name']).toBe('full_cti');
    expect(lines[1]?.['tables']).toContain('user');
    expect(Object.keys(lines[0] ?? {})).toEqual(
      expect.arrayContaining(['hierarchies', 'multiValued', 'relationships', 'naming', 'tables']),
    );
  });
});

describeServer('equisql build and verify on the server', (serverUrl) => {
  it('loads into the database given by --db and verifies from it', async () => {
    const fresh = await createDatabase(serverUrl, 'cli');
    try {
      const out = join(tmp.dir, 'server');
      const build = runCli(['build', '--dataset', 'retail_edge', '--variants', 'all', '--db', fresh.url, '--out', out]);
      expect(build.stderr).toMatch(/built 10 variants of retail_edge/);
      expect(build.status).toBe(0);
      const verify = runCli(['verify', '--dir', out, '--db', fresh.url, '--json']);
      expect(verify.status).toBe(0);
      expect(jsonLines(verify.stdout).every((l) => l['ok'] === true)).toBe(true);
      // Without --db or DATABASE_URL, verify says where the build went instead of guessing.
      const lost = runCli(['verify', '--dir', out], { env: NO_SERVER });
      expect(lost.status).toBe(2);
      expect(lost.stderr).toMatch(/built into a PostgreSQL server; give --db/);
    } finally {
      await fresh.drop();
    }
  });
});
