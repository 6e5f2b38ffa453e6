import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../generator/cli/command.ts';
import { command } from '../../generator/cli/canon-command.ts';

async function canon(stdin: string, args: string[] = []): Promise<Record<string, string | null>[]> {
  const out: string[] = [];
  const io: CliIo = { out: (t) => out.push(t), err: () => {}, readStdin: async () => stdin, env: {} };
  expect(await command.run(args, io)).toBe(0);
  return out.map((l) => JSON.parse(l) as Record<string, string | null>);
}

describe('equisql canon', () => {
  it('prints canonical string, structure hash and skeleton per line, and an error for unparsable SQL', async () => {
    const [a, bad, b] = await canon(
      'SELECT T1.name FROM singer AS T1 WHERE T1.age > 3 AND T1.x = "a"\nSELECT FROM\n\nselect s.name from singer s where s.x = "a" and s.age > 3;\n',
    );
    expect(a?.['canonical']).toBe("select t1.name from singer as t1 where t1.age > 3 and t1.x = 'a'");
    expect(a?.['structure_hash']).toMatch(/^[0-9a-f]{64}$/u);
    expect(b?.['structure_hash']).toBe(a?.['structure_hash']);
    expect(a?.['skeleton']).toBe(
      'SELECT <column> FROM <table> WHERE <column:numeric> > <value:number> AND <column:text> = <value:text>',
    );
    expect(bad).toEqual({ error: expect.stringMatching(/line 1, column/u) });
  });

  it('gives a null skeleton for SQL the grammar does not cover, but still a structure', async () => {
    const [r] = await canon('SELECT name FROM singer OFFSET 3\n');
    expect(r).toMatchObject({ skeleton: null, canonical: 'select name from singer offset 3' });
  });

  it('honours --dialect and --no-fallback', async () => {
    const sql = 'SELECT a FROM t UNION SELECT b FROM u EXCEPT SELECT c FROM v\n';
    expect((await canon(sql, ['--dialect', 'sqlite', '--no-fallback']))[0]).toHaveProperty('error');
    expect((await canon(sql, ['--dialect', 'sqlite']))[0]).toHaveProperty('canonical');
    // PostgreSQL reads "x" as a column, SQLite as a string.
    expect((await canon('SELECT a FROM t WHERE b = "x"\n', ['--dialect', 'postgresql']))[0]?.['canonical']).toBe(
      'select a from t where b = x',
    );
  });
});
