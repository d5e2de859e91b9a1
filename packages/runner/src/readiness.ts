import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ExitInfo } from './processes';

/** What `GET /readyz` answered: a status, or why there was no answer. */
export type ProbeAnswer = { status: number } | { error: string; timedOut?: true };

/** Options for {@link probeReadyz}. */
export interface ProbeReadyzOptions {
  /** The service's base URL, e.g. `http://127.0.0.1:8080`. */
  url: string;
  /** @default 1500 */
  timeoutMs?: number;
  /** @default '/readyz' */
  path?: string;
}

/**
 * One `GET <url>/readyz`. Uses a fresh connection (`agent: false`) so nothing keeps the runner's
 * event loop alive afterwards. Never throws.
 */
export function probeReadyz({
  url,
  timeoutMs = 1500,
  path = '/readyz',
}: ProbeReadyzOptions): Promise<ProbeAnswer> {
  return new Promise((resolve) => {
    const request = http.get(
      new URL(path, url),
      { agent: false, timeout: timeoutMs },
      (response) => {
        response.resume();
        resolve({ status: response.statusCode ?? 0 });
      },
    );
    request.on('timeout', () => {
      request.destroy();
      resolve({ error: `no answer within ${timeoutMs} ms`, timedOut: true });
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      resolve({ error: error.code === 'ECONNREFUSED' ? 'not listening yet' : error.message });
    });
  });
}

/** A short description of a probe answer: `200`, `503`, `not listening yet`. */
export function describeAnswer(answer: ProbeAnswer | undefined): string {
  if (answer === undefined) return 'no answer yet';
  return 'status' in answer ? String(answer.status) : answer.error;
}

/** How waiting for a service ended. */
export type ReadyOutcome =
  | { state: 'ready'; elapsedMs: number }
  | { state: 'exited'; exit: ExitInfo; elapsedMs: number }
  | { state: 'timeout'; last: ProbeAnswer | undefined; elapsedMs: number }
  | { state: 'aborted'; elapsedMs: number };

/** Options for {@link waitForReady}. */
export interface WaitForReadyOptions {
  /** The service's base URL. */
  url: string;
  /** Give up after this long. */
  timeoutMs: number;
  /** Tells whether the process has ended (then waiting stops at once). */
  exitInfo: () => ExitInfo | undefined;
  /** Pause between probes. @default 200 */
  intervalMs?: number;
  /** Called after every probe, for progress displays. */
  onProbe?: (answer: ProbeAnswer) => void;
  signal?: AbortSignal;
}

/**
 * Polls `GET /readyz` until it answers 200, the process exits, the time runs out or `signal`
 * aborts.
 *
 * @example
 * const outcome = await waitForReady({ url, timeoutMs: 60_000, exitInfo: started.exitInfo });
 */
export async function waitForReady({
  url,
  timeoutMs,
  exitInfo,
  intervalMs = 200,
  onProbe,
  signal,
}: WaitForReadyOptions): Promise<ReadyOutcome> {
  const startedAt = Date.now();
  const elapsed = (): number => Date.now() - startedAt;
  let last: ProbeAnswer | undefined;
  for (;;) {
    if (signal?.aborted === true) return { state: 'aborted', elapsedMs: elapsed() };
    const exit = exitInfo();
    if (exit !== undefined) return { state: 'exited', exit, elapsedMs: elapsed() };
    const remaining = timeoutMs - elapsed();
    if (remaining <= 0) return { state: 'timeout', last, elapsedMs: elapsed() };
    const probeBudgetMs = Math.min(1500, remaining);
    const answer = await probeReadyz({ url, timeoutMs: probeBudgetMs });
    onProbe?.(answer);
    if ('status' in answer && answer.status === 200)
      return { state: 'ready', elapsedMs: elapsed() };
    // A probe cut short by our own deadline says nothing about the service: keep the answer
    // before it (a 503 tells the person more than "no answer within 3 ms").
    const cutShort = probeBudgetMs < 1500 && 'timedOut' in answer && last !== undefined;
    if (!cutShort) last = answer;
    // A process that died while we probed is reported as exited, not as a refused connection.
    const exitAfterProbe = exitInfo();
    if (exitAfterProbe !== undefined) {
      return { state: 'exited', exit: exitAfterProbe, elapsedMs: elapsed() };
    }
    try {
      await sleep(intervalMs, undefined, signal === undefined ? {} : { signal });
    } catch {
      return { state: 'aborted', elapsedMs: elapsed() };
    }
  }
}
