import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { main } from '../../generator/cli/main.ts';
import { draftModel } from '../../generator/import/draft-model.ts';
import { readSource } from '../../generator/import/read-source.ts';
import { describeServer } from '../helpers/postgres.ts';
import { hasPagila, loadPagila } from '../helpers/shared-databases.ts';

describeServer('import of Pagila from the server', (serverUrl) => {
  let url = '';
  let drop: (() => Promise<void>) | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'equisql-pagila-'));
  beforeAll(async () => {
    if (!hasPagila) return;
    ({ url, drop } = await loadPagila(serverUrl, 'pagila'));
  }, 120_000);
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await drop?.();
  });

  it.skipIf(!hasPagila)('drafts Pagila with no hand edit, creating nothing in it', async () => {
    const census = async (): Promise<string> => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      const r = await c.query(
        'SELECT (SELECT count(*) FROM pg_class) AS classes, (SELECT count(*) FROM pg_namespace) AS schemas, (SELECT count(*) FROM pg_roles) AS roles, (SELECT count(*) FROM pg_proc) AS procs',
      );
      await c.end();
      return JSON.stringify(r.rows);
    };
    const before = await census();
    const { domain, findings } = draftModel(await readSource(url), { name: 'pagila' });
    expect(await census()).toBe(before);

    expect(domain.relationships.find((r) => r.name === 'film_actor')).toMatchObject({
      from: 'Actor',
      to: 'Film',
      cardinality: 'many-to-many',
    });
    expect(domain.relationships.find((r) => r.name === 'film_category')).toMatchObject({
      from: 'Film',
      to: 'Category',
      cardinality: 'many-to-many',
    });
    const film = domain.entities.find((e) => e.name === 'Film');
    expect(film?.attributes.find((a) => a.name === 'special_features')).toMatchObject({
      multiValued: true,
      type: { kind: 'text' },
    });
    expect(film?.attributes.find((a) => a.name === 'rating')?.type).toEqual({
      kind: 'enum',
      values: ['G', 'PG', 'PG-13', 'R', 'NC-17'],
    });
    // The payment partitions fold into payment, with the keys they declare.
    expect(
      domain.relationships
        .filter((r) => r.from === 'Payment')
        .map((r) => r.to)
        .sort(),
    ).toEqual(['Customer', 'Rental', 'Staff']);
    expect(findings.filter((f) => f.rule === 'left-out' && f.text.startsWith('partition'))).toHaveLength(7);
    expect(findings.some((f) => f.subject === 'film.fulltext' && /tsvector/u.test(f.text))).toBe(true);
    expect(findings.some((f) => f.rule === 'foreign-key-cycle')).toBe(false);
  });

  it.skipIf(!hasPagila)(
    'equisql import writes the model and the report, and says it wrote nothing to the source',
    async () => {
      const out: string[] = [];
      const err: string[] = [];
      const model = join(dir, 'pagila.er.json');
      const status = await main(['import', url, '--out', model, '--name', 'pagila'], {
        out: (t) => out.push(t),
        err: (t) => err.push(t),
        readStdin: async () => '',
        env: {},
      });
      expect(status).toBe(0);
      expect(out.join('\n')).toContain(
        'read in one READ ONLY transaction; nothing was created or changed in the source',
      );
      expect(readFileSync(join(dir, 'pagila.import.md'), 'utf8')).toBe(out.join(''));
      expect(JSON.parse(readFileSync(model, 'utf8')).name).toBe('pagila');
    },
  );
});
