/**
 * The natural style's examples of templates/README.md: the paper's thirty questions in the
 * natural style beside the paper's own wording, then fifty generated groups (twenty-five a domain,
 * drawn with a fixed seed from generate directories) with their natural question, evidence
 * and reference SQL.
 *
 *   npm run natural-examples -- DIR_SOCIAL_MEDIA DIR_RETAIL > /tmp/natural.md
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { BUILT_IN_DOMAINS } from '../generator/domains/index.ts';
import { indexDomain } from '../generator/er-model/er-index.ts';
import { PAPER_SOCIAL_MEDIA } from '../generator/suites/paper-social-media.ts';
import { PAPER_RETAIL } from '../generator/suites/paper-retail.ts';
import { createRng } from '../generator/common/rng.ts';
import { writeNaturalQuestion } from '../generator/questions/natural/natural-writer.ts';
import type { GroupRecord } from '../generator/records/group-record.ts';

const out: string[] = ["| paper | the paper's wording | natural (paraphrase 0) | evidence |", '|---|---|---|---|'];
for (const [domain, suite] of [
  ['social_media', PAPER_SOCIAL_MEDIA],
  ['retail', PAPER_RETAIL],
] as const) {
  const index = indexDomain(BUILT_IN_DOMAINS[domain]!);
  for (const q of suite) {
    const w = writeNaturalQuestion(index, q.query, 0, q.id);
    out.push(`| ${domain} ${q.id} | ${q.question} | ${w.question} | ${w.evidence || '—'} |`);
  }
}
out.push('');
const rng = createRng('natural-examples');
let k = 0;
for (const dir of process.argv.slice(2)) {
  const file = readdirSync(join(dir, 'groups')).find((f) => f.endsWith('.jsonl'))!;
  const domain = file.slice(0, -'.jsonl'.length);
  const index = indexDomain(BUILT_IN_DOMAINS[domain]!);
  const groups = readFileSync(join(dir, 'groups', file), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as GroupRecord);
  for (const g of rng.sample(groups, 25)) {
    const w = writeNaturalQuestion(index, g.query, 0, g.group_id);
    const sql = g.variants[g.reference_variant]?.sql ?? '';
    out.push(
      `${++k}. \`${domain}\` (${g.difficulty}): ${w.question}`,
      '',
      `   Evidence: ${w.evidence || '—'}`,
      '',
      '   ```sql',
      ...sql
        .trim()
        .split('\n')
        .map((l) => `   ${l}`),
      '   ```',
      '',
    );
  }
}
process.stdout.write(`${out.join('\n')}\n`);
