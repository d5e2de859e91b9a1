import { describe, expect, it } from '@jest/globals';
import { createRouteCache } from './route-cache';

describe('createRouteCache', () => {
  it('serves an entry until its time to live runs out', () => {
    let clock = 1000;
    const cache = createRouteCache<string>({ maxEntries: 10, ttlMs: 500, now: () => clock });
    cache.set('a', 'one');
    clock += 499;
    expect(cache.get('a')).toBe('one');
    clock += 1;
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('evicts the least recently used entry past its size', () => {
    const cache = createRouteCache<number>({ maxEntries: 2, ttlMs: 60_000 });
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1); // a is now the most recently used
    cache.set('c', 3);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(1);
    expect(cache.get('c')).toBe(3);
    expect(cache.size).toBe(2);
  });

  it('keeps nothing when its size is 0', () => {
    const cache = createRouteCache<number>({ maxEntries: 0, ttlMs: 60_000 });
    cache.set('a', 1);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });
});
