/**
 * Bringing services back: `fleet up` into a running fleet starts only what is down, `fleet
 * restart` stops and starts the services named. Real processes: three stand-in services in a
 * temporary workspace (FLEET_ROOT), the real runner, and the Redis on 127.0.0.1:6379.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { runCli } from './cli';
import { findFreePort } from './ports';
import { isGroupAlive, isRunning } from './processes';
import type { ServiceDefinition } from './services';
import { readState } from './state-file';
import { collector } from './test-support/output-collector';

jest.setTimeout(60_000);

/**
 * A stand-in fleet service. It finds its name from its directory (services/<name>) and its port
 * in <NAME>_PORT; STUB_CRASH and STUB_IGNORE_TERM name the services that exit at once or ignore
 * SIGTERM.
 */
const STUB_SERVICE = String.raw`
const http = require('node:http');
const net = require('node:net');
const path = require('node:path');
const name = path.basename(process.cwd());
const port = Number(process.env[name.toUpperCase() + '_PORT']);
const named = (variable) => (process.env[variable] || '').split(',').includes(name);
const log = (level, msg) =>
  process.stdout.write(JSON.stringify({ level, time: Date.now(), service: name, msg }) + '\n');
if (named('STUB_CRASH')) {
  log(50, 'told to crash');
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
  response.setHeader('Connection', 'close');
  if (request.url === '/healthz') return response.end('ok');
  if (request.url === '/readyz') {
    response.statusCode = (await redisAnswers()) ? 200 : 503;
    return response.end();
  }
  if (request.url === '/env') return response.end(JSON.stringify(process.env));
  response.statusCode = 404;
  response.end();
});
server.listen(port, () => log(30, 'listening'));
process.on('SIGTERM', () => {
  if (named('STUB_IGNORE_TERM')) return log(30, 'ignoring SIGTERM');
  log(30, 'shutting down');
  server.close(() => process.exit(0));
});
`;

const NAMES = ['alpha', 'beta', 'gamma'] as const;
type StubName = (typeof NAMES)[number];

let root: string;
let stubs: ServiceDefinition[];
let baseEnvironment: Record<string, string>;

beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'fleet-restart-'));
  stubs = [];
  for (const name of NAMES) {
    await mkdir(path.join(root, 'services', name, 'dist'), { recursive: true });
    await writeFile(path.join(root, 'services', name, 'dist', 'main.js'), STUB_SERVICE);
    stubs.push({
      name,
      packageDir: `services/${name}`,
      portVariable: `${name.toUpperCase()}_PORT`,
      defaultPort: await findFreePort(),
      urlVariable: `${name.toUpperCase()}_URL`,
      needs: ['redis'],
      // alpha and beta are agents (AGENT_URLS); gamma reads their cards, so it starts after them.
      discoverable: name !== 'gamma',
      startsAfterAgents: name === 'gamma',
    });
  }
  baseEnvironment = {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    FLEET_ROOT: root,
    FLEET_LOCAL_REDIS_URL: 'redis://127.0.0.1:6379',
  };
});

afterEach(async () => {
  // Whatever a failed assertion left running (a stopped process gets SIGCONT with SIGTERM).
  await fleet(['down', '--grace', '1']);
  await rm(root, { recursive: true, force: true });
});

async function fleet(argv: string[], environment: Record<string, string> = {}) {
  const stdout = collector();
  const stderr = collector();
  const code = await runCli({
    argv,
    environment: { ...baseEnvironment, ...environment },
    stdout,
    stderr,
    services: stubs,
  });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

async function pids(): Promise<Record<string, number>> {
  const state = await readState(path.join(root, '.fleet', 'state.json'));
  return Object.fromEntries((state?.services ?? []).map((service) => [service.name, service.pid]));
}

async function urlOf(name: StubName): Promise<string> {
  const state = await readState(path.join(root, '.fleet', 'state.json'));
  const url = state?.services.find((service) => service.name === name)?.url;
  if (url === undefined) throw new Error(`${name} is not in the state`);
  return url;
}

async function environmentOf(name: StubName): Promise<Record<string, string>> {
  const response = await fetch(`${await urlOf(name)}/env`);
  return (await response.json()) as Record<string, string>;
}

async function healthz(name: StubName): Promise<number> {
  const response = await fetch(`${await urlOf(name)}/healthz`);
  await response.body?.cancel();
  return response.status;
}

async function killHard(pid: number): Promise<void> {
  process.kill(pid, 'SIGKILL');
  for (let attempt = 0; attempt < 200 && isRunning(pid); attempt += 1) await sleep(10);
  expect(isRunning(pid)).toBe(false);
}

async function log(name: StubName): Promise<string> {
  return readFile(path.join(root, '.fleet', 'logs', `${name}.log`), 'utf8');
}

describe('fleet up into a running fleet', () => {
  it('restarts only the service that died, with the fleet configuration, and leaves the rest', async () => {
    const betaPort = await findFreePort();
    const first = await fleet(['up', '--no-build'], {
      BETA_PORT: String(betaPort),
      CALLER_SETTING: 'from-the-first-up',
    });
    expect(first.code).toBe(0);
    const before = await pids();
    const environmentBefore = await environmentOf('beta');
    expect(environmentBefore['BETA_PORT']).toBe(String(betaPort));

    await killHard(before['beta'] ?? 0);
    const status = await fleet(['status']);
    expect(status.code).toBe(1);
    expect(status.stdout).toMatch(/beta\s+\d+ \(gone\)\s+\d+\s+\S+\s+no\s+DOWN/);
    expect(status.stdout).toContain('Down: beta');
    expect(status.stdout).toMatch(/alpha\s+\d+\s+\d+\s+\S+\s+yes\s+200 ready/);

    // Another shell: BETA_PORT and CALLER_SETTING unset, another internal token, a new variable.
    const again = await fleet(['up', '--no-build'], {
      FLEET_INTERNAL_TOKEN: 'a-token-the-fleet-does-not-use',
      LOG_LEVEL: 'debug',
    });
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('beta is down (its process');
    expect(again.stderr).toContain('Ignoring FLEET_INTERNAL_TOKEN');
    expect(again.stdout).toContain('The fleet is up: restarted beta (ready in ');
    expect(again.stdout).toContain('already running: alpha, gamma.');
    expect(again.stdout).toMatch(/beta .* pid \d+\s+restarted/);
    expect(again.stdout).toMatch(/alpha .* pid \d+\s+already running/);

    const after = await pids();
    expect(after['alpha']).toBe(before['alpha']);
    expect(after['gamma']).toBe(before['gamma']);
    expect(after['beta']).not.toBe(before['beta']);
    expect(isRunning(after['alpha'] ?? 0)).toBe(true);
    expect(await healthz('beta')).toBe(200);

    // It rejoined the fleet as it was: same port, Redis, key, token, data dir, agents, and the
    // environment the fleet started with (plus what was set now).
    const environmentAfter = await environmentOf('beta');
    for (const name of [
      'BETA_PORT',
      'ALPHA_URL',
      'BETA_URL',
      'GAMMA_URL',
      'REDIS_URL',
      'GATEWAY_API_KEYS',
      'FLEET_INTERNAL_TOKEN',
      'RAG_DATA_DIR',
      'AGENT_URLS',
      'CALLER_SETTING',
    ]) {
      expect([name, environmentAfter[name]]).toEqual([name, environmentBefore[name]]);
    }
    expect(environmentAfter['LOG_LEVEL']).toBe('debug');
    expect(environmentBefore['CALLER_SETTING']).toBe('from-the-first-up');

    const healthy = await fleet(['status']);
    expect(healthy.code).toBe(0);

    const nothing = await fleet(['up', '--no-build']);
    expect(nothing.code).toBe(0);
    expect(nothing.stdout).toContain(
      'The fleet is up: all 3 services were already running; nothing to start.',
    );
    expect(await pids()).toEqual(after);
  });

  it('stops and starts again a service that is alive but no longer answers /healthz', async () => {
    expect((await fleet(['up', '--no-build'])).code).toBe(0);
    const before = await pids();
    const alpha = before['alpha'] ?? 0;
    process.kill(alpha, 'SIGSTOP');

    const status = await fleet(['status']);
    expect(status.code).toBe(1);
    expect(status.stdout).toContain('Not ready: alpha');

    const again = await fleet(['up', '--no-build', '--only', 'alpha']);
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/alpha is down \(pid \d+ does not answer \/healthz/);
    const after = await pids();
    expect(after['alpha']).not.toBe(alpha);
    expect(isGroupAlive(alpha)).toBe(false);
    expect([after['beta'], after['gamma']]).toEqual([before['beta'], before['gamma']]);
    expect(await healthz('alpha')).toBe(200);
  });

  it('stops only the service it started when that one fails, and status shows it down', async () => {
    expect((await fleet(['up', '--no-build'])).code).toBe(0);
    const before = await pids();
    await killHard(before['gamma'] ?? 0);

    const again = await fleet(['up', '--no-build'], { STUB_CRASH: 'gamma' });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('gamma exited with code 1');
    expect(again.stderr).toContain('told to crash');
    expect(again.stderr).toContain('the rest of the fleet keeps running');
    const after = await pids();
    expect([after['alpha'], after['beta']]).toEqual([before['alpha'], before['beta']]);
    expect(isRunning(after['alpha'] ?? 0) && isRunning(after['beta'] ?? 0)).toBe(true);

    const status = await fleet(['status']);
    expect(status.code).toBe(1);
    expect(status.stdout).toContain('Down: gamma');
  });

  it('adds a service to a fleet started with --only, listing every agent in AGENT_URLS', async () => {
    expect((await fleet(['up', '--no-build', '--only', 'alpha,gamma'])).code).toBe(0);
    const before = await pids();
    const added = await fleet(['up', '--no-build', '--only', 'beta']);
    expect(added.code).toBe(0);
    expect(added.stdout).toContain('The fleet is up: started beta');
    const after = await pids();
    expect([after['alpha'], after['gamma']]).toEqual([before['alpha'], before['gamma']]);
    const agents = (await environmentOf('beta'))['AGENT_URLS']?.split(',');
    expect(agents).toEqual([await urlOf('alpha'), await urlOf('beta')]);
  });
});

describe('fleet restart', () => {
  it('restarts the named service gracefully and changes only its pid', async () => {
    expect((await fleet(['up', '--no-build'])).code).toBe(0);
    const before = await pids();

    const restart = await fleet(['restart', 'beta', '--no-build']);
    expect(restart.code).toBe(0);
    expect(restart.stderr).toContain(`stopped beta (pid ${before['beta']})`);
    expect(restart.stdout).toContain('Restarted 1 service in ');
    expect(restart.stdout).toContain('the other 2 services kept running.');
    const after = await pids();
    expect(restart.stdout).toMatch(
      new RegExp(`beta\\s+\\S+\\s+pid ${before['beta']} → ${after['beta']}\\s+ready`),
    );
    expect(after['beta']).not.toBe(before['beta']);
    expect([after['alpha'], after['gamma']]).toEqual([before['alpha'], before['gamma']]);
    expect(isGroupAlive(before['beta'] ?? 0)).toBe(false);
    expect(await healthz('beta')).toBe(200);
    // Its SIGTERM handler ran: a graceful stop, not a kill.
    expect(await log('beta')).toContain('shutting down');
  });

  it('sends SIGKILL after --grace to a service that ignores SIGTERM', async () => {
    expect((await fleet(['up', '--no-build'], { STUB_IGNORE_TERM: 'alpha' })).code).toBe(0);
    const before = await pids();
    const restart = await fleet(['restart', 'alpha', '--grace', '0.5', '--no-build']);
    expect(restart.code).toBe(0);
    expect(restart.stderr).toContain(
      `killed alpha (pid ${before['alpha']}): it did not stop within 500 ms after SIGTERM`,
    );
    expect(await log('alpha')).toContain('ignoring SIGTERM');
    expect(isGroupAlive(before['alpha'] ?? 0)).toBe(false);
    expect(await healthz('alpha')).toBe(200);
  });

  it('restarts every service of the fleet when none is named, and no other', async () => {
    expect((await fleet(['up', '--no-build', '--only', 'alpha,beta'])).code).toBe(0);
    const before = await pids();
    const restart = await fleet(['restart', '--no-build']);
    expect(restart.code).toBe(0);
    expect(restart.stdout).toContain('Restarted 2 services in ');
    const after = await pids();
    expect(Object.keys(after).sort()).toEqual(['alpha', 'beta']);
    expect(after['alpha']).not.toBe(before['alpha']);
    expect(after['beta']).not.toBe(before['beta']);
  });

  it('refuses an unknown service with exit code 2, listing the known ones, and stops nothing', async () => {
    expect((await fleet(['up', '--no-build'])).code).toBe(0);
    const before = await pids();
    const restart = await fleet(['restart', 'beta', 'delta', '--no-build']);
    expect(restart.code).toBe(2);
    expect(restart.stderr).toContain('Unknown service: delta. Known: alpha, beta, gamma.');
    expect(restart.stderr).toContain('See: pnpm fleet restart --help');
    expect(await pids()).toEqual(before);
    expect(isRunning(before['beta'] ?? 0)).toBe(true);
  });

  it('says the fleet is not running when there is nothing to restart', async () => {
    const restart = await fleet(['restart', 'alpha', '--no-build']);
    expect(restart.code).toBe(1);
    expect(restart.stderr).toContain('The fleet is not running. Start it with `pnpm fleet up`.');
  });
});
