import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUILT_IN_DOMAINS } from '../../generator/domains/index.ts';
import { indexDomain } from '../../generator/er-model/er-index.ts';
import { openDatabase, type Database } from '../../generator/database/database.ts';
import { buildDataset } from '../../generator/assemble/build-dataset.ts';
import { buildRelationalSchema } from '../../generator/variants/build-schema.ts';
import { compileQuery } from '../../generator/compile/compile-query.ts';
import { normalizeResult, runReadOnly } from '../../generator/execute/run-query.ts';
import { PAPER_SOCIAL_MEDIA } from '../../generator/suites/paper-social-media.ts';
import { isOrdered } from '../../generator/query/conceptual-query.ts';
import { createRng } from '../../generator/common/rng.ts';
import { sha256 } from '../../generator/common/hash.ts';
import { createLlmClient } from '../../generator/questions/llm-client.ts';
import { writeLlmQuestion, type LlmWriterContext } from '../../generator/questions/llm-writer.ts';
import { serializeGroup, type GroupRecord } from '../../generator/records/group-record.ts';
import { writeQuestions, questionsPath } from '../../generator/questions/questions-stage.ts';
import type { QuestionRecord } from '../../generator/records/question-record.ts';

// The LLM writer end to end: a real tiny build on PGlite, a chat-completions server on
// 127.0.0.1 that plays the model (each phase recognised by its prompt), and the
// back-translation's SQL run through the guarded executor and compared with the group's answer.

const domain = BUILT_IN_DOMAINS.social_media!;
const index = indexDomain(domain);
let root: string;
let db: Database;
let server: Server;
let url: string;
let group: GroupRecord;
let ctxBase: Omit<LlmWriterContext, 'client'>;
const seen: string[] = [];
/** What the fake model answers to the back-translation prompt. */
let backSql = '';
/** Share of requests answered with a fault (429, 500, a reply that is not JSON, a reply in the wrong shape). */
let faultShare = 0;
let requestNumber = 0;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'equisql-llm-writer-'));
  db = await openDatabase({ kind: 'pglite' });
  const built = await buildDataset({
    dataset: 'social_media',
    domain,
    variants: 'full_cti',
    scale: 'tiny',
    seed: 3,
    profile: 'default',
    target: db,
    out: join(root, 'build'),
    schemaPrefix: 'llmw_',
  });
  const variant = built.manifest.variants[0]!;
  const q02 = PAPER_SOCIAL_MEDIA.find((q) => q.id === 'q02')!;
  const sql = compileQuery(index, buildRelationalSchema(index, variant.spec), q02.query);
  const answer = normalizeResult(await runReadOnly(db, variant.pg_schema, sql), isOrdered(q02.query));
  group = {
    group_id: 'g-q02',
    dataset: 'social_media',
    candidate: 0,
    query: q02.query,
    ordered: false,
    variants: { [variant.name]: { sql, row_count: answer.rows.length, result_hash: answer.hash } },
    skeleton: '',
    long_tail: false,
    reference_variant: variant.name,
    structure_hash: '',
    difficulty: 'easy',
    counts: { joins: 1, aggregates: 1, subqueries: 0, set_operations: 0 },
    distinct_sql: 1,
    verified_on: [],
  };
  ctxBase = {
    model: 'fake',
    index,
    ddl: readFileSync(join(root, 'build', 'schemas', `${variant.name}.sql`), 'utf8'),
    execute: async (text, ordered) =>
      normalizeResult(await runReadOnly(db, variant.pg_schema, text, { timeoutMs: 5000 }), ordered).hash,
  };
  backSql = sql;
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const content = (JSON.parse(body) as { messages: { content: string }[] }).messages[0]!.content;
      const roll = (requestNumber++ * 0.6180339887) % 1;
      if (roll < faultShare) {
        const kind = Math.floor((roll / faultShare) * 4);
        if (kind === 0)
          return void res
            .writeHead(429, { 'content-type': 'application/json', 'retry-after': '0' })
            .end('{"error":{"message":"slow down"}}');
        if (kind === 1)
          return void res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"boom"}}');
        const bad = kind === 2 ? 'not json at all' : JSON.stringify({ unexpected: true });
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            id: 'x',
            object: 'chat.completion',
            created: 0,
            model: 'fake',
            choices: [{ index: 0, message: { role: 'assistant', content: bad }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
          }),
        );
      }
      seen.push(content);
      let reply: unknown;
      // Replies carry a tag of their prompt, so different groups make different later prompts.
      const tag = sha256(content).slice(0, 6);
      if (content.startsWith('You explain database queries'))
        reply = { meaning: `For every creator, the number of content items they produced, 0 for none (${tag}).` };
      else if (content.startsWith('A query over a database means'))
        reply = { intent: `A manager wants each creator's output (${tag}).` };
      else if (content.startsWith('A person wants this'))
        reply = {
          scenario: 'A quarterly review.',
          question: `For every creator (streamers included), how many content items did they produce? Show 0 for creators with none. (${/style "([^"]+)"/u.exec(content)?.[1] ?? ''} ${/\(variant (\d+)\)/u.exec(content)?.[1] ?? ''})`,
          evidence: '',
        };
      else reply = { sql: backSql };
      const text = JSON.stringify({
        id: 'x',
        object: 'chat.completion',
        created: 0,
        model: 'fake',
        choices: [{ index: 0, message: { role: 'assistant', content: JSON.stringify(reply) }, finish_reason: 'stop' }],
        usage: { prompt_tokens: content.length, completion_tokens: 10, total_tokens: content.length + 10 },
      });
      res.writeHead(200, { 'content-type': 'application/json' }).end(text);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
}, 300_000);

afterAll(async () => {
  await new Promise<void>((done) => server.close(() => done()));
  await db.close();
  rmSync(root, { recursive: true, force: true });
});

const client = (cacheDir?: string) =>
  createLlmClient({
    baseURL: url,
    apiKey: 'k',
    model: 'fake',
    rng: createRng('w'),
    baseDelayMs: 1,
    ...(cacheDir ? { cacheDir } : {}),
  });

describe('LLM writer', () => {
  it("runs the three phases and accepts a question whose back-translation gives the group's answer; a rerun is all cache", async () => {
    const cache = join(root, 'cache');
    const first = client(cache);
    const before = seen.length;
    const q = await writeLlmQuestion({ ...ctxBase, client: first }, group, 'conversational', 0);
    expect(seen.length - before).toBe(4);
    // The meaning phase sees the query, the reference SQL and the E/R description; the back-translation only the question, E/R and tables.
    expect(seen[before]).toContain(group.variants[group.reference_variant]!.sql);
    expect(seen[before]).toContain('creator');
    expect(seen[before + 3]).toContain(q.question);
    expect(seen[before + 3]).not.toContain('"kind":"select"');
    expect(q.check.agrees).toBe(true);
    expect(q.rejection).toBe('');
    expect(q.cot.meaning).toMatch(/content items/u);
    expect(first.usage.prompt_tokens).toBeGreaterThan(0);
    const again = client(cache);
    const count = seen.length;
    expect(await writeLlmQuestion({ ...ctxBase, client: again }, group, 'conversational', 0)).toEqual(q);
    expect(seen.length).toBe(count);
    expect(again.usage.cache_hits).toBe(4);
  }, 120_000);

  it('rejects, with a reason, a question whose back-translation answers differently or is refused by the executor', async () => {
    const good = backSql;
    try {
      backSql = `${good.replace(/;\s*$/u, '')} LIMIT 1`;
      const wrong = await writeLlmQuestion({ ...ctxBase, client: client() }, group, 'precise', 0);
      expect(wrong.check.agrees).toBe(false);
      expect(wrong.rejection).toMatch(/another answer/u);
      backSql = 'SELECT pg_sleep(10)';
      const hostile = await writeLlmQuestion({ ...ctxBase, client: client() }, group, 'precise', 0);
      expect(hostile.check.agrees).toBe(false);
      expect(hostile.rejection).toMatch(/failed/u);
    } finally {
      backSql = good;
    }
  }, 120_000);

  it('as the questions stage: accepted questions with their chain of thought, tokens in the manifest, the same bytes from the cache, rejections apart', async () => {
    const dir = join(root, 'build');
    mkdirSync(join(dir, 'groups'), { recursive: true });
    writeFileSync(join(dir, 'groups', 'social_media.jsonl'), serializeGroup(group));
    const before = seen.length;
    const llm = { baseURL: url, apiKey: 'k', model: 'fake', db, baseDelayMs: 1 };
    await writeQuestions({ dir, writer: 'llm', llm, styles: ['precise', 'concise'], paraphrases: 2 });
    const text = readFileSync(questionsPath(dir, 'social_media'), 'utf8');
    const records = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as QuestionRecord);
    expect(records.map((r) => [r.style, r.paraphrase])).toEqual([
      ['precise', 0],
      ['precise', 1],
      ['concise', 0],
      ['concise', 1],
    ]);
    for (const r of records) {
      expect(r.writer).toEqual({ kind: 'llm', model: 'fake' });
      expect(r.cot?.intent).toMatch(/manager/u);
      expect(r.check.kind === 'back-translation' && r.check.agrees).toBe(true);
    }
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as {
      questions: { usage: { requests: number; prompt_tokens: number } };
    };
    expect(manifest.questions.usage.requests).toBe(seen.length - before);
    expect(manifest.questions.usage.prompt_tokens).toBeGreaterThan(0);
    const sent = seen.length;
    await writeQuestions({ dir, writer: 'llm', llm, styles: ['precise', 'concise'], paraphrases: 2 });
    expect(seen.length).toBe(sent);
    expect(readFileSync(questionsPath(dir, 'social_media'), 'utf8')).toBe(text);

    const good = backSql;
    try {
      backSql = 'SELECT 1 AS n';
      await writeQuestions({ dir, writer: 'llm', llm, styles: ['imperative'], paraphrases: 1 });
      expect(readFileSync(questionsPath(dir, 'social_media'), 'utf8')).toBe('');
      expect(existsSync(join(dir, 'questions-rejections.jsonl'))).toBe(true);
      const rejected = readFileSync(join(dir, 'questions-rejections.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { reason: string });
      expect(rejected).toHaveLength(1);
      expect(rejected[0]?.reason).toMatch(/another answer/u);
    } finally {
      backSql = good;
    }
  }, 120_000);

  it('stops cleanly when the token budget is spent, and --resume continues to the bytes of a run without a budget', async () => {
    const dir = join(root, 'build');
    rmSync(join(dir, 'questions'), { recursive: true, force: true });
    writeFileSync(
      join(dir, 'groups', 'social_media.jsonl'),
      serializeGroup(group) + serializeGroup({ ...group, group_id: 'g-q02-again', candidate: 1 }),
    );
    const llm = { baseURL: url, apiKey: 'k', model: 'fake', db, baseDelayMs: 1, concurrency: 1 };
    // The budget: what the first group's requests cost, so that group is written and the second's first request is not sent.
    writeFileSync(join(dir, 'groups', 'social_media.jsonl'), serializeGroup(group));
    await writeQuestions({ dir, writer: 'llm', llm, styles: ['precise'], paraphrases: 1 });
    const firstGroup = (
      JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as {
        questions: { tokens_in: number; tokens_out: number };
      }
    ).questions;
    rmSync(join(dir, 'questions'), { recursive: true, force: true });
    // The second group's SQL differs in a trailing space, so its prompts are not the first's (cached, they would cost nothing).
    const ref = group.reference_variant;
    const again = {
      ...group,
      group_id: 'g-q02-again',
      candidate: 1,
      variants: { [ref]: { ...group.variants[ref]!, sql: `${group.variants[ref]!.sql} ` } },
    };
    writeFileSync(join(dir, 'groups', 'social_media.jsonl'), serializeGroup(group) + serializeGroup(again));
    const lines: string[] = [];
    await writeQuestions({
      dir,
      writer: 'llm',
      llm: { ...llm, budget: firstGroup.tokens_in + firstGroup.tokens_out },
      styles: ['precise'],
      paraphrases: 1,
      progress: (l) => lines.push(l),
    });
    const cut = readFileSync(questionsPath(dir, 'social_media'), 'utf8');
    expect(
      cut
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as QuestionRecord).group_id),
    ).toEqual(['g-q02']);
    expect(lines.join('\n')).toMatch(/budget \(\d+\) is spent; stopped before group 2 of 2/u);
    await writeQuestions({ dir, writer: 'llm', llm, styles: ['precise'], paraphrases: 1, resume: true });
    const resumed = readFileSync(questionsPath(dir, 'social_media'), 'utf8');
    rmSync(join(dir, 'questions', 'social_media.jsonl'));
    await writeQuestions({ dir, writer: 'llm', llm, styles: ['precise'], paraphrases: 1 });
    expect(resumed).toBe(readFileSync(questionsPath(dir, 'social_media'), 'utf8'));
    expect(resumed.trim().split('\n')).toHaveLength(2);
  }, 120_000);

  it("under injected faults, the questions file equals a fault-free run's: no record lost or duplicated", async () => {
    const dir = join(root, 'build');
    // One query, thirty groups; the reference SQL differs in trailing spaces only, so each group's prompts differ.
    const ref = group.reference_variant;
    const groups = Array.from({ length: 30 }, (_, i) =>
      serializeGroup({
        ...group,
        group_id: `g-${i}`,
        candidate: i,
        variants: { [ref]: { ...group.variants[ref]!, sql: `${group.variants[ref]!.sql}${' '.repeat(i)}` } },
      }),
    );
    writeFileSync(join(dir, 'groups', 'social_media.jsonl'), groups.join(''));
    const llm = { baseURL: url, apiKey: 'k', model: 'fake', db, baseDelayMs: 1, concurrency: 6 };
    const run = async (share: number) => {
      rmSync(join(dir, 'questions'), { recursive: true, force: true });
      faultShare = share;
      try {
        await writeQuestions({ dir, writer: 'llm', llm, styles: ['precise'], paraphrases: 2 });
      } finally {
        faultShare = 0;
      }
      return readFileSync(questionsPath(dir, 'social_media'), 'utf8');
    };
    const start = requestNumber;
    const clean = await run(0);
    // Every question is accepted: concurrent groups' back-translations share one connection safely.
    expect(clean.trim().split('\n')).toHaveLength(60);
    expect(
      existsSync(join(dir, 'questions-rejections.jsonl'))
        ? readFileSync(join(dir, 'questions-rejections.jsonl'), 'utf8')
        : '',
    ).not.toMatch(/"g-\d+"/u);
    const cleanRequests = requestNumber - start;
    const before = requestNumber;
    const faulty = await run(0.3);
    // The faults cost retries: more requests for the same output.
    expect(requestNumber - before).toBeGreaterThan(cleanRequests);
    expect(faulty).toBe(clean);
    const ids = faulty
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as QuestionRecord).question_id);
    expect(ids).toHaveLength(60);
    expect(new Set(ids).size).toBe(60);
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as {
      questions: { usage: { failures: Record<string, number> } };
    };
    expect(Object.values(manifest.questions.usage.failures).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
  }, 180_000);
});
