import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A loopback proxy that adds an `Authorization` header, for clients that cannot send one. */
export interface BearerProxy {
  /** `http://127.0.0.1:<port>`: the proxy's base URL. */
  url: string;
  close(): Promise<void>;
}

/**
 * Serves a proxy on 127.0.0.1 that forwards every request to `target` (its method, path and
 * headers, `Host` and `Origin` unchanged, the body streamed) with `Authorization: Bearer <token>`
 * set, and streams the response back as it comes (SSE included). For test clients with no way to
 * send a bearer token, such as the MCP conformance suite's server mode.
 *
 * @example
 * const proxy = await startBearerProxy(served.url, TEST_KEY); // then use `${proxy.url}/mcp`
 */
export async function startBearerProxy(target: string, token: string): Promise<BearerProxy> {
  const upstream = new URL(target);
  const server = http.createServer((req, res) => {
    const forwarded = http.request(
      {
        hostname: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, authorization: `Bearer ${token}` },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forwarded.once('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    res.once('close', () => forwarded.destroy());
    req.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
