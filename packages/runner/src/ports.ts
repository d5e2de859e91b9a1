import net from 'node:net';

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    // No host: the wildcard address, which clashes with a listener on any interface.
    server.listen({ port, exclusive: true }, () => {
      server.close(() => resolve(true));
    });
  });
}

function answersOnLoopback(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    const done = (answer: boolean): void => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * True when nothing listens on `port`: it can be bound on every interface and nothing answers on
 * 127.0.0.1.
 */
export async function isPortFree(port: number): Promise<boolean> {
  if (!(await canListen(port))) return false;
  return !(await answersOnLoopback(port));
}

/** A port the kernel considers free right now (bind to port 0, read it, release it). */
export function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ port: 0, host: '127.0.0.1' }, () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
