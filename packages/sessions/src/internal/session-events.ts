import type { Redis } from 'ioredis';
import { safeParseJson } from '@fleet/errors';
import { sessionEventSchema, type SessionEvent } from '../session-schema';
import type { SessionEventListener, Unsubscribe } from '../session-store-types';

/**
 * The session store's events: published on `${keyPrefix}:{id}:events`, and read through one
 * subscriber connection (`redis.duplicate()`, opened on the first `subscribe`) that hands each
 * event to the listeners of its session.
 */
export class SessionEventBus {
  private readonly listeners = new Map<string, Set<SessionEventListener>>();
  private subscriber: Redis | undefined;
  /** The pattern subscription every `subscribe` shares, once asked for (until it fails). */
  private listening: Promise<void> | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix: string,
  ) {}

  /** Publishes one event of session `id`. */
  async publish(id: string, event: SessionEvent): Promise<void> {
    await this.redis.publish(this.channel(id), JSON.stringify(event));
  }

  /** Hears the events of session `id` until the returned function is called. */
  async subscribe(id: string, listener: SessionEventListener): Promise<Unsubscribe> {
    const channel = this.channel(id);
    let listeners = this.listeners.get(channel);
    if (listeners === undefined) {
      listeners = new Set();
      this.listeners.set(channel, listeners);
    }
    listeners.add(listener);
    try {
      await this.listen();
    } catch (error) {
      this.removeListener(channel, listener);
      throw error;
    }
    let active = true;
    return () => {
      if (active) {
        active = false;
        this.removeListener(channel, listener);
      }
      return Promise.resolve();
    };
  }

  /**
   * One `PSUBSCRIBE` of every session's channel for the whole store, taken once: a run's
   * subscription then costs no round trip, and session events (decisions, answers, cancels) are
   * rare enough for every listener of the store to receive them all and keep its own.
   */
  private listen(): Promise<void> {
    this.listening ??= this.subscriberConnection()
      .psubscribe(this.channelPattern())
      .then(
        () => undefined,
        (error: unknown) => {
          this.listening = undefined;
          throw error;
        },
      );
    return this.listening;
  }

  /** Ends every subscription and closes the subscriber connection. */
  async close(): Promise<void> {
    this.listeners.clear();
    this.listening = undefined;
    const subscriber = this.subscriber;
    this.subscriber = undefined;
    if (subscriber) await subscriber.quit().catch(() => subscriber.disconnect());
  }

  private channel(id: string): string {
    return `${this.keyPrefix}:${id}:events`;
  }

  /** Every session's channel: the key prefix with glob characters escaped. */
  private channelPattern(): string {
    return `${this.keyPrefix.replace(/[*?[\]\\]/g, '\\$&')}:*:events`;
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

  private subscriberConnection(): Redis {
    if (this.subscriber) return this.subscriber;
    const subscriber = this.redis.duplicate();
    subscriber.on('pmessage', (_pattern: string, channel: string, text: string) => {
      const listeners = this.listeners.get(channel);
      if (listeners === undefined) return;
      const parsed = safeParseJson({
        text,
        schema: sessionEventSchema,
        subject: 'A session event',
      });
      if (!parsed.success) return;
      for (const listener of [...listeners]) {
        try {
          listener(parsed.value);
        } catch {
          // One listener's failure must not keep the event from the others.
        }
      }
    });
    // Errors surface on the commands; without a listener ioredis would log them as unhandled.
    subscriber.on('error', () => undefined);
    this.subscriber = subscriber;
    return subscriber;
  }
}
