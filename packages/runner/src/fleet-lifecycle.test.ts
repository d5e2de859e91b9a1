/**
 * `fleet up` → `status` → `logs` → `down` end to end, against a stub service in a temporary
 * workspace (FLEET_ROOT) and a real Redis: the one on 127.0.0.1:6379 ("reuse") or a
 * redis-server the runner starts itself.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { runCli } from './cli';
import { findFreePort } from './ports';
import { isGroupAlive } from './processes';
import { pingRedis } from './redis-ping';
import type { ServiceDefinition } from './services';
import { readState } from './state-file';
import { collector } from './test-support/output-collector';

jest.setTimeout(60_000);

/** A fleet service in 30 lines: pino-style logs, /readyz that pings Redis, graceful SIGTERM. */
const STUB_SERVICE = String.raw`
const http = require('node:http');
const net = require('node:net');
const log = (level, msg, extra = {}) =>
  process.stdout.write(JSON.stringify({ level, time: Date.now(), pid: process.pid, service: 'stub', msg, ...extra }) + '\n');
if (process.env.STUB_MODE === 'crash') {
  log(50, 'Invalid configuration: 1 variable to fix: STUB_SETTING');
  process.exit(1);
}
function redisAnswers() {
  return new Promise((resolve) => {
    const url = new URL(process.env.REDIS_URL);
    const socket = net.connect({ host: url.hostname, port: Number(url.port || 6379) });
    socket.setTimeout(1000, () => { socket.destroy(); resolve(false); });
    socket.on('error', () => resolve(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (data) => { socket.destroy(); resolve(data.toString().startsWith('+PONG')); });
  });
}
const server = http.createServer(async (request, response) => {
  if (request.url === '/readyz') {
    const ready = process.env.STUB_MODE !== 'never-ready' && (await redisAnswers());
    response.statusCode = ready ? 200 : 503;
    if (process.env.STUB_MODE === 'degraded') {
      // As @fleet/http reports a check that runs without its dependency (the RAG agent offline).
      return response.end(JSON.stringify({
        status: 'degraded',
        checks: { redis: 'ok', embeddings: 'degraded: full-text search only: no model. Start it.' },
      }));
    }
    return response.end();
  }
  if (request.url === '/env') return response.end(JSON.stringify(process.env));
  response.end('ok');
});
server.listen(Number(process.env.STUB_PORT), () => log(30, 'listening', { port: Number(process.env.STUB_PORT) }));
process.on('SIGTERM', () => {
  log(30, 'shutting down');
  server.close(() => process.exit(0));
});
`;

let root: string;
let port: number;
let stub: ServiceDefinition;
let baseEnvironment: Record<string, string>;

beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'fleet-lifecycle-'));
  await mkdir(path.join(root, 'services', 'stub', 'dist'), { recursive: true });
  await writeFile(path.join(root, 'services', 'stub', 'dist', 'main.js'), STUB_SERVICE);
  port = await findFreePort();
  stub = {
    name: 'stub',
    packageDir: 'services/stub',
    portVariable: 'STUB_PORT',
    defaultPort: port,
    urlVariable: 'STUB_URL',
    needs: ['redis'],
    discoverable: true,
  };
  baseEnvironment = {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    FLEET_ROOT: root,
    CALLER_SETTING: 'passed-through',
  };
});

afterEach(async () => {
  // Whatever a failed assertion left running.
  await fleet(['down', '--grace', '2']);
  await rm(root, { recursive: true, force: true });
});

async function fleet(
  argv: string[],
  { environment = {}, signal }: { environment?: Record<string, string>; signal?: AbortSignal } = {},
) {
  const stdout = collector();
  const stderr = collector();
  const code = await runCli({
    argv,
    environment: { ...baseEnvironment, ...environment },
    stdout,
    stderr,
    services: [stub],
    ...(signal === undefined ? {} : { signal }),
  });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

async function getJson(url: string): Promise<Record<string, string>> {
  const response = await fetch(url);
  return (await response.json()) as Record<string, string>;
}

describe('fleet up / status / down', () => {
  it('reuses a Redis that answers, passes the environment through, and stops cleanly', async () => {
    const up = await fleet(['up', '--no-build'], {
      environment: { FLEET_LOCAL_REDIS_URL: 'redis://127.0.0.1:6379' },
    });
    expect(up.stderr).toContain('stub');
    expect(up.code).toBe(0);
    expect(up.stdout).toContain('The fleet is up: 1 service ready');
    expect(up.stdout).toContain('already running here');

    const state = await readState(path.join(root, '.fleet', 'state.json'));
    expect(state?.redis).toEqual({ url: 'redis://127.0.0.1:6379', source: 'local' });
    const pid = state?.services[0]?.pid ?? 0;
    expect(isGroupAlive(pid)).toBe(true);

    const secrets = JSON.parse(
      await readFile(path.join(root, '.fleet', 'secrets.json'), 'utf8'),
    ) as {
      gatewayApiKey: string;
      internalToken: string;
    };
    const environment = await getJson(`http://127.0.0.1:${port}/env`);
    expect(environment).toMatchObject({
      CALLER_SETTING: 'passed-through',
      REDIS_URL: 'redis://127.0.0.1:6379',
      GATEWAY_API_KEYS: `${secrets.gatewayApiKey}:dev`,
      FLEET_INTERNAL_TOKEN: secrets.internalToken,
      STUB_PORT: String(port),
      STUB_URL: `http://127.0.0.1:${port}`,
      AGENT_URLS: `http://127.0.0.1:${port}`,
    });

    const status = await fleet(['status']);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/stub\s+\d+\s+\d+\s+http:\/\/127\.0\.0\.1:\d+\s+yes\s+200 ready/);
    expect(status.stdout).toContain('PONG');

    const logs = await fleet(['logs', 'stub', '-n', '5']);
    expect(logs.code).toBe(0);
    expect(logs.stdout).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}stub listening port=\d+$/m);
    const json = await fleet(['logs', '--json']);
    expect(json.stdout).toContain('"msg":"listening"');

    // Everything runs: `up` again starts nothing and leaves the service alone.
    const again = await fleet(['up', '--no-build']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('The fleet is up: the service was already running');
    expect((await readState(path.join(root, '.fleet', 'state.json')))?.services[0]?.pid).toBe(pid);

    const down = await fleet(['down']);
    expect(down.code).toBe(0);
    expect(down.stdout).toContain(`stopped stub (pid ${pid})`);
    expect(isGroupAlive(pid)).toBe(false);
    expect(existsSync(path.join(root, '.fleet', 'state.json'))).toBe(false);
    // The service shut down gracefully: its SIGTERM handler logged before exiting.
    expect(await readFile(path.join(root, '.fleet', 'logs', 'stub.log'), 'utf8')).toContain(
      'shutting down',
    );
    // The reused Redis is not ours to stop.
    await expect(pingRedis({ url: 'redis://127.0.0.1:6379' })).resolves.toEqual({ ok: true });

    const downAgain = await fleet(['down']);
    expect(downAgain).toMatchObject({ code: 0, stdout: 'Nothing is running.\n' });
    const statusAfter = await fleet(['status']);
    expect(statusAfter.code).toBe(1);
    expect(statusAfter.stdout).toContain('not running');
  });

  it('starts its own redis-server when nothing answers, and stops it on down', async () => {
    const silentPort = await findFreePort();
    const up = await fleet(['up', '--no-build'], {
      environment: { FLEET_LOCAL_REDIS_URL: `redis://127.0.0.1:${silentPort}` },
    });
    expect(up.code).toBe(0);
    const state = await readState(path.join(root, '.fleet', 'state.json'));
    expect(state?.redis?.source).toBe('started');
    const redisUrl = state?.redis?.url ?? '';
    const redisPid = state?.redis?.pid ?? 0;
    await expect(pingRedis({ url: redisUrl })).resolves.toEqual({ ok: true });
    expect((await getJson(`http://127.0.0.1:${port}/env`))['REDIS_URL']).toBe(redisUrl);

    const status = await fleet(['status']);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('(started)');

    const down = await fleet(['down']);
    expect(down.code).toBe(0);
    expect(down.stdout).toContain(`stopped redis (pid ${redisPid})`);
    expect(isGroupAlive(redisPid)).toBe(false);
    expect((await pingRedis({ url: redisUrl })).ok).toBe(false);
  });

  it('says how to install Redis when none answers and redis-server is missing', async () => {
    const up = await fleet(['up', '--no-build'], {
      environment: {
        FLEET_LOCAL_REDIS_URL: `redis://127.0.0.1:${await findFreePort()}`,
        FLEET_REDIS_SERVER: path.join(root, 'no-redis-server-here'),
      },
    });
    expect(up.code).toBe(1);
    expect(up.stderr).toContain('apt-get install redis-server');
    expect(up.stderr).toContain('brew install redis');
    expect(up.stderr).toContain('REDIS_URL=');
  });

  it('fails clearly when REDIS_URL is set but does not answer', async () => {
    const up = await fleet(['up', '--no-build'], {
      environment: { REDIS_URL: `redis://127.0.0.1:${await findFreePort()}` },
    });
    expect(up.code).toBe(1);
    expect(up.stderr).toMatch(/REDIS_URL=redis:\/\/127\.0\.0\.1:\d+ does not answer PING/);
    expect(existsSync(path.join(root, '.fleet', 'state.json'))).toBe(false);
  });

  it('prints the log tail of a service that exits during start-up and leaves nothing running', async () => {
    const up = await fleet(['up', '--no-build'], { environment: { STUB_MODE: 'crash' } });
    expect(up.code).toBe(1);
    expect(up.stderr).toContain('stub exited with code 1');
    expect(up.stderr).toContain('Invalid configuration: 1 variable to fix: STUB_SETTING');
    expect(existsSync(path.join(root, '.fleet', 'state.json'))).toBe(false);
  });

  it('starts a service that runs degraded, and status says so and why', async () => {
    const up = await fleet(['up', '--no-build'], { environment: { STUB_MODE: 'degraded' } });
    expect(up.code).toBe(0);
    const status = await fleet(['status']);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(
      /stub\s+\d+\s+\d+\s+http:\/\/127\.0\.0\.1:\d+\s+yes\s+200 degraded/,
    );
    expect(status.stdout).toContain(
      'stub runs degraded, with full-text search only: no model. Start it.',
    );
    expect(status.stdout).toContain('Healthy.');
  });

  it('gives up after --timeout and stops the service', async () => {
    const up = await fleet(['up', '--no-build', '--timeout', '1'], {
      environment: { STUB_MODE: 'never-ready' },
    });
    expect(up.code).toBe(1);
    expect(up.stderr).toContain('stub not ready after 1.0 s (last /readyz: 503)');
    expect(up.stderr).toContain('listening');
    expect(existsSync(path.join(root, '.fleet', 'state.json'))).toBe(false);
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  });

  it('refuses a port that is taken, naming the variable to change', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve));
    try {
      const up = await fleet(['up', '--no-build']);
      expect(up.code).toBe(1);
      expect(up.stderr).toContain(`Port ${port} (STUB_PORT, for the stub) is already in use`);
    } finally {
      blocker.close();
    }
  });

  it('refuses to start a service that is not built', async () => {
    await rm(path.join(root, 'services', 'stub', 'dist'), { recursive: true });
    const up = await fleet(['up', '--no-build']);
    expect(up.code).toBe(1);
    expect(up.stderr).toContain('Not built: services/stub/dist/main.js');
  });

  it('runs the workspace build first and stops when it fails', async () => {
    const stdout = collector();
    const stderr = collector();
    let builds = 0;
    const code = await runCli({
      argv: ['up'],
      environment: baseEnvironment,
      stdout,
      stderr,
      services: [stub],
      buildWorkspace: () => {
        builds += 1;
        return Promise.resolve(2);
      },
    });
    expect({ code, builds }).toEqual({ code: 2, builds: 1 });
    expect(existsSync(path.join(root, '.fleet', 'state.json'))).toBe(false);
  });

  it('streams logs in the foreground until interrupted, then stops the fleet', async () => {
    const controller = new AbortController();
    const stdout = collector();
    const stderr = collector();
    const running = runCli({
      argv: ['up', '--no-build', '--foreground'],
      environment: { ...baseEnvironment, FLEET_LOCAL_REDIS_URL: 'redis://127.0.0.1:6379' },
      stdout,
      stderr,
      services: [stub],
      signal: controller.signal,
    });
    for (let attempt = 0; attempt < 400 && !/stub \| .*listening/.test(stdout.text); attempt += 1) {
      await sleep(25);
    }
    expect(stdout.text).toMatch(/stub \| \d\d:\d\d:\d\d\.\d{3} INFO {2}stub listening/);
    const pid = (await readState(path.join(root, '.fleet', 'state.json')))?.services[0]?.pid ?? 0;
    controller.abort();
    await expect(running).resolves.toBe(0);
    expect(isGroupAlive(pid)).toBe(false);
    expect(existsSync(path.join(root, '.fleet', 'state.json'))).toBe(false);
  });

  it('clears a stale state file whose processes are gone', async () => {
    await mkdir(path.join(root, '.fleet'), { recursive: true });
    await writeFile(
      path.join(root, '.fleet', 'state.json'),
      JSON.stringify({
        version: 1,
        startedAt: new Date().toISOString(),
        services: [
          {
            name: 'stub',
            pid: 2 ** 22 - 1,
            port,
            url: `http://127.0.0.1:${port}`,
            entry: 'services/stub/dist/main.js',
            logFile: path.join(root, '.fleet', 'logs', 'stub.log'),
            logOffset: 0,
          },
        ],
      }),
    );
    const up = await fleet(['up', '--no-build'], {
      environment: { FLEET_LOCAL_REDIS_URL: 'redis://127.0.0.1:6379' },
    });
    expect(up.stderr).toContain('Cleared a stale .fleet/state.json');
    expect(up.code).toBe(0);
  });
});
