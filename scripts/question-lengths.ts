/**
 * Question length per template style, the figure templates/README.md reports: mean and 90th
 * percentile, in characters, over the thirty paper questions and N random conceptual queries
 * per domain (the template writer's test draw), paraphrase 0.
 *
 *   npm run question-lengths              N = 1000
 *   npm run question-lengths -- 200       another N
 *   npm run question-lengths -- 1000 20   also print 20 random questions per style to read
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
import type { Query } from '../generator/query/conceptual-query.ts';

const count = Number(process.argv[2] ?? 1000);
const show = Number(process.argv[3] ?? 0);

function stats(lengths: number[]): string {
  const sorted = [...lengths].sort((a, b) => a - b);
  const mean = sorted.reduce((a, b) => a + b, 0) / sorted.length;
  const p90 = sorted[Math.min(sorted.length - 1, Math.ceil(0.9 * sorted.length) - 1)] as number;
  return `${Math.round(mean)} / ${p90}`;
}

const draws: { label: string; items: { domain: string; id: string; query: Query }[] }[] = [
  {
    label: 'paper (30)',
    items: [
      ...PAPER_SOCIAL_MEDIA.map((q) => ({ domain: 'social_media', id: q.id, query: q.query })),
      ...PAPER_RETAIL.map((q) => ({ domain: 'retail', id: q.id, query: q.query })),
    ],
  },
];
for (const domain of ['social_media', 'retail']) {
  const d = BUILT_IN_DOMAINS[domain]!;
  const instance = generateInstance(d, { seed: 1, scale: 'tiny', profile: 'default' });
  // The same draw as test/questions/template-writer.test.ts.
  const rng = createRng(`questions/${domain}`);
  const index = indexDomain(d);
  draws.push({
    label: `random ${domain} (${count})`,
    items: Array.from({ length: count }, (_, i) => ({
      domain,
      id: `r${i}`,
      query: randomQuery(index, instance, rng.fork(String(i))),
    })),
  });
}

const indexes = new Map(Object.entries(BUILT_IN_DOMAINS).map(([name, d]) => [name, indexDomain(d)]));
const lines = [
  '| draw | ' + TEMPLATE_STYLES.join(' | ') + ' |',
  '|---|' + TEMPLATE_STYLES.map(() => '---:').join('|') + '|',
];
const samples: string[] = [];
for (const draw of draws) {
  const cells = TEMPLATE_STYLES.map((style) => {
    const lengths = draw.items.map(
      (it) => writeTemplateQuestion(indexes.get(it.domain)!, it.query, style, 0, it.id).question.length,
    );
    return stats(lengths);
  });
  lines.push(`| ${draw.label} | ${cells.join(' | ')} |`);
}
if (show > 0) {
  const rng = createRng('question-lengths/show');
  const pool = draws.flatMap((d) => d.items);
  for (let i = 0; i < show; i++) {
    const it = pool[Math.floor(rng.next() * pool.length)]!;
    samples.push(`## ${it.domain} ${it.id}`);
    for (const style of TEMPLATE_STYLES) {
      const w = writeTemplateQuestion(indexes.get(it.domain)!, it.query, style, 0, it.id);
      samples.push(`- ${style} (${w.question.length}): ${w.question}${w.evidence ? ` [evidence: ${w.evidence}]` : ''}`);
    }
  }
}
process.stdout.write(
  `Mean / p90 question length in characters (paraphrase 0):\n\n${lines.join('\n')}\n${samples.length > 0 ? `\n${samples.join('\n')}\n` : ''}`,
);
