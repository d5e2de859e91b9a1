import { Router, type Request, type Response } from 'express';

/** A readiness check: resolves when the dependency answers, throws (or rejects) when it does not. */
export type ReadinessCheck = () => Promise<void> | void;

/** Options for {@link healthRoutes}. */
export interface HealthRoutesOptions {
  /** Named dependency checks run by `/readyz`. */
  checks?: Record<string, ReadinessCheck>;
  /** How long one check may take. @default 2000 */
  checkTimeoutMs?: number;
  /** Returns true once the service is shutting down; `/readyz` then answers 503. */
  isShuttingDown?: () => boolean;
}

async function runCheck(check: ReadinessCheck, timeoutMs: number): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      Promise.resolve().then(check),
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
    return 'ok';
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `GET /healthz` (the process is up) and `GET /readyz` (every dependency answers), as every fleet
 * service serves them (docs/architecture.md §1).
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
    const report = Object.fromEntries(results);
    const shuttingDown = isShuttingDown();
    const ready = !shuttingDown && results.every(([, result]) => result === 'ok');
    res.status(ready ? 200 : 503).json({
      status: ready ? 'ready' : shuttingDown ? 'shutting_down' : 'not_ready',
      checks: report,
    });
  });
  return router;
}
