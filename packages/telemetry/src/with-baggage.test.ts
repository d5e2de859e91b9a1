import { describe, expect, it } from '@jest/globals';
import { context, propagation } from '@opentelemetry/api';
import { W3CBaggagePropagator } from '@opentelemetry/core';
import { createInMemoryTracing } from './__fixtures__/in-memory-tracing';
import { getActiveSessionId, withBaggage } from './with-baggage';

createInMemoryTracing();

describe('withBaggage', () => {
  it('sets the entries for the duration of fn, across await, and returns its result', async () => {
    const result = await withBaggage({ 'session.id': 's-1', 'user.id': 'u-1' }, async () => {
      await new Promise((resolve) => setImmediate(resolve));
      const baggage = propagation.getActiveBaggage();
      return {
        session: baggage?.getEntry('session.id')?.value,
        user: baggage?.getEntry('user.id')?.value,
        sessionId: getActiveSessionId(),
      };
    });
    expect(result).toEqual({ session: 's-1', user: 'u-1', sessionId: 's-1' });
    expect(propagation.getActiveBaggage()).toBeUndefined();
    expect(getActiveSessionId()).toBeUndefined();
  });

  it('keeps entries already in the baggage and leaves out undefined ones', () => {
    const entries = withBaggage({ 'user.id': 'u-1' }, () =>
      withBaggage({ 'session.id': 's-2', 'user.id': undefined }, () =>
        propagation
          .getActiveBaggage()
          ?.getAllEntries()
          .map(([key, entry]) => `${key}=${entry.value}`)
          .sort(),
      ),
    );
    expect(entries).toEqual(['session.id=s-2', 'user.id=u-1']);
  });

  it('writes the entries into the W3C baggage header of outgoing requests', () => {
    const headers: Record<string, string> = {};
    withBaggage({ 'session.id': 'a b/c' }, () => {
      new W3CBaggagePropagator().inject(context.active(), headers, {
        set: (_carrier, key, value) => {
          headers[key] = value;
        },
      });
    });
    expect(headers['baggage']).toBe('session.id=a%20b%2Fc');
  });
});
