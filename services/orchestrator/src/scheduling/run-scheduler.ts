import { FleetError } from '@fleet/errors';

/**
 * A new run refused because its tenant already has as many runs waiting as it may
 * (ORCHESTRATOR_MAX_QUEUED_RUNS_PER_TENANT): `RATE_LIMITED`, which the gateway answers as a 429
 * `rate_limit_error` with `Retry-After`.
 */
export class RunQueueFullError extends FleetError {
  constructor({
    tenant,
    queued,
    retryAfterSeconds,
  }: {
    tenant: string;
    queued: number;
    retryAfterSeconds: number;
  }) {
    super(
      'RATE_LIMITED',
      `Too many runs of this tenant are waiting (${queued}): the orchestrator is busy and runs each tenant's runs in turn. Retry after ${retryAfterSeconds} s.`,
      { retryAfterSeconds, details: { tenant, queued, retryAfterSeconds } },
    );
  }
}

/** Options for {@link RunScheduler}. */
export interface RunSchedulerOptions {
  /** Runs executing at once (ORCHESTRATOR_MAX_ACTIVE_RUNS); 0: no limit, nothing waits. */
  maxActiveRuns: number;
  /** Runs of one tenant that may wait (ORCHESTRATOR_MAX_QUEUED_RUNS_PER_TENANT). */
  maxQueuedPerTenant: number;
  /**
   * Runs of one tenant executing at once (ORCHESTRATOR_MAX_ACTIVE_RUNS_PER_TENANT): the slots
   * above it stay free for other tenants, whose runs then start without waiting. 0: no cap but
   * `maxActiveRuns`. @default 0
   */
  maxActivePerTenant?: number | undefined;
  /** Milliseconds since some origin. @default performance.now */
  now?: () => number;
}

/** A run's place: waiting in its tenant's queue, then holding a slot until released. */
export interface RunTicket {
  readonly tenant: string;
  /** Resolves true once the run holds a slot; false when it was released while it waited. */
  readonly admitted: Promise<boolean>;
  /** Its place in its tenant's queue, from 1; 0 once admitted or released. */
  position(): number;
  /** Gives the slot back, or leaves the queue. Idempotent. */
  release(): void;
  /**
   * The run waits for a person (a step's approval or question): while parked it does not count
   * against the caps, so the tenant's other runs are admitted. Counted: two steps of one run may
   * wait at once; the run is parked until the last of them is decided.
   */
  park(): void;
  /**
   * The decision came: the run counts again at once, without queueing (it was admitted before,
   * and its other branches may never have stopped), even if that briefly puts it over a cap.
   */
  unpark(): void;
}

/** A place kept for a new run between its request and its start (see {@link RunScheduler.reserve}). */
export interface RunReservation {
  /** The run starts: it takes its place in the queue (or a free slot) now. Once only. */
  enqueue(): RunTicket;
  /** The run never started: the place is given back. A no-op after {@link enqueue}. */
  cancel(): void;
}

/** How one run was admitted, for the wait histogram. */
export interface Admission {
  tenant: string;
  waitedMs: number;
}

/** What the scheduler holds right now, for metrics. */
export interface SchedulerSnapshot {
  active: number;
  /** Waiting runs by tenant (tenants with none are left out). */
  queued: Record<string, number>;
}

interface Entry {
  tenant: string;
  state: 'waiting' | 'active' | 'released';
  /** Steps of an active run waiting for a person; counted out of the caps while above 0. */
  parked: number;
  enqueuedAt: number;
  resolve: (admitted: boolean) => void;
}

/**
 * Fair admission of runs on one orchestrator (docs/architecture.md §5, "Scheduling"): at most
 * `maxActiveRuns` execute at once; the others wait in one FIFO queue per tenant, and a freed slot
 * goes to the tenants with waiting runs in turn (round-robin), so a tenant that sends a hundred
 * runs waits behind its own, while another tenant's run waits for one slot at most — or for none,
 * with `maxActivePerTenant`: a tenant's runs beyond it wait even when slots are free, which keeps
 * those slots for the others. A new run is
 * refused ({@link RunQueueFullError}) when it would wait and its tenant already has
 * `maxQueuedPerTenant` runs waiting or about to. Resumed runs are never refused and wait at the
 * front of their tenant's queue.
 *
 * @example
 * const scheduler = new RunScheduler({ maxActiveRuns: 16, maxActivePerTenant: 3, maxQueuedPerTenant: 100 });
 * const ticket = scheduler.reserve('tenant-a').enqueue();
 * if (await ticket.admitted) {
 *   try { await run(); } finally { ticket.release(); }
 * }
 */
export class RunScheduler {
  readonly maxActiveRuns: number;
  readonly maxQueuedPerTenant: number;
  readonly maxActivePerTenant: number;
  private readonly now: () => number;
  private active = 0;
  private readonly activeBy = new Map<string, number>();
  private readonly queues = new Map<string, Entry[]>();
  /** Tenants with waiting runs, in the order their turn comes. */
  private readonly turns: string[] = [];
  private readonly reserved = new Map<string, number>();
  private readonly listeners = new Set<(admission: Admission) => void>();

  constructor({
    maxActiveRuns,
    maxQueuedPerTenant,
    maxActivePerTenant = 0,
    now = () => performance.now(),
  }: RunSchedulerOptions) {
    this.maxActiveRuns = maxActiveRuns;
    this.maxQueuedPerTenant = maxQueuedPerTenant;
    this.maxActivePerTenant = maxActivePerTenant;
    this.now = now;
  }

  /**
   * Keeps a place for a new run of `tenant` before its task and session exist, so a burst of
   * requests cannot overrun the tenant's bound while they are being set up.
   *
   * @throws RunQueueFullError when the run would have to wait and the tenant's queue is full.
   */
  reserve(tenant: string): RunReservation {
    const waiting = this.waitingOf(tenant) + (this.reserved.get(tenant) ?? 0);
    // Reservations that will find a slot free when they start are not waiting runs.
    if (this.wouldWait(tenant) && waiting >= this.maxQueuedPerTenant + this.freeSlots(tenant)) {
      throw new RunQueueFullError({
        tenant,
        queued: waiting,
        retryAfterSeconds: Math.max(1, Math.ceil(waiting / Math.max(1, this.maxActiveRuns))),
      });
    }
    this.reserved.set(tenant, (this.reserved.get(tenant) ?? 0) + 1);
    let used = false;
    const giveBack = (): void => {
      const count = (this.reserved.get(tenant) ?? 1) - 1;
      if (count <= 0) this.reserved.delete(tenant);
      else this.reserved.set(tenant, count);
    };
    return {
      enqueue: () => {
        if (used) throw new Error('The reservation was used already.');
        used = true;
        giveBack();
        return this.enqueue(tenant);
      },
      cancel: () => {
        if (used) return;
        used = true;
        giveBack();
      },
    };
  }

  /**
   * Queues a run of `tenant` without a bound (a resumed session, which was admitted once): it
   * gets a free slot at once, or waits (`front`: before its tenant's other waiting runs).
   */
  enqueue(tenant: string, { front = false }: { front?: boolean } = {}): RunTicket {
    let resolve: (admitted: boolean) => void = () => undefined;
    const admitted = new Promise<boolean>((done) => {
      resolve = done;
    });
    const entry: Entry = { tenant, state: 'waiting', parked: 0, enqueuedAt: this.now(), resolve };
    // Runs waiting while slots are free wait for their tenant's cap: they are not passed over.
    if (this.unlimited() || (this.canStart(tenant) && !this.queues.has(tenant))) {
      this.admit(entry);
    } else {
      let queue = this.queues.get(tenant);
      if (queue === undefined) {
        queue = [];
        this.queues.set(tenant, queue);
        this.turns.push(tenant);
      }
      if (front) queue.unshift(entry);
      else queue.push(entry);
    }
    return {
      tenant,
      admitted,
      position: () =>
        entry.state === 'waiting' ? (this.queues.get(tenant)?.indexOf(entry) ?? -1) + 1 : 0,
      release: () => this.release(entry),
      park: () => this.park(entry),
      unpark: () => this.unpark(entry),
    };
  }

  /** Calls `listener` on every admission; returns its removal. */
  onAdmission(listener: (admission: Admission) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Runs executing and waiting now. */
  snapshot(): SchedulerSnapshot {
    const queued: Record<string, number> = {};
    for (const [tenant, queue] of this.queues) queued[tenant] = queue.length;
    return { active: this.active, queued };
  }

  private unlimited(): boolean {
    return this.maxActiveRuns <= 0;
  }

  /** True when a run of `tenant` may take a slot now (one is free and the tenant is under its cap). */
  private canStart(tenant: string): boolean {
    return this.active < this.maxActiveRuns && this.tenantRoom(tenant, 0) > 0;
  }

  /** How many more runs of `tenant` its cap allows beyond `pending` of its own. */
  private tenantRoom(tenant: string, pending: number): number {
    if (this.maxActivePerTenant <= 0) return Number.POSITIVE_INFINITY;
    return this.maxActivePerTenant - (this.activeBy.get(tenant) ?? 0) - pending;
  }

  /** True when a run of `tenant` arriving now would not find a slot it may take. */
  private wouldWait(tenant: string): boolean {
    if (this.unlimited()) return false;
    let pending = this.active;
    for (const queue of this.queues.values()) pending += queue.length;
    for (const count of this.reserved.values()) pending += count;
    const own = this.waitingOf(tenant) + (this.reserved.get(tenant) ?? 0);
    return pending >= this.maxActiveRuns || this.tenantRoom(tenant, own) <= 0;
  }

  /** Slots a run of `tenant` could still take: free ones, within its cap (reservations not counted). */
  private freeSlots(tenant: string): number {
    let taken = this.active;
    for (const queue of this.queues.values()) taken += queue.length;
    const free = Math.min(
      this.maxActiveRuns - taken,
      this.tenantRoom(tenant, this.waitingOf(tenant)),
    );
    return Math.max(0, free);
  }

  private waitingOf(tenant: string): number {
    return this.queues.get(tenant)?.length ?? 0;
  }

  private admit(entry: Entry): void {
    entry.state = 'active';
    this.active += 1;
    this.activeBy.set(entry.tenant, (this.activeBy.get(entry.tenant) ?? 0) + 1);
    const admission = { tenant: entry.tenant, waitedMs: this.now() - entry.enqueuedAt };
    for (const listener of this.listeners) {
      try {
        listener(admission);
      } catch {
        // A metrics listener must never break admission.
      }
    }
    entry.resolve(true);
  }

  private release(entry: Entry): void {
    if (entry.state === 'released') return;
    const was = entry.state;
    entry.state = 'released';
    if (was === 'waiting') {
      this.leaveQueue(entry);
      entry.resolve(false);
      return;
    }
    // A parked run was counted out already.
    if (entry.parked === 0) this.countOut(entry.tenant);
    entry.parked = 0;
    this.admitNext();
  }

  private park(entry: Entry): void {
    if (entry.state !== 'active') return;
    entry.parked += 1;
    if (entry.parked > 1) return;
    this.countOut(entry.tenant);
    this.admitNext();
  }

  private unpark(entry: Entry): void {
    if (entry.state !== 'active' || entry.parked === 0) return;
    entry.parked -= 1;
    if (entry.parked > 0) return;
    this.active += 1;
    this.activeBy.set(entry.tenant, (this.activeBy.get(entry.tenant) ?? 0) + 1);
  }

  /** One run of `tenant` no longer counts against the caps. */
  private countOut(tenant: string): void {
    this.active -= 1;
    const own = (this.activeBy.get(tenant) ?? 1) - 1;
    if (own <= 0) this.activeBy.delete(tenant);
    else this.activeBy.set(tenant, own);
  }

  private leaveQueue(entry: Entry): void {
    const queue = this.queues.get(entry.tenant);
    if (queue === undefined) return;
    const index = queue.indexOf(entry);
    if (index !== -1) queue.splice(index, 1);
    if (queue.length === 0) this.dropTenant(entry.tenant);
  }

  private dropTenant(tenant: string): void {
    this.queues.delete(tenant);
    const turn = this.turns.indexOf(tenant);
    if (turn !== -1) this.turns.splice(turn, 1);
  }

  /**
   * Fills free slots from the tenants' queues in turn: one run per tenant per turn; a tenant at
   * its cap is passed (to the back of the rotation) until one of its runs ends.
   */
  private admitNext(): void {
    let passed = 0;
    while (this.active < this.maxActiveRuns && passed < this.turns.length) {
      const tenant = this.turns.shift();
      if (tenant === undefined) return;
      if (!this.canStart(tenant)) {
        this.turns.push(tenant);
        passed += 1;
        continue;
      }
      passed = 0;
      const queue = this.queues.get(tenant);
      const entry = queue?.shift();
      if (queue === undefined || entry === undefined) {
        this.queues.delete(tenant);
        continue;
      }
      if (queue.length === 0) this.queues.delete(tenant);
      else this.turns.push(tenant);
      this.admit(entry);
    }
  }
}
