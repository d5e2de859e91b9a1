import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import express, { type Request, type Response } from 'express';
import { CONSOLE_CSP } from '@fleet/gateway/console-csp';
import { REPO_ROOT } from './start-gateway';

/** The built console (`pnpm build` writes it). */
export const CONSOLE_BUNDLE = path.join(REPO_ROOT, 'packages', 'console', 'bundle');

/** One run file the stub keeps: its view and its bytes. */
export interface StubFile {
  view: {
    id: string;
    name: string;
    mediaType: string;
    size: number;
    source: 'step' | 'attachment';
    nodeId?: string;
    agent?: string;
    createdAt: string;
    expiresAt: string;
    url: string;
  };
  bytes: Buffer;
}

/** A chunk of the streamed answer the stub sends to `POST /v1/chat/completions`. */
export type StubChunk = Record<string, unknown>;

/** What {@link startConsoleFilesStub} serves. */
export interface ConsoleFilesStubOptions {
  key: string;
  /** `GET /v1/sessions/{id}` answers, by id. */
  sessions: Record<string, unknown>;
  files: StubFile[];
  /** The chunks of every streamed answer (`data: …` each, then `[DONE]`). */
  stream: StubChunk[];
  /** Pause between streamed chunks. @default 150 */
  chunkDelayMs?: number;
}

/** A running stub. */
export interface ConsoleFilesStub {
  url: string;
  /** Content requests that came without the key (there must be none). */
  unauthorizedContentRequests: number;
  /** Content requests answered, by file id. */
  contentRequests: Map<string, number>;
  close(): Promise<void>;
}

function openAIError(response: Response, status: number, message: string): void {
  response
    .status(status)
    .set('Cache-Control', 'no-store')
    .json({ error: { message, type: 'invalid_request_error', param: null, code: null } });
}

/**
 * A stand-in for the gateway, for the console's file views: the built console under `/console`
 * with the gateway's headers, and `/v1/models`, `/v1/sessions`, `/v1/sessions/{id}`,
 * `/v1/files/{id}` (OpenAI Files-shaped), `/v1/files/{id}/content` and a streamed `/v1/chat/completions` the way the API documents them
 * (the key required on every `/v1` route, `Cache-Control: no-store`).
 */
export async function startConsoleFilesStub(
  options: ConsoleFilesStubOptions,
): Promise<ConsoleFilesStub> {
  const indexHtml = await readFile(path.join(CONSOLE_BUNDLE, 'index.html'), 'utf8');
  const app = express();
  const contentRequests = new Map<string, number>();
  let unauthorized = 0;

  app.use('/console', (_request, response, next) => {
    response.set({
      // The policy the gateway puts on every `/console` answer, so the page runs under the same rules.
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
      if (request.path.startsWith('/files/')) unauthorized += 1;
      openAIError(response, 401, 'Invalid API key.');
      return;
    }
    next();
  });
  app.get('/v1/models', (_request, response) => {
    response.json({ object: 'list', data: [{ id: 'fleet-orchestration', object: 'model' }] });
  });
  app.get('/v1/sessions', (_request, response) => {
    response.json({ object: 'list', data: [] });
  });
  app.get('/v1/sessions/:id', (request: Request<{ id: string }>, response) => {
    const session = options.sessions[request.params.id];
    if (session === undefined) {
      openAIError(response, 404, `Session ${request.params.id} does not exist or has expired.`);
      return;
    }
    response.json(session);
  });
  app.get('/v1/files/:id', (request: Request<{ id: string }>, response) => {
    const file = options.files.find((entry) => entry.view.id === request.params.id);
    if (file === undefined) {
      openAIError(response, 404, `File ${request.params.id} does not exist or has expired.`);
      return;
    }
    response.json({
      id: file.view.id,
      object: 'file',
      bytes: file.view.size,
      created_at: Math.floor(Date.parse(file.view.createdAt) / 1000),
      filename: file.view.name,
      purpose: 'assistants',
    });
  });
  app.get('/v1/files/:id/content', (request: Request<{ id: string }>, response) => {
    const file = options.files.find((entry) => entry.view.id === request.params.id);
    if (file === undefined) {
      openAIError(response, 404, `File ${request.params.id} does not exist or has expired.`);
      return;
    }
    contentRequests.set(file.view.id, (contentRequests.get(file.view.id) ?? 0) + 1);
    response
      .status(200)
      .set({
        'Content-Type': file.view.mediaType,
        'Content-Disposition': `attachment; filename="${file.view.id}"`,
        'X-Content-Type-Options': 'nosniff',
      })
      .send(file.bytes);
  });
  app.post('/v1/chat/completions', express.json(), async (request, response) => {
    // A follow (`X-Session-ID`) streams that session; anything else is a run without a session.
    const followed = request.get('x-session-id');
    response.status(200).set({
      'Content-Type': 'text/event-stream',
      'X-Routing-Mode': followed === undefined ? 'reasoning' : 'orchestration',
      ...(followed === undefined ? {} : { 'X-Session-ID': followed }),
    });
    response.flushHeaders();
    for (const chunk of options.stream) {
      await new Promise((resolve) => setTimeout(resolve, options.chunkDelayMs ?? 150));
      response.write(`data: ${JSON.stringify(chunk)}\n\n`);
    }
    response.end('data: [DONE]\n\n');
  });

  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get unauthorizedContentRequests() {
      return unauthorized;
    },
    contentRequests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error === undefined ? resolve() : reject(error)));
      }),
  };
}
