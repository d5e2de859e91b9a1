import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostilePageHtml } from '../arbitraries/documents';

/** A loopback server of hostile pages (`hostilePagePath`) and one plain page, `/plain`. */
export interface HostilePages {
  /** `http://127.0.0.1:<port>` */
  url: string;
  close(): Promise<void>;
}

/** Starts the page server the web agent reads hostile pages from (allowlisted in the fuzz fleet). */
export async function startHostilePages(): Promise<HostilePages> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    const html =
      path === '/plain'
        ? '<!doctype html><html><head><title>Plain</title></head><body><article><p>The museum opens at nine every morning and closes at six.</p></article></body></html>'
        : hostilePageHtml(path);
    if (html === undefined) {
      response.writeHead(404, { 'content-type': 'text/plain' });
      response.end('not found');
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Which agent to ask on another tenant's behalf, and how to reach it. */
export interface ProbeOptions {
  agent: 'rag-agent' | 'web-agent';
  port: number;
  token: string;
  /** For the web agent: the plain page to read. */
  plainPageUrl: string;
  /** The bound on the answer. */
  timeoutMs: number;
}

/**
 * Another tenant's small request to the agent a hostile input is being fed to — the RAG agent
 * lists that tenant's documents, the web agent reads a plain page — sent while the hostile one is
 * in flight. Undefined when it completed within the bound; otherwise what went wrong.
 */
export async function probeOtherTenant({
  agent,
  port,
  token,
  plainPageUrl,
  timeoutMs,
}: ProbeOptions): Promise<string | undefined> {
  const tenant = 'fuzz-other';
  const parts =
    agent === 'rag-agent'
      ? [{ data: { documents: { op: 'list', tenant } } }]
      : [
          { text: `Read this page: ${plainPageUrl}` },
          {
            data: { fleet: { tenant, sessionId: 'probe', nodeId: 'read', dependencyOutputs: {} } },
          },
        ];
  const started = Date.now();
  try {
    const response = await fetch(`http://127.0.0.1:${port}/a2a`, {
      method: 'POST',
      signal: AbortSignal.timeout(timeoutMs),
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${token}`,
        'a2a-version': '1.0',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts } },
      }),
    });
    const body = (await response.json()) as {
      result?: { task?: { status?: { state?: string } }; status?: { state?: string } };
    };
    const state = body.result?.task?.status?.state ?? body.result?.status?.state;
    return state === 'TASK_STATE_COMPLETED'
      ? undefined
      : `another tenant's request to the ${agent} ended ${state ?? JSON.stringify(body).slice(0, 300)}`;
  } catch (error) {
    return `another tenant's request to the ${agent} got no answer within ${Date.now() - started} ms (${String(error)})`;
  }
}
