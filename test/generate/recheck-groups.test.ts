import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openBuiltDir } from '../../generator/cli/built-dir.ts';
import { readManifest, targetOf } from '../../generator/assemble/verify-dataset.ts';
import { openDatabase } from '../../generator/database/database.ts';
import { buildRelationalSchema } from '../../generator/variants/build-schema.ts';
import { compileQuery } from '../../generator/compile/compile-query.ts';
import { normalizeResult, runReadOnly } from '../../generator/execute/run-query.ts';
import { groupId } from '../../generator/generate/canonical-query.ts';
import type { GroupRecord } from '../../generator/records/group-record.ts';
import { groupsPath, readJsonLines } from '../../generator/records/groups-file.ts';

/**
 * The acceptance check of a generated directory, independent of the generator: every line
 * of DIR/groups/*.jsonl is re-compiled for every variant and re-executed on the main and
 * edge-case databases; the hashes must match the line's and agree across variants.
 *
 *   EQUISQL_GROUPS_DIR=output/social_media npx vitest run test/generate/recheck-groups.test.ts
 */
const DIR = process.env['EQUISQL_GROUPS_DIR'];

(DIR ? describe : describe.skip)(`groups in ${DIR ?? '(set EQUISQL_GROUPS_DIR to run)'}`, () => {
  it('every group agrees across all variants on both instances, as recorded', async () => {
    const dir = DIR as string;
    const { manifest, index } = openBuiltDir(dir);
    const edge = existsSync(join(dir, 'edge', 'build.json')) ? readManifest(join(dir, 'edge')) : undefined;
    const groups = readJsonLines<GroupRecord>(groupsPath(dir, manifest.dataset), false);
    expect(groups.length).toBeGreaterThan(0);
    const db = await openDatabase(
      targetOf(dir, manifest, manifest.database.kind === 'postgres' ? process.env['DATABASE_URL'] : undefined),
    );
    try {
      const variants = manifest.variants.map((v) => ({
        name: v.name,
        main: v.pg_schema,
        edge: edge?.variants.find((e) => e.name === v.name)?.pg_schema,
        schema: buildRelationalSchema(index, v.spec),
      }));
      const ids = new Set<string>();
      for (const g of groups) {
        expect(groupId(g.query)).toBe(g.group_id);
        ids.add(g.group_id);
        const mainHashes = new Set<string>();
        const edgeHashes = new Set<string>();
        for (const v of variants) {
          const sql = compileQuery(index, v.schema, g.query);
          expect(sql, `${g.group_id} ${v.name}`).toBe(g.variants[v.name]?.sql);
          const main = normalizeResult(await runReadOnly(db, v.main, sql), g.ordered);
          expect(main.hash, `${g.group_id} ${v.name}`).toBe(g.variants[v.name]?.result_hash);
          mainHashes.add(main.hash);
          if (v.edge) edgeHashes.add(normalizeResult(await runReadOnly(db, v.edge, sql), g.ordered).hash);
        }
        expect(mainHashes.size).toBe(1);
        if (edge) expect([...edgeHashes]).toEqual([g.verified_on.find((x) => x.profile === 'edge')?.result_hash]);
      }
      expect(ids.size).toBe(groups.length);
    } finally {
      await db.close();
    }
  }, 3_600_000);
});
