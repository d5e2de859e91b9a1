import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createBalancedFetch, type BalancedFetch, type ResolvedAddress } from './balanced-fetch';

interface Replica {
  address: string;
  server: http.Server;
  hosts: string[];
  connections: number;
}

/** One HTTP server per loopback address, all on the same port, like replicas behind one name. */
async function startReplicas(addresses: string[]): Promise<{ port: number; replicas: Replica[] }> {
  let port = 0;
  const replicas: Replica[] = [];
  for (const address of addresses) {
    const replica: Replica = { address, server: http.createServer(), hosts: [], connections: 0 };
    replica.server.on('connection', () => {
      replica.connections += 1;
    });
    replica.server.on('request', (request, response) => {
      replica.hosts.push(request.headers.host ?? '');
      response.setHeader('content-type', 'text/plain');
      response.end(address);
    });
    await new Promise<void>((resolve) => replica.server.listen(port, address, resolve));
    port = (replica.server.address() as AddressInfo).port;
    replicas.push(replica);
  }
  return { port, replicas };
}

function closeReplica(replica: Replica): Promise<void> {
  replica.server.closeAllConnections();
  return new Promise((resolve) => replica.server.close(() => resolve()));
}

describe('createBalancedFetch', () => {
  let port: number;
  let replicas: Replica[];
  let balanced: BalancedFetch | undefined;
  let answer: ResolvedAddress[];

  beforeEach(async () => {
    ({ port, replicas } = await startReplicas(['127.0.0.1', '127.0.0.2', '127.0.0.3']));
    answer = replicas.map((replica) => ({ address: replica.address, family: 4 }));
  });

  afterEach(async () => {
    await balanced?.close();
    balanced = undefined;
    await Promise.all(replicas.map((replica) => closeReplica(replica).catch(() => undefined)));
  });

  const create = (options: Parameters<typeof createBalancedFetch>[0] = {}): BalancedFetch => {
    balanced = createBalancedFetch({ resolve: () => Promise.resolve(answer), ...options });
    return balanced;
  };

  const get = async (client: BalancedFetch): Promise<string> => {
    const response = await client.fetch(`http://replicas.test:${port}/work`);
    return response.text();
  };

  it('spreads requests over every address of a name, per request, over kept-alive connections', async () => {
    const client = create();
    const answers: string[] = [];
    for (let index = 0; index < 30; index += 1) answers.push(await get(client));
    expect(replicas.map((replica) => replica.hosts.length)).toEqual([10, 10, 10]);
    expect(replicas.map((replica) => replica.connections)).toEqual([1, 1, 1]);
    // In turn, not by chance.
    expect(answers.slice(0, 6)).toEqual([
      '127.0.0.1',
      '127.0.0.2',
      '127.0.0.3',
      '127.0.0.1',
      '127.0.0.2',
      '127.0.0.3',
    ]);
    // The URL's name is what the replicas see: only the connection's address was chosen.
    expect(new Set(replicas.flatMap((replica) => replica.hosts))).toEqual(
      new Set([`replicas.test:${port}`]),
    );
  });

  it('sends a request to the next address at once when one refuses the connection', async () => {
    const client = create();
    await closeReplica(replicas[1]!);
    const answers: string[] = [];
    for (let index = 0; index < 12; index += 1) answers.push(await get(client));
    expect(answers.filter((answer) => answer === '127.0.0.2')).toEqual([]);
    expect(replicas[0]!.hosts.length).toBeGreaterThanOrEqual(5);
    expect(replicas[2]!.hosts.length).toBeGreaterThanOrEqual(5);
    // The refusing address was tried once, then skipped while it is down.
    expect(client.sent().get(`replicas.test:${port} → 127.0.0.2`)).toBe(1);
  });

  it('follows the name: a replica that appears gets its share once the name is resolved again', async () => {
    const client = create({ resolveTtlMs: 50 });
    answer = answer.slice(0, 1);
    for (let index = 0; index < 4; index += 1) await get(client);
    expect(replicas.map((replica) => replica.hosts.length)).toEqual([4, 0, 0]);
    answer = replicas.map((replica) => ({ address: replica.address, family: 4 }));
    await new Promise((resolve) => setTimeout(resolve, 60));
    for (let index = 0; index < 6; index += 1) await get(client);
    expect(replicas[1]!.hosts.length).toBeGreaterThan(0);
    expect(replicas[2]!.hosts.length).toBeGreaterThan(0);
  });

  it('closes a connection after maxRequestsPerConnection, so a balancer in front of it places the next', async () => {
    const client = create({ maxRequestsPerConnection: 5 });
    const response = await client.fetch(`http://127.0.0.1:${port}/work`);
    await response.text();
    for (let index = 0; index < 9; index += 1) {
      await (await client.fetch(`http://127.0.0.1:${port}/work`)).text();
    }
    expect(replicas[0]!.hosts).toHaveLength(10);
    expect(replicas[0]!.connections).toBe(2);
  });

  it('never sends a request on a connection it retires, while other connections are idle', async () => {
    const client = create({ maxRequestsPerConnection: 3 });
    const url = `http://127.0.0.1:${port}/work`;
    // Three connections at once, then one request after another: the pool hands out the last
    // connection freed, which is the one that reaches its limit and is closed.
    await Promise.all([1, 2, 3].map(async () => (await client.fetch(url)).text()));
    for (let index = 0; index < 12; index += 1) {
      await expect((await client.fetch(url)).text()).resolves.toBe('127.0.0.1');
    }
    expect(replicas[0]!.hosts).toHaveLength(15);
  });

  it('fails with the connection error when no address answers', async () => {
    const client = create();
    await Promise.all(replicas.map((replica) => closeReplica(replica)));
    await expect(get(client)).rejects.toThrow(/fetch failed/);
  });

  it('sends to an IP literal as given', async () => {
    const client = create({ resolve: () => Promise.reject(new Error('not asked')) });
    const response = await client.fetch(`http://127.0.0.3:${port}/work`);
    expect(await response.text()).toBe('127.0.0.3');
  });

  it('keeps using the last answer when DNS fails later', async () => {
    let fail = false;
    const client = create({
      resolveTtlMs: 0,
      resolve: () => (fail ? Promise.reject(new Error('EAI_AGAIN')) : Promise.resolve(answer)),
    });
    await get(client);
    fail = true;
    expect(['127.0.0.1', '127.0.0.2', '127.0.0.3']).toContain(await get(client));
  });
});
