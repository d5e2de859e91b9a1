import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import express from 'express';
import {
  ConnectionError,
  ServiceUnavailableError,
  StreamInterruptedError,
  UpstreamTimeoutError,
} from '@fleet/errors';
import { InvalidAgentResponseError } from '../errors/a2a-errors';
import { listen, type RunningTestServer } from '../__fixtures__/test-agent';
import { createMessage } from '../schemas/helpers';
import { buildAgentCard } from '../server/build-agent-card';
import { A2AClient, selectJsonRpcUrl } from './a2a-client';

const task = (id: string, state: string) => ({
  id,
  contextId: 'c',
  status: { state, timestamp: new Date().toISOString() },
});

interface Recorded {
  method: string;
  headers: Record<string, string | string[] | undefined>;
}

describe('A2AClient', () => {
  let running: RunningTestServer;
  const calls: Recorded[] = [];
  let failuresLeft = 0;
  let streamClosed: Promise<void> = Promise.resolve();

  beforeAll(async () => {
    running = await listen(() => {
      const app = express();
      app.use(express.json());
      app.post('/a2a', (req, res) => {
        const body = req.body as { id: number; method: string; params: { id?: string } };
        calls.push({ method: body.method, headers: req.headers });
        if (failuresLeft > 0) {
          failuresLeft -= 1;
          res
            .status(503)
            .set('retry-after', '0')
            .json({
              error: { code: 'SERVICE_UNAVAILABLE', message: 'busy' },
            });
          return;
        }
        switch (body.params.id) {
          case 'wrong-id':
            res.json({ jsonrpc: '2.0', id: body.id + 1, result: task('x', 'TASK_STATE_WORKING') });
            return;
          case 'silent':
            return; // never answers
          case 'open-after-input':
            res.setHeader('content-type', 'text/event-stream');
            res.write(
              `data: ${JSON.stringify({ jsonrpc: '2.0', id: body.id, result: { task: task('t', 'TASK_STATE_WORKING') } })}\n\n`,
            );
            res.write(
              `data: ${JSON.stringify({
                jsonrpc: '2.0',
                id: body.id,
                result: {
                  statusUpdate: {
                    taskId: 't',
                    contextId: 'c',
                    status: { state: 'TASK_STATE_INPUT_REQUIRED' },
                  },
                },
              })}\n\n`,
            );
            // …and keep the stream open, as a2a-java does (docs/a2a.md §7.6).
            streamClosed = new Promise((resolve) => res.on('close', () => resolve()));
            return;
          case 'cut-short':
            res.setHeader('content-type', 'text/event-stream');
            res.end(
              `data: ${JSON.stringify({ jsonrpc: '2.0', id: body.id, result: { task: task('t', 'TASK_STATE_WORKING') } })}\n\n`,
            );
            return;
          case undefined:
          default:
            res.json({
              jsonrpc: '2.0',
              id: body.id,
              result: task(body.params.id ?? 'new', 'TASK_STATE_COMPLETED'),
            });
        }
      });
      return app;
    });
  });

  afterAll(async () => {
    await running.close();
  });

  const client = () =>
    new A2AClient({ url: `${running.baseUrl}/a2a`, token: 'tok', timeoutMs: 2000 });

  it('sends the version, token and content headers', async () => {
    calls.length = 0;
    await client().getTask({ id: 'a' });
    expect(calls[0]?.headers).toMatchObject({
      'a2a-version': '1.0',
      authorization: 'Bearer tok',
      'content-type': 'application/json',
      accept: 'application/json',
    });
  });

  it('retries reads after a retryable failure, honouring retry-after', async () => {
    calls.length = 0;
    failuresLeft = 2;
    const fetched = await client().getTask({ id: 'retried' });
    expect(fetched.id).toBe('retried');
    expect(calls.map((call) => call.method)).toEqual(['GetTask', 'GetTask', 'GetTask']);
  });

  it('gives up after maxRetries', async () => {
    calls.length = 0;
    failuresLeft = 5;
    await expect(client().listTasks({})).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(calls).toHaveLength(3);
    failuresLeft = 0;
  });

  it('does not retry a message that reached the server', async () => {
    calls.length = 0;
    failuresLeft = 1;
    await expect(
      client().sendMessage({ message: createMessage({ parts: 'x' }) }),
    ).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(calls).toHaveLength(1);
  });

  it('retries a message whose connection failed before anything was sent', async () => {
    const closed = await listen(() => (_req, res) => res.end());
    await closed.close();
    let attempts = 0;
    const refused = new A2AClient({
      url: `${closed.baseUrl}/a2a`,
      fetch: (input, init) => {
        attempts += 1;
        return fetch(input, init);
      },
    });
    await expect(
      refused.sendMessage({ message: createMessage({ parts: 'x' }) }),
    ).rejects.toBeInstanceOf(ConnectionError);
    expect(attempts).toBe(3);
  });

  it('refuses a response with another id', async () => {
    await expect(client().getTask({ id: 'wrong-id' })).rejects.toBeInstanceOf(
      InvalidAgentResponseError,
    );
  });

  it('times out a call that gets no answer', async () => {
    const impatient = new A2AClient({
      url: `${running.baseUrl}/a2a`,
      timeoutMs: 50,
      maxRetries: 0,
    });
    await expect(impatient.getTask({ id: 'silent' })).rejects.toBeInstanceOf(UpstreamTimeoutError);
  });

  it('stops reading at an interrupted state and closes the request', async () => {
    // The scripted server picks its behaviour from params.id.
    const open = client().subscribeToTask({ id: 'open-after-input' });
    const seen: unknown[] = [];
    for await (const event of open) seen.push(event);
    expect(seen).toHaveLength(2);
    await streamClosed;
  });

  it('throws StreamInterruptedError when a stream ends before the turn does', async () => {
    const seen: unknown[] = [];
    await expect(
      (async () => {
        for await (const event of client().subscribeToTask({ id: 'cut-short' })) seen.push(event);
      })(),
    ).rejects.toBeInstanceOf(StreamInterruptedError);
    expect(seen).toHaveLength(1);
  });
});

describe('selectJsonRpcUrl', () => {
  it('prefers the JSONRPC interface speaking 1.0', () => {
    const card = buildAgentCard({
      name: 'a',
      description: 'd',
      version: '1',
      url: 'http://a',
      skills: [],
    });
    card.supportedInterfaces = [
      { url: 'http://a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      { url: 'http://a/legacy', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      { url: 'http://a/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    ];
    expect(selectJsonRpcUrl(card)).toBe('http://a/a2a');
    card.supportedInterfaces = [card.supportedInterfaces[1]!];
    expect(() => selectJsonRpcUrl(card)).toThrow(/no JSON-RPC interface/);
  });
});
