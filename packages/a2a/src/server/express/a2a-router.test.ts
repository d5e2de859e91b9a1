import { describe, expect, it } from '@jest/globals';
import express from 'express';
import request from 'supertest';
import { createTestAgent } from '../../__fixtures__/test-agent';
import { buildAgentCard } from '../build-agent-card';
import { createA2AHandler } from '../create-a2a-handler';
import { InMemoryTaskStore } from '../in-memory-task-store';
import { a2aRouter, type A2ARouterOptions } from './a2a-router';

function createApp(options: Omit<A2ARouterOptions, 'handler'> = {}) {
  const handler = createA2AHandler({
    card: buildAgentCard({
      name: 'router-agent',
      description: 'd',
      version: '1',
      url: 'http://agent.test/',
      skills: [{ id: 's', name: 'S', description: 'skill' }],
      internalToken: options.internalToken !== undefined,
    }),
    execute: createTestAgent().execute,
    store: new InMemoryTaskStore(),
  });
  const app = express();
  app.use(a2aRouter({ handler, ...options }));
  return app;
}

const rpc = (method: string, params: unknown, id: string | number = 1) => ({
  jsonrpc: '2.0',
  id,
  method,
  params,
});

describe('a2aRouter', () => {
  it('serves the card at both well-known paths with cache-control', async () => {
    const app = createApp();
    for (const path of ['/.well-known/agent-card.json', '/.well-known/agent.json']) {
      const response = await request(app).get(path).expect(200);
      expect(response.headers['cache-control']).toBe('public, max-age=300');
      expect(response.body).toMatchObject({
        name: 'router-agent',
        supportedInterfaces: [
          { url: 'http://agent.test/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        ],
        capabilities: { streaming: true },
      });
    }
  });

  it('echoes the id with its type', async () => {
    const app = createApp();
    const numeric = await request(app)
      .post('/a2a')
      .set('a2a-version', '1.0')
      .send(rpc('GetTask', { id: 'missing' }, 42))
      .expect(200);
    expect(numeric.body).toMatchObject({ jsonrpc: '2.0', id: 42, error: { code: -32001 } });
    const text = await request(app)
      .post('/a2a')
      .set('a2a-version', '1.0')
      .send(rpc('GetTask', { id: 'missing' }, '42'))
      .expect(200);
    expect(text.body.id).toBe('42');
  });

  it('answers an unknown method with -32601', async () => {
    const response = await request(createApp())
      .post('/a2a')
      .set('a2a-version', '1.0')
      .send(rpc('message/send', {}, 'x'))
      .expect(200);
    expect(response.body).toMatchObject({ id: 'x', error: { code: -32601 } });
  });

  it('refuses a body that is not a JSON-RPC request with -32600', async () => {
    const response = await request(createApp())
      .post('/a2a')
      .set('a2a-version', '1.0')
      .send({ hello: 'world', id: 3 })
      .expect(200);
    expect(response.body).toMatchObject({ id: 3, error: { code: -32600 } });
  });

  it('refuses a content type other than application/json with -32005', async () => {
    const response = await request(createApp())
      .post('/a2a')
      .set('a2a-version', '1.0')
      .set('content-type', 'application/a2a+json')
      .send(JSON.stringify(rpc('GetTask', { id: 'x' })))
      .expect(200);
    expect(response.body).toMatchObject({
      id: null,
      error: {
        code: -32005,
        data: [expect.objectContaining({ reason: 'CONTENT_TYPE_NOT_SUPPORTED' })],
      },
    });
  });

  it('answers malformed JSON with -32700 and id null', async () => {
    const response = await request(createApp())
      .post('/a2a')
      .set('a2a-version', '1.0')
      .set('content-type', 'application/json')
      .send('{"jsonrpc": "2.0", "id": 1,')
      .expect(200);
    expect(response.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
  });

  it('answers a body over the limit with 413 and a JSON-RPC error', async () => {
    const response = await request(createApp({ bodyLimit: 100 }))
      .post('/a2a')
      .set('a2a-version', '1.0')
      .send(rpc('GetTask', { id: 'x'.repeat(200) }))
      .expect(413);
    expect(response.body).toMatchObject({
      id: null,
      error: { code: -32600, data: [expect.objectContaining({ reason: 'PAYLOAD_TOO_LARGE' })] },
    });
  });

  it('answers invalid params with -32602 naming the field', async () => {
    const response = await request(createApp())
      .post('/a2a')
      .set('a2a-version', '1.0')
      .send(rpc('SendMessage', { message: { role: 'ROLE_USER', parts: [{ text: 'hi' }] } }))
      .expect(200);
    expect(response.body.error.code).toBe(-32602);
    expect(response.body.error.message).toMatch(/message\.messageId/);
  });

  it('answers a data part nested 5,000 levels deep with -32602, and keeps serving', async () => {
    const app = createApp();
    const deep = `${'['.repeat(5000)}1${']'.repeat(5000)}`;
    const body = `{"jsonrpc":"2.0","id":7,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"},{"data":${deep}}]}}}`;
    const response = await request(app)
      .post('/a2a')
      .set('a2a-version', '1.0')
      .set('content-type', 'application/json')
      .send(body)
      .expect(200);
    expect(response.body.error).toMatchObject({ code: -32602 });
    expect(response.body.error.message).toMatch(/deeper than 100 levels/);
    await request(app)
      .post('/a2a')
      .set('a2a-version', '1.0')
      .send(rpc('GetTask', { id: 'nope' }))
      .expect(200)
      .expect((reply) => expect(reply.body.error.code).toBe(-32001));
  });

  it('refuses a missing or wrong token with 401, keeping the card public', async () => {
    const app = createApp({ internalToken: 'right-token' });
    await request(app).get('/.well-known/agent-card.json').expect(200);
    for (const authorization of [undefined, 'Bearer wrong-token', 'Basic right-token']) {
      const call = request(app).post('/a2a').set('a2a-version', '1.0');
      if (authorization !== undefined) call.set('authorization', authorization);
      const response = await call.send(rpc('GetTask', { id: 'x' })).expect(401);
      expect(response.headers['www-authenticate']).toBe('Bearer');
      expect(response.body).toMatchObject({
        jsonrpc: '2.0',
        error: { data: [expect.objectContaining({ reason: 'UNAUTHENTICATED' })] },
      });
    }
    await request(app)
      .post('/a2a')
      .set('a2a-version', '1.0')
      .set('authorization', 'Bearer right-token')
      .send(rpc('GetTask', { id: 'x' }))
      .expect(200);
  });

  it('uses a body an earlier parser already read', async () => {
    const handlerApp = createApp();
    const app = express();
    app.use(express.json());
    app.use(handlerApp);
    const response = await request(app)
      .post('/a2a')
      .set('a2a-version', '1.0')
      .send(rpc('ListTasks', {}))
      .expect(200);
    expect(response.body.result).toMatchObject({ tasks: [], totalSize: 0 });
  });
});
