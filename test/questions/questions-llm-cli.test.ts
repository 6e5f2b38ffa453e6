// @tier long
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GroupRecord } from '../../generator/records/group-record.ts';
import type { QuestionRecord } from '../../generator/records/question-record.ts';
import { runCli, runCliAsync } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import { startChatServer, type ChatServer } from '../helpers/chat-completions-server.ts';

// `equisql questions --writer llm` as a user runs it: a real tiny `generate` into a directory
// (PGlite stored there), then the questions command in a child process whose endpoint
// (OPENAI_BASE_URL) is a chat-completions server this test runs on 127.0.0.1. The model and
// its price come from a config file; the manifest records tokens and the cost.

const NO_SERVER = { DATABASE_URL: undefined };
let tmp: ReturnType<typeof tempDir>;
let dir: string;
let config: string;
let server: ChatServer;
let groups: GroupRecord[];

beforeAll(async () => {
  tmp = tempDir('questions-llm-cli');
  dir = join(tmp.dir, 'out');
  const generate = runCli(
    [
      'generate',
      '--dataset',
      'social_media',
      '--variants',
      'full_cti,full_sti',
      '--scale',
      'tiny',
      '--groups',
      '3',
      '--out',
      dir,
    ],
    { env: NO_SERVER },
  );
  expect(generate.status, generate.stderr).toBe(0);
  groups = readFileSync(join(dir, 'groups', 'social_media.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as GroupRecord);
  config = join(tmp.dir, 'equisql.config.ts');
  // Prices far above real ones, so the cost is a figure the test can check to the cent.
  writeFileSync(
    config,
    `export default { datasets: {}, llm: { model: 'local-model', prices: { 'local-model': { input: 100, output: 400 } } } };\n`,
  );
  server = await startChatServer();
}, 300_000);

afterAll(async () => {
  await server?.close();
  tmp?.remove();
});

const env = () => ({ ...NO_SERVER, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'local-key' });
const questionsFile = () => join(dir, 'questions', 'social_media.jsonl');
const manifest = () =>
  (
    JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as {
      questions: Record<string, unknown> & { usage: { requests: number; cache_hits: number } };
    }
  ).questions;

describe('equisql questions --writer llm', () => {
  it('writes checked LLM questions with their chain of thought, tokens and cost in the manifest; a rerun sends nothing and gives the same bytes', async () => {
    const args = [
      'questions',
      '--dir',
      dir,
      '--writer',
      'llm',
      '--styles',
      'precise,implicit',
      '--paraphrases',
      '1',
      '--config',
      config,
      '--quiet',
    ];
    const first = await runCliAsync(args, { env: env() });
    expect(first.status, first.stderr).toBe(0);
    const text = readFileSync(questionsFile(), 'utf8');
    const records = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as QuestionRecord);
    // Every group, both styles, every back-translation agreeing (the fake model answers with the reference SQL).
    expect(records.map((r) => `${r.group_id} ${r.style}`)).toEqual(
      groups.flatMap((g) => [`${g.group_id} precise`, `${g.group_id} implicit`]),
    );
    for (const r of records) {
      expect(r.writer).toEqual({ kind: 'llm', model: 'local-model' });
      expect(r.cot?.meaning).toMatch(/\[ref [0-9a-f]{8}\]/u);
      expect(r.cot?.intent).toMatch(/analyst/u);
      expect(r.cot?.scenario).not.toBe('');
      const group = groups.find((g) => g.group_id === r.group_id)!;
      expect(r.check).toMatchObject({
        kind: 'back-translation',
        variant: group.reference_variant,
        agrees: true,
        result_hash: group.variants[group.reference_variant]!.result_hash,
      });
    }
    expect(records.filter((r) => r.style === 'implicit').every((r) => r.evidence !== '')).toBe(true);
    // Four phases per question; the first two do not depend on the style, so a group's
    // second style takes them from the cache. The server never failed: one request a call.
    const q = manifest();
    expect(q['model']).toBe('local-model');
    expect(server.prompts).toHaveLength(groups.length * 2 + records.length * 2);
    expect(q.usage.requests).toBe(server.prompts.length);
    expect(q.usage.requests + q.usage.cache_hits).toBe(records.length * 4);
    expect(q['tokens_in']).toBe(server.usage.prompt_tokens);
    expect(q['tokens_out']).toBe(server.usage.completion_tokens);
    expect(q['price_per_million_tokens']).toEqual({ input: 100, output: 400 });
    const cost = (server.usage.prompt_tokens * 100 + server.usage.completion_tokens * 400) / 1e6;
    expect(q['estimated_cost_usd']).toBeCloseTo(cost, 6);
    expect(cost).toBeGreaterThan(0.01);

    const sent = server.prompts.length;
    const again = await runCliAsync(args, { env: env() });
    expect(again.status, again.stderr).toBe(0);
    expect(server.prompts.length).toBe(sent);
    expect(readFileSync(questionsFile(), 'utf8')).toBe(text);
    expect(manifest().usage).toMatchObject({ requests: 0, cache_hits: records.length * 4 });
    expect(manifest()['estimated_cost_usd']).toBe(0);
  }, 300_000);

  it("--llm-model overrides the config's model; a model without a price has an unknown cost", async () => {
    const run = await runCliAsync(
      [
        'questions',
        '--dir',
        dir,
        '--writer',
        'llm',
        '--styles',
        'concise',
        '--paraphrases',
        '1',
        '--config',
        config,
        '--llm-model',
        'unpriced-model',
        '--quiet',
      ],
      { env: env() },
    );
    expect(run.status, run.stderr).toBe(0);
    const records = readFileSync(questionsFile(), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as QuestionRecord);
    expect(records).toHaveLength(groups.length);
    expect(records.every((r) => r.writer.kind === 'llm' && r.writer.model === 'unpriced-model')).toBe(true);
    const q = manifest();
    expect(q['model']).toBe('unpriced-model');
    expect(q['tokens_in']).toBeGreaterThan(0);
    expect(q['price_per_million_tokens']).toBe('unknown');
    expect(q['estimated_cost_usd']).toBe('unknown');
  }, 300_000);

  it('refuses a bad llm section or a missing endpoint with one line and exit 2, the questions file untouched', async () => {
    const before = readFileSync(questionsFile(), 'utf8');
    const bad = join(tmp.dir, 'bad.config.ts');
    writeFileSync(
      bad,
      `export default { datasets: {}, llm: { model: 'm', prices: { m: { input: 0.15, ouput: 0.6 } } } };\n`,
    );
    const refused = await runCliAsync(['questions', '--dir', dir, '--writer', 'llm', '--config', bad], { env: env() });
    expect(refused.status).toBe(2);
    expect(refused.stderr).toBe(
      `equisql questions: ${bad}: llm.prices.m.ouput: unknown key (did you mean "output"?)\n`,
    );
    const noEndpoint = await runCliAsync(['questions', '--dir', dir, '--writer', 'llm', '--config', config], {
      env: { ...NO_SERVER, OPENAI_BASE_URL: undefined },
    });
    expect(noEndpoint.status).toBe(2);
    expect(noEndpoint.stderr).toBe(
      'equisql questions: --writer llm needs an endpoint: OPENAI_BASE_URL or llm.baseURL in the config\n',
    );
    expect(readFileSync(questionsFile(), 'utf8')).toBe(before);
  }, 120_000);
});
