import { CONNECT_FAILURE_CODES, ServiceUnavailableError } from '@fleet/errors';

/** How long callers are asked to wait while the RAG database is unreachable (`Retry-After`). */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** Socket errors of a connection that could not be made or was lost. */
const NETWORK_CODES: ReadonlySet<string> = new Set([
  ...CONNECT_FAILURE_CODES,
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
]);

/**
 * SQLSTATEs of a server that cannot serve: connection exceptions (class 08), too many
 * connections, shutting down or starting up (57P01–57P03).
 */
const UNAVAILABLE_SQLSTATE = /^(08...|53300|57P0[123])$/;

/** What node-postgres and pg-pool say when the connection is gone or never came. */
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
  'Cannot use a pool after calling end on the pool',
  'Client was closed and is not queryable',
];

function isUnavailableItself(error: object): boolean {
  if (
    error instanceof AggregateError &&
    error.errors.some((inner) => isDatabaseUnavailable(inner))
  ) {
    return true;
  }
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code))) {
    return true;
  }
  return (
    typeof message === 'string' && UNAVAILABLE_MESSAGES.some((text) => message.startsWith(text))
  );
}

/**
 * Whether an error from node-postgres means the database cannot be reached (refused, reset, timed
 * out, shutting down), rather than that a statement failed. The `cause` chain is searched too.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    if (isUnavailableItself(current)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** The retryable 503 (with `Retry-After`) for a RAG database that cannot be reached. */
export function databaseUnavailableError(cause: unknown): ServiceUnavailableError {
  return new ServiceUnavailableError(
    'The RAG database cannot be reached right now; try again in a few seconds.',
    {
      cause,
      retryable: true,
      retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS,
      details: { retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS },
    },
  );
}

/**
 * Runs a database operation and turns "cannot reach the database" into
 * {@link databaseUnavailableError}; every other error passes through.
 */
export async function whileDatabaseAvailable<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (isDatabaseUnavailable(error)) throw databaseUnavailableError(error);
    throw error;
  }
}
