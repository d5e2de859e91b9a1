import { describe, expect, it } from '@jest/globals';
import { FairQueue } from './fair-queue';

function takeAll(queue: FairQueue<string>): string[] {
  const taken: string[] = [];
  for (let next = queue.take(); next !== undefined; next = queue.take()) {
    taken.push(next.item);
    queue.done(next.tenant);
  }
  return taken;
}

describe('FairQueue', () => {
  it('serves tenants round-robin, each in its own order', () => {
    const queue = new FairQueue<string>({
      maxQueued: 10,
      maxQueuedPerTenant: 10,
      maxRunningPerTenant: 1,
    });
    for (const item of ['a1', 'a2', 'a3', 'a4']) queue.push('a', item);
    queue.push('b', 'b1');
    queue.push('c', 'c1');
    queue.push('b', 'b2');
    expect(takeAll(queue)).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3', 'a4']);
  });

  it('serves a tenant that arrived later before the next item of the tenant just served', () => {
    const queue = new FairQueue<string>({
      maxQueued: 10,
      maxQueuedPerTenant: 10,
      maxRunningPerTenant: 1,
    });
    queue.push('a', 'a1');
    const first = queue.take();
    expect(first?.item).toBe('a1');
    // While a1 runs, a queues two more, then b one.
    queue.push('a', 'a2');
    queue.push('a', 'a3');
    queue.push('b', 'b1');
    queue.done('a');
    expect(takeAll(queue)).toEqual(['b1', 'a2', 'a3']);
  });

  it('holds back a tenant at its running cap and serves the others', () => {
    const queue = new FairQueue<string>({
      maxQueued: 10,
      maxQueuedPerTenant: 10,
      maxRunningPerTenant: 1,
    });
    queue.push('a', 'a1');
    queue.push('a', 'a2');
    queue.push('b', 'b1');
    expect(queue.take()?.item).toBe('a1');
    expect(queue.take()?.item).toBe('b1');
    // a1 is still running: a2 waits.
    expect(queue.take()).toBeUndefined();
    queue.done('a');
    expect(queue.take()?.item).toBe('a2');
  });

  it('refuses past the tenant’s share and past the whole queue, saying which', () => {
    const queue = new FairQueue<string>({
      maxQueued: 3,
      maxQueuedPerTenant: 2,
      maxRunningPerTenant: 1,
    });
    queue.push('a', 'a1');
    queue.push('a', 'a2');
    expect(queue.admit('a')).toBe('tenant');
    expect(queue.admit('b')).toBeUndefined();
    queue.push('b', 'b1');
    expect(queue.admit('c')).toBe('pool');
    expect(queue.size).toBe(3);
  });

  it('removes a waiting item and drains the rest', () => {
    const queue = new FairQueue<string>({
      maxQueued: 5,
      maxQueuedPerTenant: 5,
      maxRunningPerTenant: 1,
    });
    queue.push('a', 'a1');
    queue.push('b', 'b1');
    expect(queue.remove('a', 'a1')).toBe(true);
    expect(queue.remove('a', 'a1')).toBe(false);
    expect(queue.drain()).toEqual([{ tenant: 'b', item: 'b1' }]);
    expect(queue.size).toBe(0);
  });
});
