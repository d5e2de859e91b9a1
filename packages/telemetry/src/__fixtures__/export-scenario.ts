/**
 * Child-process scenario for `start-telemetry.test.ts`: a tiny "service" that starts telemetry the
 * way services do (instrumentation first), serves HTTP, calls itself with `fetch` and `http.get`
 * inside a parent span and with baggage, makes unparented and health calls, receives a request
 * carrying a foreign `traceparent`, then shuts telemetry down and prints what its server saw as
 * one JSON line.
 */
import { telemetry } from './scenario-instrumentation';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { metrics, trace } from '@opentelemetry/api';
import { logs } from '@opentelemetry/api-logs';
import { setSpanOutput, SpanKind, withBaggage, withSpan } from '../index';
import { FOREIGN_SPAN_ID, FOREIGN_TRACE_ID } from './scenario-constants';

interface SeenRequest {
  path: string;
  traceparent: string | null;
  baggage: string | null;
  serverTraceId: string | null;
}

async function main(): Promise<void> {
  const seen: SeenRequest[] = [];
  const server = http.createServer((request, response) => {
    seen.push({
      path: request.url ?? '',
      traceparent: headerOf(request.headers['traceparent']),
      baggage: headerOf(request.headers['baggage']),
      serverTraceId: trace.getActiveSpan()?.spanContext().traceId ?? null,
    });
    response.setHeader('content-type', 'application/json');
    response.end('{"ok":true}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const scenarioTraceId = await withSpan(
    { name: 'scenario', kind: SpanKind.CHAIN, input: { step: 'start' } },
    async (span) => {
      await withBaggage({ 'session.id': 'session-1', 'user.id': 'user-1' }, async () => {
        await (await fetch(`${base}/via-fetch`)).text();
        await httpGet(`${base}/via-http`);
      });
      setSpanOutput(span, 'done');
      return span.spanContext().traceId;
    },
  );

  // A metric and a log record: had sdk-node built its env-default OTLP metric or log exporter,
  // shutdown would post these to /v1/metrics and /v1/logs.
  metrics.getMeter('scenario').createCounter('scenario.requests').add(1);
  logs.getLogger('scenario').emit({ body: 'scenario log record' });

  // No parent span: no client spans; /healthz gets no server span either.
  await (await fetch(`${base}/healthz`)).text();
  await (await fetch(`${base}/unparented`)).text();
  await httpGet(`${base}/foreign`, {
    traceparent: `00-${FOREIGN_TRACE_ID}-${FOREIGN_SPAN_ID}-01`,
    baggage: 'session.id=spoofed',
  });

  server.closeAllConnections();
  server.close();
  await telemetry.shutdown();
  const result = {
    enabled: telemetry.enabled,
    scenarioTraceId,
    meterProvider: metrics.getMeterProvider().constructor.name,
    seen,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`, () => process.exit(0));
}

function httpGet(url: string, headers: Record<string, string> = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (response) => {
        response.resume();
        response.on('end', resolve);
        response.on('error', reject);
      })
      .on('error', reject);
  });
}

function headerOf(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(',') : value;
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
