/**
 * Test-only OTLP/HTTP receiver: records every request it gets (any path), answers `POST
 * /v1/traces` with 200 and everything else with 404, and decodes OTLP/JSON trace bodies.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseJson } from '@fleet/errors';
import { z } from 'zod';

/** One request the receiver got. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** A running receiver. */
export interface OtlpReceiver {
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  url: string;
  requests: ReceivedRequest[];
  close(): Promise<void>;
}

/** Starts a receiver on 127.0.0.1 with a free port. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const requests: ReceivedRequest[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      requests.push({
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks),
      });
      if (request.method !== 'POST' || request.url !== '/v1/traces') {
        response.statusCode = 404;
        response.end();
        return;
      }
      const json = request.headers['content-type'] === 'application/json';
      response.setHeader('content-type', json ? 'application/json' : 'application/x-protobuf');
      response.end(json ? '{}' : undefined);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

type AttributeValue = string | number | boolean;

/** A span decoded from OTLP/JSON, with attributes flattened to a record. */
export interface CapturedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, AttributeValue>;
  resource: Record<string, AttributeValue>;
}

const anyValueSchema = z.looseObject({
  stringValue: z.string().optional(),
  boolValue: z.boolean().optional(),
  intValue: z.union([z.number(), z.string()]).optional(),
  doubleValue: z.number().optional(),
});
const keyValuesSchema = z.array(z.object({ key: z.string(), value: anyValueSchema })).default([]);
const exportRequestSchema = z.object({
  resourceSpans: z.array(
    z.object({
      resource: z.object({ attributes: keyValuesSchema }),
      scopeSpans: z.array(
        z.object({
          spans: z.array(
            z.object({
              traceId: z.string(),
              spanId: z.string(),
              parentSpanId: z.string().optional(),
              name: z.string(),
              kind: z.number(),
              attributes: keyValuesSchema,
            }),
          ),
        }),
      ),
    }),
  ),
});

/** Decodes every OTLP/JSON `/v1/traces` body the receiver got into spans. */
export function decodeJsonSpans(requests: readonly ReceivedRequest[]): CapturedSpan[] {
  return requests
    .filter((request) => request.path === '/v1/traces')
    .flatMap((request) => {
      const body = parseJson({
        text: request.body.toString('utf8'),
        schema: exportRequestSchema,
        subject: 'The OTLP export body',
      });
      return body.resourceSpans.flatMap((resourceSpans) => {
        const resource = flatten(resourceSpans.resource.attributes);
        return resourceSpans.scopeSpans.flatMap((scopeSpans) =>
          scopeSpans.spans.map((span) => ({
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId === '' ? undefined : span.parentSpanId,
            name: span.name,
            kind: span.kind,
            attributes: flatten(span.attributes),
            resource,
          })),
        );
      });
    });
}

function flatten(keyValues: z.infer<typeof keyValuesSchema>): Record<string, AttributeValue> {
  const record: Record<string, AttributeValue> = {};
  for (const { key, value } of keyValues) {
    // OTLP/JSON may encode 64-bit integers as strings.
    if (value.intValue !== undefined) {
      record[key] = Number(value.intValue);
      continue;
    }
    const scalar = value.stringValue ?? value.boolValue ?? value.doubleValue;
    if (scalar !== undefined) record[key] = scalar;
  }
  return record;
}
