import { createServer, type Server } from 'node:http';
import { promptHash } from '../../generator/eval/eval-prompt.ts';
import type { ChatMessage } from '../../generator/questions/llm-client.ts';

// A chat-completions endpoint on 127.0.0.1 that plays a text-to-SQL model: it answers each
// prompt with the SQL the test chose for it (looked up by the prompt's hash), in a fenced
// block as chat models often do, after `delayMs`. A prompt it does not know gets "SELECT 1".

export interface SqlModelServer {
  readonly url: string;
  /** The hash of every prompt received, in order. */
  readonly received: string[];
  close(): Promise<void>;
}

export async function startSqlModelServer(
  replies: ReadonlyMap<string, string>,
  delayMs = 0,
  raw = false,
): Promise<SqlModelServer> {
  const received: string[] = [];
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
      const messages = (JSON.parse(body) as { messages: ChatMessage[] }).messages;
      const hash = promptHash(messages);
      received.push(hash);
      const sql = replies.get(hash) ?? 'SELECT 1';
      const content = raw ? sql : `\`\`\`sql\n${sql}\n\`\`\``;
      const prompt = Math.ceil(messages.map((m) => m.content).join('\n').length / 4);
      const completion = Math.ceil(content.length / 4);
      const text = JSON.stringify({
        id: 'chatcmpl-local',
        object: 'chat.completion',
        created: 0,
        model: 'local',
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
        usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
      });
      setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(text), delayMs);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`,
    received,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
