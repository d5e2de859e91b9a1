import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import express, { type Request, type Response } from 'express';
import { CONSOLE_CSP } from '@fleet/gateway/console-csp';
import { CONSOLE_BUNDLE } from './console-files-stub';

/** One `POST /v1/chat/completions` the stub received: its fleet headers and its body. */
export interface StubRunRequest {
  headers: Record<string, string | undefined>;
  body: Record<string, unknown>;
}

/** One `POST /v1/sessions/{id}/review` the stub received. */
export interface StubReviewRequest {
  sessionId: string;
  body: unknown;
}

/** What {@link startConsoleReviewStub} serves. */
export interface ConsoleReviewStubOptions {
  key: string;
  /** What `GET /v1/sessions` lists. @default none */
  summaries?: unknown[];
  /** `GET /v1/sessions/{id}` answers, by id (the test may change them as the run goes). */
  sessions: Record<string, unknown>;
  /** The session a new run (a request without `X-Session-ID`) starts, named in `X-Session-ID`. */
  startSessionId: string;
  /** The chunks a follow (`X-Session-ID`) streams (`data: …` each, then `[DONE]`). */
  stream: Record<string, unknown>[];
  /** Answers a review decision: its status and JSON body. */
  review: (sessionId: string, body: unknown) => { status: number; json: unknown };
  /** Pause between streamed chunks. @default 150 */
  chunkDelayMs?: number;
}

/** A running stub. */
export interface ConsoleReviewStub {
  url: string;
  runs: StubRunRequest[];
  reviews: StubReviewRequest[];
  close(): Promise<void>;
}

function openAIError(response: Response, status: number, message: string): void {
  response
    .status(status)
    .set('Cache-Control', 'no-store')
    .json({ error: { message, type: 'invalid_request_error', param: null, code: null } });
}

/**
 * A stand-in for the gateway, for the console's result review: the built console under `/console`
 * with the gateway's headers, `/v1/models`, `/v1/sessions` (`summaries`), `/v1/sessions/{id}`,
 * `POST /v1/sessions/{id}/review` (answered by the test) and a streamed `/v1/chat/completions`
 * that records the request (its `X-Result-Review` header and `fleet_agents` field) and, for a
 * follow, streams the scripted chunks. The key is required on every `/v1` route.
 */
export async function startConsoleReviewStub(
  options: ConsoleReviewStubOptions,
): Promise<ConsoleReviewStub> {
  const indexHtml = await readFile(path.join(CONSOLE_BUNDLE, 'index.html'), 'utf8');
  const app = express();
  const runs: StubRunRequest[] = [];
  const reviews: StubReviewRequest[] = [];

  app.use('/console', (_request, response, next) => {
    response.set({
      'Content-Security-Policy': CONSOLE_CSP,
      'X-Content-Type-Options': 'nosniff',
      'X-Frame-Options': 'DENY',
      'Referrer-Policy': 'no-referrer',
    });
    next();
  });
  app.use('/console', express.static(CONSOLE_BUNDLE, { index: false }));
  app.get(/^\/console(\/.*)?$/, (_request, response) => {
    response.type('html').set('Cache-Control', 'no-cache').send(indexHtml);
  });

  app.use('/v1', (request, response, next) => {
    response.set('Cache-Control', 'no-store');
    if (request.get('authorization') !== `Bearer ${options.key}`) {
      openAIError(response, 401, 'Invalid API key.');
      return;
    }
    next();
  });
  app.get('/v1/models', (_request, response) => {
    response.json({ object: 'list', data: [{ id: 'fleet-orchestration', object: 'model' }] });
  });
  app.get('/v1/sessions', (_request, response) => {
    response.json({ object: 'list', data: options.summaries ?? [] });
  });
  app.get('/v1/sessions/:id', (request: Request<{ id: string }>, response) => {
    const session = options.sessions[request.params.id];
    if (session === undefined) {
      openAIError(response, 404, `Session ${request.params.id} does not exist or has expired.`);
      return;
    }
    response.json(session);
  });
  app.post(
    '/v1/sessions/:id/review',
    express.json({ limit: '32kb' }),
    (request: Request<{ id: string }>, response) => {
      reviews.push({ sessionId: request.params.id, body: request.body as unknown });
      const { status, json } = options.review(request.params.id, request.body);
      response.status(status).json(json);
    },
  );
  app.post('/v1/chat/completions', express.json(), async (request, response) => {
    const followed = request.get('x-session-id');
    runs.push({
      headers: {
        'x-routing-mode': request.get('x-routing-mode'),
        'x-result-review': request.get('x-result-review'),
        'x-plan-approval': request.get('x-plan-approval'),
        'x-session-id': followed,
      },
      body: request.body as Record<string, unknown>,
    });
    response.status(200).set({
      'Content-Type': 'text/event-stream',
      'X-Routing-Mode': 'orchestration',
      'X-Session-ID': followed ?? options.startSessionId,
    });
    response.flushHeaders();
    if (followed !== undefined) {
      for (const chunk of options.stream) {
        await new Promise((resolve) => setTimeout(resolve, options.chunkDelayMs ?? 150));
        response.write(`data: ${JSON.stringify(chunk)}\n\n`);
      }
    }
    response.end('data: [DONE]\n\n');
  });

  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    runs,
    reviews,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error === undefined ? resolve() : reject(error)));
      }),
  };
}
