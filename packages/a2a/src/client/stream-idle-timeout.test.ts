import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { UpstreamTimeoutError } from '@fleet/errors';
import { createMessage } from '../schemas/helpers';
import type { StreamResponse } from '../schemas/core';
import { A2AClient } from './a2a-client';

const IDLE_MS = 300;

const task = (state: string) => ({
  id: 't',
  contextId: 'c',
  status: { state, timestamp: new Date().toISOString() },
});

/**
 * An A2A agent whose `SendStreamingMessage` answers with a working task at once, then, as told
 * by the message text: keep-alive comments every 50 ms for `quiet-<ms>` and then the completed
 * status (a person deciding, a model thinking), or nothing more (`silent`); `no-headers` never
 * even answers.
 */
async function startAgent(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.on('end', () => {
      const body = JSON.parse(text) as {
        id: number;
        params: { message: { parts: { text?: string }[] } };
      };
      const instruction = body.params.message.parts[0]?.text ?? '';
      const frame = (result: unknown): string =>
        `data: ${JSON.stringify({ jsonrpc: '2.0', id: body.id, result })}\n\n`;
      if (instruction === 'no-headers') return;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(frame({ task: task('TASK_STATE_WORKING') }));
      if (instruction === 'silent') return;
      const quietMs = Number(instruction.replace('quiet-', ''));
      const keepAlive = setInterval(() => res.write(': ping\n\n'), 50);
      setTimeout(() => {
        clearInterval(keepAlive);
        res.end(
          frame({
            statusUpdate: {
              taskId: 't',
              contextId: 'c',
              status: { state: 'TASK_STATE_COMPLETED' },
            },
          }),
        );
      }, quietMs);
      res.on('close', () => clearInterval(keepAlive));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/a2a`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function collect(stream: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const events: StreamResponse[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe('A2AClient streams: timeoutMs is an idle limit', () => {
  let agent: Awaited<ReturnType<typeof startAgent>>;
  let client: A2AClient;

  beforeAll(async () => {
    agent = await startAgent();
    client = new A2AClient({ url: agent.url, timeoutMs: IDLE_MS, maxRetries: 0 });
  });
  afterAll(() => agent.close());

  it('keeps a stream whose keep-alives flow for 3× the limit, to its last event', async () => {
    const events = await collect(
      client.sendStreamingMessage({ message: createMessage({ parts: `quiet-${IDLE_MS * 3}` }) }),
    );
    expect(events.at(-1)).toMatchObject({
      statusUpdate: { status: { state: 'TASK_STATE_COMPLETED' } },
    });
  });

  it('still fails a stream that sends nothing, not even a keep-alive, for the limit', async () => {
    const started = Date.now();
    await expect(
      collect(client.sendStreamingMessage({ message: createMessage({ parts: 'silent' }) })),
    ).rejects.toThrow(UpstreamTimeoutError);
    // Failed by the idle limit, long before anything like a test time-out.
    expect(Date.now() - started).toBeLessThan(IDLE_MS * 10);
  });

  it('fails a stream whose response never starts after the limit, naming the agent', async () => {
    await expect(
      collect(client.sendStreamingMessage({ message: createMessage({ parts: 'no-headers' }) })),
    ).rejects.toMatchObject({
      name: 'UpstreamTimeoutError',
      message: `The agent at ${agent.url} did not answer in time.`,
    });
  });
});
