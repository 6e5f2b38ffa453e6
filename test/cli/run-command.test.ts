// @tier long
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { runCli } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import { BUILT_IN_DOMAINS } from '../../generator/domains/index.ts';
import { buildDataset } from '../../generator/assemble/build-dataset.ts';
import { openDatabase } from '../../generator/database/database.ts';

const tmp = tempDir('run');
const out = join(tmp.dir, 'social');
const NO_SERVER = { DATABASE_URL: undefined };
let tagNames: string[] = [];

beforeAll(async () => {
  const domain = BUILT_IN_DOMAINS['social_media'];
  if (!domain) throw new Error('social_media is a built-in domain');
  await buildDataset({
    dataset: 'social_media',
    domain,
    variants: 'full_sti',
    scale: 'tiny',
    seed: 4,
    profile: 'default',
    target: { kind: 'pglite', dir: join(out, 'pglite') },
    out,
  });
  const db = await openDatabase({ kind: 'pglite', dir: join(out, 'pglite') });
  try {
    tagNames = (await db.queryText('SELECT name FROM social_media__full_sti.tags ORDER BY id LIMIT 3')).rows.map(
      (r) => r[0] as string,
    );
  } finally {
    await db.close();
  }
});
afterAll(() => tmp.remove());

const run = (args: string[], input?: string) =>
  runCli(['run', '--dir', out, '--variant', 'full_sti', ...args], { env: NO_SERVER, input });

describe('equisql run', () => {
  it("prints a variant's rows as an aligned table by default", () => {
    const r = run(['SELECT id, name FROM tags ORDER BY id LIMIT 3']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const width = Math.max(4, ...tagNames.map((n) => n.length));
    expect(r.stdout).toBe(
      [`id | name`, `---+-${'-'.repeat(width)}`, ...tagNames.map((n, i) => `${i + 1}  | ${n}`), '(3 rows)', ''].join(
        '\n',
      ),
    );
  });

  it('reads the query from standard input and prints RFC 4180 CSV', () => {
    const r = run(
      ['--format', 'csv'],
      `SELECT 'a,b' AS x, NULL AS y, '' AS z, 'say "hi"' AS w, 'line' || chr(10) || 'break' AS v`,
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('x,y,z,w,v\r\n"a,b",,"","say ""hi""","line\nbreak"\r\n');
  });

  it('prints JSON Lines, one object per row, keeping repeated column names apart', () => {
    const r = run(['--format', 'json', 'SELECT count(*) AS n, max(id) AS n, NULL AS gone FROM tags WHERE id <= 3']);
    expect(r.status).toBe(0);
    expect(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual([{ n: '3', n_2: '3', gone: null }]);
  });

  it('refuses what the executor refuses, and a query that overruns --timeout, with exit 2 and one line', () => {
    const refused = run(["COPY tags TO '/tmp/equisql-run-copy'"]);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toBe(
      'equisql run: schema social_media__full_sti: refused: only one SELECT is run, not COPY\n',
    );
    const slow = run(['--timeout', '1', 'SELECT count(*) FROM generate_series(1, 300000000)']);
    expect(slow.status).toBe(2);
    expect(slow.stderr).toBe('equisql run: schema social_media__full_sti: timed out after 1000 ms\n');
    const failing = run(['SELECT nope FROM tags']);
    expect(failing.status).toBe(2);
    expect(failing.stderr).toMatch(/^equisql run: schema social_media__full_sti: column "nope" does not exist\n$/);
  });

  it('names a bad flag or variant', () => {
    const format = run(['--format', 'xml', 'SELECT 1']);
    expect([format.status, format.stderr]).toEqual([
      2,
      'equisql run: --format: expected table, csv, json, got "xml"\n',
    ]);
    const variant = runCli(['run', '--dir', out, '--variant', 'nope', 'SELECT 1'], { env: NO_SERVER });
    expect([variant.status, variant.stderr]).toEqual([
      2,
      `equisql run: --variant: no variant "nope" in ${out} (built: full_sti)\n`,
    ]);
  });
});
