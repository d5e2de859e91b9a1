import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { createRequestTracer } from '@fleet/telemetry';
import { buildGateway, TEST_KEY, type TestGateway } from '../test-support/build-gateway';
import {
  documentsClientOf,
  startRagAgentDouble,
  type RagAgentDouble,
} from '../test-support/rag-agent-double';
import { serve, type Served } from '../test-support/serve';
import { readToolCall } from './tool-call-trace';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CLIENT_SPAN = '00f067aa0ba902b7';
const TRACEPARENT = `00-${TRACE_ID}-${CLIENT_SPAN}-01`;

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer('test');

/** The finished spans named `name`. */
function spansNamed(name: string): ReadableSpan[] {
  return exporter.getFinishedSpans().filter((span) => span.name === name);
}

describe('tools/call spans on /mcp', () => {
  let agent: RagAgentDouble;
  let gateway: TestGateway;
  let served: Served;
  const url = () => new URL(`${served.url}/mcp`);
  const requestInit = { headers: { Authorization: `Bearer ${TEST_KEY}` } };

  beforeAll(async () => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    agent = await startRagAgentDouble();
    gateway = await buildGateway({
      upstream: 'offline',
      overrides: {
        documents: documentsClientOf(agent),
        mcp: { tracer },
      },
    });
    // Every request gets its server span, as main.ts wraps the app.
    served = await serve(createRequestTracer({ ignorePaths: [], tracer })(gateway.app));
  });

  afterAll(async () => {
    await served.close();
    await gateway.close();
    await agent.close();
    context.disable();
  });

  beforeEach(() => exporter.reset());

  /** The one `tools/call search_documents` span, and the `/mcp` request's server span. */
  function searchSpans(): { tool: ReadableSpan; request: ReadableSpan } {
    const [tool, ...others] = spansNamed('tools/call search_documents');
    expect(others).toEqual([]);
    const request = exporter
      .getFinishedSpans()
      .find(
        (span) =>
          span.name === 'POST' && span.spanContext().spanId === tool?.links[0]?.context.spanId,
      );
    return { tool: tool!, request: request! };
  }

  it('continues the trace of _meta.traceparent on 2026-07-28 (v2 client), linked to the request span', async () => {
    const client = new ClientV2(
      { name: 'v2-trace', version: '2.0.0' },
      { versionNegotiation: { mode: 'auto' } },
    );
    await client.connect(new TransportV2(url(), { requestInit }));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      exporter.reset();
      const result = await client.callTool({
        name: 'search_documents',
        arguments: { query: 'annual leave' },
        _meta: { traceparent: TRACEPARENT, tracestate: 'client=1' },
      });
      expect(result.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    const { tool, request } = searchSpans();
    expect(tool.spanContext().traceId).toBe(TRACE_ID);
    expect(tool.parentSpanContext?.spanId).toBe(CLIENT_SPAN);
    expect(tool.spanContext().traceState?.serialize()).toBe('client=1');
    expect(tool.attributes).toMatchObject({
      'openinference.span.kind': 'TOOL',
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'search_documents',
      'tool.name': 'search_documents',
      'user.id': 'acme',
      'input.value': '{"query":"annual leave"}',
    });
    // The request's own server span stays the gateway's root, in its own trace, linked.
    expect(request).toBeDefined();
    expect(request.spanContext().traceId).not.toBe(TRACE_ID);
    expect(request.parentSpanContext).toBeUndefined();
  });

  it('continues it on 2025-11-25 too (v1 client)', async () => {
    const client = new ClientV1({ name: 'v1-trace', version: '1.0.0' });
    const transport = new TransportV1(url(), { requestInit });
    await client.connect(transport);
    try {
      expect(transport.protocolVersion).toBe('2025-11-25');
      exporter.reset();
      await client.callTool({
        name: 'search_documents',
        arguments: { query: 'annual leave' },
        _meta: { traceparent: TRACEPARENT },
      });
    } finally {
      await client.close();
    }
    const { tool } = searchSpans();
    expect(tool.spanContext().traceId).toBe(TRACE_ID);
    expect(tool.parentSpanContext?.spanId).toBe(CLIENT_SPAN);
  });

  it('makes a call without trace context, or with a malformed one, a child of the request span', async () => {
    const client = new ClientV1({ name: 'v1-plain', version: '1.0.0' });
    await client.connect(new TransportV1(url(), { requestInit }));
    try {
      for (const meta of [undefined, { traceparent: 'not-a-traceparent' }]) {
        exporter.reset();
        await client.callTool({
          name: 'search_documents',
          arguments: { query: 'annual leave' },
          ...(meta && { _meta: meta }),
        });
        const [tool] = spansNamed('tools/call search_documents');
        const request = exporter
          .getFinishedSpans()
          .find((span) => span.spanContext().spanId === tool?.parentSpanContext?.spanId);
        expect(request?.name).toBe('POST');
        expect(tool?.spanContext().traceId).toBe(request?.spanContext().traceId);
        expect(tool?.spanContext().traceId).not.toBe(TRACE_ID);
        expect(tool?.links).toEqual([]);
      }
    } finally {
      await client.close();
    }
  });
});

describe('readToolCall', () => {
  // The router hands it the body as parsed (a copy, as JSON.parse gives).
  const body = (value: unknown): unknown => JSON.parse(JSON.stringify(value)) as unknown;

  it('reads the tool and the trace context of a tools/call, and nothing else', () => {
    expect(
      readToolCall(
        body({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'list_sessions', arguments: {}, _meta: { traceparent: TRACEPARENT } },
        }),
      ),
    ).toEqual({ name: 'list_sessions', arguments: {}, trace: { traceparent: TRACEPARENT } });
    expect(readToolCall(body({ jsonrpc: '2.0', id: 1, method: 'tools/list' }))).toBeUndefined();
    // A body that is not JSON reaches it as undefined.
    expect(readToolCall(undefined)).toBeUndefined();
    expect(
      readToolCall(body([{ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x' } }])),
    ).toBeUndefined();
  });

  it('ignores trace fields that are not strings or too long, keeping the call', () => {
    expect(
      readToolCall(
        body({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'x', _meta: { traceparent: 7, tracestate: 'a'.repeat(600) } },
        }),
      ),
    ).toEqual({ name: 'x', arguments: undefined, trace: {} });
  });
});
