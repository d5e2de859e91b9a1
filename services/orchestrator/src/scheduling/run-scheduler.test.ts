import { describe, expect, it } from '@jest/globals';
import { FleetError } from '@fleet/errors';
import { RunQueueFullError, RunScheduler, type RunTicket } from './run-scheduler';

/** The order in which tickets were admitted, as admissions happen. */
function recordAdmissions(scheduler: RunScheduler): string[] {
  const order: string[] = [];
  scheduler.onAdmission(({ tenant }) => order.push(tenant));
  return order;
}

/** Enqueues a new run of `tenant` the way a request does: reserve, then enqueue. */
function start(scheduler: RunScheduler, tenant: string): RunTicket {
  return scheduler.reserve(tenant).enqueue();
}

/** Whether a ticket's admission has settled yet (without waiting for it). */
async function settled(ticket: RunTicket): Promise<boolean | 'pending'> {
  return Promise.race([ticket.admitted, Promise.resolve('pending' as const)]);
}

describe('RunScheduler', () => {
  it('admits runs at once while slots are free and queues the rest', async () => {
    const scheduler = new RunScheduler({ maxActiveRuns: 2, maxQueuedPerTenant: 10 });
    const first = start(scheduler, 'a');
    const second = start(scheduler, 'a');
    const third = start(scheduler, 'a');
    expect(await settled(first)).toBe(true);
    expect(await settled(second)).toBe(true);
    expect(await settled(third)).toBe('pending');
    expect(third.position()).toBe(1);
    expect(scheduler.snapshot()).toEqual({ active: 2, queued: { a: 1 } });
  });

  it('serves the tenants in turn: a quiet tenant waits for one slot, not behind a flood', async () => {
    const scheduler = new RunScheduler({ maxActiveRuns: 1, maxQueuedPerTenant: 100 });
    const order = recordAdmissions(scheduler);
    const running = start(scheduler, 'flood');
    const flood = Array.from({ length: 5 }, () => start(scheduler, 'flood'));
    const quiet = start(scheduler, 'quiet');
    expect(quiet.position()).toBe(1);
    running.release();
    // The flood's first waiting run had its turn first (it was waiting first), then the quiet one.
    flood[0]?.release();
    expect(await settled(quiet)).toBe(true);
    expect(order).toEqual(['flood', 'flood', 'quiet']);
  });

  it('alternates between tenants and keeps each tenant’s runs in FIFO order', () => {
    const scheduler = new RunScheduler({ maxActiveRuns: 1, maxQueuedPerTenant: 100 });
    const blocker = start(scheduler, 'x');
    const names = ['a1', 'a2', 'a3', 'b1', 'b2', 'c1'];
    const tickets = new Map(names.map((name) => [name, start(scheduler, name.slice(0, 1))]));
    const order: string[] = [];
    blocker.release();
    for (let step = 0; step < names.length; step += 1) {
      // Exactly one run holds the slot: release it, which admits the next one.
      const active = [...tickets].find(([, ticket]) => ticket.position() === 0);
      if (active === undefined) break;
      order.push(active[0]);
      tickets.delete(active[0]);
      active[1].release();
    }
    expect(order).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3']);
    expect(scheduler.snapshot()).toEqual({ active: 0, queued: {} });
  });

  it('refuses a new run when its tenant’s queue is full, with RATE_LIMITED and a wait', () => {
    const scheduler = new RunScheduler({ maxActiveRuns: 1, maxQueuedPerTenant: 2 });
    start(scheduler, 'a');
    start(scheduler, 'a');
    start(scheduler, 'a');
    let refused: unknown;
    try {
      scheduler.reserve('a');
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(RunQueueFullError);
    expect(FleetError.isInstance(refused) && refused.code).toBe('RATE_LIMITED');
    expect(FleetError.isInstance(refused) && refused.status).toBe(429);
    expect(FleetError.isInstance(refused) && refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    // Another tenant still gets in line.
    expect(() => scheduler.reserve('b')).not.toThrow();
  });

  it('counts reservations not yet enqueued against the bound (a burst cannot overrun it)', () => {
    const scheduler = new RunScheduler({ maxActiveRuns: 1, maxQueuedPerTenant: 2 });
    const reservations = [scheduler.reserve('a'), scheduler.reserve('a'), scheduler.reserve('a')];
    expect(() => scheduler.reserve('a')).toThrow(RunQueueFullError);
    reservations[2]?.cancel();
    expect(() => scheduler.reserve('a')).not.toThrow();
  });

  it('never refuses a resumed run, and puts it before its tenant’s waiting runs', async () => {
    const scheduler = new RunScheduler({ maxActiveRuns: 1, maxQueuedPerTenant: 0 });
    const running = start(scheduler, 'a');
    expect(() => scheduler.reserve('a')).toThrow(RunQueueFullError);
    const resumed = scheduler.enqueue('a', { front: true });
    expect(resumed.position()).toBe(1);
    running.release();
    expect(await settled(resumed)).toBe(true);
  });

  it('frees the slot when a run ends, whether it completed, failed or was canceled', async () => {
    const scheduler = new RunScheduler({ maxActiveRuns: 1, maxQueuedPerTenant: 10 });
    const ended = start(scheduler, 'a');
    const next = start(scheduler, 'b');
    const last = start(scheduler, 'c');
    ended.release();
    expect(await settled(next)).toBe(true);
    // Released twice (a failure path and a finally): the slot is given back once.
    next.release();
    next.release();
    expect(await settled(last)).toBe(true);
    expect(scheduler.snapshot()).toEqual({ active: 1, queued: {} });
  });

  it('lets a run canceled while it waits leave the queue without taking a slot', async () => {
    const scheduler = new RunScheduler({ maxActiveRuns: 1, maxQueuedPerTenant: 10 });
    const running = start(scheduler, 'a');
    const canceled = start(scheduler, 'b');
    const after = start(scheduler, 'b');
    canceled.release();
    expect(await canceled.admitted).toBe(false);
    expect(after.position()).toBe(1);
    running.release();
    expect(await settled(after)).toBe(true);
    expect(scheduler.snapshot()).toEqual({ active: 1, queued: {} });
  });

  it('loses no wake-up: every slot freed goes to a waiting run until none waits', async () => {
    const scheduler = new RunScheduler({ maxActiveRuns: 3, maxQueuedPerTenant: 50 });
    const tickets = Array.from({ length: 30 }, (_, index) => start(scheduler, `t${index % 4}`));
    let finished = 0;
    await Promise.all(
      tickets.map(async (ticket) => {
        if (!(await ticket.admitted)) return;
        expect(scheduler.snapshot().active).toBeLessThanOrEqual(3);
        await Promise.resolve();
        finished += 1;
        ticket.release();
      }),
    );
    expect(finished).toBe(30);
    expect(scheduler.snapshot()).toEqual({ active: 0, queued: {} });
  });

  it('with maxActiveRuns 0 starts every run at once and refuses none', async () => {
    const scheduler = new RunScheduler({ maxActiveRuns: 0, maxQueuedPerTenant: 0 });
    const tickets = Array.from({ length: 50 }, () => start(scheduler, 'a'));
    for (const ticket of tickets) expect(await settled(ticket)).toBe(true);
    expect(scheduler.snapshot().active).toBe(50);
  });

  it('reports how long each run waited for its slot', () => {
    let now = 0;
    const scheduler = new RunScheduler({
      maxActiveRuns: 1,
      maxQueuedPerTenant: 10,
      now: () => now,
    });
    const waits: number[] = [];
    scheduler.onAdmission(({ waitedMs }) => waits.push(waitedMs));
    const first = start(scheduler, 'a');
    start(scheduler, 'b');
    now = 250;
    first.release();
    expect(waits).toEqual([0, 250]);
  });

  it('keeps the slots above a tenant’s cap for other tenants, whose runs then start at once', async () => {
    const scheduler = new RunScheduler({
      maxActiveRuns: 4,
      maxQueuedPerTenant: 10,
      maxActivePerTenant: 2,
    });
    const [first, second, third] = Array.from({ length: 4 }, () => start(scheduler, 'flood')) as [
      RunTicket,
      RunTicket,
      RunTicket,
      RunTicket,
    ];
    expect(await settled(first)).toBe(true);
    expect(await settled(second)).toBe(true);
    expect(third.position()).toBe(1);
    expect(scheduler.snapshot()).toEqual({ active: 2, queued: { flood: 2 } });
    const quiet = start(scheduler, 'quiet');
    expect(await settled(quiet)).toBe(true);
    // A flood run that ends lets its tenant's next one in; the quiet run's end frees no flood slot.
    quiet.release();
    expect(await settled(third)).toBe('pending');
    first.release();
    expect(await settled(third)).toBe(true);
    expect(scheduler.snapshot()).toEqual({ active: 2, queued: { flood: 1 } });
  });

  it('refuses by the tenant’s own cap even when slots are free', () => {
    const scheduler = new RunScheduler({
      maxActiveRuns: 10,
      maxQueuedPerTenant: 1,
      maxActivePerTenant: 1,
    });
    start(scheduler, 'a');
    start(scheduler, 'a');
    expect(() => scheduler.reserve('a')).toThrow(RunQueueFullError);
    expect(() => scheduler.reserve('b')).not.toThrow();
  });

  it('a run parked for a person frees its slot for the tenant, and counts again once decided', async () => {
    const scheduler = new RunScheduler({
      maxActiveRuns: 4,
      maxQueuedPerTenant: 10,
      maxActivePerTenant: 1,
    });
    const waiting = start(scheduler, 'a');
    const next = start(scheduler, 'a');
    expect(await settled(next)).toBe('pending');
    // Two of its steps wait for people: parked until the last one is decided.
    waiting.park();
    waiting.park();
    expect(await settled(next)).toBe(true);
    const third = start(scheduler, 'a');
    waiting.unpark();
    expect(scheduler.snapshot().active).toBe(1);
    waiting.unpark();
    // Back at once, over the tenant's cap for a while; the queue waits for both to end.
    expect(scheduler.snapshot()).toEqual({ active: 2, queued: { a: 1 } });
    next.release();
    expect(await settled(third)).toBe('pending');
    waiting.release();
    expect(await settled(third)).toBe(true);
    expect(scheduler.snapshot()).toEqual({ active: 1, queued: {} });
  });

  it('a run released while parked is not counted out twice', async () => {
    const scheduler = new RunScheduler({ maxActiveRuns: 1, maxQueuedPerTenant: 10 });
    const parked = start(scheduler, 'a');
    parked.park();
    const other = start(scheduler, 'b');
    expect(await settled(other)).toBe(true);
    parked.release();
    parked.unpark();
    expect(scheduler.snapshot()).toEqual({ active: 1, queued: {} });
    other.release();
    expect(scheduler.snapshot()).toEqual({ active: 0, queued: {} });
  });
});
