import net from 'node:net';
import { describe, expect, it } from '@jest/globals';
import { findFreePort, isPortFree } from './ports';

describe('isPortFree', () => {
  it('is true for a port nothing listens on', async () => {
    const port = await findFreePort();
    await expect(isPortFree(port)).resolves.toBe(true);
  });

  it('is false for a port with a listener on 127.0.0.1', async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    try {
      await expect(isPortFree(port)).resolves.toBe(false);
    } finally {
      server.close();
    }
  });

  it('is false for a port with a listener on every interface', async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, resolve));
    const { port } = server.address() as net.AddressInfo;
    try {
      await expect(isPortFree(port)).resolves.toBe(false);
    } finally {
      server.close();
    }
  });
});
