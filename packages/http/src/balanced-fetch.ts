import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction, type Socket } from 'node:net';
import { isConnectFailure } from '@fleet/errors';
import { nodeHttpFetch, type NodeHttpFetchInit } from './node-http-fetch';

/** One address a host name resolves to. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Options for {@link createBalancedFetch}. */
export interface BalancedFetchOptions {
  /** How long one resolution of a name is used before asking DNS again. @default 1000 */
  resolveTtlMs?: number;
  /** How long an address that refused a connection is skipped. @default 5000 */
  downForMs?: number;
  /**
   * Requests one connection carries before it is closed, so a balancer in front of the
   * connection (a Kubernetes ClusterIP Service, an L4 proxy) gets to place the next one.
   * @default 100
   */
  maxRequestsPerConnection?: number;
  /** Idle keep-alive connections are closed after this. @default 4000 */
  keepAliveTimeoutMs?: number;
  /** Addresses kept per name (more are ignored). @default 64 */
  maxAddressesPerName?: number;
  /** Resolves a host name to every address. @default dns.lookup with `all: true` */
  resolve?: (hostname: string) => Promise<ResolvedAddress[]>;
}

/** A fetch that balances per request, and what it has done (for tests and metrics). */
export interface BalancedFetch {
  fetch: typeof fetch;
  /** Requests sent per `host:port → address`, counting every try. */
  sent(): Map<string, number>;
  /** Closes every pooled connection. */
  close(): Promise<void>;
}

/** One address's keep-alive pools, for http: and https:. */
interface Pool {
  http: http.Agent;
  https: https.Agent;
  /** Set once the address left DNS: connections close as their requests end. */
  retired: boolean;
}

interface HostState {
  addresses: ResolvedAddress[];
  resolvedAt: number;
  pending: Promise<ResolvedAddress[]> | undefined;
  turn: number;
}

async function resolveAll(hostname: string): Promise<ResolvedAddress[]> {
  const found = await dnsLookup(hostname, { all: true });
  return found.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
}

/** A `lookup` for net.connect that always answers one address, in both of its call forms. */
function pinnedLookup({ address, family }: ResolvedAddress): LookupFunction {
  return ((
    _hostname: string,
    options: { all?: boolean },
    callback: (...args: unknown[]) => void,
  ) => {
    if (options.all === true) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as LookupFunction;
}

/** What one balanced fetch knows of its names, addresses and pools. */
interface BalancerState {
  hosts: Map<string, HostState>;
  /** Keep-alive pools by `family/address`. */
  pools: Map<string, Pool>;
  /** Until when each address that refused a connection is skipped. */
  downUntil: Map<string, number>;
}

/** Keep-alive agents that close a connection after `maxRequestsPerConnection` requests. */
function createPool(
  lookup: LookupFunction | undefined,
  {
    keepAliveTimeoutMs,
    maxRequestsPerConnection,
  }: { keepAliveTimeoutMs: number; maxRequestsPerConnection: number },
): Pool {
  const options = {
    keepAlive: true,
    timeout: keepAliveTimeoutMs,
    noDelay: true,
    ...(lookup ? { lookup } : {}),
  };
  const pool: Pool = {
    http: new http.Agent(options),
    https: new https.Agent(options),
    retired: false,
  };
  const uses = new WeakMap<Socket, number>();
  for (const agent of [pool.http, pool.https]) {
    // Decided as the agent frees the connection, before it pools it: one destroyed after
    // pooling (on 'free') could be handed to a request sent in the same tick.
    // Node's agent keeps the connection only when this returns true (@types/node says void).
    const keep = agent.keepSocketAlive.bind(agent) as (socket: Socket) => boolean;
    const decide = (socket: Socket): boolean => {
      const used = (uses.get(socket) ?? 0) + 1;
      uses.set(socket, used);
      if (pool.retired || used >= maxRequestsPerConnection) return false;
      return keep(socket);
    };
    agent.keepSocketAlive = decide;
  }
  return pool;
}

/** Closes a pool's idle connections now and its busy ones when their requests end. */
function retirePool(pool: Pool): void {
  pool.retired = true;
  for (const agent of [pool.http, pool.https]) {
    for (const sockets of Object.values(agent.freeSockets)) {
      for (const socket of sockets ?? []) socket.destroy();
    }
  }
}

/** Replicas that left DNS: their pools close once their requests are done. */
function forgetGoneAddresses({ hosts, pools, downUntil }: BalancerState): void {
  const live = new Set<string>();
  for (const state of hosts.values()) {
    for (const address of state.addresses) live.add(`${address.family}/${address.address}`);
  }
  for (const [key, pool] of pools) {
    if (live.has(key)) continue;
    pools.delete(key);
    downUntil.delete(key.slice(key.indexOf('/') + 1));
    retirePool(pool);
  }
}

/**
 * The addresses `hostname` resolves to, resolved again (once for every request waiting) when the
 * last resolution is older than `resolveTtlMs`; when DNS fails, what it said before.
 */
async function addressesOf(
  balancer: BalancerState,
  hostname: string,
  {
    resolve,
    resolveTtlMs,
    maxAddressesPerName,
  }: {
    resolve: (hostname: string) => Promise<ResolvedAddress[]>;
    resolveTtlMs: number;
    maxAddressesPerName: number;
  },
): Promise<HostState> {
  let state = balancer.hosts.get(hostname);
  if (state === undefined) {
    state = { addresses: [], resolvedAt: 0, pending: undefined, turn: 0 };
    balancer.hosts.set(hostname, state);
  }
  const current = state;
  if (Date.now() - current.resolvedAt >= resolveTtlMs) {
    current.pending ??= resolve(hostname)
      .then((found) => {
        current.addresses = found.slice(0, maxAddressesPerName);
        current.resolvedAt = Date.now();
        forgetGoneAddresses(balancer);
        return current.addresses;
      })
      .finally(() => {
        current.pending = undefined;
      });
    try {
      await current.pending;
    } catch (error) {
      // DNS failed: keep using what it said before, if it said anything.
      if (current.addresses.length === 0) throw error;
    }
  }
  return current;
}

/** The addresses to try, in order: the next up one in turn, the other up ones, those down last. */
function orderAddresses(state: HostState, downUntil: Map<string, number>): ResolvedAddress[] {
  const now = Date.now();
  const isDown = (address: ResolvedAddress): boolean => (downUntil.get(address.address) ?? 0) > now;
  const up = state.addresses.filter((address) => !isDown(address));
  const down = state.addresses.filter(isDown);
  if (up.length === 0) return down;
  const start = state.turn % up.length;
  state.turn = (state.turn + 1) % 1_000_000;
  return [...up.slice(start), ...up.slice(0, start), ...down];
}

/**
 * A fetch that spreads requests over every address a host name resolves to, per request, not per
 * connection: a name served by several replicas (Compose `--scale`, a Kubernetes headless
 * Service, several A records) gets its calls in turn, each address over its own keep-alive pool.
 * The name is resolved again after `resolveTtlMs`, so replicas that come and go are followed; an
 * address that refuses a connection is skipped for `downForMs` and the request goes at once to the
 * next one (nothing was sent, so any request may be tried again). The URL, the `Host` header and
 * TLS names are unchanged: only the address the connection goes to is chosen. IP literals are sent
 * over one shared pool. Every connection is closed after `maxRequestsPerConnection` requests, so a
 * balancer behind a single address (a ClusterIP Service) still sees new connections to place.
 * Requests go out through {@link nodeHttpFetch} (`node:http` keep-alive agents, one per address):
 * a fraction of the global fetch's CPU per call.
 *
 * @example
 * const balanced = createBalancedFetch();
 * const response = await balanced.fetch('http://rag-agent:8083/a2a', { method: 'POST', body });
 */
export function createBalancedFetch({
  resolveTtlMs = 1000,
  downForMs = 5000,
  maxRequestsPerConnection = 100,
  keepAliveTimeoutMs = 4000,
  maxAddressesPerName = 64,
  resolve = resolveAll,
}: BalancedFetchOptions = {}): BalancedFetch {
  const hosts = new Map<string, HostState>();
  const pools = new Map<string, Pool>();
  const downUntil = new Map<string, number>();
  const sent = new Map<string, number>();

  const balancer: BalancerState = { hosts, pools, downUntil };
  const resolving = { resolve, resolveTtlMs, maxAddressesPerName };
  const direct = createPool(undefined, { keepAliveTimeoutMs, maxRequestsPerConnection });

  const poolFor = (address: ResolvedAddress): Pool => {
    const key = `${address.family}/${address.address}`;
    let pool = pools.get(key);
    if (pool === undefined) {
      pool = createPool(pinnedLookup(address), { keepAliveTimeoutMs, maxRequestsPerConnection });
      pools.set(key, pool);
    }
    return pool;
  };

  const count = (key: string): void => {
    sent.set(key, (sent.get(key) ?? 0) + 1);
  };

  const balancedFetch = async (
    input: string | URL | Request,
    init?: RequestInit,
  ): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : input.toString());
    const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const send = (pool: Pool | undefined): Promise<Response> => {
      const withPool: NodeHttpFetchInit = { ...init };
      if (pool !== undefined) withPool.agent = url.protocol === 'https:' ? pool.https : pool.http;
      return nodeHttpFetch(input, withPool);
    };
    if (isIP(hostname) !== 0) {
      count(`${url.host} → ${hostname}`);
      return send(direct);
    }
    const state = await addressesOf(balancer, hostname, resolving);
    const candidates = orderAddresses(state, downUntil);
    if (candidates.length === 0) return send(undefined);
    let lastError: unknown;
    for (const address of candidates) {
      count(`${url.host} → ${address.address}`);
      try {
        return await send(poolFor(address));
      } catch (error) {
        // Only a connection that was never made is tried elsewhere: the request did not leave.
        if (!isConnectFailure(error) || init?.signal?.aborted === true) throw error;
        downUntil.set(address.address, Date.now() + downForMs);
        lastError = error;
      }
    }
    throw lastError;
  };

  return {
    fetch: balancedFetch,
    sent: () => new Map(sent),
    close() {
      for (const pool of [direct, ...pools.values()]) retirePool(pool);
      pools.clear();
      return Promise.resolve();
    },
  };
}

let shared: BalancedFetch | undefined;

/** The process's one {@link createBalancedFetch} with default settings. */
export function sharedBalancedFetch(): BalancedFetch {
  shared ??= createBalancedFetch();
  return shared;
}
