// @tier long
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runCliAsync, runMain } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/build-fixtures.ts';
import { startSqlModelServer } from '../helpers/sql-model-server.ts';
import { PAPER_SOCIAL_MEDIA } from '../../generator/suites/paper-social-media.ts';
import { readEvalInputs, type EvalInputs } from '../../generator/eval/eval-inputs.ts';
import { evalMessages, promptHash } from '../../generator/eval/eval-prompt.ts';
import { replySql } from '../../generator/eval/reply-sql.ts';
import type { EvalRun, EvalSummary, PredictionLine } from '../../generator/eval/eval-summary.ts';
import type { ChatMessage } from '../../generator/questions/llm-client.ts';

// Which prompt a model is asked, and how its reply is read: a model served on 127.0.0.1
// that knows only the fine-tuning prompt, and one that answers in twenty shapes of reply,
// each scored through the endpoint and through a predictions file.
const tmp = tempDir('eval-prompt-replies');
afterAll(() => tmp.remove());
const noServer = { DATABASE_URL: undefined };
const dir = join(tmp.dir, 'generated');
const lines = (path: string): string[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '');
const summaryOf = (out: string): EvalSummary =>
  JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as EvalSummary;
const predictionsOf = (out: string): PredictionLine[] =>
  lines(join(out, 'predictions.jsonl')).map((l) => JSON.parse(l) as PredictionLine);
const evalArgs = (out: string, ...rest: string[]): string[] => [
  'eval',
  '--dir',
  dir,
  '--split',
  'test',
  ...rest,
  '--out',
  out,
];

let inputs: EvalInputs;

beforeAll(() => {
  const suite = join(tmp.dir, 'suite.jsonl');
  writeFileSync(
    suite,
    PAPER_SOCIAL_MEDIA.map((q) => JSON.stringify({ id: q.id, query: q.query, question: q.question })).join('\n') + '\n',
  );
  const generated = runCli(
    [
      'generate',
      '--dataset',
      'social_media',
      '--variants',
      'full_normalized,full_sti',
      '--scale',
      'tiny',
      '--from-suite',
      suite,
      '--variants-per-question',
      'all',
      '--out',
      dir,
    ],
    { env: noServer },
  );
  expect(generated.stderr).toMatch(/groups from/);
  const exported = runCli(['export', '--dir', dir, '--ratios', 'test=1'], { env: noServer });
  expect(exported.status, exported.stderr).toBe(0);
  inputs = readEvalInputs(dir, 'test');
  expect(inputs.rows.length).toBeGreaterThanOrEqual(20);
}, 300_000);

describe('eval --prompt', () => {
  it("training asks exactly the fine-tuning turns (a model tuned on them scores 100%), paper the paper's (it scores less); run.json says which", async () => {
    // The model knows the fine-tuning files' prompts and nothing else: their gold is its answer.
    const tuned = lines(join(dir, 'finetune/test.chat.jsonl')).map(
      (l) => JSON.parse(l) as { id: string; messages: ChatMessage[] },
    );
    expect(tuned.map((t) => t.id)).toEqual(inputs.rows.map((r) => r.id));
    const known = new Map(
      tuned.map((t) => [promptHash(t.messages.slice(0, 2)), (t.messages[2] as ChatMessage).content]),
    );
    const server = await startSqlModelServer(known);
    try {
      const training = join(tmp.dir, 'training');
      const run = await runCliAsync(
        evalArgs(training, '--model', 'tuned', '--base-url', server.url, '--prompt', 'training'),
        { env: noServer },
      );
      expect(run.status, run.stderr).toBe(0);
      expect(summaryOf(training).ex).toEqual({ correct: inputs.rows.length, total: inputs.rows.length, rate: 1 });
      expect(new Set(server.received)).toEqual(new Set(known.keys()));
      expect((JSON.parse(readFileSync(join(training, 'run.json'), 'utf8')) as EvalRun).prompt).toBe('training');

      const paper = join(tmp.dir, 'paper');
      const asked = server.received.length;
      const other = await runCliAsync(
        evalArgs(paper, '--model', 'tuned', '--base-url', server.url, '--prompt', 'paper'),
        { env: noServer },
      );
      expect(other.status, other.stderr).toBe(0);
      expect(summaryOf(paper).ex.rate).toBeLessThan(1);
      expect(server.received.slice(asked).some((h) => known.has(h))).toBe(false);
      expect((JSON.parse(readFileSync(join(paper, 'run.json'), 'utf8')) as EvalRun).prompt).toBe('paper');
      // A run under one prompt is not resumed under the other.
      const mixed = await runCliAsync(
        [...evalArgs(paper, '--model', 'tuned', '--base-url', server.url, '--prompt', 'training'), '--resume'],
        { env: noServer },
      );
      expect(mixed.status).toBe(2);
      expect(mixed.stderr).toMatch(/holds another evaluation \(its prompt was "paper", now "training"\)/u);
    } finally {
      await server.close();
    }
  }, 300_000);

  it('refuses an unknown prompt, and the training prompt with the E/R context, in one line', () => {
    for (const [extra, message] of [
      [['--prompt', 'chat'], /--prompt: expected paper or training, got "chat"/u],
      [
        ['--prompt', 'training', '--context', 'ddl+er'],
        /--prompt training: the fine-tuning prompt shows the schema only; it does not go with --context ddl\+er/u,
      ],
    ] as const) {
      const run = runCli([...evalArgs(join(tmp.dir, 'refused'), '--model', 'gold'), ...extra], { env: noServer });
      expect(run.status).toBe(2);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr).toMatch(message);
    }
  });
});

type Scored = 'correct' | 'wrong' | 'missing' | 'refused';
const DRAFT = "SELECT 'draft' AS x";
/** Twenty shapes of reply around the gold `g` (no trailing semicolon), and how each must score. */
const SHAPES: readonly { readonly shape: string; readonly reply: (g: string) => string; readonly scored: Scored }[] = [
  { shape: 'bare SQL', reply: (g) => g, scored: 'correct' },
  { shape: 'a sql fence', reply: (g) => `\`\`\`sql\n${g}\n\`\`\``, scored: 'correct' },
  { shape: 'an untagged fence', reply: (g) => `\`\`\`\n${g}\n\`\`\``, scored: 'correct' },
  { shape: 'a postgresql fence', reply: (g) => `\`\`\`postgresql\n${g};\n\`\`\``, scored: 'correct' },
  {
    shape: 'a think block, then bare SQL',
    reply: (g) => `<think>\nThe question wants rows where a < b; I should join.\n</think>\n\n${g}`,
    scored: 'correct',
  },
  {
    shape: 'a fenced draft inside the think block, the answer fenced after it',
    reply: (g) =>
      `<think>\nFirst try:\n\`\`\`sql\n${DRAFT}\n\`\`\`\nNo, that is wrong.\n</think>\n\`\`\`sql\n${g}\n\`\`\``,
    scored: 'correct',
  },
  {
    shape: 'a closing </think> only (the template opened it)',
    reply: (g) => `Let me look at the tables.\nSELECT is needed.\n</think>\n\n${g}`,
    scored: 'correct',
  },
  {
    shape: 'a think block never closed (cut off)',
    reply: (g) => `<think>\nI would write ${g} but let me check`,
    scored: 'missing',
  },
  {
    shape: 'a "Reasoning:" preface',
    reply: (g) => `Reasoning: the streamers are in one table; filter, then project.\n${g}`,
    scored: 'correct',
  },
  {
    shape: 'a "Reasoning:" preface and an "SQL:" label',
    reply: (g) => `Reasoning: select the accounts, then count.\n\nSQL: ${g}`,
    scored: 'correct',
  },
  {
    shape: 'prose around a fence',
    reply: (g) => `Here is the query:\n\n\`\`\`sql\n${g}\n\`\`\`\n\nIt returns the rows the question asks for.`,
    scored: 'correct',
  },
  {
    shape: 'a draft fence, then the final fence',
    reply: (g) => `Draft:\n\`\`\`sql\n${DRAFT}\n\`\`\`\nFinal:\n\`\`\`sql\n${g}\n\`\`\``,
    scored: 'correct',
  },
  {
    shape: 'the gold fenced, then a wrong fence (the last wins)',
    reply: (g) => `\`\`\`sql\n${g}\n\`\`\`\nOr rather:\n\`\`\`sql\n${DRAFT}\n\`\`\``,
    scored: 'wrong',
  },
  {
    shape: 'a refusal in words',
    reply: () => 'I cannot answer this question with the given schema.',
    scored: 'missing',
  },
  { shape: 'an empty reply', reply: () => '', scored: 'missing' },
  { shape: 'an empty fence', reply: () => '```sql\n```', scored: 'missing' },
  { shape: 'prose after the statement', reply: (g) => `${g};\n\nThis query lists what was asked.`, scored: 'correct' },
  { shape: 'a fence never closed (cut off after the SQL)', reply: (g) => `\`\`\`sql\n${g}`, scored: 'correct' },
  { shape: 'a <thinking> block', reply: (g) => `<thinking>Use ${DRAFT}? No.</thinking>\n${g}`, scored: 'correct' },
  { shape: 'a statement that is not a query', reply: () => "UPDATE accounts SET username = 'x'", scored: 'refused' },
];

describe('reply parsing', () => {
  it('has twenty shapes', () => {
    expect(SHAPES).toHaveLength(20);
  });

  it('scores each of the twenty shapes as the table says, through an endpoint and through a predictions file, to the same bytes', async () => {
    const rows = inputs.rows;
    const shapeOf = (i: number) => SHAPES[i % SHAPES.length] as (typeof SHAPES)[number];
    const gold = (sql: string) => sql.trim().replace(/;$/u, '');
    const replies = new Map<string, string>();
    rows.forEach((r, i) => {
      const v = inputs.variants.find((x) => x.name === r.variant);
      replies.set(promptHash(evalMessages(v?.ddl as string, r)), shapeOf(i).reply(gold(r.sql)));
    });
    const server = await startSqlModelServer(replies, 0, true);
    const endpoint = join(tmp.dir, 'shapes-endpoint');
    try {
      const run = await runCliAsync(evalArgs(endpoint, '--model', 'shapes', '--base-url', server.url), {
        env: noServer,
      });
      expect(run.status, run.stderr).toBe(0);
    } finally {
      await server.close();
    }
    const file = join(tmp.dir, 'shapes.jsonl');
    writeFileSync(
      file,
      rows.map((r, i) => JSON.stringify({ id: r.id, sql: shapeOf(i).reply(gold(r.sql)) })).join('\n') + '\n',
    );
    const fromFile = join(tmp.dir, 'shapes-file');
    const run = await runCliAsync(evalArgs(fromFile, '--predictions', file), { env: noServer });
    expect(run.status, run.stderr).toBe(0);
    expect(readFileSync(join(fromFile, 'predictions.jsonl'))).toEqual(
      readFileSync(join(endpoint, 'predictions.jsonl')),
    );

    const scoredAs = (l: PredictionLine): Scored =>
      l.correct ? 'correct' : l.outcome === 'rows' ? 'wrong' : (l.outcome as Scored);
    predictionsOf(endpoint).forEach((l, i) => {
      expect(`${shapeOf(i).shape}: ${scoredAs(l)}`, `${l.sql} ${l.message}`).toBe(
        `${shapeOf(i).shape}: ${shapeOf(i).scored}`,
      );
    });
    // The rule itself, on each reply: the SQL kept is the gold where the table says correct.
    rows.forEach((r, i) => {
      const kept = replySql(shapeOf(i).reply(gold(r.sql)));
      if (shapeOf(i).scored === 'missing') expect(kept, shapeOf(i).shape).toBeNull();
      if (shapeOf(i).scored === 'correct') expect(kept?.replace(/;$/u, ''), shapeOf(i).shape).toBe(gold(r.sql));
    });
  }, 300_000);
});

describe('an endpoint that does not answer', () => {
  it('is named in one line before any request, connection or file: a refused port, and a port that accepts and never answers', async () => {
    const { createServer } = await import('node:net');
    // A port nobody listens on: bind one, note it, close it.
    const closed = createServer();
    await new Promise<void>((done) => closed.listen(0, '127.0.0.1', done));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((done) => closed.close(() => done()));
    const refusedOut = join(tmp.dir, 'refused');
    const refused = await runMain(evalArgs(refusedOut, '--model', 'm', '--base-url', `http://127.0.0.1:${port}/v1`), {
      env: noServer,
    });
    expect(refused.status).toBe(2);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(
      new RegExp(
        `--model: the endpoint http://127\\.0\\.0\\.1:${port}/v1 does not answer \\(ECONNREFUSED\\); nothing was sent`,
        'u',
      ),
    );
    expect(existsSync(refusedOut)).toBe(false);

    // A server that takes the connection and says nothing: the probe's timeout ends it.
    const silent = createServer(() => {});
    await new Promise<void>((done) => silent.listen(0, '127.0.0.1', done));
    try {
      const before = readdirSync(dir).sort();
      const url = `http://127.0.0.1:${(silent.address() as { port: number }).port}/v1`;
      const run = await runMain(['questions', '--dir', dir, '--writer', 'llm', '--llm-model', 'm'], {
        env: { ...noServer, OPENAI_BASE_URL: url },
      });
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(
        /^equisql questions: questions --writer llm: the endpoint .* does not answer \(no answer within 5 s\); nothing was sent\n$/u,
      );
      expect(readdirSync(dir).sort()).toEqual(before);
    } finally {
      silent.close();
    }
  }, 60_000);
});
