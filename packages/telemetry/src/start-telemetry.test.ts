import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parseJson } from '@fleet/errors';
import { z } from 'zod';
import {
  type CapturedSpan,
  decodeJsonSpans,
  type OtlpReceiver,
  type ReceivedRequest,
  startOtlpReceiver,
} from './__fixtures__/otlp-receiver';
import { FOREIGN_SPAN_ID, FOREIGN_TRACE_ID } from './__fixtures__/scenario-constants';
import { resolveTracesUrl, startTelemetry } from './start-telemetry';

const SERVER = 2;
const CLIENT = 3;

const scenarioResultSchema = z.object({
  enabled: z.boolean(),
  scenarioTraceId: z.string(),
  meterProvider: z.string(),
  seen: z.array(
    z.object({
      path: z.string(),
      traceparent: z.string().nullable(),
      baggage: z.string().nullable(),
      serverTraceId: z.string().nullable(),
    }),
  ),
});
type ScenarioResult = z.infer<typeof scenarioResultSchema>;

interface ScenarioRun {
  result: ScenarioResult;
  requests: ReceivedRequest[];
}

const fixtures = path.join(__dirname, '__fixtures__');

/**
 * Runs `export-scenario.ts` in a child process, so the SDK's global registration and the `http`
 * patching never touch jest's process. The child loads this package's TypeScript sources through
 * `run-ts.mjs`, so no build is needed. OTEL_EXPORTER_OTLP_ENDPOINT also points at the receiver:
 * had sdk-node built its default metric or log exporters from env, they would post there.
 */
async function runScenario(receiver: OtlpReceiver, args: readonly string[]): Promise<ScenarioRun> {
  const child = spawn(
    process.execPath,
    [
      path.join(fixtures, 'run-ts.mjs'),
      path.join(fixtures, 'export-scenario.ts'),
      '--endpoint',
      receiver.url,
      ...args,
    ],
    { env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`export scenario exited with ${String(code)}:\n${stderr}`);
  const result = parseJson({
    text: stdout.trim(),
    schema: scenarioResultSchema,
    subject: 'The scenario output',
  });
  return { result, requests: [...receiver.requests] };
}

function serverSpan(spans: readonly CapturedSpan[], urlPath: string): CapturedSpan {
  const found = spans.filter(
    (span) => span.kind === SERVER && span.attributes['url.path'] === urlPath,
  );
  expect(found).toHaveLength(1);
  return found[0]!;
}

function exportPaths(requests: readonly ReceivedRequest[]): string[] {
  return requests.map((request) => `${request.method} ${request.path}`);
}

describe('startTelemetry (exporting from a child process)', () => {
  const receivers: OtlpReceiver[] = [];
  let trusted: ScenarioRun;
  let distrusted: ScenarioRun;
  let protobuf: ScenarioRun;

  beforeAll(async () => {
    receivers.push(await startOtlpReceiver(), await startOtlpReceiver(), await startOtlpReceiver());
    const [json, jsonDistrust, proto] = receivers as [OtlpReceiver, OtlpReceiver, OtlpReceiver];
    [trusted, distrusted, protobuf] = await Promise.all([
      runScenario(json, ['--protocol', 'http/json']),
      runScenario(jsonDistrust, ['--protocol', 'http/json', '--distrust']),
      runScenario(proto, ['--header', 'authorization=Bearer test-key']),
    ]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(receivers.map((receiver) => receiver.close()));
  });

  describe('by default (http/json for decoding)', () => {
    it('exports only traces: nothing reaches /v1/metrics or /v1/logs', () => {
      expect(trusted.result.enabled).toBe(true);
      expect(trusted.requests.length).toBeGreaterThan(0);
      expect(new Set(exportPaths(trusted.requests))).toEqual(new Set(['POST /v1/traces']));
      for (const request of trusted.requests) {
        expect(request.headers['content-type']).toBe('application/json');
      }
      expect(trusted.result.meterProvider).toBe('NoopMeterProvider');
    });

    it('puts the parent span, both client spans and both server spans in one trace', () => {
      const spans = decodeJsonSpans(trusted.requests);
      const { scenarioTraceId } = trusted.result;
      const scenario = spans.find((span) => span.name === 'scenario');
      expect(scenario).toBeDefined();
      expect(scenario!.traceId).toBe(scenarioTraceId);
      expect(scenario!.attributes['openinference.span.kind']).toBe('CHAIN');
      expect(scenario!.attributes['output.value']).toBe('done');

      const clients = spans.filter((span) => span.kind === CLIENT);
      expect(clients).toHaveLength(2);
      for (const client of clients) {
        expect(client.traceId).toBe(scenarioTraceId);
        expect(client.parentSpanId).toBe(scenario!.spanId);
      }
      const viaFetch = serverSpan(spans, '/via-fetch');
      const viaHttp = serverSpan(spans, '/via-http');
      for (const server of [viaFetch, viaHttp]) {
        expect(server.traceId).toBe(scenarioTraceId);
        expect(clients.map((client) => client.spanId)).toContain(server.parentSpanId);
      }
    });

    it('carries session.id and user.id baggage across HTTP onto the server spans', () => {
      const spans = decodeJsonSpans(trusted.requests);
      for (const urlPath of ['/via-fetch', '/via-http']) {
        const server = serverSpan(spans, urlPath);
        expect(server.attributes['session.id']).toBe('session-1');
        expect(server.attributes['user.id']).toBe('user-1');
      }
      expect(trusted.result.seen.find((seen) => seen.path === '/via-fetch')?.baggage).toContain(
        'session.id=session-1',
      );
    });

    it('copies the service name onto every span and sets the Phoenix project on the resource', () => {
      const spans = decodeJsonSpans(trusted.requests);
      expect(spans.length).toBeGreaterThanOrEqual(7);
      for (const span of spans) {
        expect(span.attributes['service.name']).toBe('scenario-service');
        expect(span.resource['service.name']).toBe('scenario-service');
        expect(span.resource['openinference.project.name']).toBe('a2a-fleet');
      }
    });

    it('ignores health paths and makes no client spans without a parent', () => {
      const spans = decodeJsonSpans(trusted.requests);
      expect(spans.filter((span) => span.attributes['url.path'] === '/healthz')).toHaveLength(0);
      const unparented = serverSpan(spans, '/unparented');
      expect(unparented.parentSpanId).toBeUndefined();
      expect(spans.filter((span) => span.traceId === unparented.traceId)).toHaveLength(1);
    });

    it('continues a trace from an incoming traceparent, with its baggage', () => {
      const foreign = serverSpan(decodeJsonSpans(trusted.requests), '/foreign');
      expect(foreign.traceId).toBe(FOREIGN_TRACE_ID);
      expect(foreign.parentSpanId).toBe(FOREIGN_SPAN_ID);
      expect(foreign.attributes['session.id']).toBe('spoofed');
    });
  });

  describe('with trustInboundTraceContext: false', () => {
    it('starts a new trace for a request carrying a foreign traceparent and ignores its baggage', () => {
      const foreign = serverSpan(decodeJsonSpans(distrusted.requests), '/foreign');
      expect(foreign.traceId).not.toBe(FOREIGN_TRACE_ID);
      expect(foreign.parentSpanId).toBeUndefined();
      expect(foreign.attributes['session.id']).toBeUndefined();
    });

    it('still writes traceparent and baggage on outgoing calls', () => {
      const { scenarioTraceId, seen } = distrusted.result;
      for (const urlPath of ['/via-fetch', '/via-http']) {
        const request = seen.find((entry) => entry.path === urlPath);
        expect(request?.traceparent).toMatch(new RegExp(`^00-${scenarioTraceId}-[0-9a-f]{16}-01$`));
        expect(request?.baggage).toContain('session.id=session-1');
      }
      const clients = decodeJsonSpans(distrusted.requests).filter((span) => span.kind === CLIENT);
      expect(clients.map((span) => span.traceId)).toEqual([scenarioTraceId, scenarioTraceId]);
    });
  });

  describe('with the default protocol', () => {
    it('posts protobuf to /v1/traces with the configured headers', () => {
      expect(protobuf.requests.length).toBeGreaterThan(0);
      for (const request of protobuf.requests) {
        expect(`${request.method} ${request.path}`).toBe('POST /v1/traces');
        expect(request.headers['content-type']).toBe('application/x-protobuf');
        expect(request.headers['authorization']).toBe('Bearer test-key');
        expect(request.body.length).toBeGreaterThan(0);
      }
      const body = Buffer.concat(protobuf.requests.map((request) => request.body));
      expect(body.includes('openinference.project.name')).toBe(true);
      expect(body.includes('scenario-service')).toBe(true);
    });
  });
});

describe('startTelemetry without an endpoint', () => {
  it('starts nothing and returns a disabled handle whose shutdown resolves', async () => {
    const telemetry = startTelemetry({ serviceName: 'quiet', endpoint: undefined });
    expect(telemetry.enabled).toBe(false);
    await expect(telemetry.flush()).resolves.toBeUndefined();
    await expect(telemetry.shutdown()).resolves.toBeUndefined();
  });
});

describe('resolveTracesUrl', () => {
  it('appends /v1/traces to the base endpoint', () => {
    expect(resolveTracesUrl({ endpoint: 'http://phoenix:6006' })).toBe(
      'http://phoenix:6006/v1/traces',
    );
    expect(resolveTracesUrl({ endpoint: 'http://phoenix:6006/' })).toBe(
      'http://phoenix:6006/v1/traces',
    );
  });

  it('uses tracesEndpoint exactly as given, over endpoint', () => {
    expect(
      resolveTracesUrl({ endpoint: 'http://a:1', tracesEndpoint: 'http://b:2/custom/traces' }),
    ).toBe('http://b:2/custom/traces');
  });

  it('treats empty strings as unset', () => {
    expect(resolveTracesUrl({ endpoint: ' ', tracesEndpoint: '' })).toBeUndefined();
  });

  it('rejects a URL that is not http(s), naming the option', () => {
    expect(() => resolveTracesUrl({ endpoint: 'phoenix:6006' })).toThrow(/endpoint/);
    expect(() => resolveTracesUrl({ tracesEndpoint: 'not a url' })).toThrow(/tracesEndpoint/);
  });
});
