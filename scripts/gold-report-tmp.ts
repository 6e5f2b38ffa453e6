import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { BUILT_IN_DOMAINS } from '../generator/domains/index.ts';
import { indexDomain } from '../generator/er-model/er-index.ts';
import { allPresets } from '../generator/variants/variant-presets.ts';
import { buildRelationalSchema } from '../generator/variants/build-schema.ts';
import { findImpliedNotNull, findLongAliases, findNeedlessJoins, findRepeatedExpressions } from '../test/compile/gold-readability.ts';
const root = process.argv[2]!;
const totals: Record<string, number> = { implied: 0, alias: 0, repeated: 0, needless: 0 };
for (const d of ['retail', 'social_media']) {
  const index = indexDomain(BUILT_IN_DOMAINS[d]!);
  for (const v of allPresets(index)) {
    const links = new Map(buildRelationalSchema(index, v).tables.filter((t) => t.role.kind === "relationship").map((t) => [t.name, new Map(t.foreignKeys.map((fk) => [fk.columns[0] as string, fk.table]))]));
    for (const f of readdirSync(join(root, d, v.name)).sort()) {
      const sql = readFileSync(join(root, d, v.name, f), 'utf8');
      const r = { implied: findImpliedNotNull(sql), alias: findLongAliases(sql), repeated: findRepeatedExpressions(sql), needless: findNeedlessJoins(sql, links) };
      for (const [k, x] of Object.entries(r)) if (x.length) { totals[k]! += 1; if (process.argv[3]) console.log(d, v.name, f, k, JSON.stringify(x).slice(0, 150)); }
    }
  }
}
console.log('queries with findings:', JSON.stringify(totals));
