// @tier long
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { openDatabase, type Database } from '../../generator/database/database.ts';
import { buildDataset } from '../../generator/assemble/build-dataset.ts';
import { DOMAINS, tempDir } from '../helpers/build-fixtures.ts';

let db: Database;
const tmp = tempDir('determinism');
beforeAll(async () => {
  db = await openDatabase({ kind: 'pglite' });
});
afterAll(async () => {
  await db?.close();
  tmp.remove();
});

/** Every output file under a build directory except the database itself, by relative path. */
function files(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const sub of ['.', 'schemas', 'dumps']) {
    for (const name of readdirSync(join(dir, sub), { withFileTypes: true })) {
      if (name.isFile()) out.set(relative(dir, join(dir, sub, name.name)), readFileSync(join(dir, sub, name.name)));
    }
  }
  return out;
}

describe.each(DOMAINS)('%s output files', (name, domain) => {
  const build = (label: string, seed: number) =>
    buildDataset({
      dataset: name,
      domain,
      variants: 'all,random:3',
      scale: 'tiny',
      seed,
      profile: 'default',
      target: db,
      out: join(tmp.dir, `${name}-${label}`),
      schemaPrefix: `${name}_${seed}_`,
    });

  it('are byte-identical for the same config and seed, and carry other data for another seed', async () => {
    const a = await build('a', 21);
    const b = await build('b', 21);
    const c = await build('c', 22);
    const fa = files(join(tmp.dir, `${name}-a`));
    const fb = files(join(tmp.dir, `${name}-b`));
    const fc = files(join(tmp.dir, `${name}-c`));
    expect(fa.size).toBe(1 + 1 + 13 + 13); // er.json, build.json, schemas, dumps
    expect([...fb.keys()].sort()).toEqual([...fa.keys()].sort());
    for (const [path, bytes] of fa) expect(bytes.equals(fb.get(path) as Buffer), path).toBe(true);
    expect(b.manifest.instance_hash).toBe(a.manifest.instance_hash);

    expect(c.manifest.instance_hash).not.toBe(a.manifest.instance_hash);
    for (const variant of ['full_sti', 'full_cti', 'kitchen_sink']) {
      const path = join('dumps', `${variant}.sql`);
      expect(fc.get(path)?.equals(fa.get(path) as Buffer), path).toBe(false);
    }
  });
});
