/** Options for {@link FairQueue}. */
export interface FairQueueOptions {
  /** Items waiting in all, every tenant together. */
  maxQueued: number;
  /** Items one tenant may have waiting. */
  maxQueuedPerTenant: number;
  /** Items of one tenant taken (running) at once; more of its items wait. */
  maxRunningPerTenant: number;
}

/** Why {@link FairQueue.admit} refused an item: the whole queue, or the tenant's share, is full. */
export type QueueRefusal = 'pool' | 'tenant';

/**
 * A queue of work served fairly between tenants: one FIFO per tenant, served round-robin (the
 * next item is the oldest of the tenant served least recently, so a tenant that just had its turn
 * waits behind one that arrived after it), and a tenant never has more than
 * `maxRunningPerTenant` items running. A tenant that queues ten heavy items therefore delays only
 * its own: another tenant's item is taken as soon as a runner is free. Admission is bounded in
 * all and per tenant, so memory held by waiting items is bounded and one tenant cannot fill the
 * whole queue.
 *
 * @example
 * const queue = new FairQueue<Job>({ maxQueued: 32, maxQueuedPerTenant: 16, maxRunningPerTenant: 1 });
 * if (queue.admit('acme') === undefined) queue.push('acme', job);
 * const next = queue.take(); // … later: queue.done(next.tenant)
 */
export class FairQueue<T> {
  /** Waiting items per tenant, in the order the tenants first queued. */
  private readonly waiting = new Map<string, T[]>();
  private readonly running = new Map<string, number>();
  /** When each tenant with work waiting or running was last served (a rising serial). */
  private readonly served = new Map<string, number>();
  private serial = 0;
  private count = 0;
  private readonly options: FairQueueOptions;

  constructor(options: FairQueueOptions) {
    for (const [name, value] of Object.entries(options)) {
      if (!Number.isInteger(value) || (value as number) < 1) {
        throw new TypeError(`${name} must be a positive integer, got ${String(value)}`);
      }
    }
    this.options = { ...options };
  }

  /** Items waiting, every tenant together. */
  get size(): number {
    return this.count;
  }

  /** Items of `tenant` waiting. */
  queuedFor(tenant: string): number {
    return this.waiting.get(tenant)?.length ?? 0;
  }

  /** Items of `tenant` taken and not yet done. */
  runningFor(tenant: string): number {
    return this.running.get(tenant) ?? 0;
  }

  /** Items taken and not yet done, every tenant together. */
  get runningTotal(): number {
    let total = 0;
    for (const count of this.running.values()) total += count;
    return total;
  }

  /** Undefined when `tenant` may queue one more item; otherwise which bound is full. */
  admit(tenant: string): QueueRefusal | undefined {
    if (this.queuedFor(tenant) >= this.options.maxQueuedPerTenant) return 'tenant';
    if (this.count >= this.options.maxQueued) return 'pool';
    return undefined;
  }

  /** Adds an item at the end of its tenant's line (check {@link admit} first). */
  push(tenant: string, item: T): void {
    const line = this.waiting.get(tenant);
    if (line === undefined) this.waiting.set(tenant, [item]);
    else line.push(item);
    this.count += 1;
  }

  /** Removes a waiting item (e.g. its caller gave up); false when it is not waiting. */
  remove(tenant: string, item: T): boolean {
    const line = this.waiting.get(tenant);
    const index = line?.indexOf(item) ?? -1;
    if (line === undefined || index < 0) return false;
    line.splice(index, 1);
    if (line.length === 0) this.waiting.delete(tenant);
    this.count -= 1;
    this.forgetIdle(tenant);
    return true;
  }

  /**
   * The next item to run: the oldest of the tenant served least recently (never served first)
   * among those under their running cap. Undefined when nothing may run now.
   */
  take(): { tenant: string; item: T } | undefined {
    let chosen: { tenant: string; line: T[]; served: number } | undefined;
    for (const [tenant, line] of this.waiting) {
      if (this.runningFor(tenant) >= this.options.maxRunningPerTenant) continue;
      const served = this.served.get(tenant) ?? -1;
      if (chosen === undefined || served < chosen.served) chosen = { tenant, line, served };
    }
    if (chosen === undefined) return undefined;
    const { tenant, line } = chosen;
    const item = line.shift();
    if (item === undefined) return undefined;
    if (line.length === 0) this.waiting.delete(tenant);
    this.count -= 1;
    this.running.set(tenant, this.runningFor(tenant) + 1);
    this.serial += 1;
    this.served.set(tenant, this.serial);
    return { tenant, item };
  }

  /** Marks one of `tenant`'s taken items finished. */
  done(tenant: string): void {
    const count = this.runningFor(tenant) - 1;
    if (count > 0) this.running.set(tenant, count);
    else this.running.delete(tenant);
    this.forgetIdle(tenant);
  }

  /** A tenant with nothing waiting or running has no turn to remember. */
  private forgetIdle(tenant: string): void {
    if (!this.waiting.has(tenant) && !this.running.has(tenant)) this.served.delete(tenant);
  }

  /** Removes and returns every waiting item (the pool is closing). */
  drain(): { tenant: string; item: T }[] {
    const drained = [...this.waiting].flatMap(([tenant, line]) =>
      line.map((item) => ({ tenant, item })),
    );
    this.waiting.clear();
    this.count = 0;
    return drained;
  }
}
