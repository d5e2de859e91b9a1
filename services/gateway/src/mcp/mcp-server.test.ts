import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import request from 'supertest';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import type { RunFile } from '@fleet/a2a';
import { createMemoryRunFileStore } from '@fleet/testing';
import { createDocumentsClient } from '../documents';
import {
  buildGateway,
  OTHER_KEY,
  TEST_KEY,
  TEST_REDIS_URL,
  type TestGateway,
} from '../test-support/build-gateway';
import {
  RAG_DOUBLE_TOKEN,
  documentsClientOf,
  startRagAgentDouble,
  type RagAgentDouble,
} from '../test-support/rag-agent-double';
import { seedSession } from '../test-support/seed-session';
import { serve, type Served } from '../test-support/serve';

const HANDBOOK = Buffer.from(
  '# Handbook\nEmployees get 28 days of annual leave.\nThe office opens at nine.\n',
);
const EXPENSES = Buffer.from('# Expenses\nReceipts are due within 30 days of purchase.\n');
const CHART = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
const EXPIRES = '2099-01-01T00:00:00.000Z';
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'raw', version: '1' },
  },
};

interface SearchContent {
  object: string;
  query: string;
  data: { documentId: string; filename: string; text: string; score: number }[];
}

/** The text of a tool result's first block. */
function textOf(result: object): string {
  const [first] = ((result as { content?: unknown }).content ?? []) as {
    type: string;
    text?: string;
  }[];
  return first?.text ?? '';
}

/** A raw JSON-RPC POST to /mcp, as a 2025-era client sends it. */
function post(app: TestGateway['app'], body: unknown, key: string | null = TEST_KEY) {
  const req = request(app)
    .post('/mcp')
    .set('Accept', 'application/json, text/event-stream')
    .set('Content-Type', 'application/json');
  if (key !== null) req.set('Authorization', `Bearer ${key}`);
  return req.send(typeof body === 'string' ? body : JSON.stringify(body));
}

describe('the fleet as an MCP server (/mcp)', () => {
  let agent: RagAgentDouble;
  let gateway: TestGateway;
  let served: Served;
  let handbookId: string;
  let acmeSession: string;
  let globexSession: string;
  let chart: RunFile;
  let globexFile: RunFile;

  beforeAll(async () => {
    agent = await startRagAgentDouble();
    const files = createMemoryRunFileStore();
    gateway = await buildGateway({
      upstream: 'offline',
      overrides: {
        documents: documentsClientOf(agent),
        files,
      },
    });
    served = await serve(gateway.app);
    const uploaded = await request(gateway.app)
      .post('/v1/documents')
      .auth(TEST_KEY, { type: 'bearer' })
      .attach('file', HANDBOOK, 'handbook.md');
    handbookId = (uploaded.body as { id: string }).id;
    await request(gateway.app)
      .post('/v1/documents')
      .auth(TEST_KEY, { type: 'bearer' })
      .attach('file', EXPENSES, 'expenses.md');
    // The other tenant's own handbook, which acme's searches must never see.
    await request(gateway.app)
      .post('/v1/documents')
      .auth(OTHER_KEY, { type: 'bearer' })
      .attach('file', Buffer.from('Globex staff get 40 days of annual leave.\n'), 'globex.md');
    const store = gateway.sessions.store;
    acmeSession = (await seedSession(store, { completedWith: 'Sent.' })).id;
    globexSession = (await seedSession(store, { tenant: 'globex' })).id;
    [chart] = (await files.put({
      tenant: 'acme',
      sessionId: acmeSession,
      nodeId: 'n1',
      agent: 'code',
      source: 'step',
      expiresAt: EXPIRES,
      files: [{ name: 'chart.png', mediaType: 'image/png', bytes: CHART }],
    })) as [RunFile];
    // A file that has expired stays in the session record but is not listed.
    const [expired] = (await files.put({
      tenant: 'acme',
      sessionId: acmeSession,
      source: 'attachment',
      expiresAt: '2020-01-01T00:00:00.000Z',
      files: [{ name: 'old.txt', mediaType: 'text/plain', bytes: Buffer.from('old') }],
    })) as [RunFile];
    await store.update(acmeSession, (draft) => {
      draft.files = [chart, expired];
    });
    [globexFile] = (await files.put({
      tenant: 'globex',
      sessionId: globexSession,
      source: 'attachment',
      expiresAt: EXPIRES,
      files: [{ name: 'secret.txt', mediaType: 'text/plain', bytes: Buffer.from('secret') }],
    })) as [RunFile];
    await store.update(globexSession, (draft) => {
      draft.files = [globexFile];
    });
  });

  afterAll(async () => {
    await served.close();
    await gateway.close();
    await agent.close();
  });

  const url = () => new URL(`${served.url}/mcp`);
  const headers = (key = TEST_KEY) => ({ Authorization: `Bearer ${key}` });

  describe('with the v1 SDK client (2025-11-25)', () => {
    let client: ClientV1;
    let transport: TransportV1;

    beforeAll(async () => {
      client = new ClientV1({ name: 'v1-test', version: '1.0.0' });
      transport = new TransportV1(url(), { requestInit: { headers: headers() } });
      await client.connect(transport);
    });
    afterAll(async () => {
      await client.close();
    });

    it('negotiates 2025-11-25 and lists the read-only tools with output schemas', async () => {
      expect(client.getServerVersion()?.name).toBe('a2a-fleet');
      expect(transport.protocolVersion).toBe('2025-11-25');
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual([
        'ask',
        'get_session',
        'list_documents',
        'list_sessions',
        'search_documents',
      ]);
      // `ask` runs the fleet (its annotations are tested with it); the others only read.
      for (const tool of tools.filter((listed) => listed.name !== 'ask')) {
        expect(tool.title).toEqual(expect.any(String));
        expect(tool.annotations).toEqual({
          readOnlyHint: true,
          destructiveHint: false,
          idempotentHint: true,
          openWorldHint: false,
        });
        expect(tool.outputSchema).toMatchObject({ type: 'object' });
      }
    });

    it('searches the tenant’s documents and finds the right one', async () => {
      const result = await client.callTool({
        name: 'search_documents',
        arguments: { query: 'annual leave days', limit: 3 },
      });
      expect(result.isError).toBeFalsy();
      const content = result.structuredContent as SearchContent;
      expect(content.object).toBe('list');
      expect(content.data[0]).toMatchObject({
        documentId: handbookId,
        filename: 'handbook.md',
        text: 'Employees get 28 days of annual leave.',
      });
      // Globex's 40 days are not acme's.
      expect(content.data.map((hit) => hit.filename)).not.toContain('globex.md');
      expect(JSON.parse(textOf(result))).toEqual(content);
      expect(agent.searches.at(-1)).toEqual({
        tenant: 'acme',
        query: 'annual leave days',
        limit: 3,
      });
    });

    it('answers another tenant’s session as a tool error, not found', async () => {
      const result = await client.callTool({
        name: 'get_session',
        arguments: { session_id: globexSession },
      });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/NOT_FOUND/);
      expect(result.structuredContent).toBeUndefined();
    });

    it('reads the tenant’s own session and lists its sessions', async () => {
      const own = await client.callTool({
        name: 'get_session',
        arguments: { session_id: acmeSession },
      });
      expect(own.isError).toBeFalsy();
      expect(own.structuredContent).toMatchObject({ id: acmeSession, status: 'completed' });
      const list = await client.callTool({ name: 'list_sessions', arguments: {} });
      const ids = (list.structuredContent as { data: { id: string }[] }).data.map((s) => s.id);
      expect(ids).toContain(acmeSession);
      expect(ids).not.toContain(globexSession);
    });

    it('lists the tenant’s documents', async () => {
      const result = await client.callTool({ name: 'list_documents', arguments: {} });
      const data = (result.structuredContent as { data: { filename: string }[] }).data;
      expect(data.map((document) => document.filename).sort()).toEqual([
        'expenses.md',
        'handbook.md',
      ]);
    });

    it('lists the run files as resources and reads one as a blob', async () => {
      const { resources } = await client.listResources();
      expect(resources).toEqual([
        expect.objectContaining({
          uri: `fleet://files/${chart.id}`,
          name: 'chart.png',
          mimeType: 'image/png',
        }),
      ]);
      const { resourceTemplates } = await client.listResourceTemplates();
      expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual([
        'fleet://files/{id}',
      ]);
      const read = await client.readResource({ uri: `fleet://files/${chart.id}` });
      const [contents] = read.contents as { blob?: string; mimeType?: string }[];
      expect(contents?.mimeType).toBe('image/png');
      expect(Buffer.from(contents?.blob ?? '', 'base64')).toEqual(CHART);
    });

    it('does not read another tenant’s file', async () => {
      await expect(client.readResource({ uri: `fleet://files/${globexFile.id}` })).rejects.toThrow(
        /No file with id/,
      );
    });

    it('answers a wrong argument type as a tool error result (SEP-1303)', async () => {
      const result = await client.callTool({
        name: 'search_documents',
        arguments: { query: 42 },
      });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/query/);
    });
  });

  describe('with the v2 SDK client (version negotiation: auto)', () => {
    let client: ClientV2;

    beforeAll(async () => {
      client = new ClientV2(
        { name: 'v2-test', version: '2.0.0' },
        { versionNegotiation: { mode: 'auto' } },
      );
      await client.connect(new TransportV2(url(), { requestInit: { headers: headers() } }));
    });
    afterAll(async () => {
      await client.close();
    });

    it('speaks the modern era', () => {
      expect(client.getProtocolEra()).toBe('modern');
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    });

    it('lists the tools with annotations and output schemas', async () => {
      const { tools } = await client.listTools();
      const search = tools.find((tool) => tool.name === 'search_documents');
      expect(search?.annotations?.readOnlyHint).toBe(true);
      expect(search?.outputSchema).toMatchObject({ type: 'object' });
      expect(search?.inputSchema).toMatchObject({
        type: 'object',
        properties: { query: expect.any(Object) },
      });
    });

    it('searches and gets structured content with the right document', async () => {
      const result = await client.callTool({
        name: 'search_documents',
        arguments: { query: 'receipts due' },
      });
      expect(result.isError).toBeFalsy();
      const content = result.structuredContent as SearchContent;
      expect(content.data[0]).toMatchObject({ filename: 'expenses.md' });
      expect(agent.searches.at(-1)).toEqual({ tenant: 'acme', query: 'receipts due', limit: 8 });
    });

    it('answers another tenant’s session as a tool error', async () => {
      const result = await client.callTool({
        name: 'get_session',
        arguments: { session_id: globexSession },
      });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/NOT_FOUND/);
    });

    it('sees only its own tenant: globex finds its handbook, not acme’s', async () => {
      const globex = new ClientV2(
        { name: 'v2-globex', version: '2.0.0' },
        { versionNegotiation: { mode: 'auto' } },
      );
      await globex.connect(
        new TransportV2(url(), { requestInit: { headers: headers(OTHER_KEY) } }),
      );
      try {
        const result = await globex.callTool({
          name: 'search_documents',
          arguments: { query: 'annual leave days' },
        });
        const content = result.structuredContent as SearchContent;
        expect(content.data.map((hit) => hit.filename)).toEqual(['globex.md']);
        const own = await globex.callTool({
          name: 'get_session',
          arguments: { session_id: globexSession },
        });
        expect(own.isError).toBeFalsy();
      } finally {
        await globex.close();
      }
    });
  });

  describe('the edge', () => {
    it('answers 401 with a Bearer challenge without a key and with a wrong one', async () => {
      for (const key of [null, 'sk-wrong-key-0123456789']) {
        const response = await post(gateway.app, INITIALIZE, key);
        expect(response.status).toBe(401);
        expect(response.headers['www-authenticate']).toBe(
          'Bearer realm="fleet", error="invalid_token"',
        );
        expect(response.body).toMatchObject({ error: { message: expect.any(String) } });
      }
    });

    it('refuses a foreign Origin and a foreign Host with 403, before looking at the key', async () => {
      const origin = await post(gateway.app, INITIALIZE).set('Origin', 'https://evil.example');
      expect(origin.status).toBe(403);
      expect(JSON.stringify(origin.body)).toMatch(/GATEWAY_MCP_ALLOWED_ORIGINS/);
      const host = await post(gateway.app, INITIALIZE).set('Host', 'evil.example:8080');
      expect(host.status).toBe(403);
      expect(JSON.stringify(host.body)).toMatch(/GATEWAY_MCP_ALLOWED_HOSTS/);
      const noKey = await post(gateway.app, INITIALIZE, null).set('Origin', 'https://evil.example');
      expect(noKey.status).toBe(403);
    });

    it('accepts a loopback Origin, with CORS headers a browser client can read', async () => {
      const response = await post(gateway.app, INITIALIZE).set('Origin', 'http://localhost:5173');
      expect(response.status).toBe(200);
      expect(response.headers['access-control-allow-origin']).toBe('http://localhost:5173');
      expect(response.headers['vary']).toMatch(/Origin/);
      expect(response.headers['access-control-expose-headers']).toMatch(/Mcp-Session-Id/);
      expect(response.headers['mcp-session-id']).toEqual(expect.any(String));
      const noKey = await post(gateway.app, INITIALIZE, null).set(
        'Origin',
        'http://localhost:5173',
      );
      expect(noKey.status).toBe(401);
      expect(noKey.headers['access-control-allow-origin']).toBe('http://localhost:5173');
      expect(noKey.headers['access-control-expose-headers']).toMatch(/WWW-Authenticate/);
    });

    it("answers a browser's preflight from an allowed origin without a key, and no other's", async () => {
      const preflight = await request(gateway.app)
        .options('/mcp')
        .set('Origin', 'http://127.0.0.1:6274')
        .set('Access-Control-Request-Method', 'POST')
        .set('Access-Control-Request-Headers', 'authorization, content-type, mcp-protocol-version');
      expect(preflight.status).toBe(204);
      expect(preflight.headers['access-control-allow-origin']).toBe('http://127.0.0.1:6274');
      expect(preflight.headers['access-control-allow-methods']).toMatch(/POST/);
      expect(preflight.headers['access-control-allow-headers']).toBe(
        'authorization, content-type, mcp-protocol-version',
      );
      const foreign = await request(gateway.app)
        .options('/mcp')
        .set('Origin', 'https://evil.example')
        .set('Access-Control-Request-Method', 'POST');
      expect(foreign.status).toBe(403);
      expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
      const noOrigin = await post(gateway.app, INITIALIZE);
      expect(noOrigin.headers['access-control-allow-origin']).toBeUndefined();
    });

    it('answers 413 for a body over 1 MiB', async () => {
      const big = {
        ...INITIALIZE,
        params: { ...INITIALIZE.params, padding: 'x'.repeat(1024 * 1024) },
      };
      const response = await post(gateway.app, big);
      expect(response.status).toBe(413);
    });

    it('answers malformed JSON with a JSON-RPC parse error', async () => {
      const response = await post(gateway.app, '{"jsonrpc": "2.0", "id": 1, "method": ');
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 } });
    });

    it.each(['delete_everything', 'constructor', '__proto__', 'toString'])(
      'answers an unknown tool (%s) with a JSON-RPC error naming it',
      async (name) => {
        const response = await post(gateway.app, {
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: { name, arguments: {} },
        });
        const body = parseRpc(response);
        expect(body).toMatchObject({ id: 7, error: { code: -32602 } });
        expect(JSON.stringify(body)).toContain(name);
      },
    );

    it('answers an unknown method with a JSON-RPC method-not-found error', async () => {
      const response = await post(gateway.app, {
        jsonrpc: '2.0',
        id: 8,
        method: 'fleet/nothing',
        params: {},
      });
      expect(parseRpc(response)).toMatchObject({ id: 8, error: { code: -32601 } });
    });

    it('limits a flooding tenant with 429, and not the others', async () => {
      const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
      const keyPrefix = `test:mcp-limits:${randomUUID()}`;
      const limited = await buildGateway({
        upstream: 'offline',
        overrides: {
          tenantLimits: {
            redis,
            defaults: { rpm: 2, runs: 20, waiting: 50, tokens_per_day: null },
            keyPrefix,
          },
        },
      });
      try {
        const statuses: number[] = [];
        for (let sent = 0; sent < 6; sent += 1) {
          statuses.push((await post(limited.app, INITIALIZE)).status);
        }
        // Replicas share counts within a sync interval, so one more may pass before the refusals.
        expect(statuses.slice(0, 2)).toEqual([200, 200]);
        expect(statuses.slice(-2)).toEqual([429, 429]);
        expect((await post(limited.app, INITIALIZE, OTHER_KEY)).status).toBe(200);
      } finally {
        await limited.close();
        const keys = await redis.keys(`${keyPrefix}:*`);
        if (keys.length > 0) await redis.del(...keys);
        await redis.quit();
      }
    });

    it('serves a host named in the allow-list', async () => {
      const named = await buildGateway({
        upstream: 'offline',
        overrides: { mcp: { allowedHosts: ['gateway'] } },
      });
      try {
        const response = await post(named.app, INITIALIZE).set('Host', 'gateway:8080');
        expect(response.status).toBe(200);
        expect(parseRpc(response)).toMatchObject({
          id: 1,
          result: { serverInfo: { name: 'a2a-fleet' } },
        });
      } finally {
        await named.close();
      }
    });

    it('answers a search as a tool error while the RAG agent is unreachable', async () => {
      const down = await buildGateway({
        upstream: 'offline',
        overrides: {
          documents: createDocumentsClient({
            client: agent.client,
            agentUrl: 'http://127.0.0.1:9',
            contentUrl: 'http://127.0.0.1:9',
            token: RAG_DOUBLE_TOKEN,
          }),
        },
      });
      try {
        const response = await post(down.app, {
          jsonrpc: '2.0',
          id: 3,
          method: 'tools/call',
          params: { name: 'search_documents', arguments: { query: 'leave' } },
        });
        const body = parseRpc(response) as { result: { isError: boolean; content: unknown } };
        expect(body.result.isError).toBe(true);
        expect(textOf(body.result)).toMatch(/^SERVICE_UNAVAILABLE: /);
      } finally {
        await down.close();
      }
    });

    it('is not served when turned off', async () => {
      const off = await buildGateway({
        upstream: 'offline',
        overrides: { mcp: { enabled: false } },
      });
      try {
        const response = await post(off.app, INITIALIZE);
        expect(response.status).toBe(404);
      } finally {
        await off.close();
      }
    });
  });
});

/** A JSON-RPC answer, whether it came as JSON or as one SSE event. */
function parseRpc(response: request.Response): unknown {
  const type = String(response.headers['content-type'] ?? '');
  if (type.includes('text/event-stream')) {
    const data = response.text
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).trim())
      .find((line) => line.startsWith('{'));
    return data === undefined ? undefined : JSON.parse(data);
  }
  return response.body;
}
