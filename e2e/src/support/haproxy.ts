import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { getFreePort, startProcess, type RunningProcess } from '@fleet/testing';

/** One backend server: a replica listening on loopback. */
export interface HaproxyServer {
  name: string;
  port: number;
}

/** One frontend (a port of its own) balancing over its servers. */
export interface HaproxyFrontend {
  /** Names the frontend and its backend in the configuration. */
  name: string;
  /** @default a free port */
  port?: number;
  servers: HaproxyServer[];
}

/** A running HAProxy. */
export interface RunningHaproxy {
  /** `http://127.0.0.1:<port>` of each frontend, by name. */
  urls: Record<string, string>;
  /** The configuration it runs with, for diagnostics. */
  config: string;
  /** `GET <adminUrl>/stats;csv` reads HAProxy's own per-server counters. */
  adminUrl: string;
  process: RunningProcess;
  stop(): Promise<void>;
}

/** The haproxy binary, or undefined when it is not installed (`/usr/sbin` is often not on PATH). */
export function findHaproxy(): string | undefined {
  const candidates = [
    ...(process.env['PATH'] ?? '').split(path.delimiter).map((dir) => path.join(dir, 'haproxy')),
    '/usr/sbin/haproxy',
    '/usr/local/sbin/haproxy',
  ];
  return candidates.find((candidate) => candidate !== 'haproxy' && existsSync(candidate));
}

/**
 * The configuration: HTTP mode, `balance roundrobin` for every request (HAProxy balances each
 * request of a keep-alive connection anew unless `option prefer-last-server` says otherwise), health
 * checks on `/readyz` every 500 ms, a client's disconnect passed on to the server at once
 * (`option abortonclose`), a request whose connection failed re-dispatched to another server
 * (only then: a request that reached a server is never sent twice), and time-outs that let
 * an SSE stream stay open while a run waits (`timeout server` bounds the silence between two
 * chunks; the services send keep-alive comments every 15 s).
 */
export function haproxyConfig(
  frontends: (HaproxyFrontend & { port: number })[],
  adminPort: number,
): string {
  const lines = [
    'global',
    '  maxconn 2048',
    '',
    'defaults',
    '  mode http',
    '  option http-keep-alive',
    // A client that goes away mid-stream (a gateway whose caller left, a dead replica) is passed
    // on to the server at once: without it HAProxy notices only at its next write, so the server
    // keeps streaming to nobody (and an agent's cancel-on-disconnect never fires) until then.
    '  option abortonclose',
    '  option redispatch',
    '  retries 3',
    // Only a connection that failed is retried (the default `retry-on conn-failure`).
    '  timeout connect 2s',
    '  timeout client 5m',
    '  timeout server 5m',
    '  timeout tunnel 1h',
    '  timeout http-request 30s',
    '  timeout http-keep-alive 30s',
    '  timeout check 2s',
    '  default-server inter 500ms fastinter 250ms downinter 500ms rise 1 fall 2',
    '',
    'frontend admin',
    `  bind 127.0.0.1:${adminPort}`,
    '  monitor-uri /ready',
    '  stats enable',
    '  stats uri /stats',
    '  stats refresh 5s',
  ];
  for (const frontend of frontends) {
    lines.push(
      '',
      `frontend ${frontend.name}`,
      `  bind 127.0.0.1:${frontend.port}`,
      `  default_backend ${frontend.name}-replicas`,
      '',
      `backend ${frontend.name}-replicas`,
      '  balance roundrobin',
      '  option httpchk GET /readyz',
      '  http-check expect status 200',
      ...frontend.servers.map((server) => `  server ${server.name} 127.0.0.1:${server.port} check`),
    );
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Writes an haproxy.cfg for the frontends (see {@link haproxyConfig}) and starts
 * `haproxy -f cfg -db` on loopback, resolving once it answers its monitor URI. Servers that are not
 * up yet are simply down until their health check passes.
 *
 * @example
 * const lb = await startHaproxy([{ name: 'rag', servers: [{ name: 'rag-1', port: 8101 }] }]);
 * await fetch(`${lb.urls['rag']}/readyz`);
 */
export async function startHaproxy(
  frontends: HaproxyFrontend[],
  binary = findHaproxy(),
): Promise<RunningHaproxy> {
  if (binary === undefined) throw new Error('haproxy is not installed (apt-get install haproxy)');
  const withPorts = [];
  for (const frontend of frontends) {
    withPorts.push({ ...frontend, port: frontend.port ?? (await getFreePort()) });
  }
  const adminPort = await getFreePort();
  const config = haproxyConfig(withPorts, adminPort);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'e2e-haproxy-'));
  const file = path.join(dir, 'haproxy.cfg');
  await writeFile(file, config);
  const adminUrl = `http://127.0.0.1:${adminPort}`;
  let running: RunningProcess;
  try {
    running = await startProcess({
      name: 'haproxy',
      command: binary,
      args: ['-f', file, '-db'],
      readyUrl: `${adminUrl}/ready`,
      timeoutMs: 10_000,
    });
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    urls: Object.fromEntries(
      withPorts.map((frontend) => [frontend.name, `http://127.0.0.1:${frontend.port}`]),
    ),
    config,
    adminUrl,
    process: running,
    stop: async () => {
      // SIGUSR1 is HAProxy's graceful stop; SIGTERM its hard stop, which is all a test needs.
      await running.stop('SIGTERM', 5000);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Per server of a backend, HAProxy's status (`UP`, `DOWN`, …), from its CSV statistics. */
export async function haproxyServerStatus(
  haproxy: RunningHaproxy,
  backend: string,
): Promise<Record<string, string>> {
  const response = await fetch(`${haproxy.adminUrl}/stats;csv`);
  const [header, ...rows] = (await response.text()).trim().split('\n');
  const columns = (header ?? '').replace(/^# /, '').split(',');
  const at = (name: string): number => columns.indexOf(name);
  const status: Record<string, string> = {};
  for (const row of rows) {
    const cells = row.split(',');
    if (cells[at('pxname')] !== `${backend}-replicas`) continue;
    const server = cells[at('svname')] ?? '';
    if (server === 'BACKEND' || server === 'FRONTEND') continue;
    status[server] = cells[at('status')] ?? '';
  }
  return status;
}

/** Per server of a backend, the HTTP requests HAProxy sent it (`req_tot`), from its CSV statistics. */
export async function haproxyServerRequests(
  haproxy: RunningHaproxy,
  backend: string,
): Promise<Record<string, number>> {
  const response = await fetch(`${haproxy.adminUrl}/stats;csv`);
  const [header, ...rows] = (await response.text()).trim().split('\n');
  const columns = (header ?? '').replace(/^# /, '').split(',');
  const at = (name: string): number => columns.indexOf(name);
  const requests: Record<string, number> = {};
  for (const row of rows) {
    const cells = row.split(',');
    if (cells[at('pxname')] !== `${backend}-replicas`) continue;
    const server = cells[at('svname')] ?? '';
    if (server === 'BACKEND' || server === 'FRONTEND') continue;
    requests[server] = Number(cells[at('req_tot')] ?? 0);
  }
  return requests;
}
