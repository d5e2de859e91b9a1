import { createServer, type AddressInfo } from 'node:net';

/**
 * Asks the OS for a free TCP port on 127.0.0.1 (listen on port 0, read it, close). Another process
 * could take it before you use it; prefer port 0 where the service supports it.
 *
 * @example
 * const port = await getFreePort();
 */
export function getFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
