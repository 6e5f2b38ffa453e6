// @tier long
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase, resolveTarget, type Database } from '../../generator/database/database.ts';
import { buildDataset, type BuildOptions } from '../../generator/assemble/build-dataset.ts';
import { readManifest, seedFromText } from '../../generator/assemble/build-manifest.ts';
import { targetOf, verifyDataset } from '../../generator/assemble/verify-dataset.ts';
import { LOCK_FILE } from '../../generator/assemble/dir-lock.ts';
import { createStaging, swapIn } from '../../generator/assemble/dir-swap.ts';
import { BusyError, ConfigError, LoadError } from '../../generator/common/errors.ts';
import { generateInstance } from '../../generator/instance/generate-instance.ts';
import { instanceHash } from '../../generator/instance/canonical-instance.ts';
import { BUILT_IN_DOMAINS } from '../../generator/domains/index.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import { runCli } from '../helpers/run-cli.ts';

const NO_SERVER = { DATABASE_URL: undefined };
const domain = BUILT_IN_DOMAINS['social_media']!;
const tmp = tempDir('builddir');
// One in-memory PGlite for the library-level cases; each build gets its own schema prefix.
let db: Database;
beforeAll(async () => {
  db = await openDatabase({ kind: 'pglite' });
});
afterAll(async () => {
  await db?.close();
  tmp.remove();
});

let n = 0;
function options(out: string, extra: Partial<BuildOptions> = {}): BuildOptions {
  n++;
  return {
    dataset: 'social_media',
    domain,
    variants: 'full_sti',
    scale: 'tiny',
    seed: 3,
    profile: 'default',
    target: db,
    out,
    schemaPrefix: `bd${n}_`,
    ...extra,
  };
}

/** The build's own files, by relative path. */
function files(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const name of ['er.json', 'build.json'])
    if (existsSync(join(dir, name))) out.set(name, readFileSync(join(dir, name), 'utf8'));
  for (const sub of ['schemas', 'dumps'])
    for (const name of existsSync(join(dir, sub)) ? readdirSync(join(dir, sub)) : [])
      out.set(`${sub}/${name}`, readFileSync(join(dir, sub, name), 'utf8'));
  return out;
}

async function verifyError(dir: string): Promise<string> {
  try {
    await verifyDataset(dir, db);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('verify did not refuse the directory');
}

describe('finding 1: one build at a time per directory', () => {
  it('a second build into the same directory fails at once, naming the directory and the holder; the first completes', async () => {
    const out = join(tmp.dir, 'concurrent');
    const first = buildDataset(options(out, { variants: 'full_sti,full_cti' }));
    // The first build holds the lock from before its first await.
    expect(existsSync(join(out, LOCK_FILE))).toBe(true);
    const second = buildDataset(options(out, { seed: 4 }));
    await expect(second).rejects.toThrow(BusyError);
    await expect(second).rejects.toThrow(`${out} is in use by equisql build (pid ${process.pid}, since `);
    const built = await first;
    expect(built.manifest.seed).toBe(3);
    expect((await verifyDataset(out, db)).every((c) => c.ok)).toBe(true);
    expect(existsSync(join(out, LOCK_FILE))).toBe(false);
  });

  it('verify, suite and compile refuse a directory a live process holds, naming it', async () => {
    const out = join(tmp.dir, 'held');
    await buildDataset(options(out));
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 120000)'], { stdio: 'ignore' });
    try {
      writeFileSync(
        join(out, LOCK_FILE),
        JSON.stringify({ pid: holder.pid, command: 'build', since: '2026-01-01T00:00:00.000Z' }),
      );
      const busy = `${out} is in use by equisql build (pid ${holder.pid}, since 2026-01-01T00:00:00.000Z); wait for it to finish (or, if pid ${holder.pid} is no equisql, remove ${join(out, LOCK_FILE)})`;
      await expect(verifyDataset(out, db)).rejects.toThrow(new BusyError(busy));
      for (const command of [
        ['verify', '--dir', out],
        ['compile', '--dir', out, '--variant', 'full_sti', '--query', 'q.json'],
      ]) {
        const run = runCli(command, { env: NO_SERVER });
        expect(run.stderr, command[0]).toBe(`equisql ${command[0]}: ${busy}\n`);
        expect(run.status, command[0]).not.toBe(0);
      }
    } finally {
      holder.kill('SIGKILL');
    }
  });

  it('a lock left by a killed process is stale and taken over', async () => {
    const out = join(tmp.dir, 'stale-lock');
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const { mkdirSync } = await import('node:fs');
    mkdirSync(out, { recursive: true });
    writeFileSync(
      join(out, LOCK_FILE),
      JSON.stringify({ pid: Number(dead.stdout), command: 'build', since: '2026-01-01T00:00:00.000Z' }),
    );
    await buildDataset(options(out));
    expect((await verifyDataset(out, db))[0]?.ok).toBe(true);
  });
});

describe('finding 3: a rebuild leaves nothing of the build before', () => {
  it('rebuilding fewer variants removes the others’ files; a stale dump put back is refused by name', async () => {
    const out = join(tmp.dir, 'fewer');
    await buildDataset(options(out, { variants: 'full_sti,full_cti,kitchen_sink' }));
    await buildDataset(options(out, { variants: 'full_cti', seed: 9 }));
    expect(readdirSync(join(out, 'dumps'))).toEqual(['full_cti.sql']);
    expect(readdirSync(join(out, 'schemas'))).toEqual(['full_cti.sql']);
    expect((await verifyDataset(out, db)).map((c) => [c.variant, c.ok])).toEqual([['full_cti', true]]);
    // The directory holds only what it held before, plus build files: no staging, no lock.
    expect(readdirSync(out).sort()).toEqual(['build.json', 'dumps', 'er.json', 'schemas']);
    writeFileSync(join(out, 'dumps', 'full_sti.sql'), '-- a dump of another build\n');
    expect(await verifyError(out)).toBe(
      `--dir: ${out}: dumps/ holds "full_sti.sql", which build.json does not list; rebuild with equisql build --out ${out}`,
    );
  });

  it('files of later stages in the directory survive the same rebuild; another build under them is refused', async () => {
    const out = join(tmp.dir, 'later-stages');
    await buildDataset(options(out));
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(out, 'groups'));
    writeFileSync(join(out, 'groups', 'g.jsonl'), '{"group":1}\n');
    await buildDataset(options(out));
    expect(readFileSync(join(out, 'groups', 'g.jsonl'), 'utf8')).toBe('{"group":1}\n');
    const before = readFileSync(join(out, 'build.json'), 'utf8');
    // The groups were checked against this build: one with another seed would leave them unchecked.
    await expect(buildDataset(options(out, { seed: 10 }))).rejects.toThrow(
      /^build: .* holds groups checked against its build .*choose another --out, or remove them first$/u,
    );
    expect(readFileSync(join(out, 'build.json'), 'utf8')).toBe(before);
    expect(readFileSync(join(out, 'groups', 'g.jsonl'), 'utf8')).toBe('{"group":1}\n');
  });
});

describe('finding 4: a build that fails validation changes nothing', () => {
  it.each([
    [
      'an unknown entity in counts',
      { counts: { Nope: 5 } },
      /^counts\.Nope: not a root entity of domain social_media \(roots: Account, Content, Channel, Tag\)$/,
    ],
    ['an unknown variant', { variants: 'full_sti,fully_cti' }, /^--variants: unknown variant "fully_cti"/],
    [
      'a seed above 2^53-1 as a number',
      { seed: 2 ** 60 },
      /^--seed: 1152921504606847000 is not a whole number up to 2\^53-1/,
    ],
  ] as const)('%s', async (_what, bad, message) => {
    const out = join(tmp.dir, `validation-${n}`);
    await buildDataset(options(out));
    const before = files(out);
    await expect(buildDataset(options(out, bad as Partial<BuildOptions>))).rejects.toThrow(message);
    expect(files(out)).toEqual(before);
    expect(readdirSync(out).sort()).toEqual(['build.json', 'dumps', 'er.json', 'schemas']);
    expect((await verifyDataset(out, db))[0]?.ok).toBe(true);
  });
});

describe('finding 5: verify checks every file build.json lists', () => {
  const damages: [string, (dir: string) => void, RegExp][] = [
    ['a deleted dump', (d) => rmSync(join(d, 'dumps', 'full_sti.sql')), /^dumps\/full_sti\.sql is missing$/],
    [
      'a garbage dump',
      (d) => writeFileSync(join(d, 'dumps', 'full_sti.sql'), 'garbage\n'),
      /^dumps\/full_sti\.sql differs from build\.json \(sha256 [0-9a-f]{12}…, recorded [0-9a-f]{12}…\)$/,
    ],
    ['a deleted schema file', (d) => rmSync(join(d, 'schemas', 'full_sti.sql')), /^schemas\/full_sti\.sql is missing$/],
    [
      'a dump one byte longer',
      (d) =>
        writeFileSync(join(d, 'dumps', 'full_sti.sql'), `${readFileSync(join(d, 'dumps', 'full_sti.sql'), 'utf8')}\n`),
      /^dumps\/full_sti\.sql differs/,
    ],
    [
      'a spec in build.json edited to another design',
      (d) => {
        const m = JSON.parse(readFileSync(join(d, 'build.json'), 'utf8'));
        m.variants[0].spec.naming.tables = m.variants[0].spec.naming.tables === 'plural' ? 'singular' : 'plural';
        writeFileSync(join(d, 'build.json'), JSON.stringify(m));
      },
      /^build\.json variants\[0\]\.spec does not give the schema file build\.json records$/,
    ],
  ];
  it.each(damages)('%s fails the variant, naming the file', async (_what, damage, expected) => {
    const out = join(tmp.dir, `damage-${n}`);
    await buildDataset(options(out));
    damage(out);
    const [check] = await verifyDataset(out, db);
    expect(check?.ok).toBe(false);
    expect(check?.differences[0]).toMatch(expected);
  });

  it('an er.json that is not the one built is refused', async () => {
    const out = join(tmp.dir, `er-${n}`);
    await buildDataset(options(out));
    writeFileSync(join(out, 'er.json'), readFileSync(join(out, 'er.json'), 'utf8').replace('"name"', ' "name"'));
    expect(await verifyError(out)).toBe(
      `--dir: ${out}: er.json differs from the one build.json records; rebuild with equisql build --out ${out}`,
    );
    rmSync(join(out, 'er.json'));
    expect(await verifyError(out)).toMatch(/: er\.json is missing; /);
  });
});

describe('build.json is checked field by field', () => {
  const edits: [string, (m: Record<string, unknown>) => void, string][] = [
    ['variants: []', (m) => (m['variants'] = []), 'variants: empty; a build has at least one variant'],
    ['variants: "x"', (m) => (m['variants'] = 'x'), 'variants: expected an array, got the string "x"'],
    ['variants: null', (m) => (m['variants'] = null), 'variants: expected an array, got null'],
    [
      'a spec of "x"',
      (m) => ((m['variants'] as Record<string, unknown>[])[0]!['spec'] = 'x'),
      'variants[0].spec: expected an object, got the string "x"',
    ],
    [
      'scale: "gigantic"',
      (m) => (m['scale'] = 'gigantic'),
      'scale: expected one of tiny, small, paper, large, got the string "gigantic"',
    ],
    [
      'a seed of 2^60',
      (m) => (m['seed'] = 2 ** 60),
      'seed: 1152921504606847000 is not a whole number up to 2^53-1, which is all a JavaScript number holds exactly; give it as a string',
    ],
    [
      'no er_sha256 (an older build)',
      (m) => delete m['er_sha256'],
      'er_sha256: expected a SHA-256 in hex (build.json from an older equisql: rebuild), got undefined',
    ],
    ['counts of -1', (m) => (m['counts'] = { Account: -1 }), 'counts.Account: expected a whole number ≥ 0, got -1'],
    [
      'a schema name of 64 bytes',
      (m) => ((m['variants'] as Record<string, unknown>[])[0]!['pg_schema'] = 'x'.repeat(64)),
      'variants[0].pg_schema: expected a schema name of 1 to 63 bytes, got the string "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"',
    ],
  ];
  let out: string;
  let original: string;
  beforeAll(async () => {
    out = join(tmp.dir, 'manifest');
    await buildDataset(options(out));
    original = readFileSync(join(out, 'build.json'), 'utf8');
  });
  it.each(edits)('%s gets one line naming build.json and the field', (_what, edit, message) => {
    const m = JSON.parse(original) as Record<string, unknown>;
    edit(m);
    writeFileSync(join(out, 'build.json'), JSON.stringify(m));
    expect(() => readManifest(out)).toThrow(new ConfigError(`${join(out, 'build.json')}: ${message}`));
  });
  it('the CLI prints it as one line and exits 2', () => {
    const m = JSON.parse(original) as Record<string, unknown>;
    m['variants'] = [];
    writeFileSync(join(out, 'build.json'), JSON.stringify(m));
    const run = runCli(['verify', '--dir', out], { env: NO_SERVER });
    expect(run.stderr).toBe(
      `equisql verify: ${join(out, 'build.json')}: variants: empty; a build has at least one variant\n`,
    );
    expect(run.status).toBe(2);
  });
});

describe('an interrupted swap is refused by name', () => {
  it('a directory with the swap marker and no matching build.json', async () => {
    const out = join(tmp.dir, 'swap');
    await buildDataset(options(out));
    writeFileSync(join(out, '.swapping'), JSON.stringify({ pid: 4242, build_sha256: '0'.repeat(64) }));
    expect(await verifyError(out)).toBe(
      `--dir: ${out}: a build (pid 4242) was interrupted while replacing its files, so they are a mix of two builds; rerun equisql build --out ${out}`,
    );
    // The next build clears it.
    await buildDataset(options(out, { seed: 12 }));
    expect(existsSync(join(out, '.swapping'))).toBe(false);
    expect((await verifyDataset(out, db))[0]?.ok).toBe(true);
  });
});

describe('a swap that stops halfway', () => {
  it('after the old build.json is gone and before the new one is in place, every command refuses the directory', async () => {
    const out = join(tmp.dir, 'half-swap');
    await buildDataset(options(out));
    const staging = createStaging(out);
    writeFileSync(join(staging, 'er.json'), '{}');
    // The server's schema rename runs at this point of a swap; a failure there stops it as a kill would.
    await expect(
      swapIn(out, staging, '{"new": true}\n', async () => {
        throw new Error('stopped');
      }),
    ).rejects.toThrow('stopped');
    expect(existsSync(join(out, 'build.json'))).toBe(false);
    const interrupted = `--dir: ${out}: a build (pid ${process.pid}) was interrupted while replacing its files, so they are a mix of two builds; rerun equisql build --out ${out}`;
    expect(await verifyError(out)).toBe(interrupted);
    for (const command of [
      ['verify', '--dir', out],
      ['suite', '--dir', out, '--suite', 'paper'],
      ['compile', '--dir', out, '--variant', 'full_sti', '--query', 'q.json'],
    ]) {
      const run = runCli(command, { env: NO_SERVER });
      expect(run.stderr, command[0]).toBe(`equisql ${command[0]}: ${interrupted}\n`);
      expect(run.status, command[0]).toBe(2);
    }
    await buildDataset(options(out, { seed: 13 }));
    expect((await verifyDataset(out, db))[0]?.ok).toBe(true);
  });
});

describe('finding 13: seeds are exact', () => {
  it('seeds above 2^53 stay strings, and two of them give two instances', () => {
    expect(seedFromText('12345678901234567890')).toBe('12345678901234567890');
    expect(seedFromText('42')).toBe(42);
    expect(seedFromText('007')).toBe('007');
    const a = instanceHash(generateInstance(domain, { seed: seedFromText('12345678901234567890'), scale: 'tiny' }));
    const b = instanceHash(generateInstance(domain, { seed: seedFromText('12345678901234567891'), scale: 'tiny' }));
    expect(a).not.toBe(b);
  });
});

describe('finding 13 in a config', () => {
  it('a numeric seed above 2^53-1 in a config is refused, naming the config and the dataset, before anything is written', () => {
    const out = join(tmp.dir, 'big-seed');
    const run = runCli(
      ['build', '--config', 'test/fixtures/config/big-seed.config.ts', '--dataset', 'big_seed', '--out', out],
      { env: NO_SERVER },
    );
    expect(run.stderr).toMatch(
      /^equisql build: \/.*\/test\/fixtures\/config\/big-seed\.config\.ts: datasets\.big_seed\.seed: 12345678901234567000 is above 2\^53-1 and was already rounded when the config was read; write the seed as a string\n$/,
    );
    expect(run.status).toBe(2);
    expect(existsSync(out)).toBe(false);
  });
});

describe('finding 7 and PGlite directories: the real location, never an empty database', () => {
  it('--db pglite: with no directory is refused', () => {
    expect(() => resolveTarget('pglite:', undefined)).toThrow(
      new ConfigError('--db: pglite: needs a directory (pglite:DIR)'),
    );
  });

  it('build --db pglite:OTHER --seed 12345678901234567890 records both exactly; verify finds the database without --db', () => {
    const out = join(tmp.dir, 'other-out');
    const other = join(tmp.dir, 'other-db');
    const build = runCli(
      [
        'build',
        '--dataset',
        'social_media',
        '--variants',
        'full_sti',
        '--scale',
        'tiny',
        '--seed',
        '12345678901234567890',
        '--db',
        `pglite:${other}`,
        '--out',
        out,
      ],
      { env: NO_SERVER },
    );
    expect(build.stderr).toMatch(/built 1 variants/);
    expect(build.status).toBe(0);
    const manifest = JSON.parse(readFileSync(join(out, 'build.json'), 'utf8'));
    expect(manifest.seed).toBe('12345678901234567890');
    expect(manifest.database).toEqual({ kind: 'pglite', location: other });
    expect(readFileSync(join(out, 'dumps', 'full_sti.sql'), 'utf8')).toMatch(
      /^-- equisql dump: .*; seed 12345678901234567890, /,
    );
    const verify = runCli(['verify', '--dir', out], { env: NO_SERVER });
    expect(verify.stderr).toBe('all 1 variants match the instance\n');
    expect(verify.status).toBe(0);
    expect(existsSync(join(out, 'pglite'))).toBe(false);
  });

  it('verify refuses a missing database by name and does not create it', async () => {
    const out = join(tmp.dir, 'no-db');
    const dir = join(out, 'pglite');
    await buildDataset(options(out, { target: { kind: 'pglite', dir } }));
    rmSync(dir, { recursive: true });
    await expect(verifyDataset(out, targetOf(out, readManifest(out), undefined))).rejects.toThrow(
      new LoadError(`no PGlite database in ${dir}; build into it first`),
    );
    expect(existsSync(dir)).toBe(false);
  });

  it('a PGlite directory without global/ is named, not "Aborted()"; a rebuild repairs it', async () => {
    const out = join(tmp.dir, 'no-global');
    const dir = join(out, 'pglite');
    await buildDataset(options(out, { target: { kind: 'pglite', dir } }));
    rmSync(join(dir, 'global'), { recursive: true });
    await expect(verifyDataset(out, targetOf(out, readManifest(out), undefined))).rejects.toThrow(
      new LoadError(`${dir} is not a whole PGlite database (no global); rebuild it with equisql build`),
    );
    await buildDataset(options(out, { target: { kind: 'pglite', dir } }));
    expect((await verifyDataset(out, targetOf(out, readManifest(out), undefined)))[0]?.ok).toBe(true);
  });
});
