import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Closes a server and destroys its open sockets (keep-alive, hung or streaming ones), so
 * `close()` in a test's `afterAll` never waits for a client.
 */
export function trackSockets(server: Server): () => Promise<void> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  return () =>
    new Promise<void>((resolve) => {
      if (!server.listening) {
        resolve();
        return;
      }
      server.close(() => resolve());
      for (const socket of sockets) socket.destroy();
      sockets.clear();
    });
}
