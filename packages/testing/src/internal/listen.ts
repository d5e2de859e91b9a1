import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Listens on `host:port` (0: a free port) and resolves with the server's base URL. */
export async function listen(
  server: Server,
  { port, host }: { port: number; host: string },
): Promise<{ url: string; port: number }> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`,
    port: address.port,
  };
}
