/**
 * The examples of templates/README.md: template questions, each with the SQL its group has
 * on the `full_cti` variant, for a person to read. Eight paper questions and twelve of the
 * property test's random queries, the styles taken in turn; seeded, so the same every run.
 *
 *   npm run question-examples > /tmp/examples.md
 */
import { BUILT_IN_DOMAINS } from '../generator/domains/index.ts';
import { indexDomain } from '../generator/er-model/er-index.ts';
import { PAPER_SOCIAL_MEDIA } from '../generator/suites/paper-social-media.ts';
import { PAPER_RETAIL } from '../generator/suites/paper-retail.ts';
import { randomQuery } from '../generator/query/random-query.ts';
import { generateInstance } from '../generator/instance/generate-instance.ts';
import { createRng } from '../generator/common/rng.ts';
import { writeTemplateQuestion } from '../generator/questions/template-writer.ts';
import { TEMPLATE_STYLES } from '../generator/records/question-record.ts';
import { compileQuery } from '../generator/compile/compile-query.ts';
import { buildRelationalSchema } from '../generator/variants/build-schema.ts';
import { presetVariant } from '../generator/variants/variant-presets.ts';
import type { Query } from '../generator/query/conceptual-query.ts';

const picks: { domain: string; id: string; query: Query }[] = [];
const paper = [
  ...PAPER_SOCIAL_MEDIA.map((q) => ({ domain: 'social_media', q })),
  ...PAPER_RETAIL.map((q) => ({ domain: 'retail', q })),
];
const choose = createRng('question-examples');
for (let i = 0; i < 8; i++) {
  const { domain, q } = paper.splice(Math.floor(choose.next() * paper.length), 1)[0]!;
  picks.push({ domain, id: `${q.id} (paper)`, query: q.query });
}
for (const domain of ['social_media', 'retail']) {
  const d = BUILT_IN_DOMAINS[domain]!;
  const index = indexDomain(d);
  const instance = generateInstance(d, { seed: 1, scale: 'tiny', profile: 'default' });
  const rng = createRng(`questions/${domain}`);
  const draws = Array.from({ length: 1000 }, (_, i) => ({
    i,
    query: randomQuery(index, instance, rng.fork(String(i))),
  }));
  for (let k = 0; k < 6; k++) {
    const { i, query } = draws.splice(Math.floor(choose.next() * draws.length), 1)[0]!;
    picks.push({ domain, id: `r${i}`, query });
  }
}
const out: string[] = [];
picks.forEach((p, n) => {
  const index = indexDomain(BUILT_IN_DOMAINS[p.domain]!);
  const style = TEMPLATE_STYLES[n % TEMPLATE_STYLES.length]!;
  const w = writeTemplateQuestion(index, p.query, style, 0, p.id);
  const sql = compileQuery(index, buildRelationalSchema(index, presetVariant(index, 'full_cti')), p.query);
  out.push(`${n + 1}. \`${p.domain}\` ${p.id}, ${style}: ${w.question}\n`);
  if (w.evidence) out.push(`   Evidence: ${w.evidence}\n`);
  out.push(
    `   \`\`\`sql\n${sql
      .trim()
      .split('\n')
      .map((l) => `   ${l}`)
      .join('\n')}\n   \`\`\`\n`,
  );
});
process.stdout.write(out.join('\n'));
