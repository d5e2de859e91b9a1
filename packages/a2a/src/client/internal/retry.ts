import {
  AbortError,
  ConnectionError,
  FleetError,
  isConnectFailure,
  UpstreamError,
} from '@fleet/errors';

const BEFORE_SEND = Symbol('a2a.beforeSend');
const RETRY_AFTER_MS = Symbol('a2a.retryAfterMs');

/** The code to name in the message: the first on the error or its causes, of any kind (TLS too). */
function codeOf(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Turns a fetch failure (no response) into a `ConnectionError`, marked when nothing was sent. */
export function connectionError(error: unknown, url: string): ConnectionError {
  const code = codeOf(error);
  const failure = new ConnectionError(
    `Cannot reach the agent at ${url}${code === undefined ? '' : ` (${code})`}.`,
    { cause: error },
  );
  // A failed connect: nothing reached the server, so any request may be replayed.
  if (isConnectFailure(error)) {
    Object.defineProperty(failure, BEFORE_SEND, { value: true });
  }
  return failure;
}

/** Parses `retry-after-ms` / `retry-after` (seconds or an HTTP date), capped at 60 s. */
export function retryAfterMs(headers: Headers): number | undefined {
  const milliseconds = Number(headers.get('retry-after-ms') ?? NaN);
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return Math.min(milliseconds, 60_000);
  const value = headers.get('retry-after');
  if (value === null) return undefined;
  const seconds = Number(value);
  const delay = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - Date.now();
  return Number.isFinite(delay) ? Math.min(Math.max(delay, 0), 60_000) : undefined;
}

/** Remembers the server's `retry-after` on an error. */
export function withRetryAfter<T extends object>(error: T, headers: Headers): T {
  const delay = retryAfterMs(headers);
  if (delay !== undefined) Object.defineProperty(error, RETRY_AFTER_MS, { value: delay });
  return error;
}

function isRetryable(error: unknown, idempotent: boolean): boolean {
  if (!FleetError.isInstance(error) || error instanceof AbortError) return false;
  if ((error as unknown as Record<symbol, unknown>)[BEFORE_SEND] === true) return true;
  if (!idempotent) return false;
  if (error instanceof ConnectionError || error.code === 'UPSTREAM_TIMEOUT') return true;
  if (error instanceof UpstreamError) return error.isRetryable;
  return error.isRetryable && error.status >= 500;
}

function backoffMs(attempt: number, error: unknown): number {
  const asked = (error as Record<symbol, unknown>)[RETRY_AFTER_MS];
  if (typeof asked === 'number') return asked;
  const base = Math.min(500 * 2 ** attempt, 8000);
  return base * (1 - Math.random() * 0.25);
}

function sleep(milliseconds: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new AbortError());
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new AbortError());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, milliseconds);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Options for {@link withRetries}. */
export interface RetryOptions {
  maxRetries: number;
  /** Reads may be retried after any retryable failure; other calls only when nothing was sent. */
  idempotent: boolean;
  signal?: AbortSignal | undefined;
}

/**
 * Runs `attempt` and retries it as CONTRIBUTING.md convention 14 says: at most `maxRetries` times, after
 * `retry-after` or a backoff from 0.5 s to 8 s with jitter.
 */
export async function withRetries<T>(
  attempt: () => Promise<T>,
  { maxRetries, idempotent, signal }: RetryOptions,
): Promise<T> {
  for (let retry = 0; ; retry += 1) {
    try {
      return await attempt();
    } catch (error) {
      if (retry >= maxRetries || signal?.aborted === true || !isRetryable(error, idempotent)) {
        throw error;
      }
      await sleep(backoffMs(retry, error), signal);
    }
  }
}
