import { Router, type Request, type Response } from 'express';

/**
 * What a readiness check may resolve to besides nothing: the service works, but without part of
 * what it normally does (`degraded` says which part and why). `/readyz` still answers 200, with
 * `status: "degraded"` and the check reported as `degraded: <reason>`.
 */
export interface ReadinessDegraded {
  degraded: string;
}

/**
 * A readiness check: resolves when the dependency answers, throws (or rejects) when it does not;
 * resolves to {@link ReadinessDegraded} when the service runs without it.
 */
export type ReadinessCheck = () => Promise<void | ReadinessDegraded> | void | ReadinessDegraded;

/** The prefix of a degraded check's report in the `/readyz` body. */
export const DEGRADED_PREFIX = 'degraded: ';

/** Options for {@link healthRoutes}. */
export interface HealthRoutesOptions {
  /** Named dependency checks run by `/readyz`. */
  checks?: Record<string, ReadinessCheck>;
  /** How long one check may take. @default 2000 */
  checkTimeoutMs?: number;
  /** Returns true once the service is shutting down; `/readyz` then answers 503. */
  isShuttingDown?: () => boolean;
}

/** One check's outcome: its report in the body, and what it means for readiness. */
interface CheckResult {
  state: 'ok' | 'degraded' | 'failed';
  report: string;
}

async function runCheck(check: ReadinessCheck, timeoutMs: number): Promise<CheckResult> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const outcome = await Promise.race([
      Promise.resolve().then(check),
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
    return outcome === undefined
      ? { state: 'ok', report: 'ok' }
      : { state: 'degraded', report: `${DEGRADED_PREFIX}${outcome.degraded}` };
  } catch (error) {
    return { state: 'failed', report: error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `GET /healthz` (the process is up) and `GET /readyz` (every dependency answers), as every fleet
 * service serves them (docs/architecture.md §1). `/readyz` answers 200 `{ status: "ready" }` when
 * every check passes, 200 `{ status: "degraded" }` when some report {@link ReadinessDegraded} and
 * none fails, and 503 otherwise; `checks` holds each check's `ok`, `degraded: <reason>` or error.
 *
 * @example
 * app.use(healthRoutes({ checks: { redis: async () => { await redis.ping(); } } }));
 */
export function healthRoutes({
  checks = {},
  checkTimeoutMs = 2000,
  isShuttingDown = () => false,
}: HealthRoutesOptions = {}): Router {
  const router = Router();
  router.get('/healthz', function healthz(_req: Request, res: Response) {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async function readyz(_req: Request, res: Response) {
    const names = Object.keys(checks);
    const results = await Promise.all(
      names.map(
        async (name) =>
          [name, await runCheck(checks[name] ?? (() => undefined), checkTimeoutMs)] as const,
      ),
    );
    const report = Object.fromEntries(results.map(([name, result]) => [name, result.report]));
    const shuttingDown = isShuttingDown();
    const ready = !shuttingDown && results.every(([, result]) => result.state !== 'failed');
    const degraded = results.some(([, result]) => result.state === 'degraded');
    res.status(ready ? 200 : 503).json({
      status: ready
        ? degraded
          ? 'degraded'
          : 'ready'
        : shuttingDown
          ? 'shutting_down'
          : 'not_ready',
      checks: report,
    });
  });
  return router;
}
