import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { safeParseJson } from '@fleet/errors';
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

/** The part of a `/readyz` body the runner reads (every fleet service's `healthRoutes`). */
const readinessBodySchema = z.looseObject({
  status: z.string(),
  checks: z.record(z.string(), z.string()),
});

/** What `/readyz` says beyond the status code: checks running degraded, by name. */
export interface ReadinessDetails {
  /** The body's `status`: `ready`, `degraded`, … */
  status: string;
  /** Each degraded check's reason (its report without the `degraded: ` prefix). */
  degraded: Record<string, string>;
}

/** The prefix `@fleet/http` gives a degraded check's report. */
const DEGRADED_PREFIX = 'degraded: ';

/**
 * One `GET <url>/readyz`, read for its details: which checks run degraded and why (the RAG agent
 * without its embedding model, docs/rag.md#degraded-mode). `undefined` when there is no readable
 * answer. Never throws.
 *
 * @example
 * const details = await readReadinessDetails({ url: 'http://127.0.0.1:8083' });
 * details?.degraded.embeddings; // 'full-text search only: …'
 */
export function readReadinessDetails({
  url,
  timeoutMs = 3000,
}: {
  url: string;
  /** @default 3000 */
  timeoutMs?: number;
}): Promise<ReadinessDetails | undefined> {
  return new Promise((resolve) => {
    const request = http.get(
      new URL('/readyz', url),
      { agent: false, timeout: timeoutMs },
      (response) => {
        const pieces: Buffer[] = [];
        response.on('data', (piece: Buffer) => pieces.push(piece));
        response.on('error', () => resolve(undefined));
        response.on('end', () => {
          const parsed = safeParseJson({
            text: Buffer.concat(pieces).toString('utf8'),
            schema: readinessBodySchema,
          });
          if (!parsed.success) {
            resolve(undefined);
            return;
          }
          const degraded = Object.fromEntries(
            Object.entries(parsed.value.checks)
              .filter(([, report]) => report.startsWith(DEGRADED_PREFIX))
              .map(([name, report]) => [name, report.slice(DEGRADED_PREFIX.length)]),
          );
          resolve({ status: parsed.value.status, degraded });
        });
      },
    );
    request.on('timeout', () => {
      request.destroy();
      resolve(undefined);
    });
    request.on('error', () => resolve(undefined));
  });
}
