/**
 * Tells a lost or refused database connection (a fault of the run) from a query the
 * database refused (a verdict on the query). Stages retry the first on a reopened
 * connection and never record it against a candidate.
 */

/** SQLSTATEs of a connection that is gone or cannot be had (class 08; shutdowns; too many connections). */
const FAULT_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);

/** Node socket errors of a server that stopped, went away or refused. */
const FAULT_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTCONN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNABORTED',
]);

/** What pg and PGlite say when the connection or worker underneath a query has gone. */
const FAULT_MESSAGES =
  /connection terminated|terminating connection|connection error|not queryable|server closed the connection|cannot connect to|PGlite worker for .* stopped|the database system is (?:starting up|shutting down|in recovery mode)/iu;

/**
 * True when `error` (or an error it was caused by) says the connection was lost or refused,
 * or the database worker died.
 *
 * @example
 * isConnectionFault(await client.query('SELECT 1').catch((e) => e)); // true after pg_terminate_backend
 */
export function isConnectionFault(error: unknown): boolean {
  for (
    let e = error, depth = 0;
    e !== undefined && e !== null && depth < 8;
    e = (e as { cause?: unknown }).cause, depth++
  ) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (code.startsWith('08') || FAULT_SQLSTATES.has(code) || FAULT_ERRNOS.has(code)))
      return true;
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string' && FAULT_MESSAGES.test(message)) return true;
  }
  return false;
}
