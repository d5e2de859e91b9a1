/**
 * Recognises the errors a Redis client raises while it cannot reach Redis, without depending on
 * the clients themselves (duck-typed on their names and messages):
 *
 * - ioredis: `MaxRetriesPerRequestError` (a command gave up while reconnecting), "Connection is
 *   closed." (the connection ended with commands in flight), "Stream isn't writeable and
 *   enableOfflineQueue options is false" (a command while disconnected), "Command timed out"
 *   (`commandTimeout`); replies saying Redis cannot serve yet (`LOADING`, `MASTERDOWN`, `TRYAGAIN`,
 *   `CLUSTERDOWN`).
 * - Redlock: `ExecutionError` (no quorum: every attempt failed).
 *
 * The error's `cause` chain is searched too (a few levels), so a wrapped one is found.
 */
export function isRedisUnavailableError(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    if (isRedisUnavailableItself(current)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** How long clients are asked to wait while Redis is unreachable (`Retry-After`). */
export const REDIS_RETRY_AFTER_SECONDS = 5;

const REDIS_ERROR_NAMES = new Set(['MaxRetriesPerRequestError', 'ExecutionError']);

const REDIS_CONNECTION_MESSAGES = [
  'Connection is closed.',
  "Stream isn't writeable and enableOfflineQueue options is false",
  'Command timed out',
];

const REDIS_NOT_SERVING_REPLY = /^(LOADING|MASTERDOWN|TRYAGAIN|CLUSTERDOWN)\b/;

function isRedisUnavailableItself(error: object): boolean {
  const { name, message } = error as { name?: unknown; message?: unknown };
  if (typeof name === 'string' && REDIS_ERROR_NAMES.has(name)) return true;
  if (typeof message !== 'string') return false;
  if (REDIS_CONNECTION_MESSAGES.includes(message)) return true;
  return name === 'ReplyError' && REDIS_NOT_SERVING_REPLY.test(message);
}
