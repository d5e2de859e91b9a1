import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import {
  CompositePropagator,
  W3CBaggagePropagator,
  W3CTraceContextPropagator,
} from '@opentelemetry/core';
import { createInMemoryTracing } from './__fixtures__/in-memory-tracing';
import {
  createRequestTracer,
  injectRequestContext,
  requestLogFields,
  requestSpan,
  withRequestContext,
} from './trace-requests';

const tracing = createInMemoryTracing();
const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const PARENT_ID = 'b7ad6b7169203331';

describe('createRequestTracer', () => {
  let server: http.Server;
  let base: string;
  const activeInHandler: (string | undefined)[] = [];

  beforeAll(async () => {
    propagation.setGlobalPropagator(
      new CompositePropagator({
        propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()],
      }),
    );
    const traceRequests = createRequestTracer({
      ignorePaths: ['/healthz'],
      tracer: tracing.tracer,
    });
    server = http.createServer(
      traceRequests((req, res) => {
        // Active across await, as handlers are async.
        void Promise.resolve().then(() => {
          activeInHandler.push(trace.getActiveSpan()?.spanContext().spanId);
          res.statusCode = req.url === '/fail' ? 503 : 200;
          res.end('ok');
        });
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    propagation.disable();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    tracing.reset();
    activeInHandler.length = 0;
  });

  async function finished(count: number) {
    for (let i = 0; i < 100 && tracing.finishedSpans().length < count; i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return tracing.finishedSpans();
  }

  it('records one SERVER span per request, active in the handler, ended when the response closes', async () => {
    const response = await fetch(`${base}/v1/things?secret=1`, {
      method: 'POST',
      body: '{}',
      headers: { 'user-agent': 'test-agent' },
    });
    expect(await response.text()).toBe('ok');
    const [span] = await finished(1);
    expect(span!.kind).toBe(SpanKind.SERVER);
    expect(span!.name).toBe('POST');
    expect(span!.parentSpanContext).toBeUndefined();
    expect(span!.attributes).toMatchObject({
      'http.request.method': 'POST',
      'url.path': '/v1/things',
      'url.scheme': 'http',
      'server.address': '127.0.0.1',
      'user_agent.original': 'test-agent',
      'network.protocol.version': '1.1',
      'http.response.status_code': 200,
    });
    expect(typeof span!.attributes['server.port']).toBe('number');
    expect(JSON.stringify(span!.attributes)).not.toContain('secret');
    expect(span!.status.code).toBe(SpanStatusCode.UNSET);
    expect(activeInHandler).toEqual([span!.spanContext().spanId]);
  });

  it('continues the trace of an incoming traceparent', async () => {
    await (
      await fetch(`${base}/continued`, {
        headers: { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` },
      })
    ).text();
    const [span] = await finished(1);
    expect(span!.spanContext().traceId).toBe(TRACE_ID);
    expect(span!.parentSpanContext?.spanId).toBe(PARENT_ID);
  });

  it('marks a 5xx answer as an error', async () => {
    await (await fetch(`${base}/fail`)).text();
    const [span] = await finished(1);
    expect(span!.attributes['http.response.status_code']).toBe(503);
    expect(span!.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('gives ignored paths no span', async () => {
    await (await fetch(`${base}/healthz`)).text();
    await (await fetch(`${base}/after`)).text();
    const spans = await finished(1);
    expect(spans.map((span) => span.attributes['url.path'])).toEqual(['/after']);
  });
});

describe('createRequestTracer with enterContext', () => {
  let server: http.Server;
  let base: string;
  const seen: {
    active: unknown;
    span: string | undefined;
    headers: Record<string, unknown>;
    inside: string | undefined;
    log: Record<string, string>;
  }[] = [];

  beforeAll(async () => {
    propagation.setGlobalPropagator(
      new CompositePropagator({
        propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()],
      }),
    );
    const traceRequests = createRequestTracer({
      ignorePaths: ['/healthz'],
      tracer: tracing.tracer,
      // `/explicit` is not entered; everything else is.
      enterContext: (req) => req.url !== '/explicit',
    });
    server = http.createServer(
      traceRequests((req, res) => {
        void Promise.resolve().then(async () => {
          const headers: Record<string, unknown> = {};
          injectRequestContext(req, headers);
          const inside = await withRequestContext(req, () =>
            Promise.resolve().then(() => trace.getActiveSpan()?.spanContext().spanId),
          );
          seen.push({
            active: context.active(),
            span: requestSpan(req)?.spanContext().spanId,
            headers,
            inside,
            log: requestLogFields(req),
          });
          res.end('ok');
        });
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    propagation.disable();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    tracing.reset();
    seen.length = 0;
  });

  async function finished(count: number) {
    for (let i = 0; i < 100 && tracing.finishedSpans().length < count; i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return tracing.finishedSpans();
  }

  it('leaves a request it is told not to enter outside any context, its span carried explicitly', async () => {
    expect(await (await fetch(`${base}/explicit`, { method: 'POST' })).text()).toBe('ok');
    const [span] = await finished(1);
    const { spanId, traceId } = span!.spanContext();
    const [explicit] = seen;
    expect(explicit!.active).toBe(ROOT_CONTEXT);
    expect(explicit!.span).toBe(spanId);
    // What an outgoing call inside the context would carry.
    expect(explicit!.headers['traceparent']).toBe(`00-${traceId}-${spanId}-01`);
    expect(explicit!.inside).toBe(spanId);
    expect(explicit!.log).toEqual({ trace_id: traceId, span_id: spanId });
    expect(span!.attributes['http.response.status_code']).toBe(200);
  });

  it('enters the others as before', async () => {
    await (await fetch(`${base}/entered`)).text();
    const [span] = await finished(1);
    const [entered] = seen;
    expect(entered!.active).not.toBe(ROOT_CONTEXT);
    expect(entered!.inside).toBe(span!.spanContext().spanId);
    expect(entered!.span).toBe(span!.spanContext().spanId);
  });

  it('gives an ignored path nothing to carry', async () => {
    await (await fetch(`${base}/healthz`)).text();
    expect(seen[0]).toMatchObject({ span: undefined, headers: {}, inside: undefined, log: {} });
  });
});
