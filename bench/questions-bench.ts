/**
 * Questions benchmark: template questions written per second, over random conceptual
 * queries of both domains and the paper suite, every template style and three paraphrases
 * (each question realized from the query and the lexicon, as the questions stage does).
 *
 *   npm run bench:questions [-- --queries 1000]
 */
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { BUILT_IN_DOMAINS } from '../generator/domains/index.ts';
import { indexDomain } from '../generator/er-model/er-index.ts';
import { generateInstance } from '../generator/instance/generate-instance.ts';
import { randomQuery } from '../generator/query/random-query.ts';
import { createRng } from '../generator/common/rng.ts';
import { SUITES } from '../generator/suites/index.ts';
import { writeTemplateQuestions, paraphraseCount } from '../generator/questions/template-writer.ts';
import { TEMPLATE_STYLES } from '../generator/questions/question-record.ts';
import type { Query } from '../generator/query/conceptual-query.ts';

const { values } = parseArgs({ options: { queries: { type: 'string' } } });
const perDomain = Number(values.queries ?? 1000);
const say = (s: string) => process.stdout.write(`${s}\n`);
say(`machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, node ${process.version}`);

function time(label: string, work: readonly { index: ReturnType<typeof indexDomain>; query: Query; seed: string }[]): void {
  let written = 0;
  let chars = 0;
  const start = process.hrtime.bigint();
  for (const w of work) {
    // As the questions stage does: the meaning realized once, then every (style, paraphrase).
    const wanted = TEMPLATE_STYLES.flatMap((style) => Array.from({ length: Math.min(3, paraphraseCount(style)) }, (_, p) => ({ style, paraphrase: p })));
    for (const q of writeTemplateQuestions(w.index, w.query, wanted, w.seed)) {
      written++;
      chars += q.question.length + q.evidence.length;
    }
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  say(`${label}: ${written} questions for ${work.length} queries in ${seconds.toFixed(2)} s: ${Math.round(written / seconds)} per second, ${Math.round(chars / written)} characters on average`);
}

const random: { index: ReturnType<typeof indexDomain>; query: Query; seed: string }[] = [];
const paper: typeof random = [];
for (const [name, domain] of Object.entries(BUILT_IN_DOMAINS)) {
  const index = indexDomain(domain);
  const instance = generateInstance(domain, { seed: 1, scale: 'tiny', profile: 'default' });
  const rng = createRng(`bench-questions/${name}`);
  for (let i = 0; i < perDomain; i++) random.push({ index, query: randomQuery(index, instance, rng.fork(String(i))), seed: `${name}/${i}` });
  for (const suite of Object.values(SUITES)) for (const q of suite.domains[name] ?? []) paper.push({ index, query: q.query, seed: q.id });
}
// A warm-up pass (module loading, JIT), not counted.
time('warm-up', random.slice(0, 50));
time('random queries', random);
time('paper suite', paper);
