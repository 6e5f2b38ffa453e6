import Sqlite from 'better-sqlite3';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../generator/cli/main.ts';
import { parseDomainJson } from '../../generator/er-model/domain-json.ts';

const dir = mkdtempSync(join(tmpdir(), 'equisql-import-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the command as the CLI does; a refusal is printed by `main` and seen here as status 2. */
async function run(args: string[]): Promise<{ status: number; out: string }> {
  const out: string[] = [];
  const status = await main(['import', ...args], {
    out: (t) => out.push(t),
    err: () => {},
    readStdin: async () => '',
    env: {},
  });
  return { status, out: out.join('') };
}

describe('equisql import', () => {
  it('writes a model the validator reads back, and the report beside it', async () => {
    const file = join(dir, 'shop.sqlite');
    const db = new Sqlite(file);
    db.exec(`CREATE TABLE customer (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
             CREATE TABLE "order" (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customer, total NUMERIC(8,2));
             INSERT INTO customer VALUES (1, 'Ann'); INSERT INTO "order" VALUES (1, 1, 9.5);`);
    db.close();
    const model = join(dir, 'shop.er.json');
    const { status, out } = await run([file, '--out', model, '--name', 'shop']);
    expect(status).toBe(0);
    expect(out).toContain('opened read-only; the file was not changed');
    const domain = parseDomainJson(readFileSync(model, 'utf8'), model);
    expect(domain.relationships).toMatchObject([
      {
        name: 'order_customer',
        from: 'Order',
        to: 'Customer',
        cardinality: 'many-to-one',
        participation: { from: 'total' },
      },
    ]);
    expect(readFileSync(join(dir, 'shop.import.md'), 'utf8')).toBe(out);
  });

  it('refuses a call without a source or --out in one line, writing nothing', async () => {
    const model = join(dir, 'none.er.json');
    expect(await run(['--out', model])).toMatchObject({ status: 2 });
    expect(await run([join(dir, 'shop.sqlite')])).toMatchObject({ status: 2 });
    expect(await run([join(dir, 'missing.sqlite'), '--out', model])).toMatchObject({ status: 2 });
    expect(existsSync(model)).toBe(false);
  });
});
