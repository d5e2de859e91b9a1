import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { findFreePort } from './ports';
import { startDetached, stopProcessGroup, type StartedProcess } from './processes';
import { encodeCommand, pingRedis } from './redis-ping';

describe('encodeCommand', () => {
  it('encodes arguments as RESP bulk strings, counting bytes not characters', () => {
    expect(encodeCommand(['AUTH', 'pässword'])).toBe('*2\r\n$4\r\nAUTH\r\n$9\r\npässword\r\n');
  });
});

describe('pingRedis', () => {
  let directory: string;
  let protectedRedis: StartedProcess;
  let protectedPort: number;

  beforeAll(async () => {
    directory = await mkdtemp(path.join(os.tmpdir(), 'fleet-redis-ping-'));
    protectedPort = await findFreePort();
    protectedRedis = await startDetached({
      command: 'redis-server',
      args: [
        '--port',
        String(protectedPort),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--requirepass',
        's3cret',
      ],
      cwd: directory,
      env: {},
      logFile: path.join(directory, 'redis.log'),
    });
    for (let attempt = 0; attempt < 100; attempt += 1) {
      if ((await pingRedis({ url: `redis://:s3cret@127.0.0.1:${protectedPort}` })).ok) break;
      await sleep(50);
    }
  });

  afterAll(async () => {
    await stopProcessGroup({ pid: protectedRedis.pid, graceMs: 5000 });
    await rm(directory, { recursive: true, force: true });
  });

  it('gets PONG from a running Redis', async () => {
    await expect(pingRedis({ url: 'redis://127.0.0.1:6379' })).resolves.toEqual({ ok: true });
  });

  it('authenticates with the password in the URL', async () => {
    await expect(
      pingRedis({ url: `redis://:s3cret@127.0.0.1:${protectedPort}/0` }),
    ).resolves.toEqual({ ok: true });
    await expect(
      pingRedis({ url: `redis://default:s3cret@127.0.0.1:${protectedPort}` }),
    ).resolves.toEqual({ ok: true });
  });

  it("reports Redis's own error when authentication is missing or wrong", async () => {
    const missing = await pingRedis({ url: `redis://127.0.0.1:${protectedPort}` });
    expect(missing).toEqual({ ok: false, reason: expect.stringContaining('NOAUTH') });
    const wrong = await pingRedis({ url: `redis://:nope@127.0.0.1:${protectedPort}` });
    expect(wrong.ok).toBe(false);
  });

  it('says nothing listens on a closed port', async () => {
    const port = await findFreePort();
    await expect(pingRedis({ url: `redis://127.0.0.1:${port}` })).resolves.toEqual({
      ok: false,
      reason: `nothing is listening at 127.0.0.1:${port}`,
    });
  });

  it('recognises a server that does not speak RESP', async () => {
    const server = net.createServer((socket) => socket.end('HTTP/1.1 400 Bad Request\r\n\r\n'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    try {
      const result = await pingRedis({ url: `redis://127.0.0.1:${port}` });
      expect(result).toEqual({
        ok: false,
        reason: expect.stringContaining('does not speak the Redis protocol'),
      });
    } finally {
      server.close();
    }
  });

  it('gives up on a server that never answers', async () => {
    const sockets: net.Socket[] = [];
    const server = net.createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    try {
      const result = await pingRedis({ url: `redis://127.0.0.1:${port}`, timeoutMs: 200 });
      expect(result).toEqual({ ok: false, reason: expect.stringContaining('did not answer') });
    } finally {
      for (const socket of sockets) socket.destroy();
      server.close();
    }
  });

  it('rejects URLs that are not redis URLs', async () => {
    await expect(pingRedis({ url: 'http://127.0.0.1:6379' })).resolves.toMatchObject({ ok: false });
    await expect(pingRedis({ url: 'not a url' })).resolves.toMatchObject({ ok: false });
  });
});
