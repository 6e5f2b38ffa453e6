import { createServer, type Server, type ServerResponse } from 'node:http';
import { sha256 } from '../../generator/common/hash.ts';

// A chat-completions endpoint on 127.0.0.1 that plays the model for the LLM question writer:
// it recognises each of the writer's phases by its prompt (templates/llm/*.md) and answers in
// the JSON each phase asks for. It answers the back-translation with the reference SQL it saw
// in the meaning phase of the same question (a tag carried through the phases links them), so
// the writer's check executes real SQL and can agree; `backTranslation` overrides that.

/** The writer's phase a prompt belongs to, by its first words. */
export type ChatPhase = 'meaning' | 'intent' | 'question' | 'back-translation';

/** One request as the server received it, with the reply it would give. */
export interface ChatRequest {
  readonly phase: ChatPhase;
  /** The messages exactly as sent. */
  readonly messages: readonly { readonly role: string; readonly content: string }[];
  /** The messages' texts joined. */
  readonly content: string;
  /** The JSON object the server answers (its `content`), before an `intercept` changes anything. */
  readonly reply: Record<string, string>;
}

export interface ChatServer {
  /** The base URL to give the client (`…/v1`). */
  readonly url: string;
  /** Every prompt received, in order. */
  readonly prompts: string[];
  /** Tokens the server reported, summed over its replies. */
  readonly usage: { prompt_tokens: number; completion_tokens: number };
  /** When set, the SQL answered to every back-translation prompt. */
  backTranslation: string | undefined;
  /** Every request received, in order, with its messages. */
  readonly requests: ChatRequest[];
  /**
   * When set, sees each request first: it answers (returning true) with anything — a cut
   * body, an error status, a reply of its own through `sendCompletion` — or returns false
   * for the usual reply.
   */
  intercept: ((request: ChatRequest, res: ServerResponse) => boolean) | undefined;
  close(): Promise<void>;
}

/** Answers a chat completion whose message is `content`, with `usage` as given (any JSON value, for hostile tests). */
export function sendCompletion(res: ServerResponse, content: string, usage: unknown): void {
  const text = JSON.stringify({
    id: 'chatcmpl-local',
    object: 'chat.completion',
    created: 0,
    model: 'local',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage,
  });
  res.writeHead(200, { 'content-type': 'application/json' }).end(text);
}

const MEANING_SQL = /The same query as SQL on one of the database's schemas:\n\n([\s\S]*?)\n\nA literal reading/u;

/** Starts the server on a free port of 127.0.0.1. */
export async function startChatServer(): Promise<ChatServer> {
  const sqlByTag = new Map<string, string>();
  const state: ChatServer = {
    url: '',
    prompts: [],
    usage: { prompt_tokens: 0, completion_tokens: 0 },
    backTranslation: undefined,
    requests: [],
    intercept: undefined,
    close: async () => {
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
  const tagIn = (text: string) => /\[ref ([0-9a-f]{8})\]/u.exec(text)?.[1] ?? '';
  const server: Server = createServer((req, res) => {
    // The model list, as OpenAI-compatible servers give it: what the CLI looks at before a run.
    if (req.method === 'GET' && req.url?.endsWith('/models')) {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ object: 'list', data: [{ id: 'served', object: 'model' }] }));
      return;
    }
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const messages = (JSON.parse(body) as { messages: { role: string; content: string }[] }).messages;
      const content = messages.map((m) => m.content).join('\n');
      state.prompts.push(content);
      let reply: Record<string, string>;
      let phase: ChatPhase;
      if (content.startsWith('You explain database queries')) {
        phase = 'meaning';
        const sql = MEANING_SQL.exec(content)?.[1] ?? '';
        const tag = sha256(sql).slice(0, 8);
        sqlByTag.set(tag, sql);
        reply = { meaning: `The query as its SQL reads, no more and no less [ref ${tag}].` };
      } else if (content.startsWith('A query over a database means')) {
        phase = 'intent';
        reply = { intent: `An analyst wants exactly that answer [ref ${tagIn(content)}].` };
      } else if (content.startsWith('A person wants this')) {
        phase = 'question';
        const style = /style "([^"]+)"/u.exec(content)?.[1] ?? '';
        const variant = /\(variant (\d+)\)/u.exec(content)?.[1] ?? '';
        reply = {
          scenario: 'A weekly review of the platform.',
          question: `Which rows does the analyst need, ${style} wording ${variant} [ref ${tagIn(content)}]?`,
          evidence: style === 'implicit' ? 'Nothing is left unsaid beyond the reference.' : '',
        };
      } else {
        phase = 'back-translation';
        reply = { sql: state.backTranslation ?? sqlByTag.get(tagIn(content)) ?? 'SELECT 1' };
      }
      const request: ChatRequest = { phase, messages, content, reply };
      state.requests.push(request);
      if (state.intercept?.(request, res)) return;
      const completion = JSON.stringify(reply);
      // Token counts a real endpoint would report: a function of the texts, so runs compare.
      const promptTokens = Math.ceil(content.length / 4);
      const completionTokens = Math.ceil(completion.length / 4);
      state.usage.prompt_tokens += promptTokens;
      state.usage.completion_tokens += completionTokens;
      sendCompletion(res, completion, {
        prompt_tokens: promptTokens,
        completion_tokens: completionTokens,
        total_tokens: promptTokens + completionTokens,
      });
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return Object.assign(state, { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/v1` });
}
