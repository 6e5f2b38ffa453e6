/**
 * One look at an OpenAI-compatible endpoint before a run spends anything on it: a GET of
 * `<baseURL>/models` with a short timeout. Any HTTP answer, even 401 or 404, means a server
 * is there (the requests that follow say what it thinks of them); no answer at all — a
 * refused connection, an unknown host, silence past the timeout — is an LlmError naming the
 * endpoint, in seconds rather than after the client's retries.
 */
import { LlmError } from '../common/errors.ts';

/** How long the probe waits for any answer. */
export const PROBE_TIMEOUT_MS = 5_000;

export async function probeEndpoint(baseURL: string, where: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<void> {
  const url = `${baseURL.replace(/\/+$/u, '')}/models`;
  try {
    const reply = await fetch(url, { method: 'GET', signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
    // The body is not needed; release the connection.
    await reply.body?.cancel();
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    const reason =
      error instanceof Error && error.name === 'TimeoutError'
        ? `no answer within ${timeoutMs / 1000} s`
        : (cause ?? (error instanceof Error ? error.message : String(error)));
    throw new LlmError(`${where}: the endpoint ${baseURL} does not answer (${reason}); nothing was sent`, {
      cause: error,
    });
  }
}
