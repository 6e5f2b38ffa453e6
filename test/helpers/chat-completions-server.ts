import { createServer, type Server } from 'node:http';
import { sha256 } from '../../generator/common/hash.ts';

// A chat-completions endpoint on 127.0.0.1 that plays the model for the LLM question writer:
// it recognises each of the writer's phases by its prompt (templates/llm/*.md) and answers in
// the JSON each phase asks for. It answers the back-translation with the reference SQL it saw
// in the meaning phase of the same question (a tag carried through the phases links them), so
// the writer's check executes real SQL and can agree; `backTranslation` overrides that.

export interface ChatServer {
  /** The base URL to give the client (`…/v1`). */
  readonly url: string;
  /** Every prompt received, in order. */
  readonly prompts: string[];
  /** Tokens the server reported, summed over its replies. */
  readonly usage: { prompt_tokens: number; completion_tokens: number };
  /** When set, the SQL answered to every back-translation prompt. */
  backTranslation: string | undefined;
  close(): Promise<void>;
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
    close: async () => {
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
  const tagIn = (text: string) => /\[ref ([0-9a-f]{8})\]/u.exec(text)?.[1] ?? '';
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const content = (JSON.parse(body) as { messages: { content: string }[] }).messages.map((m) => m.content).join('\n');
      state.prompts.push(content);
      let reply: Record<string, string>;
      if (content.startsWith('You explain database queries')) {
        const sql = MEANING_SQL.exec(content)?.[1] ?? '';
        const tag = sha256(sql).slice(0, 8);
        sqlByTag.set(tag, sql);
        reply = { meaning: `The query as its SQL reads, no more and no less [ref ${tag}].` };
      } else if (content.startsWith('A query over a database means')) {
        reply = { intent: `An analyst wants exactly that answer [ref ${tagIn(content)}].` };
      } else if (content.startsWith('A person wants this')) {
        const style = /style "([^"]+)"/u.exec(content)?.[1] ?? '';
        const variant = /\(variant (\d+)\)/u.exec(content)?.[1] ?? '';
        reply = { scenario: 'A weekly review of the platform.', question: `Which rows does the analyst need, ${style} wording ${variant} [ref ${tagIn(content)}]?`, evidence: style === 'implicit' ? 'Nothing is left unsaid beyond the reference.' : '' };
      } else {
        reply = { sql: state.backTranslation ?? sqlByTag.get(tagIn(content)) ?? 'SELECT 1' };
      }
      const completion = JSON.stringify(reply);
      // Token counts a real endpoint would report: a function of the texts, so runs compare.
      const promptTokens = Math.ceil(content.length / 4);
      const completionTokens = Math.ceil(completion.length / 4);
      state.usage.prompt_tokens += promptTokens;
      state.usage.completion_tokens += completionTokens;
      const text = JSON.stringify({
        id: 'chatcmpl-local',
        object: 'chat.completion',
        created: 0,
        model: 'local',
        choices: [{ index: 0, message: { role: 'assistant', content: completion }, finish_reason: 'stop' }],
        usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
      });
      res.writeHead(200, { 'content-type': 'application/json' }).end(text);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return Object.assign(state, { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/v1` });
}
