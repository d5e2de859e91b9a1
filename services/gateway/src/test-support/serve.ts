import http, { type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A listener served on a loopback port, for tests that send many requests at once. */
export interface Served {
  url: string;
  close(): Promise<void>;
}

/** Serves `app` on 127.0.0.1 at a free port (one server for many concurrent requests). */
export async function serve(app: RequestListener): Promise<Served> {
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
