import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openDatabase } from '../../generator/database/database.ts';
import { readManifest } from '../../generator/assemble/build-manifest.ts';

/**
 * Writes `sqlite/<variant>.sqlite` and `edge/sqlite/<variant>.sqlite` for a PGlite build, as
 * a build with the SQLite engine lays them out, by copying each variant's tables: integers
 * as INTEGER, numerics as REAL, booleans as 0/1, everything else as PostgreSQL's text. Only
 * for tests, until the SQLite build is on this branch; the engine itself is not in here.
 */
export async function sqliteFromBuild(dir: string): Promise<string[]> {
  const db = await openDatabase({ kind: 'pglite', dir: join(dir, 'pglite'), mustExist: true });
  const written: string[] = [];
  try {
    for (const [prefix, build] of [['', readManifest(dir)], ['edge/', readManifest(join(dir, 'edge'))]] as const) {
      mkdirSync(join(dir, prefix, 'sqlite'), { recursive: true });
      for (const v of build.variants) {
        const path = join(dir, prefix, 'sqlite', `${v.name}.sqlite`);
        rmSync(path, { force: true });
        const out = new Database(path);
        const columns = await db.query(`SELECT table_name AS t, column_name AS c, data_type AS d FROM information_schema.columns WHERE table_schema = '${v.pg_schema}' ORDER BY table_name, ordinal_position`);
        const tables = new Map<string, { c: string; d: string }[]>();
        for (const r of columns) tables.set(String(r['t']), [...(tables.get(String(r['t'])) ?? []), { c: String(r['c']), d: String(r['d']) }]);
        for (const [table, cols] of tables) {
          const kind = (d: string): string => (/int/u.test(d) ? 'INTEGER' : /numeric|real|double/u.test(d) ? 'REAL' : d === 'boolean' ? 'INTEGER' : 'TEXT');
          out.exec(`CREATE TABLE "${table}" (${cols.map((c) => `"${c.c}" ${kind(c.d)}`).join(', ')})`);
          const rows = await db.query(`SELECT ${cols.map((c) => `"${c.c}"::text AS "${c.c}"`).join(', ')} FROM "${v.pg_schema}"."${table}"`);
          const insert = out.prepare(`INSERT INTO "${table}" VALUES (${cols.map(() => '?').join(', ')})`);
          out.transaction(() => {
            for (const r of rows) insert.run(...cols.map((c) => {
              const value = r[c.c] as string | null;
              if (value === null) return null;
              if (c.d === 'boolean') return value === 'true' || value === 't' ? 1 : 0;
              return kind(c.d) === 'INTEGER' ? BigInt(value) : kind(c.d) === 'REAL' ? Number(value) : value;
            }));
          })();
        }
        out.close();
        written.push(path);
      }
    }
  } finally {
    await db.close();
  }
  return written;
}
