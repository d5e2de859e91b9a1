/**
 * The floor for one extra hop: the smallest sensible Node reverse proxy (keep-alive pool, streams
 * piped both ways, nothing else). `pnpm bench gateway` compares the gateway against it.
 *
 * Usage: node minimal-proxy.js --target http://127.0.0.1:PORT [--port 0]
 * Prints `READY <url>` once listening.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { target: { type: 'string' }, port: { type: 'string', default: '0' } },
});
if (values.target === undefined) {
  process.stderr.write('minimal-proxy: --target is required\n');
  process.exit(2);
}
const target = new URL(values.target);
const agent = new http.Agent({ keepAlive: true, scheduling: 'lifo' });

const server = http.createServer((req, res) => {
  const upstream = http.request(
    {
      host: target.hostname,
      port: target.port,
      method: req.method,
      path: req.url,
      headers: { ...req.headers, host: target.host },
      agent,
    },
    (upstreamResponse) => {
      res.writeHead(upstreamResponse.statusCode ?? 502, upstreamResponse.headers);
      upstreamResponse.pipe(res);
    },
  );
  upstream.on('error', () => {
    if (!res.headersSent) res.writeHead(502);
    res.end();
  });
  res.on('close', () => {
    if (!res.writableFinished) upstream.destroy();
  });
  req.pipe(upstream);
});
server.keepAliveTimeout = 65_000;
server.listen(Number(values.port), '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`READY http://127.0.0.1:${port}\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
