import net from 'node:net';
import tls from 'node:tls';

/** Options for {@link pingRedis}. */
export interface PingRedisOptions {
  /** `redis://[user:password@]host[:port][/db]` or `rediss://…` (TLS). */
  url: string;
  /** @default 1000 */
  timeoutMs?: number;
}

/** Whether Redis answered, and why not. */
export type PingResult = { ok: true } | { ok: false; reason: string };

/** One RESP command as an array of bulk strings. */
export function encodeCommand(args: readonly string[]): string {
  let out = `*${args.length}\r\n`;
  for (const arg of args) out += `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`;
  return out;
}

function connectionReason(error: NodeJS.ErrnoException, where: string): string {
  switch (error.code) {
    case 'ECONNREFUSED':
      return `nothing is listening at ${where}`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `the host of ${where} does not resolve`;
    case undefined:
    default:
      return `${where}: ${error.message}`;
  }
}

/**
 * Sends `PING` (after `AUTH` when the URL carries credentials) over a raw socket, speaking RESP,
 * and reports whether Redis answered `+PONG`. Never throws.
 *
 * @example
 * const result = await pingRedis({ url: 'redis://127.0.0.1:6379' });
 */
export function pingRedis({ url, timeoutMs = 1000 }: PingRedisOptions): Promise<PingResult> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return Promise.resolve({ ok: false, reason: `${url} is not a URL` });
  }
  const secure = parsed.protocol === 'rediss:';
  if (!secure && parsed.protocol !== 'redis:') {
    return Promise.resolve({ ok: false, reason: `${parsed.protocol} is not redis: or rediss:` });
  }
  const host = parsed.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1';
  const port = parsed.port === '' ? 6379 : Number(parsed.port);
  const where = `${host}:${port}`;
  const commands: string[][] = [];
  if (parsed.password !== '') {
    const password = decodeURIComponent(parsed.password);
    const username = decodeURIComponent(parsed.username);
    commands.push(username === '' ? ['AUTH', password] : ['AUTH', username, password]);
  }
  commands.push(['PING']);

  return new Promise((resolve) => {
    const socket = secure
      ? tls.connect({ host, port, servername: host })
      : net.connect({ host, port });
    let buffer = '';
    let settled = false;
    const finish = (result: PingResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(
      () => finish({ ok: false, reason: `${where} did not answer within ${timeoutMs} ms` }),
      timeoutMs,
    );
    socket.setEncoding('utf8');
    socket.once(secure ? 'secureConnect' : 'connect', () => {
      socket.write(commands.map(encodeCommand).join(''));
    });
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      const lines = buffer.split('\r\n');
      // Every reply we expect is a one-line simple string or error.
      for (const reply of lines.slice(0, -1).slice(0, commands.length)) {
        if (reply.startsWith('-')) {
          finish({ ok: false, reason: `${where} answered: ${reply.slice(1)}` });
          return;
        }
        if (!reply.startsWith('+')) {
          finish({ ok: false, reason: `${where} does not speak the Redis protocol` });
          return;
        }
      }
      const replies = lines.length - 1;
      if (replies >= commands.length) {
        const last = lines[commands.length - 1];
        finish(
          last === '+PONG'
            ? { ok: true }
            : { ok: false, reason: `${where} answered ${last ?? 'nothing'} to PING` },
        );
      }
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      finish({ ok: false, reason: connectionReason(error, where) });
    });
    socket.on('close', () => {
      finish({ ok: false, reason: `${where} closed the connection without answering` });
    });
  });
}
