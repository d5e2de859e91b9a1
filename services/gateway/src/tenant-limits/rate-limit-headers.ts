import type { ServerResponse } from 'node:http';

/**
 * A wait as OpenAI writes it in `x-ratelimit-reset-*`: `20ms`, `12s`, `6m0s`, `1h2m3s` (whole
 * seconds once it is a second or more, rounded up).
 */
export function formatResetDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.ceil(ms))}ms`;
  const total = Math.ceil(ms / 1000);
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  if (hours > 0) return `${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${minutes}m${seconds}s`;
  return `${seconds}s`;
}

/** One limit's state, for its `x-ratelimit-*` headers. */
export interface LimitState {
  limit: number;
  remaining: number;
  /** Milliseconds until the window (or the day) starts over. */
  resetMs: number;
}

/**
 * Sets OpenAI's `x-ratelimit-{limit,remaining,reset}-{requests|tokens}` on a response, as OpenAI
 * sends them on every answer of a limited route.
 */
export function setRateLimitHeaders(
  res: ServerResponse,
  { kind, state }: { kind: 'requests' | 'tokens'; state: LimitState },
): void {
  res.setHeader(`x-ratelimit-limit-${kind}`, String(state.limit));
  res.setHeader(`x-ratelimit-remaining-${kind}`, String(Math.max(0, state.remaining)));
  res.setHeader(`x-ratelimit-reset-${kind}`, formatResetDuration(state.resetMs));
}

/**
 * Sets `retry-after-ms` on a refused request and answers the whole seconds (at least 1) for its
 * error's `retryAfterSeconds`, which `sendError` sends as `retry-after`: the `openai` SDK reads
 * `retry-after-ms` first, other clients `retry-after` (RFC 9110 §10.2.3).
 */
export function setRetryAfterMs(res: ServerResponse, ms: number): number {
  const seconds = Math.max(1, Math.ceil(ms / 1000));
  res.setHeader('retry-after-ms', String(Math.max(1, Math.ceil(ms))));
  return seconds;
}
