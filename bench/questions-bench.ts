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
import { TEMPLATE_STYLES } from '../generator/records/question-record.ts';
import type { Query } from '../generator/query/conceptual-query.ts';

const { values } = parseArgs({ options: { queries: { type: 'string' } } });
const perDomain = Number(values.queries ?? 1000);
const say = (s: string) => process.stdout.write(`${s}\n`);
say(`machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, node ${process.version}`);

function time(
  label: string,
  work: readonly { index: ReturnType<typeof indexDomain>; query: Query; seed: string }[],
): void {
  let written = 0;
  let chars = 0;
  const start = process.hrtime.bigint();
  for (const w of work) {
    // As the questions stage does: the meaning realized once, then every (style, paraphrase).
    const wanted = TEMPLATE_STYLES.flatMap((style) =>
      Array.from({ length: Math.min(3, paraphraseCount(style)) }, (_, p) => ({ style, paraphrase: p })),
    );
    for (const q of writeTemplateQuestions(w.index, w.query, wanted, w.seed)) {
      written++;
      chars += q.question.length + q.evidence.length;
    }
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  say(
    `${label}: ${written} questions for ${work.length} queries in ${seconds.toFixed(2)} s: ${Math.round(written / seconds)} per second, ${Math.round(chars / written)} characters on average`,
  );
}

const random: { index: ReturnType<typeof indexDomain>; query: Query; seed: string }[] = [];
const paper: typeof random = [];
for (const [name, domain] of Object.entries(BUILT_IN_DOMAINS)) {
  const index = indexDomain(domain);
  const instance = generateInstance(domain, { seed: 1, scale: 'tiny', profile: 'default' });
  const rng = createRng(`bench-questions/${name}`);
  for (let i = 0; i < perDomain; i++)
    random.push({ index, query: randomQuery(index, instance, rng.fork(String(i))), seed: `${name}/${i}` });
  for (const suite of Object.values(SUITES))
    for (const q of suite.domains[name] ?? []) paper.push({ index, query: q.query, seed: q.id });
}
// A warm-up pass (module loading, JIT), not counted.
time('warm-up', random.slice(0, 50));
time('random queries', random);
time('paper suite', paper);

// LLM-path overhead per call: the client (request building, JSON parsing, reply check,
// cache write) against a chat-completions server on 127.0.0.1 that answers at once, so the
// figure is our cost per call, not a model's latency; then the same calls from the cache.
const { createServer } = await import('node:http');
const { mkdtempSync, rmSync } = await import('node:fs');
const { tmpdir } = await import('node:os');
const { join } = await import('node:path');
const { createLlmClient } = await import('../generator/questions/llm-client.ts');
const server = createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    const content = JSON.stringify({ question: `Q ${body.length}` });
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id: 'x',
        object: 'chat.completion',
        created: 0,
        model: 'local',
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 },
      }),
    );
  });
});
await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
const port = (server.address() as { port: number }).port;
const cacheDir = mkdtempSync(join(tmpdir(), 'equisql-bench-llm-'));
const calls = 500;
const check = (v: unknown) =>
  typeof (v as { question?: unknown }).question === 'string'
    ? { ok: true as const, value: (v as { question: string }).question }
    : { ok: false as const, reason: 'shape' };
for (const label of ['LLM path, local server', 'LLM path, from the cache']) {
  const client = createLlmClient({
    baseURL: `http://127.0.0.1:${port}/v1`,
    apiKey: 'k',
    model: 'local',
    cacheDir,
    rng: createRng('bench'),
  });
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i++)
    await client.complete([{ role: 'user', content: `Write question ${i} ${'x'.repeat(2000)}` }], check);
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  say(
    `${label}: ${calls} calls in ${(ms / 1000).toFixed(2)} s: ${(ms / calls).toFixed(2)} ms per call (${client.usage.requests} requests, ${client.usage.cache_hits} cache hits)`,
  );
}
server.close();
rmSync(cacheDir, { recursive: true, force: true });
