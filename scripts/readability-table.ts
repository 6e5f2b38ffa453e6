/**
 * The readability checks' table over generated groups: for each check, how many SQL texts
 * and how many groups show it.
 *
 *   npm run readability -- OUT_DIR [OUT_DIR …]   (each a run's directory, holding groups/)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { READABILITY_CHECKS, readabilityFindings, type ReadabilityCheck } from '../generator/compile/readability.ts';

const dirs = process.argv.slice(2);
if (dirs.length === 0) {
  process.stderr.write('usage: npm run readability -- OUT_DIR [OUT_DIR …]\n');
  process.exit(2);
}
const texts = new Map<ReadabilityCheck, number>(READABILITY_CHECKS.map((c) => [c, 0]));
const groups = new Map<ReadabilityCheck, number>(READABILITY_CHECKS.map((c) => [c, 0]));
const examples = new Map<ReadabilityCheck, string>();
let groupCount = 0;
let textCount = 0;
for (const dir of dirs) {
  const groupsDir = join(dir, 'groups');
  for (const file of readdirSync(groupsDir).filter((f) => f.endsWith('.jsonl'))) {
    for (const line of readFileSync(join(groupsDir, file), 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      const group = JSON.parse(line) as { variants: Record<string, { sql: string }> };
      groupCount++;
      const inGroup = new Set<ReadabilityCheck>();
      for (const { sql } of Object.values(group.variants)) {
        textCount++;
        const checks = new Set(readabilityFindings(sql).map((f) => f.check));
        for (const c of checks) {
          texts.set(c, (texts.get(c) ?? 0) + 1);
          inGroup.add(c);
          if (!examples.has(c)) examples.set(c, sql);
        }
      }
      for (const c of inGroup) groups.set(c, (groups.get(c) ?? 0) + 1);
    }
  }
}
process.stdout.write(`${textCount} SQL texts of ${groupCount} groups\n\n| check | SQL texts / groups |\n|---|---:|\n`);
for (const c of READABILITY_CHECKS) process.stdout.write(`| ${c} | ${texts.get(c)} / ${groups.get(c)} |\n`);
if (process.env['EQUISQL_EXAMPLES'] === '1')
  for (const [c, sql] of examples) process.stdout.write(`\n-- ${c}\n${sql}\n`);
