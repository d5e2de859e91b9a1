import { context, propagation } from '@opentelemetry/api';
import { BAGGAGE_KEYS } from './semantic-conventions';

/** The baggage entries the fleet propagates (and copies onto every span in every service). */
export interface BaggageEntries {
  'session.id'?: string | undefined;
  'user.id'?: string | undefined;
}

/**
 * Runs `fn` with `entries` added to the active W3C baggage, so every HTTP and A2A call made inside
 * carries them in the `baggage` header and every service's spans get them as `session.id` /
 * `user.id` attributes (via the BaggageSpanProcessor {@link startTelemetry} installs). Entries that
 * are `undefined` are left out. Baggage is sent to every downstream service: never put secrets in
 * it. Without a started SDK there is no context manager, and `fn` simply runs.
 *
 * @example
 * return withBaggage({ 'session.id': session.id, 'user.id': tenant }, () =>
 *   withSpan({ name: 'gateway.orchestrate', kind: SpanKind.CHAIN, input: message }, run),
 * );
 */
export function withBaggage<T>(entries: BaggageEntries, fn: () => T): T {
  const active = context.active();
  let baggage = propagation.getBaggage(active) ?? propagation.createBaggage();
  for (const key of Object.values(BAGGAGE_KEYS)) {
    const value = entries[key];
    if (value !== undefined) baggage = baggage.setEntry(key, { value });
  }
  return context.with(propagation.setBaggage(active, baggage), fn);
}

/** The `session.id` in the active baggage, if any (logs include it as `session_id`). */
export function getActiveSessionId(): string | undefined {
  return propagation.getActiveBaggage()?.getEntry(BAGGAGE_KEYS.SESSION_ID)?.value;
}
