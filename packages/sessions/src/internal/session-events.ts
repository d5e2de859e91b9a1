import { Cluster, type Redis } from 'ioredis';
import { safeParseJson } from '@fleet/errors';
import { sessionEventSchema, type SessionEvent } from '../session-schema';
import type { SessionEventListener, Unsubscribe } from '../session-store-types';
import type { SessionKeys } from './session-keys';

/**
 * True when events go over sharded pub/sub (`SPUBLISH`/`SSUBSCRIBE`, Redis 7): the connection is
 * an ioredis `Cluster` created with `shardedSubscribers: true` (ioredis then keeps one subscriber
 * connection per master and sends each `SSUBSCRIBE` to the node of its channel's slot; without
 * it, an `SSUBSCRIBE` of a channel of another node's slot never completes).
 */
export function usesShardedPubSub(redis: Redis | Cluster): boolean {
  return redis instanceof Cluster && redis.options.shardedSubscribers === true;
}

/**
 * The session store's events, published on `keys.events(id)` (`fleet:{id}:events`) and read
 * through one subscriber connection (`redis.duplicate()`, opened on the first `subscribe`) that
 * hands each event to the listeners of its session. Two ways, chosen from the connection:
 *
 * - Classic pub/sub (a single Redis, or a Cluster without sharded subscribers): `PUBLISH`, and one
 *   `PSUBSCRIBE` of every session's channel for the whole store, taken once. A run's
 *   subscription then costs no round trip, and session events (decisions, answers, cancels) are
 *   rare enough for every listener of the store to receive them all and keep its own. On a
 *   Cluster a `PUBLISH` reaches the subscribers on every node (ioredis subscribes on one node).
 * - Sharded pub/sub (a Cluster with `shardedSubscribers: true`): `SPUBLISH`, and one `SSUBSCRIBE`
 *   per session channel with listeners (patterns do not exist there), dropped (`SUNSUBSCRIBE`)
 *   with its last listener. A message then stays on the node of its channel's slot instead of
 *   crossing the cluster bus to every node.
 *
 * Publishers and subscribers must use the same way (a `PUBLISH` never reaches an `SSUBSCRIBE`):
 * every service of one deployment must create its Cluster connection with the same
 * `shardedSubscribers` setting.
 */
export class SessionEventBus {
  private readonly listeners = new Map<string, Set<SessionEventListener>>();
  private subscriber: Redis | Cluster | undefined;
  private readonly sharded: boolean;
  /** The pattern subscription every `subscribe` shares, once asked for (until it fails). */
  private listening: Promise<void> | undefined;
  /** Sharded: the channels subscribed to, and each channel's subscription change under way. */
  private readonly subscribed = new Set<string>();
  private readonly syncing = new Map<string, Promise<void>>();

  constructor(
    private readonly redis: Redis | Cluster,
    private readonly keys: SessionKeys,
  ) {
    this.sharded = usesShardedPubSub(redis);
  }

  /** Publishes one event of session `id`. */
  async publish(id: string, event: SessionEvent): Promise<void> {
    const channel = this.keys.events(id);
    const text = JSON.stringify(event);
    if (this.sharded) await this.redis.spublish(channel, text);
    else await this.redis.publish(channel, text);
  }

  /** Hears the events of session `id` until the returned function is called. */
  async subscribe(id: string, listener: SessionEventListener): Promise<Unsubscribe> {
    const channel = this.keys.events(id);
    let listeners = this.listeners.get(channel);
    if (listeners === undefined) {
      listeners = new Set();
      this.listeners.set(channel, listeners);
    }
    listeners.add(listener);
    try {
      await (this.sharded ? this.sync(channel) : this.listen());
    } catch (error) {
      if (this.removeListener(channel, listener) && this.sharded) {
        await this.sync(channel).catch(() => undefined);
      }
      throw error;
    }
    let active = true;
    return async () => {
      if (!active) return;
      active = false;
      if (this.removeListener(channel, listener) && this.sharded) {
        // Best effort: a subscription left behind only delivers events nobody listens to.
        await this.sync(channel).catch(() => undefined);
      }
    };
  }

  /** Classic pub/sub: the one `PSUBSCRIBE` every subscription shares. */
  private listen(): Promise<void> {
    this.listening ??= this.subscriberConnection()
      .psubscribe(this.keys.eventsPattern())
      .then(
        () => undefined,
        (error: unknown) => {
          this.listening = undefined;
          throw error;
        },
      );
    return this.listening;
  }

  /**
   * Sharded pub/sub: brings the channel's `SSUBSCRIBE` in line with whether it has listeners,
   * after any change of it under way (one at a time per channel, so a quick unsubscribe and
   * subscribe again cannot end unsubscribed).
   */
  private sync(channel: string): Promise<void> {
    const previous = this.syncing.get(channel) ?? Promise.resolve();
    const next = previous
      .catch(() => undefined)
      .then(async () => {
        const wanted = this.listeners.has(channel);
        if (wanted === this.subscribed.has(channel)) return;
        const subscriber = this.subscriberConnection();
        if (wanted) {
          await subscriber.ssubscribe(channel);
          this.subscribed.add(channel);
        } else {
          this.subscribed.delete(channel);
          await subscriber.sunsubscribe(channel);
        }
      });
    this.syncing.set(channel, next);
    const settle = () => {
      if (this.syncing.get(channel) === next) this.syncing.delete(channel);
    };
    next.then(settle, settle);
    return next;
  }

  /** Ends every subscription and closes the subscriber connection. */
  async close(): Promise<void> {
    this.listeners.clear();
    this.listening = undefined;
    this.subscribed.clear();
    this.syncing.clear();
    const subscriber = this.subscriber;
    this.subscriber = undefined;
    if (subscriber) await subscriber.quit().catch(() => subscriber.disconnect());
  }

  /** Removes a listener; true when it was the channel's last. */
  private removeListener(channel: string, listener: SessionEventListener): boolean {
    const listeners = this.listeners.get(channel);
    if (listeners === undefined) return false;
    listeners.delete(listener);
    if (listeners.size > 0) return false;
    this.listeners.delete(channel);
    return true;
  }

  /** Hands one message of `channel` to its listeners. */
  private deliver(channel: string, text: string): void {
    const listeners = this.listeners.get(channel);
    if (listeners === undefined) return;
    const parsed = safeParseJson({ text, schema: sessionEventSchema, subject: 'A session event' });
    if (!parsed.success) return;
    for (const listener of [...listeners]) {
      try {
        listener(parsed.value);
      } catch {
        // One listener's failure must not keep the event from the others.
      }
    }
  }

  private subscriberConnection(): Redis | Cluster {
    if (this.subscriber) return this.subscriber;
    // A Cluster duplicates to a Cluster of the same nodes and options (sharded subscribers too).
    const subscriber = this.redis.duplicate();
    if (this.sharded) {
      subscriber.on('smessage', (channel: string, text: string) => this.deliver(channel, text));
    } else {
      subscriber.on('pmessage', (_pattern: string, channel: string, text: string) =>
        this.deliver(channel, text),
      );
    }
    // Errors surface on the commands; without a listener ioredis would log them as unhandled.
    subscriber.on('error', () => undefined);
    this.subscriber = subscriber;
    return subscriber;
  }
}
