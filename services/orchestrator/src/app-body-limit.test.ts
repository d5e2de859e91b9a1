import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  buildAgentCard,
  createA2AHandler,
  InMemoryTaskStore,
  type A2AHandler,
} from '@fleet/a2a/server';
import { silentLogger, startServer } from '@fleet/http';
import { createApp } from './app';

const TOKEN = 'change-me-internal-token-0000';

/** A JSON-RPC SendMessage whose text is `size` bytes: what the gateway forwards for a big chat. */
function sendMessage(size: number): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'SendMessage',
    params: {
      message: {
        messageId: 'm-1',
        role: 'ROLE_USER',
        parts: [{ text: 'x'.repeat(size) }],
      },
    },
  });
}

describe('the orchestrator’s A2A body limit', () => {
  let handler: A2AHandler;

  beforeAll(() => {
    handler = createA2AHandler({
      card: buildAgentCard({
        name: 'orchestrator',
        description: 'd',
        version: '0',
        url: 'http://127.0.0.1:1',
        skills: [],
      }),
      store: new InMemoryTaskStore(),
      // eslint-disable-next-line require-yield -- the body limit is under test, not the run
      execute: async function* () {
        await Promise.resolve();
      },
    });
  });
  afterAll(async () => {
    await handler.close();
  });

  async function post(bodyLimit: number | undefined, body: string): Promise<number> {
    const app = createApp({
      handler,
      internalToken: TOKEN,
      redis: { ping: () => Promise.resolve('PONG' as const) },
      plannerReady: () => Promise.resolve(),
      logger: silentLogger,
      metrics: false,
      ...(bodyLimit === undefined ? {} : { bodyLimit }),
    });
    const running = await startServer({ app, port: 0, signals: [] });
    try {
      const response = await fetch(`${running.url}/a2a`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body,
      });
      await response.arrayBuffer();
      return response.status;
    } finally {
      await running.shutdown();
    }
  }

  it('takes a 7 MB request by default, as the gateway (8 MiB) accepts it', async () => {
    expect(await post(undefined, sendMessage(7 * 1000 * 1000))).not.toBe(413);
  }, 30_000);

  it('applies ORCHESTRATOR_BODY_LIMIT', async () => {
    expect(await post(1024, sendMessage(2048))).toBe(413);
  });
});
