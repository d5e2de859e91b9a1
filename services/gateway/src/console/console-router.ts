import { readFile } from 'node:fs/promises';
import path from 'node:path';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { NotFoundError, ServiceUnavailableError } from '@fleet/errors';
import { CONSOLE_CSP } from './console-csp';

/** Headers on everything under `/console`. */
const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy': CONSOLE_CSP,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=()',
};

/** What the console route needs. */
export interface ConsoleRouterOptions {
  /** The built console (`index.html`, `assets/`): `CONSOLE_BUNDLE_DIR` from `@fleet/console`. */
  bundleDir: string;
}

/**
 * Serves the web console (docs/console.md) at `/console`, same origin as the API it calls:
 *
 * - `GET /console/assets/*`: the built scripts and styles (content-hashed names, cached for a year);
 * - `GET /console` and every other `GET /console/*`: `index.html` (the console routes in the page),
 *   revalidated on every load;
 * - `GET /`: a redirect to `/console/`.
 *
 * Nothing here needs a key and nothing served holds one: the page asks for the key and keeps it in
 * the tab's `sessionStorage`; every API call is a `/v1` request with the same auth, tenants and
 * limits as any client's. Every answer carries {@link CONSOLE_CSP} and the usual hardening headers.
 * A gateway whose console was never built answers 503 saying how to build it.
 *
 * @example
 * root.use(consoleRouter({ bundleDir: CONSOLE_BUNDLE_DIR }));
 */
export function consoleRouter({ bundleDir }: ConsoleRouterOptions): Router {
  const router = express.Router();
  let indexHtml: Promise<Buffer> | undefined;
  const readIndex = (): Promise<Buffer> => {
    indexHtml ??= readFile(path.join(bundleDir, 'index.html')).catch((error: unknown) => {
      indexHtml = undefined;
      throw error;
    });
    return indexHtml;
  };

  router.get('/', function redirectToConsole(_req: Request, res: Response) {
    res.redirect(302, '/console/');
  });

  router.use('/console', function hardenConsole(_req: Request, res: Response, next: NextFunction) {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
    next();
  });

  router.use(
    '/console/assets',
    express.static(path.join(bundleDir, 'assets'), {
      index: false,
      immutable: true,
      maxAge: '365d',
      fallthrough: true,
      redirect: false,
    }),
    function missingAsset(req: Request) {
      throw new NotFoundError(`No console file ${req.originalUrl}.`);
    },
  );

  router.get(['/console', '/console/*rest'], async function consolePage(_req, res: Response) {
    let html: Buffer;
    try {
      html = await readIndex();
    } catch {
      throw new ServiceUnavailableError(
        'The console has not been built: run `pnpm build` (or `pnpm install`, which builds it), then restart the gateway.',
      );
    }
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache');
    res.send(html);
  });

  return router;
}
