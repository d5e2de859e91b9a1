/**
 * A local OTLP/HTTP trace receiver for `pnpm bench gateway --tracing`: it accepts
 * `POST /v1/traces` in protobuf (what Phoenix takes) or JSON, answers 200 with an empty
 * `ExportTraceServiceResponse` (zero bytes in protobuf, `{}` in JSON) and only counts what it
 * received: it does not decode spans, so its own cost stays small beside the gateway it measures.
 * `GET /stats` answers `{ requests, bytes, refused }` as JSON.
 *
 * Usage: node otlp-sink.js [--port 0]
 * Prints `READY <base url>` once listening (point OTEL_EXPORTER_OTLP_ENDPOINT at it).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';

/** What the sink received so far. */
export interface OtlpSinkStats {
  /** Export requests answered 200. */
  requests: number;
  /** Request body bytes received on those (as sent: compressed if the exporter compresses). */
  bytes: number;
  /** Requests refused (wrong path or method). */
  refused: number;
}

/** Reads a sink's counters over HTTP. */
export async function readOtlpSinkStats(baseUrl: string): Promise<OtlpSinkStats> {
  const response = await fetch(`${baseUrl}/stats`);
  if (!response.ok) throw new Error(`otlp sink: GET /stats answered ${response.status}`);
  return (await response.json()) as OtlpSinkStats;
}

function serve(port: number): void {
  const stats: OtlpSinkStats = { requests: 0, bytes: 0, refused: 0 };
  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/stats') {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(stats));
      return;
    }
    if (req.method !== 'POST' || req.url?.split('?')[0] !== '/v1/traces') {
      stats.refused += 1;
      req.resume();
      res.statusCode = 404;
      res.end();
      return;
    }
    let bytes = 0;
    req.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    req.once('end', () => {
      stats.requests += 1;
      stats.bytes += bytes;
      const json = (req.headers['content-type'] ?? '').startsWith('application/json');
      res.statusCode = 200;
      // An empty ExportTraceServiceResponse: no fields set is zero bytes in protobuf.
      res.setHeader('content-type', json ? 'application/json' : 'application/x-protobuf');
      res.end(json ? '{}' : '');
    });
  });
  server.keepAliveTimeout = 30_000;
  server.listen(port, '127.0.0.1', () => {
    const address = server.address() as AddressInfo;
    process.stdout.write(`READY http://127.0.0.1:${address.port}\n`);
  });
  process.once('SIGTERM', () => server.close(() => process.exit(0)));
}

if (require.main === module) {
  const { values } = parseArgs({ options: { port: { type: 'string', default: '0' } } });
  serve(Number(values.port));
}
