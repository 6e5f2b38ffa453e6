import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pLimit from 'p-limit';
import { createLlmClient, type ReplyCheck } from '../../generator/questions/llm-client.ts';
import { createRng } from '../../generator/common/rng.ts';
import { sha256 } from '../../generator/common/hash.ts';
import { LlmError } from '../../generator/common/errors.ts';
import { sized } from '../helpers/tiers.ts';

// A chat-completions server on 127.0.0.1 that answers each prompt with a reply derived from
// it, and injects faults on a seeded share of requests: 429 with Retry-After, 500, a hung
// connection, a body cut off, a reply that is not JSON, a reply in the wrong shape.

type Fault = 'none' | '429' | '500' | 'hang' | 'truncated' | 'invalid-json' | 'wrong-shape';
const FAULTS: Fault[] = ['429', '500', 'hang', 'truncated', 'invalid-json', 'wrong-shape'];

interface FakeEndpoint {
  readonly url: string;
  readonly counts: Record<Fault, number>;
  requests: number;
  /** Tokens of every complete reply sent. */
  tokens: { prompt: number; completion: number };
  close(): Promise<void>;
}

async function startEndpoint(faultShare: number): Promise<FakeEndpoint> {
  const hung: ServerResponse[] = [];
  const counts = Object.fromEntries(['none', ...FAULTS].map((f) => [f, 0])) as Record<Fault, number>;
  const state = { requests: 0, tokens: { prompt: 0, completion: 0 } };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const n = state.requests++;
      const roll = parseInt(sha256(`fault/${n}`).slice(0, 8), 16) / 0xffffffff;
      const fault: Fault =
        roll < faultShare ? (FAULTS[Math.floor((roll / faultShare) * FAULTS.length)] as Fault) : 'none';
      counts[fault]++;
      const request = JSON.parse(body) as { messages: { content: string }[] };
      const prompt = request.messages.map((m) => m.content).join('\n');
      let content = JSON.stringify({ question: `Q ${sha256(prompt).slice(0, 12)}` });
      if (fault === 'invalid-json') content = 'Sure! Here is the question: …';
      if (fault === 'wrong-shape') content = JSON.stringify({ answer: 42 });
      const usage = { prompt_tokens: Math.ceil(prompt.length / 4), completion_tokens: Math.ceil(content.length / 4) };
      const reply = JSON.stringify({
        id: `c${n}`,
        object: 'chat.completion',
        created: 0,
        model: 'fake',
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
        usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
      });
      if (fault === '429') {
        res
          .writeHead(429, { 'content-type': 'application/json', 'retry-after': '0' })
          .end(JSON.stringify({ error: { message: 'slow down' } }));
      } else if (fault === '500') {
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'boom' } }));
      } else if (fault === 'hang') {
        hung.push(res);
      } else if (fault === 'truncated') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(reply)) });
        res.write(reply.slice(0, Math.floor(reply.length / 2)));
        res.socket?.destroy();
      } else {
        state.tokens.prompt += usage.prompt_tokens;
        state.tokens.completion += usage.completion_tokens;
        res.writeHead(200, { 'content-type': 'application/json' }).end(reply);
      }
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}/v1`,
    counts,
    get requests() {
      return state.requests;
    },
    get tokens() {
      return state.tokens;
    },
    close: async () => {
      for (const r of hung) r.socket?.destroy();
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    },
  } as FakeEndpoint;
}

const check: ReplyCheck<string> = (value) =>
  typeof value === 'object' && value !== null && typeof (value as { question?: unknown }).question === 'string'
    ? { ok: true, value: (value as { question: string }).question }
    : { ok: false, reason: 'no "question" string' };

// 200 calls by default, 1,000 in the acceptance tier.
const CALLS = sized('EQUISQL_LLM_CALLS', 200, 1000);
const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c();
});

async function runCalls(url: string, cacheDir: string) {
  const client = createLlmClient({
    baseURL: url,
    apiKey: 'test',
    model: 'fake',
    cacheDir,
    timeoutMs: 1500,
    baseDelayMs: 1,
    maxAttempts: 12,
    rng: createRng('llm-test'),
  });
  const limit = pLimit(16);
  const results = await Promise.all(
    Array.from({ length: CALLS }, (_, i) =>
      limit(() => client.complete([{ role: 'user', content: `Write question ${i}` }], check)),
    ),
  );
  return { results, usage: client.usage };
}

describe('LLM client against a real chat-completions server', () => {
  it(`over ${CALLS} calls with injected faults, loses and duplicates nothing and equals a fault-free run; a rerun is all cache`, async () => {
    const root = mkdtempSync(join(tmpdir(), 'equisql-llm-'));
    cleanup.push(() => rmSync(root, { recursive: true, force: true }));
    const clean = await startEndpoint(0);
    cleanup.push(() => clean.close());
    const faulty = await startEndpoint(0.4);
    cleanup.push(() => faulty.close());

    const reference = await runCalls(clean.url, join(root, 'cache-clean'));
    // A loaded machine can time out a clean request too; then it is retried.
    expect(clean.requests).toBeGreaterThanOrEqual(CALLS);
    const run = await runCalls(faulty.url, join(root, 'cache'));
    expect(run.results).toEqual(reference.results);
    expect(new Set(run.results).size).toBe(CALLS);
    for (const f of FAULTS) expect(faulty.counts[f], f).toBeGreaterThan(0);
    // Every request the server saw is one the client counted, and every failure has its kind.
    expect(run.usage.requests).toBe(faulty.requests);
    const failures = Object.values(run.usage.failures).reduce((a, b) => a + b, 0);
    expect(run.usage.requests - failures).toBe(CALLS);
    // A fault the server sent after the client's deadline (a loaded machine) is a timeout.
    const kinds = [
      ['rate-limited', '429'],
      ['server-error', '500'],
      ['wrong-shape', 'wrong-shape'],
    ] as const;
    let late = 0;
    for (const [kind, fault] of kinds) {
      expect(run.usage.failures[kind], kind).toBeGreaterThan(0);
      expect(run.usage.failures[kind], kind).toBeLessThanOrEqual(faulty.counts[fault]);
      late += faulty.counts[fault] - run.usage.failures[kind];
    }
    expect(run.usage.failures.timeout).toBeGreaterThanOrEqual(faulty.counts.hang + late);
    // Tokens: every complete reply, rejected ones included, is counted once.
    const delivered = faulty.tokens;
    expect(run.usage.prompt_tokens).toBeGreaterThanOrEqual(delivered.prompt);
    expect(run.usage.completion_tokens).toBeGreaterThanOrEqual(delivered.completion);

    const before = faulty.requests;
    const again = await runCalls(faulty.url, join(root, 'cache'));
    expect(faulty.requests).toBe(before);
    expect(again.usage.cache_hits).toBe(CALLS);
    expect(again.results).toEqual(run.results);
  }, 300_000);

  it('gives up with one LlmError line after the last attempt, and refuses a 4xx at once', async () => {
    const server = await startEndpoint(1);
    cleanup.push(() => server.close());
    const client = createLlmClient({
      baseURL: server.url,
      apiKey: 'k',
      model: 'fake',
      timeoutMs: 200,
      baseDelayMs: 1,
      maxAttempts: 3,
      rng: createRng('x'),
    });
    await expect(client.complete([{ role: 'user', content: 'q' }], check)).rejects.toThrow(LlmError);
    // Under load the client can give up on its last attempt before the server has read it: wait
    // for the server to see it (or for a second to pass), then count.
    for (let waited = 0; server.requests < 3 && waited < 1000; waited += 20)
      await new Promise((r) => setTimeout(r, 20));
    expect(server.requests).toBe(3);
    const refusing = createServer((_req, res) =>
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":{"message":"bad key"}}'),
    );
    await new Promise<void>((done) => refusing.listen(0, '127.0.0.1', done));
    cleanup.push(() => new Promise<void>((done) => refusing.close(() => done())));
    const port = (refusing.address() as { port: number }).port;
    const denied = createLlmClient({
      baseURL: `http://127.0.0.1:${port}/v1`,
      apiKey: 'k',
      model: 'fake',
      maxAttempts: 5,
      rng: createRng('y'),
    });
    await expect(denied.complete([{ role: 'user', content: 'q' }], check)).rejects.toThrow(
      /refused the request \(401\)/u,
    );
    expect(denied.usage.requests).toBe(1);
  }, 60_000);
});
