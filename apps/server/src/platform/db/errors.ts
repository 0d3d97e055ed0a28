/** Whether a database error is a unique-constraint violation (PostgreSQL and PGlite both report SQLSTATE 23505). */
export function isUniqueViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === '23505';
}

/**
 * Whether PostgreSQL ended the transaction because it collided with another one (a deadlock, a serialization
 * failure): nothing of it was written, and the same call again normally goes through. Lock orders are kept so this
 * should not happen; when it does, the call is answered 503 with Retry-After instead of a server error.
 */
export function isTransactionConflict(err: unknown): boolean {
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  return code === '40P01' || code === '40001';
}

/** SQLSTATEs of a database that is gone, going, not yet there, or too slow (issue 21 §1, §5, §6). */
const UNAVAILABLE_STATES = new Set([
  '57P01', // admin_shutdown: the connection was terminated (a restart, a failover, pg_terminate_backend)
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: the database system is starting up / shutting down / in recovery
  '57014', // query_canceled: statement_timeout (or a cancel request)
  '53300', // too_many_connections
]);
const UNAVAILABLE_NODE_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);
/** node-postgres and pg-pool say these in words only. */
const UNAVAILABLE_MESSAGE =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Query read timeout|Connection ended unexpectedly)/;

/**
 * Whether an error means the database could not be reached or did not answer in time (rather than refusing the
 * statement): a lost connection, a server starting or shutting down, a connect or statement timeout. Such a call is
 * answered 503 with Retry-After (its transaction, if any, is rolled back by PostgreSQL); start-up waits on them.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e = err, depth = 0; typeof e === 'object' && e !== null && depth < 5; depth += 1) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string') {
      if (UNAVAILABLE_STATES.has(code) || code.startsWith('08') || UNAVAILABLE_NODE_CODES.has(code)) return true;
    }
    if (typeof message === 'string' && UNAVAILABLE_MESSAGE.test(message)) return true;
    // A connect to a name with several addresses fails with an AggregateError of each address's error.
    const { cause, errors } = e as { cause?: unknown; errors?: unknown };
    e = cause ?? (Array.isArray(errors) ? errors[0] : undefined);
  }
  return false;
}
